"""The arena (issue 20): for a fixed time, whoever finishes a game is seated again at once
with others who are free (formats.arena: the seating pass and the scoring). The arena's
driver: tournaments.event_formats.Arena calls it; its reads are in tournaments.selectors.arena.

How it is stored. The whole arena is one round (number 1), playing from the start until the
last game after the end is recorded. Each game is a round table of its own, numbered in the
order dealt, with one game: its `entrants` are who met whom. A finished game gives a Result
per entrant (`game_number` is the table's number, so each entrant's results are numbered in
the order he played them); its `points` are what `formats.arena_score` gives that game over
his games in order, recounted whenever one of his results changes (`recount`: a correction
of the places, a forfeit marked absent), since a streak reaches over the games after it.

Who is free: an active entrant (checked in, when the event has a check-in), not paused,
not at a round table whose game is not recorded yet. `Entrant.arena_free_since` is when his
last game ended (or the arena started, or he came back from a pause): who waited longest is
seated first.

The seating pass (`do_arena_seating_pass`) runs under the event's row lock and re-derives
everything from the database, so two passes at once (two nudges, a repeated message, the
sweep) seat nobody twice: the second waits for the first and finds its players at tables.
It is nudged when a game is recorded (after the commit), when someone comes back, and by
the periodic sweep (services.do_sweep_event -> the format's `seat_free`, event_formats.Arena);
players the core keeps waiting for a fuller table get a nudge of their own when their wait
is over (`formats.MIN_WAIT_S`).

The end: from `Tournament.arena_ends_at` no game is dealt; the games in play finish and
count; the recording of the last one (or the sweep) finishes the event.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import selectors as game_records
from games.choices import GameStatus
from games.errors import MoveRefused
from games.services import play as game_play

from .. import formats, notify, seating_groups, signals
from ..errors import TournamentRefused
from ..models import Entrant, Result, Round, RoundTable, StuckStep, Tournament
from ..selectors import seating as seating_reads
from ..selectors.arena import (
    ARENA_ROUND,
    arena_games,
    arena_round,
    free_entrants,
    is_over,
    last_mates,
    points_of,
)
from . import results, seating
from .base import locked_event
from .rounds import open_round_tables
from .steps import StepFailed

log = logging.getLogger(__name__)

# A nudge planned for when a waiting player is ready comes a little after it (clocks differ).
READY_SLACK = timedelta(milliseconds=200)


# ------------------------------------------------------------------ reads


# ---------------------------------------------------------------- writes


def recount(event: Tournament, entrant_ids) -> None:
    """Each entrant's results carry the points `arena_score` gives them over his games in
    order (a streak, a correction or an absence reaches over the games after it)."""
    round_ = arena_round(event)
    if round_ is None:
        return
    for games in arena_games(round_, entrant_ids).values():
        score = formats.arena_score([g for _r, g in games])
        for (result, _game), points in zip(games, score.per_game, strict=True):
            if result.points != points:
                Result.objects.filter(pk=result.pk).update(points=points)


def start_arena(event: Tournament, now) -> list[str]:
    """Under the event's lock, at its start time: the arena's round starts, everyone in play
    is free, and the first pass seats them. Fewer than two: the event is cancelled."""
    entrants = seating_reads.eligible_for_round(event, ARENA_ROUND)
    if len(entrants) < 2:
        event.status = Tournament.Status.CANCELLED
        event.finished_at = now
        event.save(update_fields=["status", "finished_at"])
        return ["cancelled: too few entrants"]
    seating.fix_seeds(entrants, seating_reads.seeded_ids(event, entrants)[0])
    round_, _created = Round.objects.get_or_create(tournament=event, number=ARENA_ROUND, defaults={"starts_at": now})
    if round_.status != Round.Status.SCHEDULED:
        return []
    event.status = Tournament.Status.RUNNING
    event.started_at = now
    event.save(update_fields=["status", "started_at"])
    round_.status = Round.Status.PLAYING
    round_.started_at = round_.published_at = now
    round_.ends_at = event.arena_ends_at
    round_.save(update_fields=["status", "started_at", "published_at", "ends_at"])
    Entrant.objects.filter(pk__in=[e.pk for e in entrants]).update(arena_free_since=now)
    signals.send_on_commit(signals.round_started, tournament_id=event.pk, round_id=round_.pk, number=ARENA_ROUND)
    notify.nudge_event_on_commit(event.pk, event.variant, round_.ends_at)  # the end comes on time
    dealt = _seat_free(event, round_, now)
    return ["arena started", f"{dealt} tables dealt"]


def do_arena_seating_pass(*, tournament_id: int, now=None) -> int:
    """One seating pass: tables dealt to whoever is free (returns how many). Under the event's
    lock, so a pass run twice at once seats nobody twice. Past the end it deals nothing and,
    once no game is in play, finishes the event."""
    now = now or timezone.now()
    with transaction.atomic():
        event = locked_event(tournament_id)
        if not event.event_format.continuous or event.status not in Tournament.UNDER_WAY:
            return 0
        round_ = arena_round(event)
        if round_ is None or round_.status != Round.Status.PLAYING:
            return 0
        if is_over(event, now):
            _finish_if_done(event, round_, now)
            return 0
        if event.status != Tournament.Status.RUNNING:
            return 0  # the director paused the event: the games in play go on, nothing is dealt
        dealt = _seat_free(event, round_, now)
    if dealt:
        notify.event_changed_on_commit(tournament_id)
    return dealt


def _seat_free(event: Tournament, round_: Round, now) -> int:
    free = free_entrants(event, round_)
    if len(free) < 2:
        return 0
    for entrant in free:
        if entrant.arena_free_since is None:  # (a late entrant, or one a director let back in)
            entrant.arena_free_since = now
            Entrant.objects.filter(pk=entrant.pk).update(arena_free_since=now)
    ids = [e.pk for e in free]
    points = points_of(round_, ids)
    mates = last_mates(round_, ids)
    ratings = seating_reads.entrant_ratings(event, free)
    players = [
        formats.FreePlayer(
            entrant=e.pk,
            points=points.get(e.pk, 0.0),
            free_since=e.arena_free_since.timestamp(),
            rating=ratings.get(e.pk),
            recent_mates=mates.get(e.pk, frozenset()),
        )
        for e in free
    ]
    last = round_.tables.aggregate(last=Max("number"))["last"] or 0
    tables = formats.arena_tables(
        players,
        event.entrants_per_table,
        now=now.timestamp(),
        min_wait_s=formats.MIN_WAIT_S,
        seed=event.pk * 100003 + last,
        apart=seating_groups.groups_of(event) or None,
    )
    new = [
        RoundTable.objects.create(round=round_, number=last + i, entrants=list(table))
        for i, table in enumerate(tables, start=1)
    ]
    seated = open_round_tables(event, round_, tables=new)
    seated_entrants = {pk for table in tables for pk in table}
    Entrant.objects.filter(pk__in=seated_entrants).update(arena_free_since=None)
    if seated:
        notify.seats_on_commit(event.pk, ARENA_ROUND, seated, arena=True)
    waiting = [p for p in players if p.entrant not in seated_entrants]
    not_ready = [p.free_since for p in waiting if p.free_since + formats.MIN_WAIT_S > now.timestamp()]
    if len(waiting) >= 2 and not_ready:
        # The core keeps them waiting for a fuller table: a pass when the first is ready.
        ready_at = datetime.fromtimestamp(min(not_ready) + formats.MIN_WAIT_S, tz=UTC)
        notify.nudge_arena_on_commit(event.pk, event.variant, ready_at + READY_SLACK)
    return len(new)


def _finish_if_done(event: Tournament, round_: Round, now) -> list[str]:
    """Past the end, once the last game in play is recorded: the round and the event end."""
    if round_.tables.filter(done=False).exists():
        return []
    round_.status = Round.Status.FINISHED
    round_.finished_at = now
    round_.save(update_fields=["status", "finished_at"])
    results.finish_event(event, now)
    notify.event_changed_on_commit(event.pk)
    return ["event finished"]


def record_arena_game(tournament_id: int, round_table_id: int, game: dict, now) -> list[str]:
    """A finished arena game: a result per entrant, the points recounted, its players free
    again; a pass is nudged once this is committed."""
    with transaction.atomic():
        event = locked_event(tournament_id)
        rt = RoundTable.objects.select_for_update(of=("self",)).select_related("round").get(pk=round_table_id)
        round_ = rt.round
        if rt.done or round_.status != Round.Status.PLAYING:
            return []
        if Result.objects.filter(round=round_, game_id=game["pk"]).exists():
            return []
        entrants = list(rt.entrants)
        places, _points, durak, house = results.game_outcome(event, entrants, game)
        berserk = _berserk_entrants(event, entrants, game["seats"])
        for pk in entrants:
            Result.objects.create(
                round=round_,
                round_table=rt,
                entrant_id=pk,
                game_id=game["pk"],
                game_number=rt.number,
                place=places[pk],
                is_durak=durak[pk],
                absent=pk in house,
                berserk=pk in berserk,
            )
        rt.games_played = 1
        rt.done = True
        rt.save(update_fields=["games_played", "done"])
        recount(event, entrants)
        Entrant.objects.filter(pk__in=entrants).update(arena_free_since=now)
        for entrant in Entrant.objects.filter(pk__in=entrants).select_related("pair"):
            for user_id in entrant.user_ids():
                notify.user_changed_on_commit(user_id)
        done = [f"game {game['pk']} recorded"]
        if is_over(event, now):
            done += _finish_if_done(event, round_, now)
        else:
            notify.nudge_arena_on_commit(tournament_id, event.variant)
    return done


def _berserk_entrants(event: Tournament, entrants: list[int], seats: list[dict]) -> set[int]:
    """Entrants who went berserk in the game: a player's seat; a pair when both partners did."""
    if not event.is_pairs:
        return {entrants[s["number"]] for s in seats if s.get("berserk")}
    return {pk for team, pk in enumerate(entrants) if all(s.get("berserk") for s in seats if s["number"] % 2 == team)}


def arena_steps(tournament_id: int, now, failures: list, hold) -> list[str]:
    """The sweep's part after the event's own move: games whose nudge was lost are recorded
    (each on its own), then a seating pass (which also ends the arena when it is over)."""
    done: list[str] = []
    event = Tournament.objects.filter(pk=tournament_id).first()
    if event is None or not event.is_under_way:
        return done
    round_ = arena_round(event)
    if round_ is None or round_.status != Round.Status.PLAYING:
        return done
    open_tables = list(round_.tables.filter(done=False, table__isnull=False))
    latest = game_records.latest_games([rt.table_id for rt in open_tables])
    for rt in open_tables:
        row = latest.get(rt.table_id)
        if row is None or row["status"] != GameStatus.FINISHED or (StuckStep.Step.RECORD, rt.pk) in hold:
            continue
        game = game_records.finished_game(row["pk"])
        if game is None:
            continue
        try:
            done += record_arena_game(tournament_id, rt.pk, game, now)
        except Exception as exc:  # noted; the sweep tries again after a pause
            failures.append(StepFailed(StuckStep.Step.RECORD, rt.pk, exc))
    if (StuckStep.Step.DEAL, None) not in hold:
        try:
            dealt = do_arena_seating_pass(tournament_id=tournament_id, now=now)
        except Exception as exc:
            failures.append(StepFailed(StuckStep.Step.DEAL, None, exc))
        else:
            if dealt:
                done.append(f"{dealt} tables dealt")
    return done


def pause_the_absent(event: Tournament, entrant_ids, now) -> list[str]:
    """A no-show forfeited an arena game (tournaments.absence): he is paused, not seated again
    until he comes back (unless the director keeps him); his game scores nothing."""
    recount(event, entrant_ids)
    done = []
    for entrant in Entrant.objects.select_for_update(of=("self",)).filter(pk__in=list(entrant_ids)):
        if entrant.kept or entrant.arena_paused or not entrant.is_active:
            continue
        entrant.arena_paused = True
        entrant.save(update_fields=["arena_paused"])
        done.append(f"entrant {entrant.pk} paused after a forfeit")
        for user_id in entrant.user_ids():
            notify.user_changed_on_commit(user_id)
    return done


# ------------------------------------------------------ the player's own


def _arena_entry(tournament_id: int, user) -> tuple[Tournament, Entrant]:
    """The event (locked) and the user's entry in it, refused unless the arena is under way."""
    event = locked_event(tournament_id)
    if not event.event_format.continuous:
        raise TournamentRefused(_("This event is not an arena."))
    if event.status not in Tournament.UNDER_WAY:
        raise TournamentRefused(_("The arena is not under way."))
    entrant = None
    if user is not None and user.is_authenticated:
        entrant = (
            Entrant.objects.select_for_update(of=("self",))
            .filter(Q(user=user) | Q(pair__player_one=user) | Q(pair__player_two=user), tournament=event)
            .select_related("pair")
            .first()
        )
    if entrant is None:
        raise TournamentRefused(_("You are not playing in this arena."))
    if entrant.arena_left_at is not None:
        raise TournamentRefused(_("You have left this arena."))
    if not entrant.is_active:
        raise TournamentRefused(_("You are not playing in this arena."))
    return event, entrant


def _changed(event: Tournament, entrant: Entrant) -> None:
    notify.event_changed_on_commit(event.pk)
    for user_id in entrant.user_ids():
        notify.user_changed_on_commit(user_id)


def do_arena_pause(*, tournament_id: int, user) -> Entrant:
    """The player pauses: not seated again until he comes back (a game in play goes on)."""
    with transaction.atomic():
        event, entrant = _arena_entry(tournament_id, user)
        if entrant.arena_paused:
            raise TournamentRefused(_("You have paused already."))
        entrant.arena_paused = True
        entrant.save(update_fields=["arena_paused"])
        _changed(event, entrant)
    return entrant


def do_arena_return(*, tournament_id: int, user) -> Entrant:
    """The player comes back from a pause: free from now (a pass is nudged)."""
    now = timezone.now()
    with transaction.atomic():
        event, entrant = _arena_entry(tournament_id, user)
        if not entrant.arena_paused:
            raise TournamentRefused(_("You are not paused."))
        if is_over(event, now):
            raise TournamentRefused(_("The arena's time is up: no more games are dealt."))
        entrant.arena_paused = False
        entrant.arena_free_since = now
        entrant.save(update_fields=["arena_paused", "arena_free_since"])
        _changed(event, entrant)
        notify.nudge_arena_on_commit(event.pk, event.variant)
    return entrant


def do_arena_leave(*, tournament_id: int, user) -> Entrant:
    """The player leaves the arena for good: never seated again; his points stand (a game in
    play goes on and counts)."""
    now = timezone.now()
    with transaction.atomic():
        event, entrant = _arena_entry(tournament_id, user)
        entrant.state = Entrant.State.WITHDRAWN
        entrant.state_changed_at = entrant.arena_left_at = now
        entrant.save(update_fields=["state", "state_changed_at", "arena_left_at"])
        _changed(event, entrant)
    return entrant


def do_berserk(*, game_id: int, user) -> None:
    """The player goes berserk in his arena game: half his turn timer for the rest of it, one
    point more if he wins it (formats.BERSERK_BONUS). Only before his first move of that
    game, and only where the event allows it."""
    with transaction.atomic():
        table_id = game_records.game_table_id(game_id)
        rt = (
            RoundTable.objects.filter(table_id=table_id).select_related("round__tournament").first()
            if table_id is not None
            else None
        )
        if rt is None or not rt.round.tournament.event_format.continuous:
            raise TournamentRefused(_("Berserk is only for arena games."))
        event = rt.round.tournament
        if not event.berserk_allowed:
            raise TournamentRefused(_("Berserk is not allowed in this arena."))
        if rt.done or event.status not in Tournament.UNDER_WAY:
            raise TournamentRefused(_("This game is over."))
        if user is None or not user.is_authenticated:
            raise TournamentRefused(_("You are not playing in this game."))
        mine = Entrant.objects.filter(
            Q(user=user) | Q(pair__player_one=user) | Q(pair__player_two=user), pk__in=rt.entrants
        )
        if not mine.exists():
            raise TournamentRefused(_("You are not playing in this game."))
        try:
            game_play.do_go_berserk(game_id=game_id, user=user)
        except MoveRefused as refusal:
            raise TournamentRefused(refusal.message) from None
        notify.event_changed_on_commit(event.pk)
