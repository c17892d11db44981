"""The event's life as one state machine (issue 15, "What must work": draft, registration,
check-in, running, paused, finished, cancelled). Every allowed transition is walked through
its service; every one a status does not allow is refused in Russian and changes nothing.
A draft is not listed, cannot be opened by players and takes no entries; the sweep leaves it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import services, tasks
from tournaments.models import DirectorAction, Round, Tournament

from .helpers import make_event, make_users, play_round

pytestmark = pytest.mark.django_db

S = Tournament.Status


def register_all(event, users):
    return [services.do_register(tournament_id=event.pk, user=u) for u in users]


def status_of(event) -> str:
    return Tournament.objects.get(pk=event.pk).status


def a_draft(director, **kw) -> Tournament:
    event, created = services.do_create_event(
        event=Tournament(
            name="Черновик четверга",
            variant="podkidnoy",
            table_size=4,
            rounds=kw.pop("rounds", 2),
            starts_at=kw.pop("starts_at", timezone.now() + timedelta(hours=2)),
            pause_between_rounds=timedelta(0),
            **kw,
        ),
        by=director,
        key=None,
        draft=True,
    )
    assert created and event.status == S.DRAFT
    return event


def test_issue15_a_draft_is_hidden_takes_no_entries_and_the_sweep_leaves_it(client, director):
    # Its registration time and even its start have passed: a published event would be opened
    # (and cancelled for want of entrants) by the sweep; a draft waits for its director.
    event = a_draft(director, registration_opens=timezone.now() - timedelta(hours=1))
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(minutes=1))
    tasks.sweep_events()
    assert status_of(event) == S.DRAFT
    assert event.pk not in services.due_event_ids()
    player = make_users(1, prefix="d")[0]
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_register(tournament_id=event.pk, user=player)
    assert str(refused.value) == "Регистрация на это событие закрыта."
    client.force_login(player)
    assert "Черновик четверга" not in client.get("/tournaments/").content.decode()
    assert client.get(f"/tournaments/{event.pk}/").status_code == 404
    assert client.get(f"/tournaments/{event.pk}/panel/").status_code == 404
    client.force_login(director)
    page = client.get(f"/tournaments/{event.pk}/direct/").content.decode()
    assert "черновик" in page and 'value="publish-event"' in page
    assert client.get(f"/tournaments/{event.pk}/").status_code == 200  # the director previews it


def test_issue15_the_director_saves_a_new_event_as_a_draft_from_the_form(client, director):
    from .test_director_actions import form_data

    client.force_login(director)
    page = client.get("/tournaments/direct/").content.decode()
    assert 'name="draft"' in page
    data = form_data(name="Из формы", draft="1")
    answer = client.post("/tournaments/direct/", data, follow=True)
    event = Tournament.objects.filter(name="Из формы").first()
    assert event is not None, answer.content.decode()[:3000]
    assert event.status == S.DRAFT
    answer = client.post(f"/tournaments/{event.pk}/direct/", {"action": "publish-event"}, follow=True)
    assert "Событие опубликовано." in answer.content.decode()
    assert status_of(event) in (S.SCHEDULED, S.REGISTRATION)


def test_issue15_publish_moves_a_draft_to_scheduled_or_straight_to_registration(director):
    later = a_draft(director, registration_opens=timezone.now() + timedelta(hours=1))
    services.do_publish_event(tournament_id=later.pk, by=director)
    assert status_of(later) == S.SCHEDULED
    due = a_draft(director, registration_opens=timezone.now() - timedelta(minutes=5))
    services.do_publish_event(tournament_id=due.pk, by=director)
    due.refresh_from_db()
    assert due.status == S.REGISTRATION and due.registration_opened_at is not None
    open_at_once = a_draft(director)  # no registration time: open as soon as published
    services.do_publish_event(tournament_id=open_at_once.pk, by=director)
    assert status_of(open_at_once) == S.REGISTRATION
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_publish_event(tournament_id=due.pk, by=director)
    assert str(refused.value) == "Опубликовать можно только черновик."
    # A start already past: published, the sweep would cancel it at once for want of entrants.
    late = a_draft(director, starts_at=timezone.now() - timedelta(minutes=1))
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_publish_event(tournament_id=late.pk, by=director)
    assert str(refused.value) == "Сначала задайте в настройках время начала в будущем, затем опубликуйте событие."
    assert status_of(late) == S.DRAFT


def test_issue15_a_draft_is_edited_and_deleted_but_not_started(director):
    event = a_draft(director)
    assert services.allowed(event, "edit") and services.allowed(event, "delete")
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_start_now(tournament_id=event.pk, by=director)
    assert str(refused.value) == "Событие — черновик: сначала опубликуйте его (или удалите)."
    assert services.do_delete_event(tournament_id=event.pk, by=director) == "Черновик четверга"
    assert not Tournament.objects.filter(pk=event.pk).exists()


def test_issue15_walk_every_allowed_transition(director):
    now = timezone.now()
    event = a_draft(
        director,
        registration_opens=now - timedelta(hours=1),
        checkin_opens=now + timedelta(minutes=30),
        checkin_closes=now + timedelta(minutes=50),
        starts_at=now + timedelta(hours=1),
        rounds=3,
    )
    services.do_publish_event(tournament_id=event.pk, by=director)  # draft -> registration
    assert status_of(event) == S.REGISTRATION
    users = make_users(4, prefix="w")
    register_all(event, users)
    Tournament.objects.filter(pk=event.pk).update(checkin_opens=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()  # registration -> check-in, by time
    assert status_of(event) == S.CHECKIN
    for user in users:
        services.do_check_in(tournament_id=event.pk, user=user)
    services.do_start_now(tournament_id=event.pk, by=director)  # check-in -> running
    assert status_of(event) == S.RUNNING

    services.do_set_paused(tournament_id=event.pk, by=director, paused=True)  # running -> paused
    event.refresh_from_db()
    assert event.status == S.PAUSED and event.paused_at is not None
    play_round(event, 1)  # the round being played goes on while paused
    tasks.sweep_events()
    assert status_of(event) == S.PAUSED
    assert Round.objects.get(tournament=event, number=1).status == Round.Status.FINISHED
    assert not Round.objects.filter(tournament=event, number=2, status=Round.Status.PLAYING).exists()
    services.do_set_paused(tournament_id=event.pk, by=director, paused=False)  # paused -> running
    event.refresh_from_db()
    assert event.status == S.RUNNING and event.paused_at is None
    tasks.sweep_events()
    assert Round.objects.get(tournament=event, number=2).status == Round.Status.PLAYING
    play_round(event, 2)

    services.do_set_paused(tournament_id=event.pk, by=director, paused=True)
    services.do_start_now(tournament_id=event.pk, by=director)  # paused -> running, next round now
    assert status_of(event) == S.RUNNING
    assert Round.objects.get(tournament=event, number=3).status == Round.Status.PLAYING

    services.do_set_paused(tournament_id=event.pk, by=director, paused=True)
    services.do_cancel_event(tournament_id=event.pk, by=director, reason="зал закрывается")  # paused -> cancelled
    assert status_of(event) == S.CANCELLED
    services.do_reopen_event(tournament_id=event.pk, by=director, reason="зал открыт")  # cancelled -> running
    assert status_of(event) == S.RUNNING
    play_round(event, 3)  # the last round ends: running -> finished
    assert status_of(event) == S.FINISHED
    services.do_reopen_event(tournament_id=event.pk, by=director, reason="исправление")  # finished -> running
    services.do_set_paused(tournament_id=event.pk, by=director, paused=True)
    services.do_finish_event(tournament_id=event.pk, by=director)  # paused -> finished
    assert status_of(event) == S.FINISHED
    actions = list(DirectorAction.objects.filter(tournament=event).order_by("pk").values_list("action", flat=True))
    assert actions[:2] == ["create", "publish"] and actions.count("pause") == 4 and "resume" in actions


def test_issue15_before_the_start_cancel_reopen_and_delete(director):
    event = make_event(registration_opens=None)
    tasks.sweep_events()  # scheduled -> registration, by time
    assert status_of(event) == S.REGISTRATION
    services.do_cancel_event(tournament_id=event.pk, by=director, reason="нет зала")  # registration -> cancelled
    services.do_reopen_event(tournament_id=event.pk, by=director, reason="зал нашёлся")  # -> registration
    assert status_of(event) == S.REGISTRATION
    services.do_cancel_event(tournament_id=event.pk, by=director)
    services.do_delete_event(tournament_id=event.pk, by=director)  # cancelled, never started -> gone
    assert not Tournament.objects.filter(pk=event.pk).exists()


# Each lifecycle action, called from a status it does not allow.
def _calls(event, director):
    pk = event.pk
    return {
        "publish": lambda: services.do_publish_event(tournament_id=pk, by=director),
        "start": lambda: services.do_start_now(tournament_id=pk, by=director),
        "pause": lambda: services.do_set_paused(tournament_id=pk, by=director, paused=True),
        "resume": lambda: services.do_set_paused(tournament_id=pk, by=director, paused=False),
        "cancel": lambda: services.do_cancel_event(tournament_id=pk, by=director, reason="x"),
        "reopen": lambda: services.do_reopen_event(tournament_id=pk, by=director, reason="x"),
        "finish": lambda: services.do_finish_event(tournament_id=pk, by=director),
        "delete": lambda: services.do_delete_event(tournament_id=pk, by=director),
        "announce": lambda: services.do_announce(tournament_id=pk, by=director, text="привет"),
    }


STATUS_TEXTS = {
    "draft": "Событие — черновик: сначала опубликуйте его (или удалите).",
    "scheduled": "Событие ещё не началось.",
    "registration": "Событие ещё не началось.",
    "checkin": "Событие ещё не началось.",
    "running": "Событие идёт: сейчас это невозможно.",
    "paused": "Событие приостановлено: сначала продолжите его.",
    "finished": "Событие завершено: сначала откройте его снова.",
    "cancelled": "Событие отменено: сначала откройте его снова.",
}
ACTION_TEXTS = {
    "publish": "Опубликовать можно только черновик.",
    "pause": "Приостановить можно только идущее событие.",
    "resume": "Продолжить можно только приостановленное событие.",
    "reopen": "Снова открыть можно только отменённое или завершённое событие.",
    "finish": "Завершить можно только идущее событие.",
    "delete": "Удалить можно только событие, которое ещё не начиналось.",
}

# The machine itself, written out: from each status, the actions it allows.
ALLOWED = {
    "draft": {"publish", "delete"},
    "scheduled": {"start", "cancel", "delete", "announce"},
    "registration": {"start", "cancel", "delete", "announce"},
    "checkin": {"start", "cancel", "delete", "announce"},
    "running": {"start", "pause", "cancel", "finish", "announce"},
    "paused": {"start", "resume", "cancel", "finish", "announce"},
    "finished": {"reopen"},
    "cancelled": {"reopen", "delete"},
}


@pytest.mark.parametrize("status", [s for s, _label in S.choices])
def test_issue15_every_refused_transition_says_why_in_russian(status, director):
    assert set(STATUS_TEXTS) == {s for s, _label in S.choices}
    event = make_event()
    Tournament.objects.filter(pk=event.pk).update(status=status)
    event.refresh_from_db()
    for action, call in _calls(event, director).items():
        assert services.allowed(event, action) == (action in ALLOWED[status]), (status, action)
        if action in ALLOWED[status]:
            continue
        with pytest.raises(services.TournamentRefused) as refused:
            call()
        assert str(refused.value) == ACTION_TEXTS.get(action, STATUS_TEXTS[status]), (status, action)
        assert status_of(event) == status, (status, action)


def test_issue15_a_paused_event_reads_paused_on_its_pages(client, director):
    event = make_event(rounds=2, starts_at=timezone.now() - timedelta(seconds=1))
    register_all(event, make_users(4, prefix="v"))
    tasks.sweep_events()
    client.force_login(director)
    answer = client.post(f"/tournaments/{event.pk}/direct/", {"action": "pause"}, follow=True)
    assert "Событие приостановлено." in answer.content.decode()
    assert status_of(event) == S.PAUSED
    page = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "status-paused" in page and "на паузе" in page
    assert "Событие приостановлено судьёй: следующий тур начнётся, когда событие продолжится." in page
    assert "Вечерний швейцарец" in client.get("/tournaments/").content.decode()  # listed among the running
    direct = client.get(f"/tournaments/{event.pk}/direct/").content.decode()
    assert 'value="resume"' in direct and 'value="pause"' not in direct
    answer = client.post(f"/tournaments/{event.pk}/direct/", {"action": "resume"}, follow=True)
    assert "Событие продолжается." in answer.content.decode()
    assert status_of(event) == S.RUNNING


@pytest.mark.django_db(transaction=True)
def test_issue15_migration_0013_turns_the_paused_flag_into_the_paused_status():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("tournaments", "0012_house_bots_and_statuses")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    Old = executor.loader.project_state(before).apps.get_model("tournaments", "Tournament")
    start = timezone.now()
    flagged = Old.objects.create(name="a", starts_at=start, status="running", paused=True).pk
    playing = Old.objects.create(name="b", starts_at=start, status="running", paused=False).pk
    # (a flag left on an event that is over says nothing about a pause any more)
    over = Old.objects.create(name="c", starts_at=start, status="finished", paused=True).pk
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    statuses = dict(Tournament.objects.values_list("pk", "status"))
    assert statuses == {flagged: S.PAUSED, playing: S.RUNNING, over: S.FINISHED}
