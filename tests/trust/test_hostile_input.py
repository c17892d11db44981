"""Hostile input never answers 5xx, on SQLite and on PostgreSQL (whose text cannot hold a NUL).

The reproductions first, each by name; then the walkers, which keep no list of pages:
every pattern of the URL resolver and every websocket route of the ASGI router is
filled with hostile values (in its slots, in the common query and form fields, and in
the fields its own page shows), and sent as an anonymous visitor and as a member, GET
and POST; every endpoint that answers JSON gets malformed JSON bodies, every socket
malformed frames. A new view is walked without anyone adding it.

`test_the_hostile_walk_on_postgresql` runs this module again on PostgreSQL (the
production database of docs/scaling.md), in a process of its own.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from durak_site.routing import websocket_urlpatterns
from games import engine
from games.services import tables as table_services
from tests.support import sockets
from tests.support.games import latest_game, make_user
from tests.tournaments.helpers import make_event
from tournaments import services as tournament_services
from tournaments.directors import DIRECTORS_GROUP
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
ON_POSTGRESQL = "DURAK_HOSTILE_ON_POSTGRESQL"

# What a stranger types or forges. Each is a str put into a slot, a query or a form
# field; INVALID_UTF8 goes out as the raw byte %FF instead.
INVALID_UTF8 = "%FF"
HOSTILE = {
    "NUL": "\x00",
    "NUL inside": "a\x00b",
    "invalid UTF-8": INVALID_UTF8,
    "3,000 characters": "щ" * 3000,
    "right-to-left marks": "\u202eabc\u200f",
    "-1": "-1",
    "20 digits": "9" * 20,
}
# Fields many pages read; each page's own fields are read off its form (FIELD_RE).
COMMON_FIELDS = ("q", "page", "next", "username", "partner", "name", "token", "variant", "id", "action")
FIELD_RE = re.compile(r'<(?:input|select|textarea|button)\b[^>]*\bname="([^"]+)"')
# The admin lets only staff past its door (a redirect to its login): two values show the door
# holds; all of them on its 200 pages would add only time. Its pages open to all get every value.
ADMIN_VALUES = ("NUL inside", "20 digits")

BAD_REQUEST_RU = "Неверный запрос"
NOT_FOUND_RU = "Страница не найдена"


def encoded(value: str) -> str:
    """`value` as it stands in a URL (a path segment or a query/form value)."""
    return value if value == INVALID_UTF8 else quote(value, safe="")


def form_body(fields: dict[str, str]) -> str:
    return "&".join(f"{quote(name, safe='')}={encoded(value)}" for name, value in fields.items())


def text_of(response) -> str:
    return response.content.decode("utf-8", "replace")


# ---------------------------------------------------------------- the world the walk meets


@pytest.fixture
def world():
    """A member at a dealt table, a private table with its invite link, an event he entered,
    a pair: the ids and names a URL slot can hold when it is not the hostile one."""
    member = make_user("walker")
    rival = make_user("rival")
    table = table_services.do_create_table(
        rules=engine.Rules(players=2), host=member, seat_users=[member, rival], start=True
    )
    private = table_services.do_create_table(rules=engine.Rules(players=2), host=member, is_private=True)
    event = make_event(table_size=2)
    tournament_services.do_register(tournament_id=event.pk, user=member)
    pair = tournament_services.do_invite_partner(user=member, partner=rival)
    ints = [str(pk) for pk in (table.pk, latest_game(table).pk, event.pk, pair.pk, private.pk)]
    strs = [member.username, "podkidnoy", private.invite_token]
    return {"member": member, "ints": ints, "strs": strs, "event": event, "table": table}


@pytest.fixture
def push_on(settings):
    """Web Push set up, as in production: the subscription endpoint reads its body."""
    settings.VAPID_PUBLIC_KEY = "BExamplePublicKey"
    settings.VAPID_PRIVATE_KEY = "examplePrivateKey"
    settings.VAPID_SUBJECT = "mailto:club@club.example"


def client_of(user=None) -> Client:
    """A browser that gets the site's answers, a server error included, instead of its exceptions."""
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


# ---------------------------------------------------------------- the reproductions


def refused_with_the_sites_page(response, status: int, title: str) -> None:
    assert response.status_code == status, response.status_code
    page = text_of(response)
    assert f"<h1>{title}</h1>" in page, page[:500]


@pytest.mark.parametrize(
    "path",
    [
        "/players/%00/",
        "/players/a%00b/",
        "/ratings/podkidnoy/players/%00/",
        "/ratings/podkidnoy/players/a%00b/chart/",
        "/ratings/podkidnoy/players/%00/chart/",
        "/t/invite/%00/",
        "/t/invite/a%00b/",
    ],
)
@pytest.mark.parametrize("who", ["anonymous", "member"])
def test_a_nul_in_a_url_is_a_bad_request_with_the_sites_page(world, path, who):
    client = client_of(world["member"] if who == "member" else None)
    refused_with_the_sites_page(client.get(path), 400, BAD_REQUEST_RU)


def test_the_bad_request_page_speaks_english_to_an_english_browser(world):
    response = client_of().get("/players/a%00b/", headers={"accept-language": "en"})
    refused_with_the_sites_page(response, 400, "Bad request")


@pytest.mark.parametrize(
    "path",
    ["/players/%FF/", "/players/\u202eabc/", "/ratings/podkidnoy/players/" + "щ" * 3000 + "/", "/t/invite/%FF/"],
)
def test_a_url_slot_holds_only_what_the_site_could_have_made(world, path):
    refused_with_the_sites_page(client_of(world["member"]).get(path), 404, NOT_FOUND_RU)


@pytest.mark.parametrize(
    "path",
    [
        "/tournaments/99999999999999999999/",
        "/games/99999999999999999999/",
        "/table/99999999999999999999/",
        "/tournaments/pairs/99999999999999999999/",
        "/reviews/games/99999999999999999999/",  # once a server error on SQLite too
    ],
)
def test_twenty_digits_in_an_id_are_not_found(world, path):
    refused_with_the_sites_page(client_of(world["member"]).get(path), 404, NOT_FOUND_RU)


@pytest.mark.parametrize("target", ["-1", "x", "99999999999999999999"])
def test_a_friends_button_with_a_next_that_is_no_path_goes_back_to_the_friends_page(world, target):
    response = client_of(world["member"]).post("/friends/follow/", {"player": "", "next": target})
    assert response.status_code == 302
    assert response["Location"] == "/friends/"


def test_a_nul_in_the_session_cookie_is_a_bad_request_shown_to_a_visitor(world):
    # Django decodes a quoted cookie's octal escapes: this session key holds a NUL.
    client = client_of()
    response = client.get("/", headers={"cookie": 'sessionid="abc\\000defghijk"'})
    refused_with_the_sites_page(response, 400, BAD_REQUEST_RU)
    assert "Войти" in text_of(response)  # the header of a visitor: the forged session was never read


def test_a_socket_with_a_nul_in_its_session_cookie_is_refused_at_the_handshake(world):
    async def attempt():
        communicator, accepted = await sockets.connect("/ws/lobby/", cookie='"abc\\000defghijk"')
        await communicator.disconnect()
        return accepted

    assert async_to_sync(attempt)() is False


def test_a_nul_in_a_query_is_a_bad_request(world):
    refused_with_the_sites_page(client_of().get("/tournaments/archive/?q=a%00b"), 400, BAD_REQUEST_RU)


def test_a_nul_partner_for_a_pair_is_a_bad_request_and_invites_nobody(world):
    member = world["member"]
    before = list(pairs_invited_by(member))
    response = client_of(member).post("/tournaments/pairs/", {"partner": "riv\x00al"})
    refused_with_the_sites_page(response, 400, BAD_REQUEST_RU)
    assert list(pairs_invited_by(member)) == before


def pairs_invited_by(user):
    from tournaments.models import Pair

    return Pair.objects.filter(player_one=user).values_list("pk", "player_two_id", "status").order_by("pk")


def test_the_directors_substitute_with_a_nul_name_is_a_bad_request(world):
    director = make_user("director")
    director.groups.add(Group.objects.get_or_create(name=DIRECTORS_GROUP)[0])
    event = world["event"]
    response = client_of(director).post(
        f"/tournaments/{event.pk}/direct/", {"action": "substitute", "username": "ri\x00val", "entrant": "1"}
    )
    refused_with_the_sites_page(response, 400, BAD_REQUEST_RU)


@pytest.mark.parametrize(
    ("path", "error"), [("/login/", "Пожалуйста, введите правильные"), ("/admin/login/", "<title>Ошибка: Войти")]
)
def test_a_login_with_a_name_longer_than_any_column_is_a_wrong_login(world, path, error):
    from axes.models import AccessAttempt

    response = client_of().post(path, {"username": "щ" * 3000, "password": "wrong"})
    assert response.status_code == 200  # the form again, with its error
    assert error in response.content.decode()
    (attempt,) = AccessAttempt.objects.all()  # counted, under the name clipped to the column
    assert attempt.username == "щ" * 255


def test_a_push_subscription_nested_2000_deep_is_refused(world, push_on):
    body = "[" * 2000 + "]" * 2000
    response = client_of(world["member"]).post(
        "/notices/push/subscription/", data=body, content_type="application/json"
    )
    assert response.status_code == 400


@pytest.mark.parametrize(
    "subscription",
    [
        {"endpoint": "https://push.example/a\x00b", "keys": {"p256dh": "k", "auth": "a"}},
        {"endpoint": "https://push.example/ab", "keys": {"p256dh": "k\x00", "auth": "a"}},
        {"endpoint": "https://push.example/ab", "keys": {"p256dh": "k", "auth": "\x00"}},
    ],
)
def test_a_push_subscription_with_a_nul_is_a_bad_request_and_stores_nothing(world, push_on, subscription):
    from notices.models import PushSubscription

    response = client_of(world["member"]).post(
        "/notices/push/subscription/", data=json.dumps(subscription), content_type="application/json"
    )
    refused_with_the_sites_page(response, 400, BAD_REQUEST_RU)
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize("path", ["/ws/tournaments/987654321/", "/ws/tournaments/99999999999999999999/"])
def test_a_socket_to_an_event_that_does_not_exist_is_refused_at_the_handshake(world, path):
    async def attempt():
        communicator, accepted = await sockets.connect(path)
        await communicator.disconnect()
        return accepted

    assert async_to_sync(attempt)() is False


def test_a_socket_to_a_draft_event_is_refused_to_a_visitor(world):
    draft = make_event(status=Tournament.Status.DRAFT)

    async def attempt():
        communicator, accepted = await sockets.connect(f"/ws/tournaments/{draft.pk}/")
        await communicator.disconnect()
        return accepted

    assert async_to_sync(attempt)() is False


def test_a_socket_to_an_event_that_exists_is_still_accepted(world):
    async def attempt():
        communicator, accepted = await sockets.connect(f"/ws/tournaments/{world['event'].pk}/")
        await communicator.disconnect()
        return accepted

    assert async_to_sync(attempt)() is True


# ---------------------------------------------------------------- the walker over the URL resolver


def every_pattern(patterns=None, prefix=(), namespace=""):
    """(route pieces, converters by slot, namespace) of every pattern the resolver knows."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            yield from every_pattern(entry.url_patterns, (*prefix, entry.pattern), entry.namespace or namespace)
        elif isinstance(entry, URLPattern):
            yield (*prefix, entry.pattern), namespace


SLOT_RE = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")


def route_of(pieces) -> str:
    """The pattern as one route string ("ratings/<str:variant>/…"); regex patterns (none yet) as they are."""
    return "".join(str(piece) for piece in pieces)


def slots_of(route: str) -> list[str]:
    return [match.group("name") for match in SLOT_RE.finditer(route)]


def url_for(route: str, values: dict[str, str]) -> str:
    return "/" + SLOT_RE.sub(lambda match: encoded(values[match.group("name")]), route)


def resolves(url: str) -> bool:
    from django.urls import Resolver404, resolve

    try:
        resolve(urlsplit(url).path.replace("%00", "\x00"))
    except Resolver404:
        return False
    except Exception:  # a converter that refuses in to_python: the resolver's 404 too
        return False
    return True


def plausible_values(route: str, world, client) -> dict[str, str]:
    """Values for the slots that the member's GET finds (the first of the world's ids and
    names that is not a 404), so a hostile value elsewhere reaches the view."""
    names = slots_of(route)
    if not names:
        return {}
    candidates = [world["ints"] + world["strs"] for _ in names]
    first = None
    for combination in itertools.islice(itertools.product(*candidates), 40):
        values = dict(zip(names, combination, strict=True))
        url = url_for(route, values)
        if not resolves(url):
            continue
        first = first or values
        if client.get(url).status_code != 404:
            return values
    return first or dict.fromkeys(names, "1")


def fields_of(page: str) -> list[str]:
    return sorted({*COMMON_FIELDS, *FIELD_RE.findall(page)} - {"csrfmiddlewaretoken"})


def walk_pattern(route: str, namespace: str, world, who: str, failures: list) -> int:
    """Every hostile value in each slot, then in every field; GET and POST. The number of requests."""
    client = client_of(world["member"] if who == "member" else None)
    values = plausible_values(route, world, client)
    base = url_for(route, values)
    first = client.get(base)
    fields = fields_of(text_of(first)) if first.status_code < 500 else list(COMMON_FIELDS)
    behind_the_door = namespace == "admin" and first.status_code == 302 and "/login/" in first["Location"]
    kinds = ADMIN_VALUES if behind_the_door else tuple(HOSTILE)
    sent = 1
    if first.status_code >= 500:
        failures.append(f"GET {base} as {who}: {first.status_code}")

    def send(method: str, url: str, body: str | None = None) -> None:
        nonlocal sent
        sent += 1
        if method == "GET":
            response = client.get(url)
        else:
            response = client.post(url, data=body or "", content_type="application/x-www-form-urlencoded")
        if response.status_code >= 500:
            failures.append(f"{method} {url[:120]} {(body or '')[:80]} as {who}: {response.status_code}")

    for kind in kinds:
        value = HOSTILE[kind]
        for slot in values:
            url = url_for(route, {**values, slot: value})
            if resolves(url):  # a value the slot refuses never reaches a view: the resolver's 404
                send("GET", url)
                send("POST", url)
        query = "?" + form_body(dict.fromkeys(fields, value))
        send("GET", base + query)
        send("POST", base + query, form_body(dict.fromkeys(fields, value)))
    return sent


# Bodies a JSON endpoint must refuse with a 4xx: not JSON, deep, huge, NUL, wrong types.
MALFORMED_JSON = [
    "not json",
    "{",
    "[" * 2000 + "]" * 2000,
    '{"a":' * 2000 + "1" + "}" * 2000,
    json.dumps({"endpoint": "x" * 300_000}),
    '{"endpoint": "a\\u0000b", "keys": {"p256dh": "\\u0000", "auth": "a"}}',
    '{"endpoint": "a\x00b"}',
    '{"endpoint": "\\ud800", "keys": {"p256dh": "\\udfff", "auth": "a"}}',
    json.dumps({"endpoint": 5, "keys": []}),
    json.dumps({"endpoint": ["https://x"], "keys": "k", "unsubscribe": {"x": 1}}),
    json.dumps({"unsubscribe": True, "endpoint": {"x": [1]}}),
    "[]",
    '"text"',
    "null",
    "1e999999",
    "",
]


def walk_json(url: str, world, failures: list) -> int:
    sent = 0
    for who, user in (("anonymous", None), ("member", world["member"])):
        client = client_of(user)
        for body in MALFORMED_JSON:
            sent += 1
            response = client.post(url, data=body.encode("utf-8", "surrogatepass"), content_type="application/json")
            if response.status_code >= 500:
                failures.append(f"POST {url} JSON {body[:60]!r} as {who}: {response.status_code}")
        sent += 1
        response = client.post(url, data=b'{"endpoint": "\xff\xfe"}', content_type="application/json")
        if response.status_code >= 500:
            failures.append(f"POST {url} JSON with invalid UTF-8 as {who}: {response.status_code}")
    return sent


def answers_json(url: str, world) -> bool:
    response = client_of(world["member"]).post(url, data="{}", content_type="application/json")
    return response.get("Content-Type", "").startswith("application/json")


@pytest.mark.parametrize("who", ["anonymous", "member"])
def test_no_page_answers_a_server_error_to_hostile_values(world, push_on, who):
    failures: list[str] = []
    walked = requests = 0
    for pieces, namespace in every_pattern():
        route = route_of(pieces)
        requests += walk_pattern(route, namespace, world, who, failures)
        walked += 1
    assert walked > 250 and requests > 1000  # the resolver's whole tree, the admin included
    assert failures == [], "\n".join(failures)


def test_no_json_endpoint_answers_a_server_error_to_malformed_json(world, push_on):
    failures: list[str] = []
    json_endpoints = []
    for pieces, namespace in every_pattern():
        route = route_of(pieces)
        if namespace == "admin":
            continue
        url = url_for(route, plausible_values(route, world, client_of(world["member"])))
        if answers_json(url, world):
            json_endpoints.append(url)
            walk_json(url, world, failures)
    assert "/notices/push/subscription/" in json_endpoints  # the walk finds them by their answers
    assert failures == [], "\n".join(failures)


# ---------------------------------------------------------------- the walker over the ASGI router

MALFORMED_FRAMES = [
    "not json",
    "{",
    "[" * 2000 + "]" * 2000,
    '{"a":' * 1500 + "1" + "}" * 1500,
    json.dumps({"action": "x" * 200_000}),
    json.dumps({"chat": "a\x00b", "action": "take\x00"}),
    '{"chat": "\\u0000"}',
    json.dumps({"chat": "\ud800"}),
    json.dumps({"action": 5, "chat": ["x"], "seat": {"a": 1}, "emote": None}),
    json.dumps({"action": ["take"], "seat": "9" * 20, "table": -1}),
    "[]",
    "null",
    "",
    b"\x00\xff\xfe",
]


async def frames_at(path: str, cookie: str | None) -> str | None:
    """Malformed frames at an accepted socket; the problem, or None. A refused handshake is no problem."""
    communicator, accepted = await sockets.connect(path, cookie)
    try:
        if not accepted:
            return None
        for frame in MALFORMED_FRAMES:
            if isinstance(frame, bytes):
                await communicator.send_to(bytes_data=frame)
            else:
                await communicator.send_input({"type": "websocket.receive", "text": frame})
            while not await communicator.receive_nothing(timeout=0.05):  # raises what the consumer raised
                output = await communicator.receive_output(timeout=1)
                if output["type"] == "websocket.close":
                    return None  # closed on a frame it will not take: an answer, not a crash
        return None
    except Exception as error:  # reported with the path and the frame's kind
        return f"{path}: {type(error).__name__}: {str(error)[:200]}"
    finally:
        await communicator.disconnect()


def socket_routes() -> list[str]:
    return [str(route.pattern) for route in websocket_urlpatterns]


def test_no_socket_route_crashes_on_hostile_slots_or_malformed_frames(world):
    member_cookie = async_to_sync(sockets.session_cookie)(world["member"])
    failures: list[str] = []
    routes = socket_routes()
    assert len(routes) >= 4  # the router's every route: lobby, table, event, seat

    async def walk():
        for route in routes:
            names = slots_of(route)
            for cookie in (None, member_cookie):
                tried = (
                    [dict(zip(names, c, strict=True)) for c in itertools.product(world["ints"], repeat=len(names))]
                    if names
                    else [{}]
                )
                for values in tried:  # a real id: the frames reach a live consumer
                    problem = await frames_at(url_for(route, values), cookie)
                    if problem:
                        failures.append(problem)
                for kind, value in HOSTILE.items():
                    for slot in names:
                        url = url_for(route, {**tried[0], slot: value})
                        if not resolves_socket(url):
                            continue
                        try:
                            communicator, accepted = await sockets.connect(url, cookie)
                        except Exception as error:  # the consumer raised in its handshake
                            failures.append(f"{url[:60]} with {kind}: {type(error).__name__}: {error}")
                            continue
                        await communicator.disconnect()
                        if accepted and slot.endswith("_id"):
                            failures.append(f"{url[:60]} accepted {kind} as the id of something")

    async_to_sync(walk)()
    assert failures == [], "\n".join(failures)


def resolves_socket(url: str) -> bool:
    path = urlsplit(url).path.lstrip("/")
    return any(route.pattern.match(path) for route in websocket_urlpatterns)


# ---------------------------------------------------------------- the same on PostgreSQL


def test_the_hostile_walk_on_postgresql(postgres_url):
    """This module again, every test of it, on PostgreSQL."""
    pg = urlsplit(postgres_url)
    database_url = urlunsplit((pg.scheme, pg.netloc, f"/durak_hostile_{os.getpid()}", "", ""))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"REDIS_URL", "PYTEST_ADDOPTS", "CELERY_EMBEDDED", "PYTEST_CURRENT_TEST"}
    }
    env.update({"DATABASE_URL": database_url, ON_POSTGRESQL: "1"})
    result = subprocess.run(
        [
            sys.executable,
            *("-m", "pytest", str(Path(__file__).relative_to(ROOT))),
            *("-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:logging", "-o", "addopts="),
            *("--tb=short", "-k", "not on_postgresql"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = result.stdout + result.stderr
    # What failed, without the pages of log lines around it.
    assert result.returncode == 0, "\n".join(line for line in output.splitlines() if line.startswith(("E ", "FAILED")))
    assert re.search(r"\b\d+ passed\b", output) and " failed" not in output, output[-3000:]


def test_the_inner_run_uses_the_database_it_was_given():
    from django.db import connection

    if os.environ.get(ON_POSTGRESQL) == "1":
        assert connection.vendor == "postgresql"
    else:
        assert connection.vendor == "sqlite"
