"""Issue 18, point 4: mail through Django's real SMTP backend to a local SMTP server (aiosmtpd),
and a mail server that fails never keeps a round from starting."""

from __future__ import annotations

import socket
from email import message_from_bytes, policy
from email.header import decode_header, make_header

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope

from notices import tasks as notice_tasks
from notices.models import Sent
from tournaments.models import Round, Tournament

from .helpers import make_event, players, register_all, start

pytestmark = pytest.mark.django_db


def header(message, name: str = "Subject") -> str:
    """A header as a mail client shows it (unfolded, RFC 2047 words decoded from the raw header)."""
    raw = message_from_bytes(message.as_bytes())[name]
    return str(make_header(decode_header(raw)))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Inbox:
    """An SMTP server's handler: keeps every message, or refuses them all while `failing`."""

    def __init__(self):
        self.messages = []
        self.failing = False

    async def handle_DATA(self, server, session, envelope: Envelope):
        if self.failing:
            return "451 Requested action aborted: local error in processing"
        self.messages.append((envelope.rcpt_tos, message_from_bytes(envelope.content, policy=policy.default)))
        return "250 Message accepted for delivery"


@pytest.fixture
def smtp(settings):
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", controller.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_TIMEOUT = 5
    yield inbox
    controller.stop()


def test_issue18_round_start_mail_over_real_smtp(smtp, enqueued, django_capture_on_commit_callbacks):
    users = players(4)
    event = make_event(rounds=1)
    register_all(event, users)
    smtp.messages.clear()
    enqueued.clear()
    with django_capture_on_commit_callbacks(execute=True):
        start(event)
    ((args, queue),) = enqueued
    notice_tasks.send_notice(*args)
    assert sorted(to for tos, _message in smtp.messages for to in tos) == [f"p0{i}@mail.example" for i in range(1, 5)]
    _tos, message = smtp.messages[0]
    assert header(message) == "«Вечерний швейцарец», тур 1: ваш стол номер 1"
    assert message["From"] == "club@club.example"
    assert header(message, "List-Unsubscribe").startswith("<https://club.example/notices/unsubscribe/")
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    assert "Ваш стол номер 1." in text
    assert "Ваш стол номер 1.</strong>" in html
    assert Sent.objects.filter(kind="round", sent_at__isnull=False).count() == 4


def test_issue18_a_failing_smtp_server_does_not_stop_the_round(smtp, run_at_once, django_capture_on_commit_callbacks):
    users = players(4)
    event = make_event(rounds=2)
    smtp.failing = True
    with django_capture_on_commit_callbacks(execute=True):
        register_all(event, users)
        start(event)
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING
    round_ = Round.objects.get(tournament=event, number=1)
    assert round_.status == Round.Status.PLAYING
    assert round_.tables.exclude(table=None).count() == 1
    assert smtp.messages == []
    failed = Sent.objects.filter(kind="round", object_key=f"round:{round_.pk}")
    assert failed.count() == 4
    assert all(row.sent_at is None and row.attempts >= 1 and "451" in row.error for row in failed)
    assert all(result.state in ("FAILURE", "RETRY") for result in run_at_once)
    # the server is back: the retry sends each message once
    smtp.failing = False
    notice_tasks.send_notice("round", round_.pk)
    notice_tasks.send_notice("round", round_.pk)
    assert len([1 for tos, message in smtp.messages if "тур 1" in header(message)]) == 4
    assert failed.filter(sent_at__isnull=False).count() == 4
