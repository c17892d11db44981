"""Ratings per variant (issue 8, R27): players and pairs, from finishing places.

The public face (other apps and templates use only these):

- `ratings.services.rate_game(game_id)`: bring the game's variant up to date up
  to this game (earlier unrated games first, in finishing order); idempotent.
- `ratings.services.recompute(variant)`: rebuild a variant from scratch.
- `ratings.services.enqueue_rate_game(game_id, variant)`: the Celery nudge, on
  queue `ratings-<variant>` (`queue_for`); the receiver of
  `games.signals.game_finished` calls it for rated games.
- `ratings.selectors`: `ladder`, `pair_ladder`, `player_ratings`, `history`,
  `chart`, `trends`, `ratings_for(user_ids, variant) -> {user_id: "1523" | "1337?"}`
  (one query, for names in lists), `rating_of`, `game_chances` /
  `game_chance_rows` (each side's chance of being the durak), and their short
  caches for pages re-rendered often (`cached_ratings_for`, `cached_game_chance_rows`,
  `cached_game_changes`).
- `ratings.model`: the pure rating mathematics (`MODEL_NAME`, `BETA`, `rate`,
  `display_rating`, `is_provisional`, `chance_ahead`, `chances_durak`).
- Through `games.extensions` (`ratings.at_table`): the badges at tables and in the
  lobby, the chances before a rated game's first move, the profile's section: the
  one way ratings reach other apps' pages. The table asks for them once per render,
  off the event loop (`games.table.rendering.extras_of`), the page and its socket alike.
- `ratings:about`: the page every shown rating links to (what the number means).

Celery tasks `ratings.tasks.rate_game` and `ratings.tasks.recompute` (nightly,
django-celery-beat rows "ratings: recompute <variant>"); command
`recalc_ratings --variant <v>` (its benchmark, `bench_ratings`, and the study are in `bench/`).
"""
