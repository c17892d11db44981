"""Issue 18, point 4: mail of each kind, opt-in, in the recipient's language, with an unsubscribe link.

Mail goes through Django's locmem backend (`mailoutbox`); the tournaments code only emits its
signals after the commit, and the receivers enqueue `notices.tasks.send_notice` on the batch queue.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from notices import tasks as notice_tasks
from notices.models import Sent
from tournaments import services, tasks
from tournaments.models import Entrant, Round, Tournament

from .helpers import make_event, players, register_all, start

pytestmark = pytest.mark.django_db


def run(enqueued):
    """Run what was enqueued, as the batch worker would, and forget it."""
    for args, queue in list(enqueued):
        assert queue == "batch"
        notice_tasks.send_notice(*args)
    enqueued.clear()


def unsubscribe_link(message) -> str:
    found = re.search(r"https://club\.example(/notices/unsubscribe/[^/\s]+/)", message.body)
    assert found, message.body
    return found.group(1)


def test_issue18_registration_confirmed_mail_in_russian(enqueued, django_capture_on_commit_callbacks):
    (user,) = players(1)
    event = make_event()
    with django_capture_on_commit_callbacks(execute=True):
        entrant = services.do_register(tournament_id=event.pk, user=user)
    assert enqueued == [(["registration", entrant.pk], "batch")]
    run(enqueued)
    (message,) = mail.outbox
    assert message.to == ["p01@mail.example"]
    assert message.subject == "Вы записаны на «Вечерний швейцарец»"
    assert "Вы записаны на «Вечерний швейцарец»." in message.body
    assert "Отписаться от писем этого вида: https://club.example/notices/unsubscribe/" in message.body
    html, mimetype = message.alternatives[0]
    assert mimetype == "text/html"
    assert "Вы записаны на «Вечерний швейцарец».</p>" in html
    assert 'lang="ru"' in html
    assert message.extra_headers["List-Unsubscribe"].startswith("<https://club.example/notices/unsubscribe/")


def test_issue18_registration_mail_in_english_for_a_player_who_chose_english(
    enqueued, django_capture_on_commit_callbacks
):
    (user,) = players(1, language="en")
    event = make_event(name="Friday Swiss")
    with django_capture_on_commit_callbacks(execute=True):
        services.do_register(tournament_id=event.pk, user=user)
    run(enqueued)
    (message,) = mail.outbox
    assert message.subject == "You are registered for Friday Swiss"
    assert "Unsubscribe from this kind of mail: https://club.example/notices/unsubscribe/" in message.body
    assert 'lang="en"' in message.alternatives[0][0]


def test_issue18_nothing_is_sent_without_opting_in(enqueued, django_capture_on_commit_callbacks):
    (chose_nothing,) = players(1, "quiet", email=[])
    (chose_other,) = players(1, "other", email=["final"])
    event = make_event()
    with django_capture_on_commit_callbacks(execute=True):
        register_all(event, [chose_nothing, chose_other])
    run(enqueued)
    assert mail.outbox == []
    assert not Sent.objects.exists()


def test_issue18_waiting_list_is_no_confirmation_until_promoted(enqueued, django_capture_on_commit_callbacks):
    first, second = players(2)
    event = make_event(max_entrants=1)
    with django_capture_on_commit_callbacks(execute=True):
        services.do_register(tournament_id=event.pk, user=first)
        waiting = services.do_register(tournament_id=event.pk, user=second)
    assert waiting.state == Entrant.State.WAITING
    run(enqueued)
    assert [m.to for m in mail.outbox] == [["p01@mail.example"]]
    with django_capture_on_commit_callbacks(execute=True):
        services.do_unregister(tournament_id=event.pk, user=first)
    run(enqueued)
    assert [m.to for m in mail.outbox] == [["p01@mail.example"], ["p02@mail.example"]]


def test_issue18_checkin_open_mail(enqueued, django_capture_on_commit_callbacks):
    users = players(2)
    now = timezone.now()
    event = make_event(checkin_opens=now + timedelta(minutes=5), checkin_closes=now + timedelta(minutes=50))
    register_all(event, users)
    enqueued.clear()
    Tournament.objects.filter(pk=event.pk).update(checkin_opens=now - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        tasks.sweep_events()
    assert enqueued == [(["checkin", event.pk], "batch")]
    run(enqueued)
    assert sorted(m.to[0] for m in mail.outbox) == ["p01@mail.example", "p02@mail.example"]
    message = mail.outbox[0]
    assert message.subject == "Открыта отметка на «Вечерний швейцарец»"
    assert "отметьтесь на странице турнира, чтобы сохранить место." in message.body
    assert "Конец отметки: " in message.body


def test_issue18_round_start_mail_says_the_table_number(enqueued, django_capture_on_commit_callbacks):
    users = players(8)
    event = make_event(rounds=2)
    register_all(event, users)
    enqueued.clear()
    with django_capture_on_commit_callbacks(execute=True):
        start(event)
    round_ = Round.objects.get(tournament=event, number=1)
    assert enqueued == [(["round", round_.pk], "batch")]
    run(enqueued)
    assert len(mail.outbox) == 8
    by_user = {m.to[0]: m for m in mail.outbox}
    for rt in round_.tables.all():
        for entrant in Entrant.objects.filter(pk__in=rt.entrants).select_related("user"):
            message = by_user[entrant.user.email]
            assert message.subject == f"«Вечерний швейцарец», тур 1: ваш стол номер {rt.number}"
            assert f"Ваш стол номер {rt.number}." in message.body
            assert f"https://club.example/table/{rt.table_id}/" in message.body
            assert "К вашему столу" in message.alternatives[0][0]


def test_issue18_final_standings_mail_in_both_languages(django_capture_on_commit_callbacks, enqueued):
    from tests.tournaments.helpers import play_round

    russian = players(3, "ru")
    (english,) = players(1, "en", language="en")
    event = make_event(rounds=1)
    register_all(event, [*russian, english])
    start(event)
    enqueued.clear()
    with django_capture_on_commit_callbacks(execute=True):
        play_round(event, 1)
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    assert (["final", event.pk], "batch") in enqueued
    run(enqueued)
    finals = {m.to[0]: m for m in mail.outbox if "standings" in m.subject or "итоговая" in m.subject}
    assert len(finals) == 4
    ru = finals["ru01@mail.example"]
    assert ru.subject == "«Вечерний швейцарец»: итоговая таблица"
    assert "Турнир «Вечерний швейцарец» завершён." in ru.body
    assert re.search(r"Ваше место: [1-4], очки: ", ru.body)
    assert "Итоговая таблица</h2>" in ru.alternatives[0][0]
    en = finals["en01@mail.example"]
    assert en.subject == "Вечерний швейцарец: final standings"
    assert re.search(r"Your place: [1-4], points: ", en.body)
    # every player of the table is listed once in the standings of the mail
    for name in ("ru01", "ru02", "ru03", "en01"):
        assert ru.body.count(f". {name} — ") == 1


def test_issue18_unsubscribe_link_works_without_login_and_stops_the_next_mail(
    enqueued, django_capture_on_commit_callbacks
):
    (user,) = players(1)
    later = timezone.now() + timedelta(days=1)
    first, second = make_event(name="Первый"), make_event(name="Второй", starts_at=later)
    with django_capture_on_commit_callbacks(execute=True):
        services.do_register(tournament_id=first.pk, user=user)
    run(enqueued)
    link = unsubscribe_link(mail.outbox[0])
    anonymous = Client()
    page = anonymous.get(link)
    assert page.status_code == 200
    assert "Больше не присылать письма этого вида: «Запись подтверждена»?" in page.content.decode()
    # a GET alone (a mail scanner following the link) unsubscribes nobody
    with django_capture_on_commit_callbacks(execute=True):
        services.do_register(tournament_id=second.pk, user=user)
    run(enqueued)
    assert len(mail.outbox) == 2
    done = Client(enforce_csrf_checks=True)
    form = done.get(link)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.content.decode()).group(1)
    answer = done.post(link, {"csrfmiddlewaretoken": token})
    assert answer.status_code == 200
    assert "Писем этого вида больше не будет: «Запись подтверждена»." in answer.content.decode()
    third = make_event(name="Третий", starts_at=later + timedelta(days=1))
    with django_capture_on_commit_callbacks(execute=True):
        services.do_register(tournament_id=third.pk, user=user)
    run(enqueued)
    assert len(mail.outbox) == 2  # no third mail
    user.notice_preference.refresh_from_db()
    assert user.notice_preference.email_kinds == ["checkin", "round", "final"]  # only that kind stopped


def test_issue18_a_forged_unsubscribe_link_is_refused(client):
    page = client.post("/notices/unsubscribe/not-a-token/")
    assert page.status_code == 400
    assert "Эта ссылка для отписки недействительна." in page.content.decode()


def test_issue18_preferences_page_saves_the_choices(client, django_user_model):
    user = django_user_model.objects.create_user(username="anna", email="anna@mail.example")
    assert client.get("/notices/preferences/").status_code == 302  # signed in only
    client.force_login(user)
    page = client.get("/notices/preferences/")
    text = page.content.decode()
    assert "Уведомления" in text and "Ваш стол в начале каждого тура" in text
    assert 'type="checkbox" name="email" value="round"' in text
    assert not re.search(r'name="(email|push)" value="\w+"[^>]*checked', text)  # opt-in: nothing chosen at first
    client.post("/notices/preferences/", {"email": ["round", "final", "bogus"], "language": "en"})
    pref = user.notice_preference
    pref.refresh_from_db()
    assert (pref.email_kinds, pref.push_kinds, pref.language) == (["round", "final"], [], "en")
    assert 'href="/notices/preferences/"' in client.get("/players/anna/").content.decode()
    other = django_user_model.objects.create_user(username="boris")
    assert 'href="/notices/preferences/"' not in client.get(f"/players/{other.username}/").content.decode()
