"""Reads: ladders, a player's ratings and history, ratings next to names, chances.

No writes here. Every function costs a fixed number of queries, whatever the
number of players it returns.
"""

from __future__ import annotations

import gc
import math
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Min
from django.utils import timezone

from games import selectors as game_selectors
from ratings import model as rating_model
from ratings.ledger import GameRow, SeatRow
from ratings.models import PairRating, Rating, RatingChange, Variant

TREND_DAYS = 30
INACTIVE_DAYS = 60  # no rated game for this long: off the ladder, rating kept
PROVISIONAL_MARK = "?"


# In SeatRow's order, the game last: a row read with these fields is a SeatRow as it comes.
SEAT_FIELDS = ("number", "user_id", "bot_level", "team", "counted_place", "game_id")


def seat_rows(values) -> dict[int, list[SeatRow]]:
    """Seat values (SEAT_FIELDS, in that order) grouped by game."""
    by_game: dict[int, list[SeatRow]] = {}
    make = SeatRow._make
    for row in values:
        seat = make(row)
        seats = by_game.get(seat.game_id)
        if seats is None:
            by_game[seat.game_id] = [seat]
        else:
            seats.append(seat)
    return by_game


def games_to_rate(variant: str) -> list[GameRow]:
    """Every game of the variant that counts with its seats, in finishing order (two queries):
    what a full recomputation rates."""
    with _bulk_load():
        order = game_selectors.rated_games(variant)
        seats = seat_rows(game_selectors.rated_seat_values(variant, SEAT_FIELDS))
        no_seats: list = []
        return [GameRow(game_id, finished_at, seats.get(game_id, no_seats)) for game_id, finished_at in order]


@contextmanager
def _bulk_load():
    """Python's cyclic garbage collector paused while rows are loaded: a recomputation's
    read makes hundreds of thousands of objects that all stay alive, and the collector,
    run every few hundred new objects, went through them again and again (0.08 of
    0.2 CPU seconds for 20,000 games). Loading rows makes no reference cycles, so
    nothing is left for it to find; it is back on when the rows are read."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def variants() -> list[tuple[str, str]]:
    return list(Variant.choices)


def shown(mu: float, sigma: float) -> str:
    """The rating as a player reads it, the same on every page: the number, followed by "?"
    while provisional (as lichess shows it), e.g. "1337?" for a newcomer."""
    text = str(rating_model.display_rating(mu, sigma))
    return text + PROVISIONAL_MARK if rating_model.is_provisional(sigma) else text


def is_provisional_text(text: str) -> bool:
    """Whether a `shown` text is a provisional rating."""
    return str(text).endswith(PROVISIONAL_MARK)


# What a player with no rated game of the variant reads: a newcomer's rating.
NEWCOMER = shown(rating_model.MU, rating_model.SIGMA)


def explanation() -> dict:
    """The figures the "what is this number" page states, read from the model itself."""
    return {
        "newcomer": rating_model.display_rating(rating_model.MU, rating_model.SIGMA),
        "settled": rating_model.display_rating(rating_model.MU, rating_model.SETTLED_SIGMA),
        "mu": rating_model.MU,
        "sigma": rating_model.SIGMA,
        "provisional_sigma": rating_model.PROVISIONAL_SIGMA,
        "points_per_mu": rating_model.DISPLAY_ALPHA,
        "variants": variants(),
        "inactive_days": INACTIVE_DAYS,
        "mark": PROVISIONAL_MARK,
    }


def ratings_for(user_ids, variant: str) -> dict[int, str]:
    """{user_id: what to show next to the name} in one query; a newcomer's "1337?" for the unrated."""
    ids = {uid for uid in user_ids if uid is not None}
    result = dict.fromkeys(ids, NEWCOMER)
    if not ids:
        return result
    for user_id, mu, sigma in Rating.objects.filter(variant=variant, user_id__in=ids).values_list(
        "user_id", "mu", "sigma"
    ):
        result[user_id] = shown(mu, sigma)
    return result


CACHE_SECONDS = 60
CHANCES_CACHE_SECONDS = 15 * 60


def cache_key(variant: str, user_id: int) -> str:
    return f"ratings:shown:{variant}:{user_id}"


def cached_ratings_for(user_ids, variant: str) -> dict[int, str]:
    """`ratings_for` through Django's cache, for names on pages re-rendered often
    (a live table after every move): one `get_many`, and one query for the misses.

    Kept CACHE_SECONDS at most, and dropped when a rating changes (`forget`, called
    by the rating service after its commit): with REDIS_URL the cache is Redis,
    shared by the workers and the site; without it the worker runs inside the site
    process (the embedded mode) and shares its memory cache. Only a worker outside
    the site with a per-process cache would leave a badge up to CACHE_SECONDS old.
    """
    ids = {uid for uid in user_ids if uid is not None}
    if not ids:
        return {}
    keys = {cache_key(variant, uid): uid for uid in ids}
    found = {keys[key]: value for key, value in cache.get_many(list(keys)).items()}
    missing = ids - set(found)
    if missing:
        fresh = ratings_for(missing, variant)
        cache.set_many({cache_key(variant, uid): value for uid, value in fresh.items()}, CACHE_SECONDS)
        found.update(fresh)
    return found


def forget(variant: str, user_ids) -> None:
    """Drop the cached ratings (and nothing else) of these players in this variant."""
    cache.delete_many([cache_key(variant, uid) for uid in user_ids])


def rating_of(user_id: int | None, variant: str) -> str:
    return ratings_for([user_id], variant).get(user_id, NEWCOMER) if user_id else NEWCOMER


@dataclass
class LadderRow:
    rank: int | None
    user_id: int
    name: str
    display: int
    shown: str
    games: int
    provisional: bool
    trend: int | None


@dataclass
class PairRow:
    rank: int | None
    first_id: int
    second_id: int
    names: str
    display: int
    shown: str
    games: int
    provisional: bool


def _names(user_ids) -> dict[int, str]:
    User = get_user_model()
    return dict(User.objects.filter(pk__in=set(user_ids)).values_list("pk", User.USERNAME_FIELD))


def trends(variant: str, user_ids=None, *, days: int = TREND_DAYS, now=None) -> dict[int, int]:
    """{user_id: display now minus display before the first game of the last `days` days}."""
    since = (now or timezone.now()) - timedelta(days=days)
    recent = RatingChange.objects.filter(variant=variant, finished_at__gte=since)
    if user_ids is not None:
        recent = recent.filter(user_id__in=set(user_ids))
    firsts = dict(recent.values("user_id").annotate(first=Min("seq")).values_list("user_id", "first"))
    if not firsts:
        return {}
    before = {
        user_id: display
        for user_id, seq, display in RatingChange.objects.filter(
            variant=variant, user_id__in=list(firsts), seq__in=set(firsts.values())
        ).values_list("user_id", "seq", "display_before")
        if firsts[user_id] == seq
    }
    now_display = {
        user_id: rating_model.display_rating(mu, sigma)
        for user_id, mu, sigma in Rating.objects.filter(variant=variant, user_id__in=list(firsts)).values_list(
            "user_id", "mu", "sigma"
        )
    }
    return {uid: now_display[uid] - before[uid] for uid in before if uid in now_display}


def _ranked(rows):
    """Established entries by rating, numbered; provisional ones after them, unnumbered."""
    rows.sort(key=lambda r: (r.provisional, -r.display, r.games * -1))
    rank = 0
    for row in rows:
        if not row.provisional:
            rank += 1
            row.rank = rank
    return rows


def ladder(variant: str, *, limit: int = 100, now=None, inactive_days: int = INACTIVE_DAYS) -> list[LadderRow]:
    """The variant's players who played within `inactive_days`, best first."""
    now = now or timezone.now()
    entries = list(
        Rating.objects.filter(variant=variant, last_played__gte=now - timedelta(days=inactive_days)).values_list(
            "user_id", "mu", "sigma", "games"
        )
    )
    rows = [
        LadderRow(
            None,
            user_id,
            "",
            rating_model.display_rating(mu, sigma),
            shown(mu, sigma),
            games,
            rating_model.is_provisional(sigma),
            None,
        )
        for user_id, mu, sigma, games in entries
    ]
    rows = _ranked(rows)[:limit]
    names = _names(r.user_id for r in rows)
    trend = trends(variant, [r.user_id for r in rows], now=now)
    for row in rows:
        row.name = names.get(row.user_id, "")
        row.trend = trend.get(row.user_id)
    return rows


def pair_ladder(variant: str, *, limit: int = 50, now=None, inactive_days: int = INACTIVE_DAYS) -> list[PairRow]:
    now = now or timezone.now()
    entries = list(
        PairRating.objects.filter(variant=variant, last_played__gte=now - timedelta(days=inactive_days)).values_list(
            "first_id", "second_id", "mu", "sigma", "games"
        )
    )
    rows = [
        PairRow(
            None,
            first,
            second,
            "",
            rating_model.display_rating(mu, sigma),
            shown(mu, sigma),
            games,
            rating_model.is_provisional(sigma),
        )
        for first, second, mu, sigma, games in entries
    ]
    rows = _ranked(rows)[:limit]
    names = _names([r.first_id for r in rows] + [r.second_id for r in rows])
    for row in rows:
        row.names = f"{names.get(row.first_id, '')} & {names.get(row.second_id, '')}"
    return rows


def ladder_rank(user_id: int, variant: str, *, now=None, inactive_days: int = INACTIVE_DAYS) -> int | None:
    """The player's place on the variant's ladder (as `ladder` numbers it), or None when he
    is not on it (provisional, or no rated game for `inactive_days`). One query."""
    now = now or timezone.now()
    rows = [
        LadderRow(None, uid, "", rating_model.display_rating(mu, sigma), "", games, False, None)
        for uid, mu, sigma, games in Rating.objects.filter(
            variant=variant,
            last_played__gte=now - timedelta(days=inactive_days),
            sigma__lte=rating_model.PROVISIONAL_SIGMA,
        ).values_list("user_id", "mu", "sigma", "games")
    ]
    for row in _ranked(rows):
        if row.user_id == user_id:
            return row.rank
    return None


def player_ratings(user_id: int, *, with_rank: bool = False, now=None) -> list[dict]:
    """One entry per variant (rated or not): display, shown text, games, provisional
    (and, `with_rank`, the place on the ladder: one more query per rated variant)."""
    have = {
        variant: (mu, sigma, games, last)
        for variant, mu, sigma, games, last in Rating.objects.filter(user_id=user_id).values_list(
            "variant", "mu", "sigma", "games", "last_played"
        )
    }
    result = []
    for variant, label in Variant.choices:
        mu, sigma, games, last = have.get(variant, (rating_model.MU, rating_model.SIGMA, 0, None))
        provisional = rating_model.is_provisional(sigma)
        result.append(
            {
                "variant": variant,
                "label": label,
                "display": rating_model.display_rating(mu, sigma),
                "shown": shown(mu, sigma),
                "games": games,
                "provisional": provisional,
                "last_played": last,
                "rank": ladder_rank(user_id, variant, now=now) if with_rank and not provisional else None,
            }
        )
    return result


def history(user_id: int, variant: str, *, limit: int | None = None) -> list[dict]:
    """The player's rated games of the variant, oldest first: rating after each and its change."""
    rows = RatingChange.objects.filter(user_id=user_id, variant=variant).order_by("-seq")
    if limit:
        rows = rows[:limit]
    values = list(
        rows.values_list("game_id", "seq", "finished_at", "place", "display_before", "display_after", "sigma_after")
    )
    values.reverse()
    return [
        {
            "game_id": game_id,
            "seq": seq,
            "finished_at": finished_at,
            "place": place,
            "display": after,
            "shown": f"{after}{PROVISIONAL_MARK}" if rating_model.is_provisional(sigma) else str(after),
            "provisional": rating_model.is_provisional(sigma),
            "delta": after - before,
            "sigma": sigma,
        }
        for game_id, seq, finished_at, place, before, after, sigma in values
    ]


CHART_WIDTH, CHART_HEIGHT, CHART_PAD = 600, 200, 30


def _games_played(user_id: int, variant: str) -> int:
    return RatingChange.objects.filter(user_id=user_id, variant=variant).count()


def chart(user_id: int, variant: str, *, limit: int = 200) -> dict:
    """The numbers an SVG line chart of the player's rating needs (drawn by
    templates/ratings/partials/chart.html, no JavaScript)."""
    points = history(user_id, variant, limit=limit)
    if not points:
        return {"empty": True, "width": CHART_WIDTH, "height": CHART_HEIGHT}
    first_before = points[0]["display"] - points[0]["delta"]
    values = [first_before] + [p["display"] for p in points]
    low, high = min(values), max(values)
    if high - low < 20:
        middle = (high + low) / 2
        low, high = middle - 10, middle + 10
    inner_w = CHART_WIDTH - 2 * CHART_PAD
    inner_h = CHART_HEIGHT - 2 * CHART_PAD
    step = inner_w / max(1, len(values) - 1)

    def y(value):
        return round(CHART_PAD + (high - value) * inner_h / (high - low), 1)

    coords = [(round(CHART_PAD + i * step, 1), y(v)) for i, v in enumerate(values)]
    return {
        "empty": False,
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "pad": CHART_PAD,
        "right": CHART_WIDTH - CHART_PAD,
        "bottom": CHART_HEIGHT - CHART_PAD,
        "points": " ".join(f"{x},{yy}" for x, yy in coords),
        "last_x": coords[-1][0],
        "last_y": coords[-1][1],
        "high": round(high),
        "low": round(low),
        "high_y": y(high),
        "low_y": y(low),
        "current": points[-1]["shown"],
        # the caption counts every rated game, the line the last `limit` of them
        "games": len(points) if len(points) < limit else _games_played(user_id, variant),
        "drawn": len(points),
    }


def game_chances(game_id: int) -> dict[int, float]:
    """{seat number: chance of being the durak's side (0..1)} for a rated game with people only;
    {} otherwise. Partners share their side's chance; over the sides they sum to 1."""
    sides = _sides(game_selectors.game_lineup(game_id))
    return {number: side["chance"] for side in sides for number in side["seats"]}


def _sides(game: dict | None) -> list[dict]:
    """The sides of a `games.selectors.game_lineup` with their chances of being the durak:
    [{seats, user_ids, chance, provisional, low, high}], in team order; [] when not rated."""
    if game is None or not game["rated"]:
        return []
    seats = game["seats"]
    if len(seats) < 2 or any(user_id is None or bot for _, user_id, bot, _ in seats):
        return []
    have = {
        user_id: (mu, sigma)
        for user_id, mu, sigma in Rating.objects.filter(
            variant=game["variant"], user_id__in=[s[1] for s in seats]
        ).values_list("user_id", "mu", "sigma")
    }
    default = (rating_model.MU, rating_model.SIGMA)
    teams: dict[int, list] = {}
    for number, user_id, _, team in seats:
        teams.setdefault(team, []).append((number, user_id, have.get(user_id, default)))
    if len(teams) < 2:
        return []
    order = sorted(teams)
    ratings = [[r for _, _, r in teams[t]] for t in order]
    chances = rating_model.chances_durak(ratings)
    sides = []
    for index, (t, chance) in enumerate(zip(order, chances, strict=True)):
        provisional = any(rating_model.is_provisional(sigma) for _, sigma in ratings[index])
        low, high = rating_model.chance_range(ratings, index) if provisional else (chance, chance)
        sides.append(
            {
                "seats": [number for number, _, _ in teams[t]],
                "user_ids": [user_id for _, user_id, _ in teams[t]],
                "chance": chance,
                "provisional": provisional,
                "low": low,
                "high": high,
            }
        )
    return sides


def game_chance_rows(game_id: int) -> list[dict]:
    """Each side's chance of being the durak, as rows to show: seat (the side's first),
    user_ids, name (partners joined with " & "), chance, percent (whole percents summing
    to 100), provisional, and for a side with a provisional player low / high percents
    (its chance were it one sigma better or worse)."""
    sides = _sides(game_selectors.game_lineup(game_id))
    if not sides:
        return []
    names = _names(uid for side in sides for uid in side["user_ids"])
    percents = rating_model.whole_percents([side["chance"] for side in sides])
    return [
        {
            "seat": side["seats"][0],
            "seats": side["seats"],
            "user_id": side["user_ids"][0],
            "user_ids": side["user_ids"],
            "name": " & ".join(names.get(uid, "") for uid in side["user_ids"]),
            "chance": side["chance"],
            "percent": percent,
            "provisional": side["provisional"],
            "low": math.floor(100 * side["low"]),
            "high": math.ceil(100 * side["high"]),
        }
        for side, percent in zip(sides, percents, strict=True)
    ]


def game_changes(game_id: int) -> list[dict]:
    """What a rated game changed, seat by seat: user_id, name, shown (the rating after it,
    with "?" while provisional) and delta (+/- in shown points); [] while it is not rated yet."""
    rows = list(
        RatingChange.objects.filter(game_id=game_id)
        .order_by("seat")
        .values_list("user_id", "display_before", "display_after", "sigma_after")
    )
    names = _names(user_id for user_id, *_ in rows)
    return [
        {
            "user_id": user_id,
            "name": names.get(user_id, ""),
            "shown": f"{after}{PROVISIONAL_MARK}" if rating_model.is_provisional(sigma) else str(after),
            "delta": after - before,
        }
        for user_id, before, after, sigma in rows
    ]


def changes_cache_key(game_id: int) -> str:
    return f"ratings:changes:{game_id}"


def _cached_game_rows(key: str, read, game_id: int, seconds: int) -> list[dict]:
    """`read(game_id)` kept in the cache under `key` for `seconds` (the game's rows, the
    same for every viewer): the one cached reader of a game's rows for sync code."""
    if not game_id:
        return []
    rows = cache.get(key)
    if rows is None:
        rows = read(game_id)
        cache.set(key, rows, seconds)
    return rows


def cached_game_changes(game_id: int) -> list[dict]:
    """`game_changes` through the cache (a finished table is re-rendered for every viewer);
    dropped by the rating service once the game is rated (`forget_game_changes`)."""
    return _cached_game_rows(changes_cache_key(game_id), game_changes, game_id, CACHE_SECONDS)


def forget_game_changes(game_ids) -> None:
    cache.delete_many([changes_cache_key(game_id) for game_id in game_ids])


def table_key(game_id: int) -> str:
    """Where the finished game's table id waits for its rating (set when the game finishes)."""
    return f"ratings:table-of:{game_id}"


def tables_of(game_ids) -> list[int]:
    """The tables of these just-finished games that are waiting for their ratings."""
    return list(cache.get_many([table_key(game_id) for game_id in game_ids]).values())


def chances_cache_key(game_id: int) -> str:
    return f"ratings:chances:{game_id}"


def cached_game_chance_rows(game_id: int) -> list[dict]:
    """`game_chance_rows` kept per game (CHANCES_CACHE_SECONDS): shown before the first move,
    re-rendered for every viewer, and fixed once the game has started."""
    return _cached_game_rows(chances_cache_key(game_id), game_chance_rows, game_id, CHANCES_CACHE_SECONDS)
