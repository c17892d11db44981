"""Reads of the tournaments app: lists, standings, crosstable, exports."""

from __future__ import annotations

import csv
import io

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from . import game_records, standings
from .models import Entrant, Pair, Result, Round, Tournament

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


def events_by_state(limit: int = 50) -> dict[str, list[Tournament]]:
    over = [Tournament.Status.FINISHED, Tournament.Status.CANCELLED]
    base = Tournament.objects.all()
    return {
        "running": list(base.filter(status=Tournament.Status.RUNNING).order_by("starts_at")[:limit]),
        "upcoming": list(base.exclude(status__in=[*over, Tournament.Status.RUNNING]).order_by("starts_at")[:limit]),
        "past": list(base.filter(status__in=over).order_by("-starts_at")[:limit]),
    }


def entrant_names(event: Tournament) -> dict[int, str]:
    names = {}
    for e in event.entrants.select_related("user", "pair__player_one", "pair__player_two"):
        if e.pair_id:
            names[e.pk] = f"{e.pair.player_one.username} & {e.pair.player_two.username}"
        else:
            names[e.pk] = e.user.username
    return names


def entry_of(event: Tournament, user) -> Entrant | None:
    if user is None or not user.is_authenticated:
        return None
    return event.entrants.filter(Q(user=user) | Q(pair__player_one=user) | Q(pair__player_two=user)).first()


def standings_of(event: Tournament) -> list[standings.Line]:
    entrants = list(event.entrants.order_by("registered_at", "pk"))
    rows = [
        {
            "entrant": r["entrant_id"],
            "round": r["round__number"],
            "table": r["round_table_id"],
            "points": r["points"],
            "durak": r["is_durak"],
        }
        for r in Result.objects.filter(round__tournament=event).values(
            "entrant_id", "round__number", "round_table_id", "points", "is_durak"
        )
    ]
    from .services import entrant_ratings

    ratings = entrant_ratings(event, entrants)
    return standings.compute([e.pk for e in entrants], rows, ratings)


def standings_table(event: Tournament) -> list[dict]:
    """Standings with names and states, ready for the page and the CSV."""
    names = entrant_names(event)
    states = {e.pk: e for e in event.entrants.select_related("pair")}
    out = []
    for line in standings_of(event):
        entrant = states[line.entrant]
        out.append(
            {
                "rank": line.rank,
                "entrant": line.entrant,
                "name": names.get(line.entrant, "?"),
                "points": line.points,
                "buchholz": line.buchholz,
                "duraks": line.duraks,
                "rating": line.rating,
                "games": line.games,
                "byes": line.byes,
                "state": entrant.get_state_display(),
                "active": entrant.is_active,
                "late": entrant.late,
                "eliminated_in_round": entrant.eliminated_in_round,
                "by_round": line.by_round,
                "user_ids": entrant.user_ids(),
            }
        )
    return out


def crosstable(event: Tournament) -> dict:
    """Rounds as columns: for each entrant, per round, the table number and the points."""
    rounds = list(event.round_set.order_by("number").values_list("number", flat=True))
    cells: dict[int, dict[int, dict]] = {}
    for r in Result.objects.filter(round__tournament=event).select_related("round", "round_table"):
        cell = cells.setdefault(r.entrant_id, {}).setdefault(
            r.round.number, {"table": r.round_table.number if r.round_table else None, "points": 0.0}
        )
        cell["points"] += r.points
    rows = []
    for line in standings_table(event):
        rows.append({**line, "cells": [cells.get(line["entrant"], {}).get(n) for n in rounds]})
    return {"rounds": rounds, "rows": rows}


def round_view(event: Tournament, user=None) -> dict | None:
    """The current round: its tables, who sits where, and the viewer's own table."""
    round_ = event.round_set.order_by("-number").first()
    if round_ is None:
        return None
    names = entrant_names(event)
    mine = entry_of(event, user)
    tables = []
    for rt in round_.tables.order_by("number"):
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
        "byes": [names.get(pk, "?") for pk in round_.byes],
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
        tournament__status=Tournament.Status.RUNNING,
        state=Entrant.State.ACTIVE,
    ).select_related("tournament")
    for entrant in entries:
        round_ = entrant.tournament.round_set.filter(status=Round.Status.PLAYING).order_by("-number").first()
        if round_ is None:
            continue
        for rt in round_.tables.filter(done=False):
            if entrant.pk in rt.entrants:
                return {
                    "tournament": entrant.tournament,
                    "round": round_.number,
                    "table_id": rt.table_id,
                    "table_number": rt.number,
                }
    return None


def pairs_of(user) -> list[Pair]:
    return list(Pair.objects.filter(Q(player_one=user) | Q(player_two=user)).select_related("player_one", "player_two"))


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


def standings_csv(event: Tournament) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    # Headers in the language of the page, like the state column below them.
    writer.writerow(
        [
            pgettext("standings csv", "rank"),
            pgettext("standings csv", "name"),
            pgettext("standings csv", "points"),
            pgettext("standings csv", "buchholz"),
            pgettext("standings csv", "duraks"),
            pgettext("standings csv", "rating"),
            pgettext("standings csv", "games"),
            pgettext("standings csv", "byes"),
            pgettext("standings csv", "state"),
        ]
    )
    for line in standings_table(event):
        writer.writerow(
            [
                line["rank"],
                line["name"],
                line["points"],
                line["buchholz"],
                line["duraks"],
                line["rating"],
                line["games"],
                line["byes"],
                line["state"],
            ]
        )
    return out.getvalue()


def games_csv(event: Tournament) -> str:
    """Every game of the event: round, table, game, and each entrant's place and points."""
    names = entrant_names(event)
    results = list(
        Result.objects.filter(round__tournament=event, game__isnull=False)
        .select_related("round", "round_table")
        .order_by("round__number", "round_table__number", "game_number")
    )
    games = {g["pk"]: g for g in game_records.games_with_seats({r.game_id for r in results})}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "round",
            "table",
            "game_number",
            "game_id",
            "table_id",
            "finished_at",
            "seed_hash",
            "entrant",
            "place",
            "points",
            "durak",
            "corrected",
        ]
    )
    for r in results:
        game = games.get(r.game_id, {})
        writer.writerow(
            [
                r.round.number,
                r.round_table.number,
                r.game_number,
                r.game_id,
                game.get("table_id"),
                game.get("finished_at").isoformat() if game.get("finished_at") else "",
                game.get("seed_hash", ""),
                names.get(r.entrant_id, "?"),
                r.place,
                r.points,
                int(r.is_durak),
                int(r.corrected_at is not None),
            ]
        )
    return out.getvalue()


def pair_ratings(pair: Pair) -> list[tuple[str, str]]:
    """[(variant label, shown rating)] of the pair, from the ratings app's pair ladder when it has one."""
    try:
        from ratings.selectors import pair_ladder
    except ImportError:
        return []
    from .models import VARIANT_CHOICES

    members = {pair.player_one_id, pair.player_two_id}
    out = []
    for variant, label in VARIANT_CHOICES:
        try:
            rows = pair_ladder(variant, limit=100_000)
        except Exception:  # the pair page stands without ratings
            return out
        for row in rows:
            if {row.first_id, row.second_id} == members:
                out.append((str(label), row.shown))
    return out
