"""Celery: each variant on its own queue, in order; repeated messages change nothing."""

import json

import pytest
from django.db import transaction
from django_celery_beat.models import PeriodicTask

from games.signals import game_finished
from ratings import services, tasks
from ratings.models import RatedGame, Rating
from tests.ratings.helpers import finished_game, people

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    from durak_site.celery import app

    calls = []
    monkeypatch.setattr(app, "send_task", lambda name, args=None, queue=None, **kw: calls.append((name, args, queue)))
    return calls


def test_a_finished_rated_game_is_sent_to_its_variants_ratings_queue(sent):
    game_finished.send_robust(sender=None, game_id=7, table_id=3, variant="perevodnoy", rated=True)
    game_finished.send_robust(sender=None, game_id=8, table_id=4, variant="podkidnoy", rated=True)
    assert sent == [
        ("ratings.tasks.rate_game", [7], "ratings-perevodnoy"),
        ("ratings.tasks.rate_game", [8], "ratings-podkidnoy"),
    ]


def test_an_unrated_game_sends_nothing(sent):
    game_finished.send_robust(sender=None, game_id=7, table_id=3, variant="podkidnoy", rated=False)
    assert sent == []


def test_a_broker_that_is_away_never_fails_the_game(monkeypatch):
    from durak_site.celery import app

    def broken(*args, **kwargs):
        raise ConnectionError("broker away")

    monkeypatch.setattr(app, "send_task", broken)
    responses = game_finished.send_robust(sender=None, game_id=7, table_id=3, variant="podkidnoy", rated=True)
    assert all(not isinstance(response, Exception) for _, response in responses)


def test_the_task_rates_and_a_repeated_task_changes_nothing():
    anna, boris = people("anna", "boris")
    game = finished_game([(anna, 1), (boris, 2)])
    assert tasks.rate_game.apply(args=[game.pk]).get() == 1
    before = list(Rating.objects.values_list("user_id", "mu", "sigma", "games"))
    assert tasks.rate_game.apply(args=[game.pk]).get() == 0
    assert list(Rating.objects.values_list("user_id", "mu", "sigma", "games")) == before
    assert RatedGame.objects.count() == 1


def test_the_recompute_task_rebuilds_a_variant():
    anna, boris = people("anna", "boris")
    finished_game([(anna, 1), (boris, 2)])
    finished_game([(anna, 2), (boris, 1)], variant="perevodnoy")
    assert tasks.recompute.apply(args=["podkidnoy"]).get() == 1
    assert set(Rating.objects.values_list("variant", flat=True)) == {"podkidnoy"}


def test_the_periodic_recomputation_is_in_the_database_schedule_per_variant():
    for variant in services.VARIANTS:
        row = PeriodicTask.objects.get(name=services.schedule_name(variant))
        assert row.task == "ratings.tasks.recompute"
        assert json.loads(row.args) == [variant]
        assert row.queue == "batch"  # a full recomputation is batch work (issue 16, live play first)
        assert row.crontab is not None and row.enabled
    row.enabled = False  # edited in the admin: ensure_schedule leaves it so
    row.save()
    services.ensure_schedule()
    assert PeriodicTask.objects.filter(task="ratings.tasks.recompute").count() == len(services.VARIANTS)
    assert not PeriodicTask.objects.get(pk=row.pk).enabled


@pytest.mark.django_db(transaction=True)
def test_finishing_a_rated_game_through_the_play_service_enqueues_its_rating(sent):
    """The signal is sent on commit by the play service (contract 1); here by hand, in a transaction."""
    anna, boris = people("anna", "boris")
    with transaction.atomic():
        game = finished_game([(anna, 1), (boris, 2)], variant="perevodnoy")
        transaction.on_commit(
            lambda: game_finished.send_robust(
                sender=None, game_id=game.pk, table_id=game.table_id, variant="perevodnoy", rated=True
            )
        )
        assert sent == []
    assert sent == [("ratings.tasks.rate_game", [game.pk], "ratings-perevodnoy")]
