"""What an arena's page shows (re-exported by tournaments.selectors): the time left, the
live standings with each entrant's per-game points and streak, who is free, playing or
paused, the viewer's own line and table, and whether he may go berserk at a table."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from games import selectors as games_selectors

from .. import notify
from ..models import Entrant, Round, RoundTable, Tournament
from . import arena
from .names import entrant_names
from .standings import standings_of


@dataclass(frozen=True)
class ArenaRow:
    rank: int
    name: str
    entrant_id: int
    points: float
    games: int
    streak: int
    on_fire: bool
    per_game: tuple[float, ...]
    paused: bool
    left: bool
    playing: bool


@dataclass(frozen=True)
class ArenaBoard:
    ends_at: datetime | None
    seconds_left: int | None  # None before the start
    is_over: bool
    free_count: int
    playing_count: int
    paused_count: int
    rows: list[ArenaRow] = field(default_factory=list)
    me: ArenaRow | None = None
    my_table_url: str | None = None
    berserk_allowed: bool = True


def arena_board(event: Tournament, user=None, now=None) -> ArenaBoard:
    """The arena's board at `now`: the standings' order (points, then the arena's tie-breaks:
    selectors.standings_of), each line with what `formats.arena_score` says of his games."""
    now = now or timezone.now()
    round_ = arena.arena_round(event)
    lines = standings_of(event)
    ids = [line.entrant for line in lines]
    entrants = {e.pk: e for e in event.entrants.filter(pk__in=ids).select_related("pair")}
    names = entrant_names(event)
    playing_round = round_ is not None and round_.status == Round.Status.PLAYING
    busy = arena.busy_entrants(round_) if playing_round else set()
    scores = arena.scores_of(round_, ids) if round_ is not None else {}
    in_play = set(arena.in_play(event).values_list("pk", flat=True)) if playing_round else set()
    rows = []
    for line in lines:
        entrant = entrants[line.entrant]
        score = scores.get(line.entrant)
        rows.append(
            ArenaRow(
                rank=line.rank,
                name=names.get(line.entrant, "?"),
                entrant_id=line.entrant,
                points=line.points,
                games=line.games,
                streak=score.streak if score else 0,
                on_fire=score.on_fire if score else False,
                per_game=score.per_game if score else (),
                paused=entrant.arena_paused and entrant.is_active,
                left=entrant.arena_left_at is not None,
                playing=line.entrant in busy,
            )
        )
    mine = _my_entrant(event, user)
    me = next((row for row in rows if mine is not None and row.entrant_id == mine.pk), None)
    my_table_url = None
    if mine is not None and playing_round:
        rt = next((t for t in round_.tables.filter(done=False, table__isnull=False) if mine.pk in t.entrants), None)
        my_table_url = notify.table_url(rt.table_id) if rt is not None else None
    ends_at = event.arena_ends_at
    paused = {pk for pk in in_play if entrants.get(pk) is not None and entrants[pk].arena_paused}
    return ArenaBoard(
        ends_at=ends_at,
        seconds_left=max(0, int((ends_at - now).total_seconds())) if ends_at else None,
        is_over=event.status == Tournament.Status.FINISHED or arena.is_over(event, now),
        free_count=len(in_play - busy - paused),
        playing_count=len(busy),
        paused_count=len(paused - busy),
        rows=rows,
        me=me,
        my_table_url=my_table_url,
        berserk_allowed=event.berserk_allowed,
    )


def _my_entrant(event: Tournament, user) -> Entrant | None:
    if user is None or not user.is_authenticated:
        return None
    return event.entrants.filter(Q(user=user) | Q(pair__player_one=user) | Q(pair__player_two=user)).first()


def berserk_offer(*, table_id: int, user) -> int | None:
    """The game's id when `user` may go berserk now at this table (an arena's game in play, the
    event allows it, he has not moved in it nor gone berserk yet: services.do_berserk's rule);
    else None."""
    if user is None or not user.is_authenticated:
        return None
    rt = RoundTable.objects.filter(table_id=table_id, done=False).select_related("round__tournament").first()
    if rt is None:
        return None
    event = rt.round.tournament
    if not event.event_format.continuous or not event.berserk_allowed or event.status not in Tournament.UNDER_WAY:
        return None
    game = games_selectors.playing_game(table_id)
    if game is None:
        return None
    seat = games_selectors.player_seat_state(game["pk"], user.pk)
    if seat is None or seat["moved"] or seat["berserk"]:
        return None
    return game["pk"]
