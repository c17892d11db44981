"""Pairs, the directors' group, the sweep's periodic task, copying an event."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django_celery_beat.models import PeriodicTask

from tournaments import services
from tournaments.forms import TournamentForm
from tournaments.models import Pair, Tournament

from .helpers import make_event, make_users

pytestmark = pytest.mark.django_db


def test_invite_accept_decline_dissolve_keeps_history():
    a, b, c = make_users(3)
    pair = services.do_invite_partner(user=a, partner=b)
    assert pair.status == Pair.Status.INVITED
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_answer_invitation(pair_id=pair.pk, user=a, accept=True)
    assert str(refused.value) == "Это приглашение адресовано не вам."
    services.do_answer_invitation(pair_id=pair.pk, user=b, accept=True)
    other = services.do_invite_partner(user=a, partner=c)  # a player may be in several pairs
    services.do_answer_invitation(pair_id=other.pk, user=c, accept=False)
    assert Pair.objects.get(pk=other.pk).status == Pair.Status.DECLINED
    with pytest.raises(services.TournamentRefused):
        services.do_invite_partner(user=b, partner=a)  # already a pair
    services.do_dissolve_pair(pair_id=pair.pk, user=b)
    pair.refresh_from_db()
    assert pair.status == Pair.Status.DISSOLVED and pair.dissolved_at is not None
    again = services.do_invite_partner(user=a, partner=b)  # a new pair; the old one stays as history
    assert again.pk != pair.pk and Pair.objects.filter(player_one=a, player_two=b).count() == 2


def test_pair_events_take_an_active_pair_of_yours():
    a, b, c = make_users(3)
    event = make_event(kind=Tournament.Kind.PAIRS)
    pair = services.do_invite_partner(user=a, partner=b)
    with pytest.raises(services.TournamentRefused):
        services.do_register(tournament_id=event.pk, user=a, pair_id=pair.pk)  # not accepted yet
    services.do_answer_invitation(pair_id=pair.pk, user=b, accept=True)
    with pytest.raises(services.TournamentRefused):
        services.do_register(tournament_id=event.pk, user=c, pair_id=pair.pk)
    entrant = services.do_register(tournament_id=event.pk, user=b, pair_id=pair.pk)
    assert entrant.pair == pair and entrant.user is None


def test_migrations_create_the_directors_group_and_the_sweep():
    assert Group.objects.get(name="Tournament directors").permissions.filter(codename="change_tournament").exists()
    task = PeriodicTask.objects.get(task="tournaments.tasks.sweep_events")
    assert task.enabled and task.interval.every == 5 and task.interval.period == "seconds"


def test_copy_makes_next_weeks_event():
    event = make_event(name="Среда", rules={"deck": 52, "throw_in": "neighbours"})
    copy = services.do_copy_event(tournament_id=event.pk)
    assert copy.name == "Среда" and copy.rules == event.rules
    assert copy.starts_at - event.starts_at == timedelta(days=7)
    assert copy.status == Tournament.Status.SCHEDULED and not copy.entrants.exists()


def test_the_event_form_builds_the_rules_and_refuses_bad_setups():
    data = {
        "name": "Пятница",
        "variant": "perevodnoy",
        "kind": "individual",
        "table_size": 3,
        "format": "swiss",
        "rounds": 3,
        "games_per_round": 1,
        "starts_at": "2030-01-01 19:00",
        "pause_between_rounds": "00:02:00",
        "turn_seconds": 30,
        "points_table": "[]",
        "deck": 36,
        "first_bout_limit": 6,
        "throw_in": "neighbours",
        "trump_show_transfer": "on",
    }
    form = TournamentForm(data=data)
    assert form.is_valid(), form.errors
    event = form.save()
    assert event.rules == {
        "deck": 36,
        "first_bout_limit": 6,
        "throw_in": "neighbours",
        "trump_show_transfer": True,
        "trump_six_swap": False,
    }
    pairs_at_three = TournamentForm(data={**data, "kind": "pairs"})
    assert not pairs_at_three.is_valid()
    assert "Пары играют 2 на 2 за столами на четверых." in str(pairs_at_three.errors)


def test_the_database_scheduler_of_beat_runs_the_sweep_on_the_default_queue():
    """Beat (a process of its own, or the embedded thread) reads its schedule from the database."""
    from django_celery_beat.schedulers import DatabaseScheduler

    from durak_site.celery import app

    scheduler = DatabaseScheduler(app=app, lazy=True)
    entry = scheduler.all_as_schedule()["tournaments: sweep events"]
    assert entry.task == "tournaments.tasks.sweep_events"
    assert entry.options.get("queue") == "default"
    assert entry.schedule.run_every.total_seconds() == 5
