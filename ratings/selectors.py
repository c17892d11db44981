"""Reads: ladders, a player's ratings and history, ratings next to names, chances.

No writes here. Every function costs a fixed number of queries, whatever the
number of players it returns.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta

from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import close_old_connections
from django.db.models import Min
from django.utils import timezone

from games import selectors as game_selectors
from ratings import model as rating_model
from ratings.models import PairRating, Rating, RatingChange, Variant

TREND_DAYS = 30
INACTIVE_DAYS = 60  # no rated game for this long: off the ladder, rating kept
UNKNOWN = "?"


def variants() -> list[tuple[str, str]]:
    return list(Variant.choices)


def shown(mu: float, sigma: float, games: int) -> str:
    """The rating as a player reads it: the number, or "?" while provisional."""
    if rating_model.is_provisional(games, sigma):
        return UNKNOWN
    return str(rating_model.display_rating(mu, sigma))


def ratings_for(user_ids, variant: str) -> dict[int, str]:
    """{user_id: what to show next to the name} in one query; "?" for anyone provisional or unrated."""
    ids = {uid for uid in user_ids if uid is not None}
    result = dict.fromkeys(ids, UNKNOWN)
    if not ids:
        return result
    for user_id, mu, sigma, games in Rating.objects.filter(variant=variant, user_id__in=ids).values_list(
        "user_id", "mu", "sigma", "games"
    ):
        result[user_id] = shown(mu, sigma, games)
    return result


CACHE_SECONDS = 60
CHANCES_CACHE_SECONDS = 15 * 60


def cache_key(variant: str, user_id: int) -> str:
    return f"ratings:shown:{variant}:{user_id}"


_reader: ThreadPoolExecutor | None = None


def _fresh_connection_read(read, *args):
    close_old_connections()
    return read(*args)


def read_anywhere(read, *args):
    """`read(*args)`, also from synchronous code running inside an event loop.

    A live table's consumer renders its fragments on the event loop's thread,
    where Django refuses database access; there the read runs on one thread of
    its own, and the loop WAITS for it (on a cache miss only, at most once per
    player per CACHE_SECONDS, and once per game for the chances). Async code
    should not come here: it awaits `aread` or the async variants
    (`acached_ratings_for`, `acached_game_chance_rows`), which leave the loop
    free, and a consumer that awaits them before rendering makes the template
    tags' reads cache hits."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return read(*args)
    global _reader
    if _reader is None:
        _reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ratings-read")
    return _reader.submit(_fresh_connection_read, read, *args).result()


async def aread(read, *args):
    """`read(*args)` awaited from async code: it runs on a worker thread with a
    usable database connection (channels' `database_sync_to_async`, as the
    consumers read), and the event loop goes on meanwhile."""
    return await database_sync_to_async(read)(*args)


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
        fresh = read_anywhere(ratings_for, missing, variant)
        cache.set_many({cache_key(variant, uid): value for uid, value in fresh.items()}, CACHE_SECONDS)
        found.update(fresh)
    return found


async def acached_ratings_for(user_ids, variant: str) -> dict[int, str]:
    """`cached_ratings_for` for async code: the same cache entries, the query of the
    misses awaited (`aread`) instead of waited for on the loop."""
    ids = {uid for uid in user_ids if uid is not None}
    if not ids:
        return {}
    keys = {cache_key(variant, uid): uid for uid in ids}
    found = {keys[key]: value for key, value in (await cache.aget_many(list(keys))).items()}
    missing = ids - set(found)
    if missing:
        fresh = await aread(ratings_for, missing, variant)
        await cache.aset_many({cache_key(variant, uid): value for uid, value in fresh.items()}, CACHE_SECONDS)
        found.update(fresh)
    return found


def forget(variant: str, user_ids) -> None:
    """Drop the cached ratings (and nothing else) of these players in this variant."""
    cache.delete_many([cache_key(variant, uid) for uid in user_ids])


def rating_of(user_id: int | None, variant: str) -> str:
    return ratings_for([user_id], variant).get(user_id, UNKNOWN) if user_id else UNKNOWN


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
            shown(mu, sigma, games),
            games,
            rating_model.is_provisional(games, sigma),
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
            shown(mu, sigma, games),
            games,
            rating_model.is_provisional(games, sigma),
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
            games__gte=rating_model.PROVISIONAL_GAMES,
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
        provisional = rating_model.is_provisional(games, sigma)
        result.append(
            {
                "variant": variant,
                "label": label,
                "display": rating_model.display_rating(mu, sigma),
                "shown": shown(mu, sigma, games),
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
            "delta": after - before,
            "sigma": sigma,
        }
        for game_id, seq, finished_at, place, before, after, sigma in values
    ]


CHART_WIDTH, CHART_HEIGHT, CHART_PAD = 600, 200, 30


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
        "current": values[-1],
        "games": len(points),
    }


def game_chances(game_id: int) -> dict[int, float]:
    """{seat number: chance of not being the durak (0..1)} for a rated game with people only;
    {} otherwise. Partners share their team's chance."""
    return _chances(game_selectors.game_lineup(game_id))


def _chances(game: dict | None) -> dict[int, float]:
    """`game_chances` of a `games.selectors.game_lineup`."""
    if game is None or not game["rated"]:
        return {}
    seats = game["seats"]
    if len(seats) < 2 or any(user_id is None or bot for _, user_id, bot, _ in seats):
        return {}
    have = {
        user_id: (mu, sigma)
        for user_id, mu, sigma in Rating.objects.filter(
            variant=game["variant"], user_id__in=[s[1] for s in seats]
        ).values_list("user_id", "mu", "sigma")
    }
    default = (rating_model.MU, rating_model.SIGMA)
    teams: dict[int, list] = {}
    for number, user_id, _, team in seats:
        teams.setdefault(team, []).append((number, have.get(user_id, default)))
    if len(teams) < 2:
        return {}
    order = sorted(teams)
    chances = rating_model.chances_not_durak([[r for _, r in teams[t]] for t in order])
    return {number: chance for t, chance in zip(order, chances, strict=True) for number, _ in teams[t]}


def game_chance_rows(game_id: int) -> list[dict]:
    """`game_chances` as rows to show, seat by seat: seat, user_id, name, chance, percent."""
    lineup = game_selectors.game_lineup(game_id)
    chances = _chances(lineup)
    if not chances:
        return []
    seats = [(number, user_id) for number, user_id, _bot, _team in lineup["seats"]]
    names = _names(user_id for _, user_id in seats)
    return [
        {
            "seat": number,
            "user_id": user_id,
            "name": names.get(user_id, ""),
            "chance": chances[number],
            "percent": round(100 * chances[number]),
        }
        for number, user_id in seats
        if number in chances
    ]


def chances_cache_key(game_id: int) -> str:
    return f"ratings:chances:{game_id}"


def cached_game_chance_rows(game_id: int) -> list[dict]:
    """`game_chance_rows` kept per game (CHANCES_CACHE_SECONDS): shown before the first move,
    re-rendered for every viewer, and fixed once the game has started."""
    if not game_id:
        return []
    key = chances_cache_key(game_id)
    rows = cache.get(key)
    if rows is None:
        rows = read_anywhere(game_chance_rows, game_id)
        cache.set(key, rows, CHANCES_CACHE_SECONDS)
    return rows


async def acached_game_chance_rows(game_id: int) -> list[dict]:
    """`cached_game_chance_rows` for async code (the same cache entry; the read awaited)."""
    if not game_id:
        return []
    key = chances_cache_key(game_id)
    rows = await cache.aget(key)
    if rows is None:
        rows = await aread(game_chance_rows, game_id)
        await cache.aset(key, rows, CHANCES_CACHE_SECONDS)
    return rows
