"""Issue 18, point 4: Web Push (pywebpush, VAPID keys from settings) for "your table is ready",
against a local push endpoint that checks the VAPID signature and decrypts the message."""

from __future__ import annotations

import base64
import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from django.test import Client
from py_vapid import Vapid02

from notices import tasks as notice_tasks
from notices.models import PushSubscription, Sent
from tournaments.models import Round

from .conftest import PUBLIC_ADDRESS
from .helpers import make_event, players, register_all, start

pytestmark = pytest.mark.django_db

SUBJECT = "mailto:director@club.example"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def point(public_key) -> bytes:
    return public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


@pytest.fixture
def vapid(settings):
    keys = Vapid02()
    keys.generate_keys()
    settings.VAPID_PRIVATE_KEY = b64url(keys.private_key.private_numbers().private_value.to_bytes(32, "big"))
    settings.VAPID_PUBLIC_KEY = b64url(point(keys.public_key))
    settings.VAPID_SUBJECT = SUBJECT
    return settings.VAPID_PUBLIC_KEY


class PushService:
    """A push service on 127.0.0.1: checks the VAPID JWT (ES256, signed by the site's key, audience
    and subject, not expired), decrypts the aes128gcm body with the browser's keys, answers `status`."""

    def __init__(self, site_key: str):
        self.site_key = site_key
        self.received: list[dict] = []
        self.refused: list[str] = []
        self.status = 201
        self.browser_key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                problem = service.check(self.headers, body)
                if problem:
                    service.refused.append(problem)
                    self.send_response(401)
                else:
                    self.send_response(service.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def subscription_for(self, user, name: str = "phone") -> PushSubscription:
        return PushSubscription.objects.create(
            user=user,
            endpoint=f"{self.origin}/push/{name}",
            p256dh=b64url(point(self.browser_key.public_key())),
            auth=b64url(self.auth),
        )

    def check(self, headers, body: bytes) -> str:
        found = re.fullmatch(r"vapid t=([^,\s]+),\s*k=([^,\s]+)", headers.get("Authorization", ""))
        if not found:
            return "no VAPID authorization"
        token, key = found.groups()
        if key != self.site_key:
            return "signed by another key"
        head, claims, signature = token.split(".")
        raw = unb64url(signature)
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
        try:
            public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return "bad signature"
        if json.loads(unb64url(head)) != {"typ": "JWT", "alg": "ES256"}:
            return "not an ES256 JWT"
        claims = json.loads(unb64url(claims))
        if claims.get("aud") != self.origin or claims.get("sub") != SUBJECT or claims.get("exp", 0) <= time.time():
            return f"bad claims {claims}"
        if headers.get("Content-Encoding") != "aes128gcm" or int(headers.get("TTL", "0")) <= 0:
            return "not an encrypted message with a TTL"
        plain = http_ece.decrypt(body, private_key=self.browser_key, auth_secret=self.auth, version="aes128gcm")
        self.received.append(json.loads(plain))
        return ""

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def push_service(vapid, settings, push_dns):
    """The local push service, stood in for a browser's: its host listed, its name at a public address."""
    service = PushService(vapid)
    settings.PUSH_SERVICE_HOSTS = [*settings.PUSH_SERVICE_HOSTS, "127.0.0.1"]
    push_dns["127.0.0.1"] = [PUBLIC_ADDRESS]
    yield service
    service.close()


def test_issue18_your_table_is_ready_by_web_push(push_service, enqueued, django_capture_on_commit_callbacks):
    users = players(4, email=[], push=["round"])
    for user in users:
        push_service.subscription_for(user, user.username)
    event = make_event(rounds=1)
    register_all(event, users)
    with django_capture_on_commit_callbacks(execute=True):
        start(event)
    round_ = Round.objects.get(tournament=event)
    assert enqueued == [(["round", round_.pk], "batch")]
    notice_tasks.send_notice(*enqueued[0][0])
    assert push_service.refused == []
    rt = round_.tables.get()
    assert len(push_service.received) == 4
    message = push_service.received[0]
    assert message["title"] == "«Вечерний швейцарец», тур 1: ваш стол номер 1"
    assert message["body"] == "Ваш стол готов: стол 1."
    assert message["url"] == f"https://club.example/table/{rt.table_id}/"
    # a repeated task pushes nothing twice
    notice_tasks.send_notice(*enqueued[0][0])
    assert len(push_service.received) == 4
    assert Sent.objects.filter(channel="push", sent_at__isnull=False).count() == 4


def test_issue18_a_tampered_signature_is_refused_by_the_endpoint(push_service, settings):
    """The endpoint's check can fail: a message signed with another key is refused."""
    (user,) = players(1, email=[], push=["round"])
    push_service.subscription_for(user)
    other = Vapid02()
    other.generate_keys()
    settings.VAPID_PRIVATE_KEY = b64url(other.private_key.private_numbers().private_value.to_bytes(32, "big"))
    event = make_event(rounds=1)
    register_all(event, [user, *players(3, "x", email=[])])
    start(event)
    round_ = Round.objects.get(tournament=event)
    from notices import services

    failures = services.deliver("round", round_.pk)
    assert push_service.refused == ["signed by another key"]
    assert len(failures) == 1
    assert Sent.objects.get(channel="push").sent_at is None


def test_issue18_a_subscription_the_push_service_forgot_is_dropped(push_service):
    (user,) = players(1, email=[], push=["round"])
    push_service.subscription_for(user)
    push_service.status = 410
    event = make_event(rounds=1)
    register_all(event, [user, *players(3, "x", email=[])])
    start(event)
    notice_tasks.send_notice("round", Round.objects.get(tournament=event).pk)
    assert not PushSubscription.objects.filter(user=user).exists()


def test_issue18_no_push_without_vapid_keys(settings):
    (user,) = players(1, email=[], push=["round"])
    PushSubscription.objects.create(user=user, endpoint="https://push.example/x", p256dh="k", auth="a")
    event = make_event(rounds=1)
    register_all(event, [user, *players(3, "x", email=[])])
    start(event)
    notice_tasks.send_notice("round", Round.objects.get(tournament=event).pk)
    assert not Sent.objects.exists()
    client = Client()
    client.force_login(user)
    assert client.post("/notices/push/subscription/", "{}", content_type="application/json").status_code == 404


def test_issue18_the_browser_posts_its_subscription_with_the_csrf_token(vapid, django_user_model):
    user = django_user_model.objects.create_user(username="anna")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    page = client.get("/notices/preferences/")
    text = page.content.decode()
    assert f'data-key="{vapid}"' in text and "js/push.js" in text and "<script>" not in text
    data = {"endpoint": "https://fcm.googleapis.com/fcm/send/abc", "keys": {"p256dh": "BPk", "auth": "c2Vj"}}
    body = json.dumps(data)
    assert client.post("/notices/push/subscription/", body, content_type="application/json").status_code == 403
    csrf = client.cookies["csrftoken"].value
    answer = client.post("/notices/push/subscription/", body, content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert answer.status_code == 201
    assert PushSubscription.objects.get(user=user).endpoint == "https://fcm.googleapis.com/fcm/send/abc"
    bad = client.post(
        "/notices/push/subscription/", '{"endpoint": 3}', content_type="application/json", HTTP_X_CSRFTOKEN=csrf
    )
    assert bad.status_code == 400
    assert bad.json()["error"] == "Это не подписка на push-уведомления."
    off = json.dumps({"unsubscribe": True, "endpoint": data["endpoint"]})
    client.post("/notices/push/subscription/", off, content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert not PushSubscription.objects.exists()


def test_issue18_the_sites_service_worker_shows_pushed_notices(client, vapid, django_user_model):
    worker = client.get("/sw.js").content.decode()
    push = worker.split('addEventListener("push"', 1)[1]
    assert "showNotification(data.title" in push and 'addEventListener("notificationclick"' in push
    client.force_login(django_user_model.objects.create_user(username="anna"))
    assert 'data-worker="/sw.js"' in client.get("/notices/preferences/").content.decode()
