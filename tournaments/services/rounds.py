"""The round formats' driver (Swiss, round robin, knockout; tournaments.event_formats calls it):
a round started (seated, its tables opened, byes scored), each finished game recorded and
each table's next game of the round dealt, each step in a transaction of its own."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import F

from games import selectors as game_records
from games.choices import GameStatus
from games.services import tables as game_tables

from .. import notify, registry, signals, standings
from ..models import Entrant, Result, Round, RoundTable, StuckStep, Tournament
from ..selectors import seating as seating_reads
from . import results, seating, setup
from .base import current_round
from .steps import StepFailed, note_failure


def start_round(event: Tournament, number: int, now) -> list[str]:
    previous = event.round_set.filter(number__lt=number).order_by("-number").first()
    if number > 1 and (previous is None or previous.number != number - 1 or previous.status != Round.Status.FINISHED):
        return []
    round_ = Round.objects.select_for_update(of=("self",)).filter(tournament=event, number=number).first()
    if round_ is not None and round_.status != Round.Status.SCHEDULED:
        return []  # already started: a repeat seats nobody twice
    if round_ is None:
        try:
            with transaction.atomic():
                round_ = Round.objects.create(tournament=event, number=number, starts_at=now)
        except IntegrityError:
            return []
    if round_.tables.exists() and not round_.seated_by_director and seating_reads.draft_is_stale(event, round_):
        RoundTable.objects.filter(round=round_).delete()  # an untouched draft of another field: seat anew
    if round_.tables.exists():
        seating.drop_ineligible(event, round_)
        seating.seat_newcomers(event, round_)
        if number == 1:  # seated by the director: the seeds are still the event's
            entrants = seating_reads.eligible_for_round(event, 1)
            seating.fix_seeds(entrants, seating_reads.seeded_ids(event, entrants)[0])
    if not round_.tables.exists():
        plan = seating.seat_round(event, number)
        if plan is None:
            if number == 1:
                event.status = Tournament.Status.CANCELLED
                event.finished_at = now
                event.save(update_fields=["status", "finished_at"])
                round_.delete()
                return ["cancelled: too few entrants"]
            results.finish_event(event, now)
            round_.delete()
            return ["finished: nobody left to seat"]
        seating.store_seating(round_, plan)
    seated_users = open_round_tables(event, round_)
    table_of_points = setup.points_table(event)
    for pk in round_.byes:
        Result.objects.get_or_create(
            round=round_,
            entrant_id=pk,
            game_number=0,
            defaults={
                "is_bye": True,
                "points": 0.0 if registry.of(event).knockout else standings.bye_points(table_of_points),
            },
        )
    Entrant.objects.filter(pk__in=round_.byes).update(byes=_byes_plus_one())
    results.requested_bye_results(event, round_)
    round_.status = Round.Status.PLAYING
    round_.started_at = now
    round_.published_at = round_.published_at or now
    round_.ends_at = now + event.round_time_limit if event.round_time_limit else None
    round_.save(update_fields=["status", "started_at", "ends_at", "published_at"])
    if event.status != Tournament.Status.RUNNING:
        event.status = Tournament.Status.RUNNING
        event.started_at = now
        event.save(update_fields=["status", "started_at"])
    notify.seats_on_commit(event.pk, number, seated_users)
    signals.send_on_commit(signals.round_started, tournament_id=event.pk, round_id=round_.pk, number=number)
    if round_.ends_at:
        notify.nudge_event_on_commit(event.pk, event.variant, round_.ends_at)
    return [f"round {number} started"]


def open_round_tables(event: Tournament, round_: Round, tables=None) -> dict[int, tuple[int, int]]:
    """Open a game table, its first game dealt, for each table of the round that has none
    (of `tables` only, when given: an arena's new ones); returns {user id: (table id, round
    table number)} of who was seated."""
    wanted = event.entrants.all()
    if tables is not None:
        wanted = wanted.filter(pk__in=[pk for rt in tables for pk in rt.entrants])
    entrants = {e.pk: e for e in wanted.select_related("pair", "user")}
    seated_users: dict[int, tuple[int, int]] = {}
    for rt in tables if tables is not None else round_.tables.select_for_update(of=("self",)).order_by("number"):
        if rt.table_id is not None:
            continue
        users = seating.users_to_seat([entrants[pk] for pk in rt.entrants], event)
        table = game_tables.do_create_table(
            rules=setup.rules_of(event, len(users)),
            seat_users=users,
            turn_seconds=event.turn_seconds,
            rated=event.rated,
            start=True,
            rematch=False,  # the event deals each game of the round, players never do
            managed_by_event=True,  # and its seats are fixed: nobody leaves or joins, between games too
            arrival_grace=event.no_show_grace,  # the no-show rule decides, not three timeouts
        )
        rt.table = table
        rt.save(update_fields=["table"])
        for user in users:
            seated_users[user.pk] = (table.pk, rt.number)
    return seated_users


def _byes_plus_one():
    return F("byes") + 1


def record_round_game(tournament_id: int, round_table_id: int, game: dict, now) -> list[str]:
    """A round event's game: its results, then the table's next game of the round."""
    done = results.record_table_game(tournament_id, round_table_id, game, now)
    try:
        done += results.deal_next(tournament_id, round_table_id, now)
    except Exception as exc:  # the result stays; the sweep deals later, with backoff
        note_failure(tournament_id, StepFailed(StuckStep.Step.DEAL, round_table_id, exc), now)
    return done


def _playing_round(tournament_id: int) -> tuple[Tournament, Round] | tuple[None, None]:
    event = Tournament.objects.filter(pk=tournament_id).first()
    if event is None or not event.is_under_way:
        return None, None
    round_ = current_round(event)
    if round_ is None or round_.status != Round.Status.PLAYING:
        return None, None
    return event, round_


def record_finished_games(tournament_id: int, now, failures: list, hold=frozenset()) -> list[str]:
    """The sweep's safety net: games that ended without their nudge being handled.
    Each is recorded in a transaction of its own: one that fails is noted in
    `failures` and keeps no other table's result from being stored."""
    done: list[str] = []
    event, round_ = _playing_round(tournament_id)
    if round_ is None:
        return done
    open_tables = list(round_.tables.filter(done=False, table__isnull=False))
    latest = game_records.latest_games([rt.table_id for rt in open_tables])
    recorded = results.recorded_games(round_, latest.values())
    for rt in open_tables:
        row = latest.get(rt.table_id)
        if row and row["status"] == GameStatus.FINISHED and row["pk"] not in recorded:
            if (StuckStep.Step.RECORD, rt.pk) in hold:
                continue
            game = game_records.finished_game(row["pk"])
            if game is None:
                continue
            try:
                done += results.record_table_game(tournament_id, rt.pk, game, now)
            except Exception as exc:  # noted; the sweep tries again after a pause
                failures.append(StepFailed(StuckStep.Step.RECORD, rt.pk, exc))
    return done


def deal_due_games(tournament_id: int, now, failures: list, hold=frozenset()) -> list[str]:
    """Deal the next game wherever the round waits for one: a table of the round
    being played, not done, with fewer games than the round has, whose latest game
    is finished and recorded. Each table in a transaction of its own, after the
    results are committed; one that fails is noted in `failures`. Repeating it
    deals nothing twice."""
    done: list[str] = []
    event, round_ = _playing_round(tournament_id)
    if round_ is None:
        return done
    open_tables = list(round_.tables.filter(done=False, table__isnull=False, games_played__lt=event.games_per_round))
    latest = game_records.latest_games([rt.table_id for rt in open_tables])
    recorded = results.recorded_games(round_, latest.values())
    for rt in open_tables:
        row = latest.get(rt.table_id)
        if row is not None and (row["status"] != GameStatus.FINISHED or row["pk"] not in recorded):
            continue
        if (StuckStep.Step.DEAL, rt.pk) in hold:
            continue
        try:
            done += results.deal_next(tournament_id, rt.pk, now)
        except Exception as exc:  # noted; the sweep tries again after a pause
            failures.append(StepFailed(StuckStep.Step.DEAL, rt.pk, exc))
    return done
