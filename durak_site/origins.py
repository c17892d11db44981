"""The websocket Origin check: the same rule as Django's CSRF origin check.

A browser opening a websocket sends the page's Origin. It is accepted only when
it is this site's own origin — scheme, host and port of the request (its Host
header, which must be in ALLOWED_HOSTS, and https when the socket is wss or the
trusted proxy header says so) — or one of CSRF_TRUSTED_ORIGINS (a `*.` there
allows subdomains, as for CSRF). Comparing the host alone would let a page
served from another port or scheme of the same host (`http://127.0.0.1:9999`)
drive a player's socket.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import is_same_domain, split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443}


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            try:
                return value.decode("latin-1")
            except UnicodeDecodeError:
                return None
    return None


def _origin_parts(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an origin, the default port filled in; None when malformed."""
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port if port is not None else DEFAULT_PORTS[parts.scheme]


def _is_secure(scope) -> bool:
    if scope.get("scheme") in ("wss", "https"):
        return True
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy:
        meta_name, secure_value = proxy
        name = meta_name.removeprefix("HTTP_").lower().replace("_", "-").encode("latin-1")
        value = _header(scope, name)
        if value is not None and value.split(",")[0].strip() == secure_value:
            return True
    return False


def site_origin(scope) -> str | None:
    """This site's origin as the socket's request names it, or None (no valid, allowed Host)."""
    host = None
    if getattr(settings, "USE_X_FORWARDED_HOST", False):
        host = _header(scope, b"x-forwarded-host")
    host = host or _header(scope, b"host")
    if not host:
        return None
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, allowed):
        return None
    return f"{'https' if _is_secure(scope) else 'http'}://{host}"


def origin_allowed(scope) -> bool:
    origin = _header(scope, b"origin")
    if not origin:
        return False
    parts = _origin_parts(origin)
    if parts is None:
        return False
    own = site_origin(scope)
    if own is not None and _origin_parts(own) == parts:
        return True
    scheme, host, port = parts
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        if "*" in trusted:
            # "https://*.example.com": that scheme, any subdomain (as Django's CSRF check)
            pattern = _origin_parts(trusted.replace("*", "wildcard", 1))
            if pattern is None:
                continue
            pattern_domain = urlsplit(trusted.lower()).netloc.split(":")[0].replace("*", "", 1)
            if scheme == pattern[0] and port == pattern[2] and is_same_domain(host, pattern_domain):
                return True
        elif _origin_parts(trusted) == parts:
            return True
    return False


class SameOriginValidator:
    """ASGI middleware: a websocket whose Origin is not this site's is refused at the handshake."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not origin_allowed(scope):
            message = await receive()  # the client's websocket.connect
            if message.get("type") == "websocket.connect":
                await send({"type": "websocket.close", "code": 403})
            return None
        return await self.application(scope, receive, send)
