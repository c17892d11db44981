"""Results: a game's results at its table, closing tables and rounds, eliminations, the
event's end, and the scores of requested byes (the director's corrections: services.corrections).

Each game's results are stored in a transaction of their own (`record_table_game`), and only
after they are committed is the table's next game dealt (`deal_next`): a deal that
fails takes no result back.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import selectors as game_records
from games.choices import GameStatus
from games.services import tables as game_tables

from .. import notify, registry, signals, standings
from ..errors import TournamentRefused
from ..models import Entrant, Result, Round, RoundTable, StuckStep, Tournament
from . import seating, setup
from .base import locked_event
from .director import log_action, require_director

# A requested bye scores this share of the bye the seating gives (standings.bye_points).
REQUESTED_BYE_SHARE = 0.5


def requested_bye_points(event: Tournament) -> float:
    return standings.bye_points(setup.points_table(event)) * REQUESTED_BYE_SHARE


def requested_bye_results(event: Tournament, round_: Round) -> None:
    """Those who asked to sit out this round: a bye result of requested_bye_points (the
    seating left them out: `selectors.seating.eligible_for_round`)."""
    if not registry.of(event).requested_byes:
        return
    asked = event.entrants.filter(state=Entrant.State.ACTIVE, requested_bye_round=round_.number)
    for pk in asked.values_list("pk", flat=True):
        Result.objects.get_or_create(
            round=round_,
            entrant_id=pk,
            game_number=0,
            defaults={"is_bye": True, "points": requested_bye_points(event), "note": "requested bye"},
        )


def record_table_game(tournament_id: int, round_table_id: int, game: dict, now) -> list[str]:
    """One game's results, in a transaction of their own."""
    with transaction.atomic():
        return _record(locked_event(tournament_id), round_table_id, game, now)


def _record(event: Tournament, round_table_id: int, game: dict, now) -> list[str]:
    rt = RoundTable.objects.select_for_update(of=("self",)).select_related("round").get(pk=round_table_id)
    round_ = rt.round
    if rt.done or round_.status != Round.Status.PLAYING:
        return []  # e.g. a game someone dealt at the table after the round's games were played
    if Result.objects.filter(round=round_, game_id=game["pk"]).exists():
        return []
    game_number = rt.games_played + 1
    entrants = rt.entrants
    places, points, durak, house = game_outcome(event, entrants, game)
    for pk in entrants:
        Result.objects.create(
            round=round_,
            round_table=rt,
            entrant_id=pk,
            game_id=game["pk"],
            game_number=game_number,
            place=places[pk],
            points=points[pk],
            is_durak=durak[pk],
            absent=pk in house,
        )
    rt.games_played = game_number
    rt.save(update_fields=["games_played"])
    done = [f"game {game['pk']} recorded"]
    out_of_time = round_.ends_at is not None and round_.ends_at <= now
    if rt.games_played >= event.games_per_round or out_of_time:
        done += _close_table(event, rt, now)
    # Otherwise the next game is dealt once this result is committed (`deal_next`), never in
    # this transaction: a deal that fails must not take the result back with it.
    return done


def game_outcome(event: Tournament, entrants: list[int], game: dict) -> tuple[dict, dict, dict, set]:
    """A finished game at a table of `entrants` (in seat order; pairs: team order): each
    entrant's place, points by the event's points table, durak flag, and the entrants whose
    seat a house bot played (absent)."""
    table = setup.points_table(event, len(entrants))
    if event.is_pairs:
        places_by_team = standings.pair_places(game["seats"])
        places = {entrants[team]: places_by_team[team] for team in range(len(entrants))}
        points = standings.game_points(places, len(entrants), table)
        durak = {pk: places[pk] == 2 and len(set(places.values())) == 2 for pk in entrants}
    else:
        places, losers = _table_places(entrants, {s["number"]: s for s in game["seats"]})
        points = standings.game_points(places, len(entrants), table)
        points.update(dict.fromkeys(losers, 0.0))
        durak = {pk: pk in losers for pk in entrants}
    # A seat without a person is a house bot's (live_seating.do_seat_house_bot): its entrant is absent.
    house = {entrants[s["number"]] for s in game["seats"] if s["user_id"] is None and not event.is_pairs}
    return places, points, durak, house


def _close_table(event: Tournament, rt: RoundTable, now) -> list[str]:
    """The table's round is over (its games played, its time up, or the director's word);
    the round ends with its last table."""
    rt.done = True
    rt.save(update_fields=["done"])
    # Their "go to your table" notice is out of date: each page asks again.
    for entrant in Entrant.objects.filter(pk__in=rt.entrants).select_related("pair"):
        for user_id in entrant.user_ids():
            notify.user_changed_on_commit(user_id)
    round_ = rt.round
    if not round_.tables.filter(done=False).exists():
        return _finish_round(event, round_, now)
    return []


def _table_places(entrants: list[int], seats: dict[int, dict]) -> tuple[dict[int, int], set[int]]:
    """Places at a singles table, and who scores nothing.

    A seat that abandoned (resigned, or went on autopilot) is counted last, so
    its `counted_place` can equal the durak's: the abandoned share the last
    places below everyone who played on, and they, not the durak who outlasted
    them, score nothing. Without an abandonment the places are the game's and
    the durak scores nothing.
    """
    gone = {n for n in seats if seats[n]["abandoned"] or seats[n]["user_id"] is None}  # (None: a house bot)
    key = {entrants[n]: (1, 0) if n in gone else (0, seats[n]["counted_place"]) for n in seats}
    places = {pk: 1 + sum(other < key[pk] for other in key.values()) for pk in key}
    abandoned = {entrants[n] for n in gone}
    losers = abandoned or {entrants[n] for n in seats if seats[n]["is_loser"]}
    return places, losers


def recorded_games(round_: Round, rows) -> set[int]:
    game_ids = [row["pk"] for row in rows]
    return set(Result.objects.filter(round=round_, game_id__in=game_ids).values_list("game_id", flat=True))


def deal_next(tournament_id: int, round_table_id: int, now) -> list[str]:
    """The round's next game at one table, if it waits for one (re-checked under the
    event's lock, so a nudge and the sweep deal it once). A time limit that came
    between two games ends the table's round instead."""
    with transaction.atomic():
        event = locked_event(tournament_id)
        rt = RoundTable.objects.select_for_update(of=("self",)).select_related("round").get(pk=round_table_id)
        round_ = rt.round
        if rt.done or rt.table_id is None or round_.status != Round.Status.PLAYING:
            return []
        if rt.games_played >= event.games_per_round:
            return []
        latest = game_records.latest_games([rt.table_id]).get(rt.table_id)
        if latest is not None and (latest["status"] != GameStatus.FINISHED or not recorded_games(round_, [latest])):
            return []  # a game is on (a repeated nudge dealt it), or its result is not stored yet
        if round_.ends_at is not None and round_.ends_at <= now:
            return [f"table {rt.number}: out of time", *_close_table(event, rt, now)]
        game_tables.do_deal_next_game(table_id=rt.table_id)
        return [f"table {rt.number}: game {rt.games_played + 1} dealt"]


def _finish_round(event: Tournament, round_: Round, now) -> list[str]:
    round_.status = Round.Status.FINISHED
    round_.finished_at = now
    round_.save(update_fields=["status", "finished_at"])
    done = [f"round {round_.number} finished"]
    event_format = registry.of(event)
    if event_format.knockout:
        eliminate(event, round_)
    if event_format.is_last_round(event, round_):
        finish_event(event, now)
        done.append("event finished")
        return done
    starts_at = now + event.pause_between_rounds
    following, _created = Round.objects.get_or_create(
        tournament=event, number=round_.number + 1, defaults={"starts_at": starts_at}
    )
    seating.draft_seating(event, following)  # the director sees (and may edit) the next seating before it starts
    notify.nudge_event_on_commit(event.pk, event.variant, starts_at)
    done.append(f"round {round_.number + 1} scheduled")
    return done


def table_places(rt: RoundTable) -> dict[int, int]:
    """A knockout table's places from its summed points, every place decided: equal totals go to
    the better seed (the earlier seat), as a knockout needs a decision."""
    totals = dict.fromkeys(rt.entrants, 0.0)
    for entrant_id, points in rt.results.values_list("entrant_id", "points"):
        totals[entrant_id] += points
    ranked = sorted(totals, key=lambda pk: (-totals[pk], rt.entrants.index(pk)))
    return {pk: place for place, pk in enumerate(ranked, start=1)}


def eliminate(event: Tournament, round_: Round) -> None:
    """Knockout: the format says who goes on from each table's summed points; whoever was out
    already (a third-place match's players) keeps the round he went out in."""
    tables = sorted(round_.tables.all(), key=lambda rt: rt.number)
    survivors = registry.of(event).going_on(event, round_, [table_places(rt) for rt in tables])
    seated = {pk for rt in tables for pk in rt.entrants}
    Entrant.objects.filter(pk__in=seated - survivors, eliminated_in_round=None).update(
        eliminated_in_round=round_.number
    )


def finish_event(event: Tournament, now) -> None:
    if event.status == Tournament.Status.CANCELLED:
        return  # a game that ended after the director cancelled the event: it stays cancelled
    event.status = Tournament.Status.FINISHED
    event.finished_at = now
    fields = ["status", "finished_at"]
    if event.rated and event.ratings_nudged_at is None:
        event.ratings_nudged_at = now
        fields.append("ratings_nudged_at")
        notify.recompute_ratings_on_commit(event.variant)
    event.save(update_fields=fields)
    signals.send_on_commit(signals.event_finished, tournament_id=event.pk)


def do_end_table_round(*, tournament_id: int, round_table_id: int, by) -> list[str]:
    """The director ends one table's round with the games recorded there so far
    (a table whose next game cannot be dealt); the round ends with its last table."""
    require_director(by)
    now = timezone.now()
    if not RoundTable.objects.filter(pk=round_table_id, round__tournament_id=tournament_id).exists():
        raise TournamentRefused(_("There is no such table in this event."))
    with transaction.atomic():
        event = locked_event(tournament_id)
        rt = RoundTable.objects.select_for_update(of=("self",)).select_related("round").get(pk=round_table_id)
        if rt.done or rt.round.status != Round.Status.PLAYING:
            raise TournamentRefused(_("This table's round is already over."))
        latest = game_records.latest_games([rt.table_id]).get(rt.table_id) if rt.table_id else None
        if latest is not None and latest["status"] != GameStatus.FINISHED:
            raise TournamentRefused(_("A game is on at this table: end its round once the game is over."))
        done = [f"table {rt.number}: ended by the director", *_close_table(event, rt, now)]
        StuckStep.objects.filter(tournament=event, round_table=rt).delete()
        log_action(event, by, "end_table", round=rt.round.number, table=rt.number, game_number=rt.games_played)
    notify.event_changed_on_commit(tournament_id)
    return done
