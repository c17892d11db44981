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
  `game_chance_rows` (each side's chance of being the durak); for async
  code (a consumer, before it renders) `acached_ratings_for` and
  `acached_game_chance_rows`, which await their reads (`aread`) instead of
  holding up the event loop, and fill the cache the template tags read.
- `{% load ratings %}`: `rating_of`, `rating_badge`, `ratings_for` + `rating_for`,
  `rating_chart`, `game_chances`, `chances_list` (ratings/templatetags/ratings.py).
- `{% table_ratings table seats panels as shown %}` + `with_ratings`: a table's
  badges, one cache read per render (for pages of other apps; games' own pages get
  theirs through `games.extensions`).
- `ratings.model`: the pure rating mathematics (`MODEL_NAME`, `BETA`, `rate`,
  `display_rating`, `is_provisional`, `chance_ahead`, `chances_durak`).
- Through `games.extensions` (`ratings.at_table`): the badges at tables and in the
  lobby, the chances before a rated game's first move, the profile's section.
- `ratings:about`: the page every shown rating links to (what the number means).

Celery tasks `ratings.tasks.rate_game` and `ratings.tasks.recompute` (nightly,
django-celery-beat rows "ratings: recompute <variant>"); command
`recalc_ratings --variant <v>` (its benchmark, `bench_ratings`, and the study are in `bench/`).
"""
