"""A push subscription's endpoint reaches only a browser's push service: never an address inside
the network (loopback, private, link-local, the metadata service), neither when it is stored nor
when a notice goes out; the worker never follows a redirect, and one person keeps ten browsers."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from django.test import Client

from notices import push, services
from notices.models import PushSubscription, Sent
from tournaments.models import Round

from .helpers import make_event, players, register_all, start
from .test_push import PushService, b64url, point, vapid  # noqa: F401 - the fixture is used by name

pytestmark = pytest.mark.django_db

REFUSED = "Уведомления можно отправлять только в push-службу браузера."


def subscribe(client, endpoint: str):
    body = json.dumps({"endpoint": endpoint, "keys": {"p256dh": "BPk", "auth": "c2Vj"}})
    return client.post("/notices/push/subscription/", body, content_type="application/json")


@pytest.fixture
def member(vapid, django_user_model):  # noqa: F811
    client = Client()
    client.force_login(django_user_model.objects.create_user(username="anna"))
    return client


class Recorder:
    """An http server on 127.0.0.1 that answers `status` (with `location`) and records each hit."""

    def __init__(self, status: int = 201, location: str = ""):
        self.hits: list[str] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                recorder.hits.append(self.path)
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://127.0.0.1:6379/",
        "https://10.0.0.5/",
        "https://169.254.169.254/latest/meta-data/",
        "https://[::1]/push",
        "https://push.attacker.example/send/abc",
        "https://fcm.googleapis.com.attacker.example/send/abc",
        "https://fcm.googleapis.com@10.0.0.5/send/abc",
        "https://notify.windows.com.attacker.example/w/",
    ],
)
def test_an_endpoint_off_the_push_services_is_refused_with_the_forms_message(member, endpoint):
    answer = subscribe(member, endpoint)
    assert answer.status_code == 400
    assert answer.json()["error"] == REFUSED
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://fcm.googleapis.com/fcm/send/abc",
        "https://updates.push.services.mozilla.com/wpush/v2/abc",
        "https://web.push.apple.com/QGh",
        "https://wns2-par02p.notify.windows.com/w/?token=abc",
    ],
)
def test_the_browsers_push_services_are_accepted(member, endpoint):
    assert subscribe(member, endpoint).status_code == 201
    assert PushSubscription.objects.get().endpoint == endpoint


@pytest.mark.parametrize("address", ["127.0.0.1", "10.0.0.5", "169.254.169.254", "fd00:ec2::254", "::ffff:10.0.0.5"])
def test_a_push_service_name_that_resolves_inside_the_network_is_refused(member, push_dns, address):
    push_dns["fcm.googleapis.com"] = ["142.250.74.42", address]
    answer = subscribe(member, "https://fcm.googleapis.com/fcm/send/abc")
    assert answer.status_code == 400 and answer.json()["error"] == REFUSED
    assert not PushSubscription.objects.exists()


def test_a_name_that_does_not_resolve_is_refused(member, push_dns):
    del push_dns["fcm.googleapis.com"]
    assert subscribe(member, "https://fcm.googleapis.com/fcm/send/abc").json()["error"] == REFUSED


def test_a_site_may_list_another_push_service(member, settings, push_dns):
    push_dns["push.club.example"] = ["142.250.74.43"]
    assert subscribe(member, "https://push.club.example/send/1").status_code == 400
    settings.PUSH_SERVICE_HOSTS = [*settings.PUSH_SERVICE_HOSTS, "push.club.example"]
    assert subscribe(member, "https://push.club.example/send/1").status_code == 201


def test_one_person_keeps_ten_browsers_a_new_one_replaces_the_oldest(member):
    for number in range(12):
        assert subscribe(member, f"https://fcm.googleapis.com/fcm/send/{number}").status_code == 201
    kept = sorted(int(e.rsplit("/", 1)[1]) for e in PushSubscription.objects.values_list("endpoint", flat=True))
    assert kept == list(range(2, 12))


def round_for(user):
    event = make_event(rounds=1)
    register_all(event, [user, *players(3, "x", email=[])])
    start(event)
    return Round.objects.get(tournament=event)


@pytest.fixture
def local_push(vapid, settings, push_dns):  # noqa: F811
    """The local push service stood in for a browser's: listed, at a public address until a test moves it."""
    service = PushService(vapid)
    settings.PUSH_SERVICE_HOSTS = [*settings.PUSH_SERVICE_HOSTS, "127.0.0.1"]
    push_dns["127.0.0.1"] = ["142.250.74.42"]
    yield service
    service.close()


def test_a_name_moved_inside_the_network_after_it_was_stored_gets_nothing(local_push, push_dns):
    """DNS can change: the worker checks the address again before each send."""
    (user,) = players(1, email=[], push=["round"])
    subscription = local_push.subscription_for(user)
    push_dns["127.0.0.1"] = ["169.254.169.254"]
    services.deliver("round", round_for(user).pk)
    assert local_push.received == [] and local_push.refused == []
    with pytest.raises(push.EndpointRefused):
        push.send_push(subscription, {"title": "t"})
    push_dns["127.0.0.1"] = ["142.250.74.42"]
    push.send_push(subscription, {"title": "t"})
    assert local_push.received == [{"title": "t"}]


def test_the_worker_never_follows_a_redirect(vapid, settings, push_dns):  # noqa: F811
    inside = Recorder(status=200)
    bouncer = Recorder(status=307, location=f"{inside.origin}/internal/admin")
    try:
        settings.PUSH_SERVICE_HOSTS = [*settings.PUSH_SERVICE_HOSTS, "127.0.0.1"]
        push_dns["127.0.0.1"] = ["142.250.74.42"]
        (user,) = players(1, email=[], push=["round"])
        PushSubscription.objects.create(
            user=user,
            endpoint=f"{bouncer.origin}/push/x",
            p256dh=b64url(point(PushService(vapid).browser_key.public_key())),
            auth=b64url(b"0" * 16),
        )
        failures = services.deliver("round", round_for(user).pk)
        assert bouncer.hits == ["/push/x"]
        assert inside.hits == []
        assert len(failures) == 1 and Sent.objects.get(channel="push").sent_at is None
    finally:
        inside.close()
        bouncer.close()


def test_a_push_service_that_hangs_is_given_up_on(local_push, monkeypatch):
    """The post has a timeout: a push service that accepts and never answers fails the send."""
    silent = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)  # accepts, never answers
    silent.RequestHandlerClass = type(
        "Silent", (BaseHTTPRequestHandler,), {"handle": lambda self: threading.Event().wait(5)}
    )
    threading.Thread(target=silent.serve_forever, daemon=True).start()
    monkeypatch.setattr(push, "PUSH_TIMEOUT", (0.5, 0.5))
    try:
        (user,) = players(1, email=[], push=["round"])
        subscription = local_push.subscription_for(user)
        subscription.endpoint = f"http://127.0.0.1:{silent.server_address[1]}/push/x"
        subscription.save()
        with pytest.raises(requests.Timeout):
            push.send_push(subscription, {"title": "t"})
    finally:
        silent.shutdown()
        silent.server_close()


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_the_push_service_reports_gone_is_deleted(local_push, status):
    (user,) = players(1, email=[], push=["round"])
    local_push.subscription_for(user)
    local_push.status = status
    services.deliver("round", round_for(user).pk)
    assert not PushSubscription.objects.exists()
