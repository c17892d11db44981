"""Absence is a result: no-show forfeits, keeping an absent entrant, adjudication.

No-shows. An entrant has come to his table when one of these holds for each of his
players: the table's live socket was opened from his seat (`TableSeat.seen_at`,
written by the table consumer through games.services.presence), or he made a move
of his own at that table. An entrant who has not come `Tournament.no_show_grace`
(default two minutes) after the game at his table was dealt forfeits that game
(games.services.adjudication.do_forfeit_game): he is placed last and counted
durak (0 points); the others rank as if he were not there: with two entrants the
other wins; at a fuller table those who have already gone out keep their order and
those still in share the next place (sharing the points of the places they span,
as any shared place does), since a game just dealt says nothing more about them.
The game is then recorded through the normal path (services.do_record_game) and
his result is marked `absent`. A game that ended before the grace was over, in
which a player who never came was put on autopilot by his timeouts, counts as his
absence as well. Absences are counted by rounds; at ABSENCES_TO_WITHDRAW he is
withdrawn from the later rounds, unless the director keeps him (`do_keep_entrant`).
In an arena (one round for the whole event) a no-show is paused after his first
forfeit instead: not seated again until he comes back (services.arena).

Adjudication. The director ends a stuck game at a table of his event's round being
played by setting each entrant's place (`do_adjudicate_game`); it is recorded as a
game result through the same path, and each result row says who set it and when.

Every `do_*` is one transaction; the sweep (tasks.sweep_events) runs
`do_forfeit_no_shows` every few seconds, one transaction per table. A table whose
no-show step fails is a StuckStep (kind NO_SHOW) like a failing step of the event's
own: logged once, retried after a growing pause, shown to the director.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import selectors as game_selectors
from games.errors import MoveRefused
from games.services import adjudication

from . import notify, registry, services
from .errors import TournamentRefused
from .models import Entrant, Result, Round, RoundTable, StuckStep, Tournament
from .selectors.absence import absences
from .services.absence import ABSENCES_TO_WITHDRAW

log = logging.getLogger(__name__)

LOOK_BACK = timedelta(days=1)  # games older than this are not searched for absences


# ------------------------------------------------------------------ reads


def _came(table_id: int) -> set[int]:
    """Users who have come to the table: seen by its socket, or moved there themselves."""
    return game_selectors.users_who_came(table_id)


def _users_by_entrant(rt: RoundTable, entrants: dict[int, Entrant]) -> dict[int, list[int]]:
    return {pk: entrants[pk].user_ids() for pk in rt.entrants if pk in entrants}


# ------------------------------------------------------------ no-shows


def do_forfeit_no_shows(*, now=None, tournament_id: int | None = None) -> list[str]:
    """Forfeit every game due at `now` whose table an entrant has not come to; mark the
    absences of games that ended before; withdraw whoever reached ABSENCES_TO_WITHDRAW.
    Idempotent: each table is re-checked under the event's lock. Returns what it did."""
    now = now or timezone.now()
    done: list[str] = []
    held, stuck = _stuck_no_shows(tournament_id, now)
    for event_id, rt_id in _open_tables(tournament_id):
        if (event_id, rt_id) not in held:
            done += _step(event_id, rt_id, stuck, now, _forfeit_table, event_id, rt_id, now)
    for event_id in _events_with_unmarked_timeouts(tournament_id, now):
        if (event_id, None) not in held:
            done += _step(event_id, None, stuck, now, _mark_timed_out, event_id, now)
    return done


def _stuck_no_shows(tournament_id: int | None, now) -> tuple[set, dict]:
    """No-show steps that failed (StuckStep, kind NO_SHOW): those waiting for their next
    attempt, and all of them by (event, round table) to clear one that succeeds."""
    rows = StuckStep.objects.filter(step=StuckStep.Step.NO_SHOW)
    if tournament_id is not None:
        rows = rows.filter(tournament_id=tournament_id)
    stuck = {(s.tournament_id, s.round_table_id): s for s in rows}
    return {key for key, s in stuck.items() if s.next_attempt_at > now}, stuck


def _step(event_id: int, rt_id: int | None, stuck: dict, now, step, *args) -> list[str]:
    """One table's (or one event's) no-show step; a failure is noted as the event's own
    steps are (`services.note_failure`: logged once, retried after a growing pause,
    shown to the director), so one broken table neither stops the others nor logs at
    every sweep; a step that succeeds again is cleared."""
    try:
        done = step(*args)
    except Exception as exc:  # one broken table must not stop the others
        try:
            services.note_failure(event_id, services.StepFailed(StuckStep.Step.NO_SHOW, rt_id, exc), now)
        except Exception:  # noting it failed too (the database is away): the next sweep retries
            log.exception("could not check table %s of event %s for no-shows", rt_id, event_id)
        return []
    if (event_id, rt_id) in stuck and StuckStep.objects.filter(pk=stuck[event_id, rt_id].pk).delete()[0]:
        log.info("event %s: the no-show step of round table %s that failed succeeded", event_id, rt_id)
        notify.event_changed_on_commit(event_id)
    return done


def _open_tables(tournament_id: int | None) -> list[tuple[int, int]]:
    tables = RoundTable.objects.filter(
        done=False,
        table__isnull=False,
        round__status=Round.Status.PLAYING,
        round__tournament__status__in=Tournament.UNDER_WAY,
    )
    if tournament_id is not None:
        tables = tables.filter(round__tournament_id=tournament_id)
    return list(tables.order_by("pk").values_list("round__tournament_id", "pk"))


def _absent_entrants(rt: RoundTable, event: Tournament) -> tuple[list[int], set[int]]:
    """Entrants of the table who have not come, and the seat numbers of their players who have not."""
    came = _came(rt.table_id)
    entrants = {e.pk: e for e in event.entrants.filter(pk__in=rt.entrants).select_related("pair")}
    seat_of = game_selectors.seat_numbers_by_user(rt.table_id)
    absent, seats = [], set()
    for pk, user_ids in _users_by_entrant(rt, entrants).items():
        missing = [uid for uid in user_ids if uid not in came and uid in seat_of]
        if missing:
            absent.append(pk)
            seats.update(seat_of[uid] for uid in missing)
    return absent, seats


def _due_game(rt: RoundTable, grace, now) -> dict | None:
    """The game being played at the table, if it was dealt at least `grace` before `now`."""
    game = game_selectors.playing_game(rt.table_id)
    if game is None or game["started_at"] > now - grace:
        return None
    return game


def _forfeit_table(event_id: int, rt_id: int, now) -> list[str]:
    # A first look without the event's lock: most tables, most of the time, have nothing due.
    rt = RoundTable.objects.select_related("round__tournament").get(pk=rt_id)
    event = rt.round.tournament
    if _due_game(rt, event.no_show_grace, now) is None or not _absent_entrants(rt, event)[0]:
        return []
    with transaction.atomic():
        event = Tournament.objects.select_for_update(of=("self",)).get(pk=event_id)
        rt = RoundTable.objects.select_related("round").get(pk=rt_id)
        if rt.done or rt.round.status != Round.Status.PLAYING or not event.is_under_way:
            return []
        game = _due_game(rt, event.no_show_grace, now)
        if game is None:
            return []
        absent, seats = _absent_entrants(rt, event)
        if not absent:
            return []
        if not adjudication.do_forfeit_game(game_id=game["pk"], absent_seats=seats, now=now):
            return []
        done = [f"table {rt.number}: game {game['pk']} forfeited by {len(absent)} absent"]
        done += services.do_record_game(game_id=game["pk"], now=now)
        Result.objects.filter(game_id=game["pk"], entrant_id__in=absent).update(absent=True)
        done += registry.of(event).absent(event, absent, now)
    notify.event_changed_on_commit(event_id)
    return done


def _events_with_unmarked_timeouts(tournament_id: int | None, now) -> list[int]:
    """Events with a recorded game, not marked absent, in which a seat timed out onto the
    autopilot (whether its player had come is checked in `_timed_out_absent`)."""
    results = Result.objects.filter(absent=False, game__isnull=False, recorded_at__gte=now - LOOK_BACK)
    if tournament_id is not None:
        results = results.filter(round__tournament_id=tournament_id)
    game_ids = set(results.values_list("game_id", flat=True))
    if not game_ids:
        return []
    timed_out = {game_id for game_id, _user_id in game_selectors.timed_out_players(game_ids)}
    if not timed_out:
        return []
    return sorted(set(results.filter(game_id__in=timed_out).values_list("round__tournament_id", flat=True)))


def _timed_out_absent(event_id: int, now) -> list[Result]:
    """Results of the event's recent games whose entrant's player never came to the table
    and timed out onto the autopilot (a game that ended before the grace was over)."""
    results = list(
        Result.objects.filter(
            round__tournament_id=event_id, absent=False, game__isnull=False, recorded_at__gte=now - LOOK_BACK
        ).select_related("round_table", "entrant__pair")
    )
    timed_out: dict[int, set[int]] = {}
    for game_id, user_id in game_selectors.timed_out_players({r.game_id for r in results}):
        timed_out.setdefault(game_id, set()).add(user_id)
    absent, came_at = [], {}
    for result in results:
        mine = [uid for uid in result.entrant.user_ids() if uid in timed_out.get(result.game_id, ())]
        if not mine or result.round_table is None:
            continue
        table_id = result.round_table.table_id
        if table_id not in came_at:
            came_at[table_id] = _came(table_id)
        if any(uid not in came_at[table_id] for uid in mine):
            absent.append(result)
    return absent


def _mark_timed_out(event_id: int, now) -> list[str]:
    if not _timed_out_absent(event_id, now):  # a first look without the event's lock
        return []
    with transaction.atomic():
        event = Tournament.objects.select_for_update(of=("self",)).get(pk=event_id)
        marked = _timed_out_absent(event_id, now)
        if not marked:
            return []
        Result.objects.filter(pk__in=[r.pk for r in marked]).update(absent=True)
        done = [f"absence marked: entrant {r.entrant_id}, game {r.game_id}" for r in marked]
        done += registry.of(event).absent(event, sorted({r.entrant_id for r in marked}), now)
    notify.event_changed_on_commit(event_id)
    return done


def do_keep_entrant(*, tournament_id: int, entrant_id: int, by) -> Entrant:
    """The director keeps an entrant despite his absences: he is not withdrawn for them,
    and one withdrawn for them plays again from the next round."""
    if not services.can_direct(by):
        raise TournamentRefused(_("Only a tournament director may do this."))
    with transaction.atomic():
        event = Tournament.objects.select_for_update(of=("self",)).filter(pk=tournament_id).first()
        if event is None:
            raise TournamentRefused(_("There is no such event."))
        if event.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            raise TournamentRefused(_("The event is over."))
        entrant = Entrant.objects.select_for_update(of=("self",)).filter(pk=entrant_id, tournament=event).first()
        if entrant is None:
            raise TournamentRefused(_("There is no such entrant."))
        if entrant.kept:
            raise TournamentRefused(_("This entrant is already kept in the event."))
        entrant.kept = True
        fields = ["kept"]
        if entrant.state == Entrant.State.WITHDRAWN and absences(entrant.pk) >= ABSENCES_TO_WITHDRAW:
            entrant.state = Entrant.State.ACTIVE
            entrant.state_changed_at = timezone.now()
            fields += ["state", "state_changed_at"]
        entrant.save(update_fields=fields)
    notify.event_changed_on_commit(tournament_id)
    return entrant


# --------------------------------------------------------- adjudication


def do_adjudicate_game(*, tournament_id: int, round_table_id: int, places: dict, by, now=None) -> list[str]:
    """The director ends the game being played at a table of his event's current round
    with the places he sets ({entrant id: place}, every entrant of the table once, 1 the
    best; the worst place is the durak's). Recorded as the game's result; the result
    rows say who set it and when."""
    if not services.can_direct(by):
        raise TournamentRefused(_("Only a tournament director may do this."))
    now = now or timezone.now()
    with transaction.atomic():
        event = Tournament.objects.select_for_update(of=("self",)).filter(pk=tournament_id).first()
        if event is None:
            raise TournamentRefused(_("There is no such event."))
        rt = (
            RoundTable.objects.select_related("round")
            .filter(pk=round_table_id, round__tournament=event, table__isnull=False)
            .first()
        )
        if rt is None:
            raise TournamentRefused(_("There is no such table in this event."))
        if rt.done or rt.round.status != Round.Status.PLAYING:
            raise TournamentRefused(_("The games of this table are over."))
        given = _entrant_places(places, rt.entrants)
        game = game_selectors.playing_game(rt.table_id)
        if game is None:
            raise TournamentRefused(_("No game is being played at this table."))
        if event.is_pairs:  # entrant i is team i: seats i and i + 2
            seat_places = {seat: given[rt.entrants[seat % 2]] for seat in range(4)}
        else:
            seat_places = {seat: given[pk] for seat, pk in enumerate(rt.entrants)}
        try:
            adjudication.do_adjudicate_game(game_id=game["pk"], places=seat_places, by_id=by.pk, now=now)
        except MoveRefused as refusal:
            raise TournamentRefused(refusal.message) from None
        done = [f"table {rt.number}: game {game['pk']} adjudicated"]
        done += services.do_record_game(game_id=game["pk"], now=now)
        Result.objects.filter(game_id=game["pk"]).update(adjudicated_by=by, adjudicated_at=now)
        log.info("event %s, table %s: game %s adjudicated by %s", event.pk, rt.number, game["pk"], by.pk)
    notify.event_changed_on_commit(tournament_id)
    return done


def _entrant_places(places: dict, entrants: list[int]) -> dict[int, int]:
    try:
        given = {int(pk): int(place) for pk, place in (places or {}).items()}
    except (TypeError, ValueError):
        raise TournamentRefused(_("Give every entrant at the table a place.")) from None
    if set(given) != set(entrants):
        raise TournamentRefused(_("Give every entrant at the table a place."))
    if any(not 1 <= place <= len(entrants) for place in given.values()):
        raise TournamentRefused(_("A place is a number from 1 to %(count)s."), count=len(entrants))
    return given
