"""Reads of the tournaments app: lists, standings, crosstable, exports."""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games import selectors as games_selectors
from games.choices import Variant

from .. import notify, registry
from .. import standings as tiebreak_rules
from ..formats.search import Seater
from ..formats.seating import repeat_pairs
from ..models import Entrant, Pair, Result, Round, StuckStep, Tournament

# The package's parts, re-exported: callers read `selectors.<name>` whichever part holds it.
from .absence import absence_rows, absences, adjudicable_tables  # noqa: F401
from .arena import arena_round  # noqa: F401
from .arena_board import ArenaBoard, ArenaRow, arena_board, berserk_offer  # noqa: F401
from .names import entrant_names
from .seating import draft_is_stale, eligible_entrants, entrant_ratings, meetings_before, scores_of  # noqa: F401
from .standings import event_tiebreaks, standing_group, standings_of  # noqa: F401

# Why a seating deviates from the ideal (formats.FLAGS codes), for the director.
FLAG_TEXTS = {
    "bye": _("sits out this round"),
    "bye_again": _("sits out this round although it has sat out before"),
    "pulled_up": _("seated at a table of higher scores than its own"),
    "pulled_down": _("seated at a table of lower scores than its own"),
    "repeat": _("meets a table-mate it has met before"),
}


def round_flags(round_: Round, names: dict[int, str]) -> list[str]:
    lines = []
    for entrant, code in round_.flags or []:
        text = FLAG_TEXTS.get(code, code)
        lines.append(f"{names.get(entrant, '?')}: {text}" if entrant is not None else str(text))
    return lines


#: Past events on the list page: the newest few; the archive (tournaments.archive) has them all.
RECENT_PAST = 5


def events_by_state(limit: int = 50, past: int = RECENT_PAST) -> dict[str, list[Tournament]]:
    """The public list: under way (running or paused), upcoming, the newest past; a draft is not listed."""
    over = [Tournament.Status.FINISHED, Tournament.Status.CANCELLED]
    base = Tournament.objects.exclude(status=Tournament.Status.DRAFT)
    return {
        "running": list(base.filter(status__in=Tournament.UNDER_WAY).order_by("starts_at")[:limit]),
        "upcoming": list(base.exclude(status__in=[*over, *Tournament.UNDER_WAY]).order_by("starts_at")[:limit]),
        "past": list(base.filter(status__in=over).order_by("-starts_at")[:past]),
    }


def entry_of(event: Tournament, user) -> Entrant | None:
    if user is None or not user.is_authenticated:
        return None
    return event.entrants.filter(Q(user=user) | Q(pair__player_one=user) | Q(pair__player_two=user)).first()


# What an entrant's line says about him (standings.GROUPS and the event's state), for the page.
STANDING_TEXTS = {
    "registered": pgettext_lazy("standing", "registered"),
    "checked_in": pgettext_lazy("standing", "checked in"),
    "playing": pgettext_lazy("standing", "playing"),
    "absent": pgettext_lazy("standing", "did not check in"),
    "finished": pgettext_lazy("standing", "finished"),
    "winner": pgettext_lazy("standing", "winner"),
    "cancelled": pgettext_lazy("standing", "cancelled"),
}


def tiebreak_texts(event: Tournament) -> list[str]:
    """The event's tie-breaks as the rules text names them (each metric's label), in order."""
    return [str(tiebreak_rules.METRICS[name].label) for name in event_tiebreaks(event)]


def tiebreak_columns(event: Tournament) -> list[tiebreak_rules.Metric]:
    """The event's tie-breaks in order: the columns its standings show after the points."""
    return [tiebreak_rules.METRICS[name] for name in event_tiebreaks(event)]


def tiebreak_cell(metric: tiebreak_rules.Metric, value) -> dict:
    return {"name": metric.name, "value": value, "number": metric.number(value), "text": metric.text(value)}


def standing_state(event: Tournament, entrant: Entrant, line: tiebreak_rules.Line) -> str:
    """Withdrawn and disqualified say so; the others say where the event is: registered (or checked
    in) before it starts, "did not check in", playing while it runs, finished (a knockout's winner:
    winner) after it ends."""
    if line.group in ("withdrawn", "disqualified"):
        return entrant.get_state_display()
    if line.group == "absent":
        return str(STANDING_TEXTS["absent"])
    if event.status == Tournament.Status.CANCELLED:
        return str(STANDING_TEXTS["cancelled"])
    if event.status == Tournament.Status.FINISHED:
        if registry.of(event).knockout and line.reached is None and line.games:
            return str(STANDING_TEXTS["winner"])
        return str(STANDING_TEXTS["finished"])
    if event.is_under_way:
        return str(STANDING_TEXTS["playing"])
    return str(STANDING_TEXTS["checked_in" if entrant.checked_in else "registered"])


def standings_table(event: Tournament) -> list[dict]:
    """Standings with names and states, ready for the page and the CSV."""
    names = entrant_names(event)
    states = {e.pk: e for e in event.entrants.select_related("pair")}
    columns = tiebreak_columns(event)
    out = []
    for line in standings_of(event):
        entrant = states[line.entrant]
        out.append(
            {
                "rank": line.rank,
                "entrant": line.entrant,
                "name": names.get(line.entrant, "?"),
                "points": line.points,
                **line.values,  # every metric's value by name (tiebreak_rules.METRICS)
                # The event's tie-breaks in its order: each value, and its text as the metric prints it.
                "tiebreaks": [tiebreak_cell(metric, line.values[metric.name]) for metric in columns],
                "rating": line.rating,  # None: provisional or unrated
                "seed": line.seed,
                "games": line.games,
                "byes": line.byes,
                "state": standing_state(event, entrant, line),
                "group": line.group,
                "active": line.group == "active",
                "late": entrant.late,
                "eliminated_in_round": entrant.eliminated_in_round,
                "averaged_rounds": line.averaged_rounds,
                "by_round": line.by_round,
                "user_ids": entrant.user_ids(),
            }
        )
    return out


def start_numbers(event: Tournament) -> dict[int, int]:
    """Entrant -> start number (1, 2, ...): by the seed fixed at the start (1 the best), entrants
    without a seed after them in registration order. The short name of a table-mate in the
    crosstable and the exports, the same whatever the standings do later."""
    entrants = event.entrants.exclude(state=Entrant.State.WAITING).order_by("registered_at", "pk")
    ordered = sorted(entrants.values_list("pk", "seed"), key=lambda e: (e[1] is None, e[1] or 0))
    return {pk: number for number, (pk, _seed) in enumerate(ordered, start=1)}


def crosstable(event: Tournament) -> dict:
    """Rounds as columns (an arena: each entrant's games, `by_games`), entrants in standings
    order (each with his start number). Per round a
    cell: the table number (None for a bye), the table-mates met there in seat order (start number
    and name), the place at that table, the round's points as the standings count them, and
    whether it was a bye; None for a round not played. The place is the game's place when the
    table played one game that round; with several games (`places` lists each), the place by the
    round's points at the table: 1 + the table-mates who scored more."""
    names = entrant_names(event)
    numbers = start_numbers(event)
    lines = standings_table(event)
    if registry.of(event).continuous:
        return _crosstable_by_games(event, lines, names, numbers)
    rounds = list(event.round_set.order_by("number").values_list("number", flat=True))
    by_round = {line["entrant"]: line["by_round"] for line in lines}
    cells: dict[int, dict[int, dict]] = {}
    results = Result.objects.filter(round__tournament=event).select_related("round", "round_table")
    for r in results.order_by("round__number", "game_number", "pk"):
        rt = r.round_table
        cell = cells.setdefault(r.entrant_id, {}).setdefault(
            r.round.number,
            {
                "table": rt.number if rt else None,
                "bye": rt is None,
                "mates": [pk for pk in rt.entrants if pk != r.entrant_id] if rt else [],
                "places": [],
                "duraks": 0,
            },
        )
        if rt is not None and r.place is not None:
            cell["places"].append(r.place)
        cell["duraks"] += int(r.is_durak)
    for entrant, per_round in cells.items():
        for number, cell in per_round.items():
            points = by_round.get(entrant, {}).get(number, 0.0)
            mates = cell.pop("mates")
            cell["points"] = points
            cell["opponents"] = [{"entrant": pk, "start": numbers.get(pk), "name": names.get(pk, "?")} for pk in mates]
            if len(cell["places"]) == 1:
                cell["place"] = cell["places"][0]
            elif cell["places"]:
                cell["place"] = 1 + sum(1 for pk in mates if by_round.get(pk, {}).get(number, 0.0) > points)
            else:
                cell["place"] = None
    rows = []
    for line in lines:
        mine = cells.get(line["entrant"], {})
        rows.append({**line, "start": numbers.get(line["entrant"]), "cells": [mine.get(n) for n in rounds]})
    return {"rounds": rounds, "rows": rows, "by_games": False}


def _crosstable_by_games(event: Tournament, lines: list[dict], names: dict, numbers: dict) -> dict:
    """An event with no rounds (an arena: one round holding every game): a column per game of
    each entrant, his first, second, ... in the order he played them (its table number is the
    order dealt), with that game's table, table-mates, place and points."""
    cells: dict[int, list[dict]] = {}
    results = Result.objects.filter(round__tournament=event, round_table__isnull=False).select_related("round_table")
    for r in results.order_by("round_table__number", "pk"):
        rt = r.round_table
        mates = [pk for pk in rt.entrants if pk != r.entrant_id]
        cells.setdefault(r.entrant_id, []).append(
            {
                "table": rt.number,
                "bye": False,
                "places": [r.place] if r.place is not None else [],
                "place": r.place,
                "duraks": int(r.is_durak),
                "points": r.points,
                "opponents": [{"entrant": pk, "start": numbers.get(pk), "name": names.get(pk, "?")} for pk in mates],
            }
        )
    most = max((len(games) for games in cells.values()), default=0)
    rows = []
    for line in lines:
        mine = cells.get(line["entrant"], [])
        rows.append({**line, "start": numbers.get(line["entrant"]), "cells": mine + [None] * (most - len(mine))})
    return {"rounds": list(range(1, most + 1)), "rows": rows, "by_games": True}


def round_view(event: Tournament, user=None) -> dict | None:
    """The current round: its tables, who sits where, and the viewer's own table."""
    round_ = event.round_set.order_by("-number").first()
    if round_ is None:
        return None
    names = entrant_names(event)
    mine = entry_of(event, user)
    tables = []
    shown = seating_shown(round_)
    for rt in round_.tables.order_by("number") if shown else ():
        tables.append(
            {
                "number": rt.number,
                "table_id": rt.table_id,
                "names": [names.get(pk, "?") for pk in rt.entrants],
                "mine": mine is not None and mine.pk in rt.entrants,
                "done": rt.done,
                "games_played": rt.games_played,
            }
        )
    return {
        "round": round_,
        "tables": tables,
        "byes": [names.get(pk, "?") for pk in round_.byes] if shown else [],
        "requested_byes": [names.get(pk, "?") for pk in requested_byes_of(event, round_.number)],
        "seconds_to_start": max(0, int((round_.starts_at - timezone.now()).total_seconds()))
        if round_.status == Round.Status.SCHEDULED
        else None,
    }


def seat_for(user) -> dict | None:
    """Where the user sits now in a running event (for the 'your table' notice)."""
    if user is None or not user.is_authenticated:
        return None
    entries = Entrant.objects.filter(
        Q(user=user) | Q(pair__player_one=user) | Q(pair__player_two=user),
        tournament__status__in=Tournament.UNDER_WAY,
        state=Entrant.State.ACTIVE,
    ).select_related("tournament")
    for entrant in entries:
        round_ = entrant.tournament.round_set.filter(status=Round.Status.PLAYING).order_by("-number").first()
        if round_ is None:
            continue
        for rt in round_.tables.filter(done=False):
            if entrant.pk in rt.entrants:
                seat = {
                    "tournament": entrant.tournament,
                    "round": round_.number,
                    "table_id": rt.table_id,
                    "table_number": rt.number,
                }
                if entrant.tournament.event_format.continuous and rt.table_id is not None:
                    # An arena's next table: the page goes there by itself.
                    seat.update({"arena": True, "table_url": notify.table_url(rt.table_id)})
                return seat
    return None


#: Ended pairs (declined, dissolved) the pairs page lists: a flood of invite-and-cancel
#: cycles must not grow the page (issue 16, "What was seen" 6).
ENDED_PAIRS_SHOWN = 5


def pairs_page(user) -> dict:
    """The user's live pairs (active, invited) in full; of the ended ones the newest few
    and how many more there are."""
    mine = Pair.objects.filter(Q(player_one=user) | Q(player_two=user)).select_related("player_one", "player_two")
    live = [Pair.Status.INVITED, Pair.Status.ACTIVE]
    ended = mine.exclude(status__in=live).order_by("-created_at", "-pk")
    shown = list(ended[:ENDED_PAIRS_SHOWN])
    return {
        "pairs": list(mine.filter(status__in=live).order_by("-created_at", "-pk")),
        "ended_pairs": shown,
        "ended_more": max(ended.count() - len(shown), 0),
    }


def active_pairs_of(user) -> list[dict]:
    """The user's active pairs, by partner name, for "enter with my pair"."""
    if user is None or not user.is_authenticated:
        return []
    pairs = Pair.objects.filter(Q(player_one=user) | Q(player_two=user), status=Pair.Status.ACTIVE)
    out = []
    for pair in pairs.select_related("player_one", "player_two"):
        partner = pair.player_two if pair.player_one_id == user.pk else pair.player_one
        out.append({"pk": pair.pk, "partner": partner.get_username()})
    return sorted(out, key=lambda row: row["partner"].casefold())


def pair_results(pair: Pair) -> list[dict]:
    rows = []
    for r in (
        Result.objects.filter(entrant__pair=pair)
        .select_related("round__tournament", "round_table")
        .order_by("-recorded_at")[:200]
    ):
        rows.append(
            {
                "tournament": r.round.tournament,
                "round": r.round.number,
                "table_id": r.round_table.table_id if r.round_table else None,
                "place": r.place,
                "points": r.points,
                "bye": r.is_bye,
            }
        )
    return rows


# A spreadsheet runs a cell that begins with one of these as a formula; OWASP's advice
# for CSV injection: such a text cell gets a leading single quote (numbers stay numbers).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def pair_ratings(pair: Pair) -> list[tuple[str, str]]:
    """[(variant label, shown rating)] of the pair, from the ratings app's pair ladder when it has one."""
    from ratings.selectors import pair_ladder

    members = {pair.player_one_id, pair.player_two_id}
    out = []
    for variant, label in Variant.choices:
        try:
            rows = pair_ladder(variant, limit=100_000)
        except Exception:  # the pair page stands without ratings
            return out
        for row in rows:
            if {row.first_id, row.second_id} == members:
                out.append((str(label), row.shown))
    return out


# ---------------------------------------------------------- the director's page

ACTION_LABELS = {
    "unannounce": _("announcement removed"),
    "create": _("event created"),
    "edit": _("setup changed"),
    "start": _("started now"),
    "publish": _("event published"),
    "pause": _("event paused"),
    "resume": _("event resumed"),
    "late": _("late entrant added"),
    "withdraw": _("entrant withdrawn"),
    "disqualify": _("entrant disqualified"),
    "points": _("points corrected"),
    "correct": _("outcome corrected"),
    "cancel": _("event cancelled"),
    "reopen": _("event reopened"),
    "finish": _("event finished"),
    "retry": _("failing step retried"),
    "end_table": _("table's round ended as played"),
}


def _outcome(entry: dict) -> str:
    text = _("place %(place)s, %(points)s points") % {
        "place": entry.get("place") or "—",
        "points": _number(entry.get("points")),
    }
    return f"{text}, {_('durak')}" if entry.get("durak") else text


def _number(value) -> str:
    from django.utils.formats import number_format

    if value is None:
        return "—"
    return number_format(value, decimal_pos=None if value != int(value) else 0)


def director_history(event: Tournament) -> list[dict]:
    """The event's director actions, newest first, each with the lines that say what changed
    (a correction: each entrant's old and new outcome)."""
    rows = []
    for action in event.director_actions.select_related("by"):
        detail = action.detail or {}
        lines = []
        if action.action == "correct":
            before, after = detail.get("before") or {}, detail.get("after") or {}
            for name in after:
                lines.append(f"{name}: {_outcome(before.get(name) or {})} → {_outcome(after[name])}")
        elif action.action == "points":
            lines.append(f"{detail.get('name', '')}: {_number(detail.get('before'))} → {_number(detail.get('after'))}")
        elif detail.get("name"):
            lines.append(detail["name"])
        elif detail.get("text"):
            lines.append(detail["text"])
        where = ""
        if detail.get("round") and detail.get("table"):
            where = _("round %(round)s, table %(table)s, game %(game)s") % {
                "round": detail["round"],
                "table": detail["table"],
                "game": detail.get("game_number"),
            }
        rows.append(
            {
                "at": action.at,
                "by": action.by.get_username() if action.by else "",
                "label": ACTION_LABELS.get(action.action, action.action),
                "is_correction": action.action in ("correct", "points"),
                "where": where,
                "reason": action.reason,
                "lines": lines,
            }
        )
    return rows


def correctable_games(round_: Round, names: dict[int, str]) -> list[dict]:
    """The games of a round with a result, one per table and game number, for the correction
    form: each entrant by name with his current place."""
    games: dict[tuple[int, int], dict] = {}
    tables = {rt.pk: rt for rt in round_.tables.all()}
    for result in round_.results.all():
        rt = tables.get(result.round_table_id)
        if rt is None:
            continue
        game = games.setdefault(
            (rt.number, result.game_number),
            {"round_table": rt, "game_number": result.game_number, "entrants": [], "places": []},
        )
        game["entrants"].append(
            {"pk": result.entrant_id, "name": names.get(result.entrant_id, ""), "place": result.place}
        )
    for game in games.values():
        order = {pk: i for i, pk in enumerate(game["round_table"].entrants)}
        game["entrants"].sort(key=lambda e: order.get(e["pk"], 99))
        game["places"] = list(range(1, len(game["entrants"]) + 1))
    return [games[key] for key in sorted(games)]


def stuck_steps(event: Tournament) -> list[StuckStep]:
    """The event's steps that keep failing, oldest first (the director's page shows them)."""
    return list(StuckStep.objects.filter(tournament=event).select_related("round_table__round"))


def bracket(event: Tournament) -> dict | None:
    """A knockout's rounds as columns: each table's entrants with their points in that round and
    whether they went through (None while the round is not over); byes go through with 0 points.
    None for other formats or before round one is seated."""
    if not registry.of(event).knockout:
        return None
    rounds = list(event.round_set.order_by("number").prefetch_related("tables"))
    if not rounds:
        return None
    names = entrant_names(event)
    out_in = dict(event.entrants.values_list("pk", "eliminated_in_round"))
    points: dict[tuple[int, int], float] = {}
    for round_id, entrant_id, value in Result.objects.filter(round__tournament=event).values_list(
        "round_id", "entrant_id", "points"
    ):
        points[(round_id, entrant_id)] = points.get((round_id, entrant_id), 0.0) + value
    columns = []
    for round_ in rounds:
        over = round_.status == Round.Status.FINISHED

        def seat(pk, round_=round_, over=over):
            went = None if not over else out_in.get(pk) != round_.number
            return {"name": names.get(pk, "?"), "points": points.get((round_.pk, pk), 0.0), "through": went}

        shown = seating_shown(round_)
        tables = [
            {"number": rt.number, "seats": [seat(pk) for pk in rt.entrants]}
            for rt in sorted(round_.tables.all(), key=lambda rt: rt.number)
            if shown
        ]
        byes = [{"name": names.get(pk, "?"), "through": True} for pk in round_.byes if shown]  # a bye goes through
        columns.append({"number": round_.number, "status": round_.status, "over": over, "tables": tables, "byes": byes})
    return {"rounds": columns}


# ------------------------------------------------- the draft of a round

ACTION_LABELS.update(
    {
        "draft": _("seating of the next round computed"),
        "publish": _("seating published"),
        "reseat": _("seating edited by the director"),
    }
)


def seating_shown(round_: Round) -> bool:
    """Players see a round's seating once it is published or the round has started."""
    return round_.status != Round.Status.SCHEDULED or round_.published_at is not None


def _points_text(value: float) -> str:
    return _number(round(value, 2))


def draft_view(event: Tournament) -> dict | None:
    """The waiting round's draft for the director: tables with names and scores, its flags,
    its cost (repeated pairs, score spread: the measure the Swiss search minimises), a
    warning for every rematch, and the entrants who may be seated, by name."""
    round_ = event.round_set.order_by("-number").first()
    if round_ is None or round_.status != Round.Status.SCHEDULED:
        return None
    names = entrant_names(event)
    scores = scores_of(event)
    eligible = eligible_entrants(event, round_.number)
    tables = [list(rt.entrants) for rt in round_.tables.order_by("number")]
    met = meetings_before(event, round_.number)
    seated = [pk for table in tables for pk in table]
    cost = Seater(met, {pk: scores.get(pk, 0.0) for pk in seated}, seated).evaluate(tables) if tables else (0, 0, 0.0)
    size = 2 if event.is_pairs else event.entrants_per_table

    def seat(pk):
        return {"entrant": pk, "name": names.get(pk, "?"), "score": _points_text(scores.get(pk, 0.0))}

    rows = [
        {"number": i, "seats": [seat(pk) for pk in table], "free": range(len(table), size)}
        for i, table in enumerate(tables, start=1)
    ]
    if eligible:  # one empty table more: the director may open a table
        rows.append({"number": len(tables) + 1, "seats": [], "free": range(size), "new": True})
    eligible_ids = sorted(e.pk for e in eligible)
    return {
        "round": round_,
        "tables": rows,
        "byes": [seat(pk) for pk in round_.byes],
        "flags": round_flags(round_, names),
        "repeats": cost[0],
        "spread": _points_text(cost[2]),
        "rematches": [(names.get(a, "?"), names.get(b, "?")) for a, b in repeat_pairs(tables, met)],
        "choices": sorted(((e.pk, names.get(e.pk, "?")) for e in eligible), key=lambda c: c[1].casefold()),
        "published": round_.published_at is not None,
        "edited": round_.seated_by_director,
        "stale": bool(tables) and draft_is_stale(event, round_),
        "unseated": [names.get(pk, "?") for pk in eligible_ids if pk not in set(seated) | set(round_.byes)],
    }


# ------------------------------------------------ waiting list, check-in, requested byes

ACTION_LABELS.update(
    {
        "reinstate": _("entrant reinstated"),
        "check_in": _("entrant checked in"),
        "check_out": _("entrant checked out"),
    }
)


def waiting_list(event: Tournament) -> list[Entrant]:
    """Who waits for a place, first to be promoted first (order of registration)."""
    return list(
        event.entrants.filter(state=Entrant.State.WAITING)
        .select_related("user", "pair__player_one", "pair__player_two")
        .order_by("registered_at", "pk")
    )


def waiting_position(entrant: Entrant | None) -> int | None:
    """1 for the first on the waiting list; None for one not on it."""
    if entrant is None or entrant.state != Entrant.State.WAITING:
        return None
    earlier = entrant.tournament.entrants.filter(state=Entrant.State.WAITING).filter(
        Q(registered_at__lt=entrant.registered_at) | Q(registered_at=entrant.registered_at, pk__lt=entrant.pk)
    )
    return earlier.count() + 1


def checked_in_names(event: Tournament) -> list[str]:
    """The public list of who has checked in, in the order they did."""
    names = entrant_names(event)
    entrants = event.entrants.filter(state=Entrant.State.ACTIVE, checked_in=True).order_by("checked_in_at", "pk")
    return [names.get(pk, "?") for pk in entrants.values_list("pk", flat=True)]


def bye_rounds(event: Tournament, entrant: Entrant | None) -> list[int]:
    """The rounds an entrant may still ask to sit out (Swiss, rounds not started); [] otherwise."""
    if entrant is None or not entrant.is_active or not registry.of(event).requested_byes:
        return []
    if event.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        return []
    started = set(event.round_set.exclude(status=Round.Status.SCHEDULED).values_list("number", flat=True))
    if entrant.requested_bye_round in started:
        return []
    return [n for n in range(1, event.rounds + 1) if n not in started]


def entrant_in(event: Tournament, entrant_id: int) -> Entrant | None:
    """An entrant of this event only (an id of another event's entrant finds nothing)."""
    return event.entrants.select_related("user", "pair__player_one", "pair__player_two").filter(pk=entrant_id).first()


def requested_byes_of(event: Tournament, number: int) -> list[int]:
    """Entrants who asked to sit out round `number` (Swiss)."""
    if not registry.of(event).requested_byes:
        return []
    asked = event.entrants.filter(state=Entrant.State.ACTIVE, requested_bye_round=number)
    return list(asked.order_by("registered_at", "pk").values_list("pk", flat=True))


def pairs_to_enter(event: Tournament) -> list[dict]:
    """Active pairs neither of whose players is entered in the event yet, by their
    names, for the director's late-entrant select."""
    entered = event.entrants.values_list
    taken = (
        set(entered("user_id", flat=True))
        | set(entered("pair__player_one_id", flat=True))
        | set(entered("pair__player_two_id", flat=True))
    ) - {None}
    pairs = (
        Pair.objects.filter(status=Pair.Status.ACTIVE)
        .exclude(player_one_id__in=taken)
        .exclude(player_two_id__in=taken)
        .select_related("player_one", "player_two")
    )
    rows = [{"pk": pair.pk, "name": str(pair)} for pair in pairs]
    return sorted(rows, key=lambda row: (row["name"].casefold(), row["pk"]))


def pair_player(pair_id: int | None):
    """The first player of an active pair (who enters it), or None."""
    if pair_id is None:
        return None
    pair = Pair.objects.filter(pk=pair_id, status=Pair.Status.ACTIVE).select_related("player_one").first()
    return pair.player_one if pair else None


def announcements_of(event: Tournament, *, for_director: bool = False) -> list:
    """The event's announcements, newest first. Players see those not removed while the
    event is live (a finished event's page is its result, not its evening's notices);
    the director sees every one, removed ones marked."""
    rows = event.announcements.select_related("by", "removed_by")
    if for_director:
        return list(rows)
    if event.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        return []
    return list(rows.filter(removed_at=None))


def unbegun_tables(round_: Round) -> list:
    """The round's tables at which no move has been made yet (their first game dealt, untouched)."""
    tables = list(round_.tables.filter(done=False, games_played=0, table__isnull=False).order_by("number"))
    begun = games_selectors.begun_tables([rt.table_id for rt in tables])
    return [rt for rt in tables if rt.table_id not in begun]


def live_seating_view(event: Tournament) -> dict | None:
    """The round being played, for the director's reseat and substitute: its tables not begun
    yet, by name, and the entrants seated there (the choices of the reseat's selects)."""
    round_ = event.round_set.order_by("-number").first()
    if not event.is_under_way or round_ is None or round_.status != Round.Status.PLAYING:
        return None
    tables = unbegun_tables(round_)
    if not tables:
        return None
    names = entrant_names(event)
    size = 2 if event.is_pairs else event.entrants_per_table
    rows = [
        {
            "number": rt.number,
            "seats": [{"entrant": pk, "name": names.get(pk, "?")} for pk in rt.entrants],
            "free": range(len(rt.entrants), size),
        }
        for rt in tables
    ]
    choices = sorted(((pk, names.get(pk, "?")) for rt in tables for pk in rt.entrants), key=lambda c: c[1].casefold())
    partners = []  # a pair event's substitute replaces one partner: "<entrant>-<user>", by name
    if event.is_pairs:
        seated = [pk for rt in tables for pk in rt.entrants]
        for entrant in event.entrants.filter(pk__in=seated).select_related("pair__player_one", "pair__player_two"):
            for member in entrant.pair.members:
                label = f"{member.get_username()} ({names.get(entrant.pk, '?')})"
                partners.append((f"{entrant.pk}-{member.pk}", label))
        partners.sort(key=lambda c: c[1].casefold())
    return {"round": round_, "tables": rows, "choices": choices, "substitutes": True, "partners": partners}


ACTION_LABELS.update({"house-bot": _("house bot seated"), "substitute": _("substitute for one partner of a pair")})


def house_bot_seats(event: Tournament) -> list[tuple[int, str, int]]:
    """(entrant id, name, table number) of each seat a house bot may take now: a singles event
    that allows house bots, the tables of the round being played whose games are not over."""
    if not event.house_bots_allowed or event.is_pairs or event.status != Tournament.Status.RUNNING:
        return []
    round_ = event.round_set.order_by("-number").first()
    if round_ is None or round_.status != Round.Status.PLAYING:
        return []
    names = entrant_names(event)
    rows = []
    for rt in round_.tables.filter(done=False, table__isnull=False).order_by("number"):
        for pk in rt.entrants:
            rows.append((pk, names.get(pk, "?"), rt.number))
    return rows


# The arena's board (issue 20), in a module of its own.
