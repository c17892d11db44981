"""The one place that refuses request data no database can store.

PostgreSQL text cannot hold a NUL, and no database stores a lone surrogate: a value
carrying one that reached a query was a server error. No page of the site sends
either, so a request that holds one, anywhere (its path, query, cookies, form body
or JSON body), is refused before any view, with the site's 400 page. A JSON body
nested deeper than any the site reads is refused too: Python's parser gives up
with a RecursionError at about a thousand levels, and the views read a few.

URL slots take only what the site could have made (the converters of
`games.converters`), and forms their fields' own limits: this is the net under
them. Sockets get the same check at the handshake (`RefuseUnstorableSocket`);
their frames are read by each consumer, which answers a bad one.
"""

from __future__ import annotations

import json

from django.http import Http404, HttpRequest, QueryDict
from django.http.cookie import parse_cookie
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.views.decorators.csrf import requires_csrf_token

# The largest id a row can have: every id column is a 64-bit integer (BigAutoField, and
# SQLite's INTEGER). A larger one in a URL's int slot names no row, and a query that
# carries it fails (Python ints do not fit the column) instead of finding nothing.
MAX_ID = 2**63 - 1
# Deeper than any JSON a page or script of the site sends (a push subscription: two levels).
MAX_JSON_DEPTH = 32


def storable(text: str) -> bool:
    """Whether `text` can reach any database: no NUL, no lone surrogate."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _all_storable(items) -> bool:
    return all(storable(key) and storable(value) for key, value in items)


def _all_storable_lists(data) -> bool:
    return all(storable(key) and all(storable(value) for value in values) for key, values in data.lists())


def _json_refused(body: bytes) -> bool:
    """A JSON body that holds unstorable text or is nested too deep (a body that is not
    JSON at all is the view's to answer)."""
    try:
        data = json.loads(body)
    except RecursionError:
        return True
    except ValueError:
        return b"\x00" in body
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return True
        if isinstance(value, str):
            if not storable(value):
                return True
        elif isinstance(value, dict):
            if not all(storable(key) for key in value):
                return True
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
    return False


def ids_in_range(values) -> bool:
    """Whether every int among a URL's values (its int slots) can be the id of a row."""
    return all(not isinstance(value, int) or 0 <= value <= MAX_ID for value in values)


def refused(request: HttpRequest) -> bool:
    """Whether the request holds what no database stores. Cookies count: Django decodes
    a quoted cookie's octal escapes, so `sessionid="\\000..."` is a NUL session key."""
    if not storable(request.path_info) or not _all_storable_lists(request.GET):
        return True
    if not _all_storable(request.COOKIES.items()):
        return True
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return False
    if request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        try:
            return not _all_storable_lists(request.POST)
        except MultiPartParserError:
            return True
    # Any other body is read as JSON by the views that read one, whatever its content type says.
    return _json_refused(request.body)


@requires_csrf_token
def bad_request(request, exception=None):
    """The site's 400 page (handler400, and the refusal of RefuseUnstorableInput)."""
    return render(request, "400.html", status=400)


class RefuseUnstorableInput:
    """Middleware, placed before anything that reads the session, the user or the data."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if refused(request):
            _forget_the_visitor(request)
            return bad_request(request)
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not ids_in_range([*view_args, *view_kwargs.values()]):
            raise Http404
        return None


def _forget_the_visitor(request) -> None:
    """The 400 page shows the header of an anonymous visitor: a session or user read
    from a forged cookie would be the query this refusal keeps from the database."""
    from django.contrib.auth.models import AnonymousUser
    from django.contrib.sessions.backends.base import SessionBase

    if not _all_storable(request.COOKIES.items()):
        request.session = SessionBase()
        request.user = AnonymousUser()


class RefuseUnstorableSocket:
    """ASGI middleware, outside the one that reads the session: a socket whose path,
    query or cookies hold what no database stores, or whose path holds an id no row can
    have, is refused at the handshake (as a table that does not exist is)."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and socket_refused(scope):
            message = await receive()
            if message["type"] == "websocket.connect":
                await send({"type": "websocket.close"})  # before accepting: the handshake is refused
            return None
        return await self.inner(scope, receive, send)


def socket_refused(scope) -> bool:
    path = scope.get("path", "")
    query = QueryDict(scope.get("query_string", b""))
    cookies = {}
    for name, value in scope.get("headers") or ():
        if name == b"cookie":
            cookies.update(parse_cookie(value.decode("latin-1")))
    ids = [int(part) for part in path.split("/") if part.isdecimal() and part.isascii()]
    return (
        not storable(path)
        or not _all_storable_lists(query)
        or not _all_storable(cookies.items())
        or not ids_in_range(ids)
    )
