"""The director's corrections of results, above the registry: a result's points, or a game's
places (the points, the durak finish, a knockout's eliminations and the ratings follow, and
the format hears of it: `results_changed`, where an arena recounts its streaks)."""

from __future__ import annotations

import math

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.services import corrections as game_corrections

from .. import notify, registry, standings
from ..errors import TournamentRefused
from ..models import Entrant, Result, Round, RoundTable, Tournament
from . import setup
from .base import locked_event
from .director import check_allowed, entrant_name, log_action, require_director
from .results import eliminate

MOST_POINTS = 100.0  # a bound for a points entry when the points table is all zero


def parse_points(value) -> float:
    """A points entry as typed: "1.5" or the Russian "1,5"; a number that is finite, not negative."""
    if isinstance(value, str):
        value = value.strip().replace(",", ".")
    try:
        points = float(value)
    except (TypeError, ValueError):
        raise TournamentRefused(_("Points must be a number, e.g. 1,5.")) from None
    if not math.isfinite(points):  # "nan" was a server error, "1e400" an infinite score
        raise TournamentRefused(_("Points must be a number, e.g. 1,5."))
    if points < 0:
        raise TournamentRefused(_("Points cannot be negative."))
    return points


def most_points(event: Tournament) -> float:
    """The most one game (or a bye) can score: the top of the event's points table."""
    table = setup.points_table(event)
    return max([*table, standings.bye_points(table)]) or MOST_POINTS


def do_correct_result(*, tournament_id: int, result_id: int, by, points, note: str = "") -> Result:
    """Set one result's points by hand (a bye, or a score the places do not give);
    the outcome of a game is corrected by places (`do_correct_places`)."""
    require_director(by)
    points = parse_points(points)
    with transaction.atomic():
        event = locked_event(tournament_id)
        if event.event_format.continuous:
            raise TournamentRefused(_("In an arena the points follow the places and streaks: correct the places."))
        result = (
            Result.objects.select_for_update(of=("self",))
            .select_related("entrant")
            .filter(pk=result_id, round__tournament=event)
            .first()
        )
        if result is None:
            raise TournamentRefused(_("There is no such result in this event."))
        check_allowed(event, "correct")
        most = most_points(event)
        if points > most:
            raise TournamentRefused(_("A result scores at most %(most)s points in this event."), most=_points(most))
        before = result.points
        if result.original_points is None:
            result.original_points = result.points
        result.points = points
        result.corrected_by = by
        result.corrected_at = timezone.now()
        result.note = note[:200]
        result.save(update_fields=["points", "original_points", "corrected_by", "corrected_at", "note"])
        log_action(
            event,
            by,
            "points",
            note,
            result=result.pk,
            round=result.round.number,
            name=entrant_name(result.entrant),
            before=before,
            after=points,
        )
    notify.event_changed_on_commit(tournament_id)
    return result


def _points(value: float) -> str:
    """1.5 -> "1,5" in Russian, "1.5" in English; 3.0 -> "3"."""
    from django.utils.formats import number_format

    return number_format(value, decimal_pos=None if value != int(value) else 0)


def do_correct_places(
    *, tournament_id: int, round_table_id: int, game_number: int, places: dict, by, reason: str
) -> list[Result]:
    """Correct the outcome of one game at a table: the places of all its entrants, from which
    the points, the durak finish and (knockout) who goes on follow, and so do the ratings
    (the game's counted places are corrected too). Logged with the old and new outcome."""
    require_director(by)
    reason = (reason or "").strip()
    if not reason:
        raise TournamentRefused(_("Say why the outcome is corrected."))
    with transaction.atomic():
        event = locked_event(tournament_id)
        rt = (
            RoundTable.objects.select_for_update(of=("self",))
            .select_related("round")
            .filter(pk=round_table_id, round__tournament=event)
            .first()
        )
        if rt is None:
            raise TournamentRefused(_("There is no such table in this event."))
        check_allowed(event, "correct")
        round_ = rt.round
        results = {
            r.entrant_id: r
            # Only the results are locked: PostgreSQL refuses FOR UPDATE on the nullable side
            # of the outer joins to a singles entrant's pair or a pair entrant's user.
            for r in Result.objects.select_for_update(of=("self",))
            .select_related("entrant__pair", "entrant__user")
            .filter(round_table=rt, game_number=game_number)
        }
        entrants = list(rt.entrants)
        if not results or set(results) != set(entrants):
            raise TournamentRefused(_("That game has no result to correct."))
        try:
            given = {int(pk): int(place) for pk, place in places.items()}
        except (TypeError, ValueError, AttributeError):
            raise TournamentRefused(_("Give every entrant at the table a place.")) from None
        if set(given) != set(entrants):
            raise TournamentRefused(_("Give every entrant at the table a place."))
        if any(not 1 <= p <= len(entrants) for p in given.values()):
            raise TournamentRefused(_("A place is a number from 1 to %(count)s."), count=len(entrants))
        later = event.round_set.filter(number__gt=round_.number)
        if registry.of(event).knockout and later.exclude(status=Round.Status.SCHEDULED).exists():
            raise TournamentRefused(
                _("The next round of the knockout has started: only its latest round can be corrected.")
            )
        table = setup.points_table(event, len(entrants))
        points = standings.game_points(given, len(entrants), table)
        worst = max(given.values())
        if event.is_pairs:
            durak = {pk: given[pk] == 2 and len(set(given.values())) == 2 for pk in entrants}
        else:
            durak = {pk: given[pk] == worst and min(given.values()) < worst for pk in entrants}
            points.update({pk: 0.0 for pk in entrants if durak[pk]})  # the durak scores nothing
        before, after, now = {}, {}, timezone.now()
        for pk in entrants:
            result = results[pk]
            name = entrant_name(result.entrant)
            before[name] = {"place": result.place, "points": result.points, "durak": result.is_durak}
            if result.original_points is None:
                result.original_points = result.points
            result.place, result.points, result.is_durak = given[pk], points[pk], durak[pk]
            result.corrected_by, result.corrected_at, result.note = by, now, reason[:200]
            result.save(
                update_fields=["place", "points", "is_durak", "original_points", "corrected_by", "corrected_at", "note"]
            )
            after[name] = {"place": given[pk], "points": points[pk], "durak": durak[pk]}
        registry.of(event).results_changed(event, entrants)  # (an arena recounts its streaks)
        for result in Result.objects.filter(pk__in=[r.pk for r in results.values()]).select_related("entrant"):
            after[entrant_name(result.entrant)]["points"] = result.points
        game_id = next((r.game_id for r in results.values() if r.game_id), None)
        if game_id is not None:
            # What the ratings read: the counted places of the game's seats.
            if event.is_pairs:
                seat_places = {n: given[entrants[n % 2]] for n in range(4)}
            else:
                seat_places = {n: given[pk] for n, pk in enumerate(entrants)}
            game_corrections.do_correct_counted_places(game_id=game_id, places=seat_places, by_id=by.pk, now=now)
        if registry.of(event).knockout and round_.status == Round.Status.FINISHED:
            # Who goes on follows the corrected places; a next round not started is seated again.
            Entrant.objects.filter(tournament=event, eliminated_in_round=round_.number).update(eliminated_in_round=None)
            eliminate(event, round_)
            for scheduled in later.filter(status=Round.Status.SCHEDULED):
                RoundTable.objects.filter(round=scheduled).delete()
                scheduled.byes = []
                scheduled.seated_by_director = False
                scheduled.save(update_fields=["byes", "seated_by_director"])
        log_action(
            event,
            by,
            "correct",
            reason,
            round=round_.number,
            table=rt.number,
            game_number=game_number,
            game=game_id,
            before=before,
            after=after,
        )
        if event.rated and game_id is not None:
            notify.recompute_ratings_on_commit(event.variant)
    notify.event_changed_on_commit(tournament_id)
    return [Result.objects.get(pk=results[pk].pk) for pk in entrants]
