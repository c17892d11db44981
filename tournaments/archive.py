"""Reads of past events: the archive, a player's events and the hall of fame.

Places are the events' own standings (`standings.compute` with the same groups,
seeds and tie-breaks as `selectors.standings_of`), computed for many events at
once from one query of entrants and one of results, so a page of the archive or
a profile costs the same few queries however many events it shows.

Rules stated on the pages:
- a season is a calendar year, by the event's start in the club's time zone;
- the archive lists finished and cancelled events (a cancelled one marked as
  such, without a winner); a draft is never listed; the hall of fame and a
  player's events count finished events only;
- the best pair (BEST_PAIR_RULE): among pairs of the same two players with at
  least MIN_PAIR_EVENTS finished pair events, the most event wins, then the
  better average place, then more events.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.paginator import Paginator
from django.db.models import Q
from django.utils import timezone

from games.choices import Variant

from . import registry, standings
from .models import Entrant, Result, Tournament
from .selectors import event_tiebreaks, standing_group

PER_PAGE = 20
OVER = (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
MIN_PAIR_EVENTS = 3
HALL_SIZE = 10
PROFILE_EVENTS = 30


@dataclass
class Place:
    """An entrant's final line in an event, with the people behind it."""

    entrant: Entrant
    rank: int
    points: float
    games: int
    of: int  # entrants ranked in the event

    @property
    def name(self) -> str:
        return entrant_name(self.entrant)


def entrant_name(entrant: Entrant) -> str:
    if entrant.pair_id:
        return f"{entrant.pair.player_one.username} & {entrant.pair.player_two.username}"
    return entrant.user.username


def final_places(events: list[Tournament]) -> dict[int, list[Place]]:
    """{event id: its places, the best first} for many events: two queries."""
    if not events:
        return {}
    by_pk = {event.pk: event for event in events}
    entrants: dict[int, list[Entrant]] = {pk: [] for pk in by_pk}
    for entrant in (
        Entrant.objects.filter(tournament_id__in=by_pk)
        .exclude(state=Entrant.State.WAITING)
        .select_related("user", "pair__player_one", "pair__player_two")
        .order_by("registered_at", "pk")
    ):
        entrants[entrant.tournament_id].append(entrant)
    rows: dict[int, list[dict]] = {pk: [] for pk in by_pk}
    for r in Result.objects.filter(round__tournament_id__in=by_pk).values(
        "round__tournament_id", "entrant_id", "round__number", "round_table_id", "points", "is_durak", "game_number"
    ):
        rows[r["round__tournament_id"]].append(
            {
                "entrant": r["entrant_id"],
                "round": r["round__number"],
                "table": r["round_table_id"],
                "points": r["points"],
                "durak": r["is_durak"],
                "game": r["game_number"],
            }
        )
    out = {}
    for pk, event in by_pk.items():
        mine = entrants[pk]
        played = {row["entrant"] for row in rows[pk]}
        lines = standings.compute(
            [e.pk for e in mine],
            rows[pk],
            groups={e.pk: standing_group(event, e, played) for e in mine},
            seeds={e.pk: e.seed for e in mine},
            eliminated=registry.of(event).rounds_reached(event, mine),
            knockout=registry.of(event).knockout,
            tiebreaks=event_tiebreaks(event),
            event_key=event.pk,
        )
        found = {e.pk: e for e in mine}
        out[pk] = [Place(found[line.entrant], line.rank, line.points, line.games, len(lines)) for line in lines]
    return out


# ------------------------------------------------------------------ the archive


def season_bounds(year: int) -> tuple[datetime, datetime]:
    """A season is a calendar year in the club's time zone (settings.TIME_ZONE)."""
    zone = timezone.get_default_timezone()
    return datetime(year, 1, 1, tzinfo=zone), datetime(year + 1, 1, 1, tzinfo=zone)


def _choice(value, choices) -> str:
    return value if value in dict(choices) else ""


def archive_filters(params) -> dict:
    """The archive's filters from the query string; anything unknown is ignored (no filter)."""
    year = (params.get("year") or "").strip()
    return {
        "year": int(year) if year.isascii() and year.isdigit() and 1900 < int(year) < 3000 else None,
        "variant": _choice(params.get("variant"), Variant.choices),
        "format": _choice(params.get("format"), Tournament.Format.choices),
        "q": (params.get("q") or "").strip()[:120],
    }


def archive_page(params) -> dict:
    """One page of past events matching the filters, newest first, each finished one with
    its winner; the seasons that have events, for the filter."""
    filters = archive_filters(params)
    events = Tournament.objects.filter(status__in=OVER)
    seasons = [d.year for d in events.dates("starts_at", "year", order="DESC")]
    if filters["year"]:
        start, end = season_bounds(filters["year"])
        events = events.filter(starts_at__gte=start, starts_at__lt=end)
    if filters["variant"]:
        events = events.filter(variant=filters["variant"])
    if filters["format"]:
        events = events.filter(format=filters["format"])
    if filters["q"]:
        # Python's casefold: SQLite's own LIKE folds ASCII only ("кубок" must find "Кубок").
        typed = filters["q"].casefold()
        events = events.filter(pk__in=[pk for pk, name in events.values_list("pk", "name") if typed in name.casefold()])
    paginator = Paginator(events.order_by("-starts_at", "-pk"), PER_PAGE)
    page = paginator.get_page(params.get("page"))
    shown = list(page.object_list)
    places = final_places([e for e in shown if e.status == Tournament.Status.FINISHED])
    rows = [{"event": e, "winner": (places.get(e.pk) or [None])[0]} for e in shown]
    query = {key: value for key, value in filters.items() if value}
    return {
        "page": page,
        "rows": rows,
        "filters": filters,
        "query": query,
        "seasons": seasons,
        "variants": Variant.choices,
        "formats": Tournament.Format.choices,
    }


# ------------------------------------------------------------ a player's events


def _entries_of(user):
    return Entrant.objects.filter(Q(user=user) | Q(pair__player_one=user) | Q(pair__player_two=user))


def player_events(user, limit: int = PROFILE_EVENTS) -> dict:
    """The player's finished events, newest first: place, of how many, points, partner."""
    entries = (
        _entries_of(user).filter(tournament__status=Tournament.Status.FINISHED).exclude(state=Entrant.State.WAITING)
    )
    total = entries.count()
    if not total:
        return {"rows": [], "total": 0}
    chosen = list(entries.select_related("tournament").order_by("-tournament__starts_at", "-pk")[:limit])
    places = final_places([e.tournament for e in chosen])
    rows = []
    for entry in chosen:
        place = next(p for p in places[entry.tournament_id] if p.entrant.pk == entry.pk)
        partner = None
        if place.entrant.pair_id:
            pair = place.entrant.pair
            partner = pair.player_two if pair.player_one_id == user.pk else pair.player_one
        rows.append({"event": entry.tournament, "place": place, "partner": partner})
    return {"rows": rows, "total": total}


# ------------------------------------------------------------------ hall of fame


def hall_of_fame(variant: str) -> dict:
    """The finished events of one variant: their winners (newest first), the players of most
    events, and the best pairs (BEST_PAIR_RULE)."""
    events = list(Tournament.objects.filter(status=Tournament.Status.FINISHED, variant=variant).order_by("-starts_at"))
    places = final_places(events)
    winners = []
    players: dict[int, dict] = {}
    pairs: dict[frozenset, dict] = {}
    for event in events:
        lines = places[event.pk]
        if lines:
            winners.append({"event": event, "winner": lines[0]})
        for place in lines:
            if not place.games:  # never sat at a table: entered, not played
                continue
            entrant = place.entrant
            people = [entrant.pair.player_one, entrant.pair.player_two] if entrant.pair_id else [entrant.user]
            for person in people:
                row = players.setdefault(person.pk, {"name": person.username, "events": 0, "wins": 0})
                row["events"] += 1
                row["wins"] += place.rank == 1
            if entrant.pair_id:
                key = frozenset(p.pk for p in people)
                row = pairs.setdefault(
                    key, {"name": " & ".join(sorted((p.username for p in people), key=str.casefold)), "events": 0}
                )
                row["events"] += 1
                row["wins"] = row.get("wins", 0) + (place.rank == 1)
                row["places"] = row.get("places", 0) + place.rank
    most = sorted(players.values(), key=lambda r: (-r["events"], -r["wins"], r["name"].casefold()))[:HALL_SIZE]
    best = []
    for row in pairs.values():
        if row["events"] >= MIN_PAIR_EVENTS:
            best.append({**row, "average": row["places"] / row["events"]})
    best.sort(key=lambda r: (-r["wins"], r["average"], -r["events"], r["name"].casefold()))
    return {
        "variant": variant,
        "winners": winners,
        "most_played": most,
        "best_pairs": best[:HALL_SIZE],
        "min_pair_events": MIN_PAIR_EVENTS,
    }


def hall_variant(params) -> str:
    return _choice(params.get("variant"), Variant.choices) or Variant.PODKIDNOY
