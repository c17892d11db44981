"""Shared fixtures for the whole test suite."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from urllib.parse import urlsplit

import pytest

from tests import costs
from tests.ops.settings import redis_url_for_worker

DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"

# Tiers by cost (issue 21): pyproject.toml registers the markers, `dev.py test --fast`
# runs the tests that carry none of browser, services and slow.
TIER_OF_DIRECTORY = {"browser": "browser", "scale": "services", "scaleout": "services"}
# Outside those directories, tests that need PostgreSQL or Redis (they ask for one of
# SERVICE_FIXTURES) or start the site's own processes (daphne, a Celery worker, an inner
# test run whose worker threads need a database file). Listed by name, since pytest-xdist's
# scheduler sees test ids only.
SERVICE_FIXTURES = frozenset({"postgres_url", "redis_url", "private_redis_port"})
SERVICES = {
    "tests/backups/test_postgresql.py": ["test_backups_and_restores_on_postgresql"],
    "tests/battles/test_postgresql.py": ["test_two_entries_at_once_for_two_clubs_make_one_entry_on_postgresql"],
    "tests/experience/test_concurrent_play_now.py": ["test_two_presses_at_once_land_at_one_table_on_postgres"],
    "tests/ratings/test_commands.py": ["test_bench_ratings_on_postgresql_uses_a_scratch_database_and_drops_it"],
    "tests/ratings/test_queues_live.py": ["test_a_podkidnoy_game_never_waits_for_a_perevodnoy_one"],
    "tests/reviews/test_live_play_first.py": ["test_bots_keep_their_pace_beside_20_reviews_in_the_embedded_mode"],
    "tests/services/test_bench_tables.py": ["test_bench_tables_smoke", "test_bench_tables_without_the_floor"],
    "tests/services/test_concurrency.py": ["test_simultaneous_moves_on_sqlite"],
    "tests/services/test_embedded_celery.py": ["test_embedded_worker_and_beat_move_bots"],
    "tests/services/test_issue21_gc_after_start.py": [
        "test_issue21_the_embedded_server_freezes_its_start_up_heap",
        "test_issue21_gc_threshold_zero_keeps_pythons_own",
    ],
    "tests/services/test_move_queries.py": ["test_a_move_holds_the_game_row_locked_until_it_commits_on_postgresql"],
    "tests/test_outside_services.py": ["test_postgres_answers", "test_redis_channel_layer_round_trip"],
    "tests/trust/test_hostile_input.py": ["test_the_hostile_walk_on_postgresql"],
    "tests/tournaments/test_arena_embedded.py": ["test_issue20_an_arena_with_the_embedded_worker_and_beat"],
    "tests/tournaments/test_embedded_event.py": [
        "test_embedded_worker_and_beat_run_an_event",
        "test_the_club_evening_on_postgres_and_redis",
        "test_worker_and_beat_processes_run_an_event_on_postgres_and_redis",
    ],
}
# The costliest of the rest, from `pytest --durations` per directory (docs/benchmarks-history.md,
# "Test suite time (issue 21, point 5)"); besides these, every test whose measured CPU cost in tests/costs.json
# is costs.SLOW_SECONDS or more (tests/costs.py).
SLOW = {
    "tests/bots/test_bots.py": ["test_heuristic_beats_random_heads_up"],
    "tests/bots/test_search.py": [
        "test_the_searching_bot_plays_only_legal_actions_at_every_table",
        "test_no_playout_starts_after_the_time_budget",
    ],
    "tests/e2e/test_whole_games_with_bot.py": ["test_two_people_and_bots_play_a_whole_game_over_websockets"],
    "tests/engine/test_properties.py": [
        "test_legal_actions_are_exactly_the_accepted_ones",
        "test_random_games_keep_invariants",
        "test_random_games_views_never_leak",
    ],
    "tests/engine/test_rules_actions.py": ["test_every_illegal_action_raises_a_reason_and_changes_nothing"],
    "tests/fairness/test_reference_verifier.py": ["test_the_verifier_deals_what_the_engine_deals"],
    "tests/lobby/test_lobby_coalesced.py": ["test_a_burst_of_changes_costs_a_few_renders_for_all_sockets"],
    "tests/lobby/test_lobby_live.py": ["test_lobby_socket_gets_the_list_and_every_change"],
    "tests/ops/test_deploy.py": [
        "test_check_deploy_prints_no_warning_in_production",
        "test_collectstatic_gives_hashed_compressed_files",
        "test_https_settings_come_from_the_environment",
        "test_local_play_is_plain_http",
    ],
    "tests/ops/test_login_throttling.py": [
        "test_after_40_wrong_passwords_the_right_one_does_not_log_in",
        "test_the_default_lockout_lasts_15_minutes_and_says_so_in_english",
        "test_the_lockout_page_says_how_long_the_lockout_lasts",
    ],
    "tests/ratings/test_commands.py": ["test_bench_ratings_works_on_a_scratch_database_and_ends_with_the_rate"],
    "tests/ratings/test_services.py": ["test_recomputation_equals_the_incremental_updates"],
    "tests/reviews/test_budget.py": ["test_every_part_keeps_its_budget_although_one_decision_costs_more"],
    "tests/reviews/test_services.py": ["test_a_review_in_parts_judges_the_same_and_sends_itself_on"],
    "tests/services/test_restart.py": ["test_a_game_resumed_by_a_new_process_plays_on_identically"],
    "tests/table/test_live.py": ["test_whole_game_over_sockets_never_leaks_a_hidden_card"],
    "tests/test_site.py": [
        "test_environment_switches_to_postgres_and_redis",
        "test_production_refuses_a_weak_secret_key",
    ],
    "tests/tournaments/test_club_evening.py": ["test_a_club_evening"],
    "tests/tournaments/test_director_actions.py": [
        "test_a_cancelled_running_event_reopens_running",
        "test_a_correction_sets_the_places_and_points_durak_history_and_ratings_follow",
        "test_points_entry_takes_the_russian_comma_and_refuses_huge_and_non_finite_values",
    ],
    "tests/tournaments/test_events.py": [
        "test_a_16_player_swiss_at_tables_of_four_over_four_rounds",
        "test_an_8_pair_2v2_round_robin",
        "test_round_two_of_a_knockout_follows_the_bracket_of_round_one",
        "test_who_resigns_is_last_at_the_table_and_the_others_keep_the_top_places",
    ],
    "tests/tournaments/test_fixed_seats.py": [
        "test_a_table_that_cannot_be_dealt_holds_back_no_other_table",
        "test_the_sweep_alone_stores_the_result_of_a_table_it_cannot_deal",
    ],
    "tests/tournaments/test_formats_swiss_cost.py": ["test_the_search_finds_the_brute_force_optimum_on_small_fields"],
    "tests/tournaments/test_no_show_backoff.py": [
        "test_a_failing_no_show_forfeit_is_logged_once_backs_off_and_is_shown"
    ],
    # Added with the house issue's own tests, the costliest of `--fast` on a quiet machine.
    "tests/table/test_render_inputs.py": [
        "test_issue21_speed_every_update_leaves_the_socket_showing_a_fresh_render_over_whole_games"
    ],
    "tests/bench/test_tools_out_of_the_product.py": ["test_issue21_3_the_site_starts_without_websockets"],
    "tests/bench/test_rating_study.py": [
        "test_issue19_the_wider_study_runs_tiny_and_its_table_has_every_model",
        "test_issue19_the_sites_games_are_exported_in_order_and_studied",
    ],
    "tests/ops/test_dev_manage.py": ["test_issue17_dev_py_manage_makes_an_admin_in_the_sites_own_database"],
    "tests/ratings/test_shown_honestly.py": [
        "test_issue19_the_durak_chance_is_calibrated_in_every_decile",
        "test_issue19_a_pairs_chance_is_calibrated_too",
    ],
    "tests/trust/test_socket_frames.py": [
        "test_a_seated_player_gets_an_answer_to_every_frame_and_nothing_changes",
        "test_the_lobby_socket_ignores_every_frame_and_stays_open",
        "test_the_tournament_sockets_ignore_every_frame_and_stay_open",
    ],
}
# Tests that judge elapsed time: `dev.py test` runs them after the parallel pass, alone.
COSTS = costs.load()
SERIAL = {
    "tests/reviews/test_budget.py": ["test_every_part_keeps_its_budget_although_one_decision_costs_more"],
    "tests/reviews/test_live_play_first.py": ["test_bots_keep_their_pace_beside_20_reviews_in_the_embedded_mode"],
}


def cost_tiers(path: str, name: str) -> set[str]:
    """The cost markers of the test `name` (without parameters) in `path` (from the root)."""
    parts = path.split("/")
    tiers = {TIER_OF_DIRECTORY[parts[1]]} if len(parts) > 2 and parts[1] in TIER_OF_DIRECTORY else set()
    for tier, table in (("services", SERVICES), ("slow", SLOW), ("serial", SERIAL)):
        if name in table.get(path, ()):
            tiers.add(tier)
    if not tiers and costs.is_costly(COSTS, path, name):
        tiers.add("slow")
    return tiers


def _path_and_name(nodeid: str) -> tuple[str, str]:
    path, *names = nodeid.split("::")
    return path, names[-1].split("[")[0] if names else ""


def shared_scope(nodeid: str) -> str | None:
    """ "browser" or "services" for a test that must run one after another with the others
    of its tier on one pytest-xdist worker: they share the machine's PostgreSQL and Redis
    (the scale tests empty a Redis database of their choosing) and start processes."""
    tiers = cost_tiers(*_path_and_name(nodeid))
    return next((tier for tier in ("services", "browser") if tier in tiers), None)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup` (as `dev.py test` runs) with the tiers as the groups.

    pytest-xdist 3.8 on pytest 9.2 drops its own `xdist_group` groups (the test id
    it rewrites is no longer the one pytest reports: pytest-xdist issue 1386), and a
    test's markers never reach the scheduler anyway; its ids do.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class TierScheduling(LoadGroupScheduling):
        # The one method a group scheduler defines (LoadGroupScheduling does the same
        # over LoadScopeScheduling): which unit of work a test id belongs to.
        def _split_scope(self, nodeid: str) -> str:
            return shared_scope(nodeid) or super()._split_scope(nodeid)

    return TierScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark each test with its tiers before `-m` selects; refuse a test that asks for
    PostgreSQL or Redis without being in the services tier (the scheduler would run it
    beside the others)."""
    for item in items:
        path, name = _path_and_name(item.nodeid)
        tiers = cost_tiers(path, name)
        if SERVICE_FIXTURES.intersection(item.fixturenames) and "services" not in tiers:
            raise pytest.UsageError(
                f"{item.nodeid} asks for PostgreSQL or Redis: add it to SERVICES in tests/conftest.py"
            )
        for tier in sorted(tiers):
            item.add_marker(tier)


def pytest_addoption(parser):
    parser.addoption(
        "--record-costs",
        action="store_true",
        help="write each test's CPU cost into tests/costs.json, which chooses the slow tier (tests/costs.py)",
    )


def pytest_configure(config):
    # A plugin, not this file's hooks: a conftest's hooks miss the session's fixtures
    # (the test database), which a test must not be charged for.
    config.pluginmanager.register(costs.Plugin(config, COSTS), "costs")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def require_service(name: str, host: str, port: int, timeout: float = 2.0) -> None:
    """Make sure a TCP service answers on host:port.

    On a bare machine an unreachable service skips the test with a clear
    reason; under CI (CI=true) it fails the test, since CI must provide it.
    """
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return
    except OSError as exc:
        reason = f"{name} is not reachable at {host}:{port} ({exc})"
    if in_ci():
        pytest.fail(f"{reason}; CI=true requires it", pytrace=False)
    pytest.skip(f"{reason}; start it to run this test")


def _service_url(env_var: str, default: str, name: str, default_port: int) -> str:
    url = os.environ.get(env_var) or default
    parts = urlsplit(url)
    require_service(name, parts.hostname or "127.0.0.1", parts.port or default_port)
    return url


@pytest.fixture(scope="session")
def node() -> str:
    """The path of Node.js, which runs the site's own scripts (static/js) in tests.
    Skips on a bare machine without it; fails under CI=true (.ci/run installs it)."""
    path = shutil.which("node")
    if path is None:
        if in_ci():
            pytest.fail("Node.js (node) is not installed; CI=true requires it", pytrace=False)
        pytest.skip("Node.js (node) is not installed; install it to run the tests of the site's scripts")
    return path


@pytest.fixture
def postgres_url() -> str:
    """URL of a reachable PostgreSQL server (TEST_POSTGRES_URL, else local default)."""
    return _service_url("TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL, "PostgreSQL", 5432)


@pytest.fixture
def redis_url(request) -> str:
    """URL of a reachable Redis server (TEST_REDIS_URL, else local default); in a
    pytest-xdist worker, the worker's own database number on it."""
    url = _service_url("TEST_REDIS_URL", DEFAULT_REDIS_URL, "Redis", 6379)
    worker = getattr(request.config, "workerinput", {}).get("workerid")
    return redis_url_for_worker(url, worker) if worker else url


@pytest.fixture
def private_redis_port():
    """A redis-server of the test's own on a free port (tests that restart Redis or hold its
    queues must not touch the machine's): its port. Skips on a bare machine without
    redis-server; fails under CI=true. A test may stop it itself."""
    binary = shutil.which("redis-server")
    if not binary:
        if in_ci():
            pytest.fail("redis-server is not installed; CI=true requires it", pytrace=False)
        pytest.skip("redis-server is not installed")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.1)
    try:
        yield port
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(10)


@pytest.fixture(scope="session", autouse=True)
def site_loaded():
    """The URLconf, and with it every view module, loaded once per process before the first
    test: the run's cost, not that of whichever test asks for a page first (tests/costs.py)."""
    from django.urls import get_resolver

    _ = get_resolver().url_patterns


@pytest.fixture(autouse=True)
def reproducible_deals(request, monkeypatch):
    """Deal every test's games from seeds derived from the test's name, so a test
    that depends on how a game went plays the same game on every run."""
    import hashlib
    import itertools

    from games.services import tables

    counter = itertools.count()

    def seed() -> str:
        return hashlib.sha256(f"{request.node.nodeid}:{next(counter)}".encode()).hexdigest()

    monkeypatch.setattr(tables, "new_seed", seed)


@pytest.fixture
def players(django_user_model):
    """Six people who can log in (password "pw-secret-123")."""
    return [django_user_model.objects.create_user(f"player{i}", password="pw-secret-123") for i in range(6)]


@pytest.fixture(autouse=True)
def russian_by_default():
    """Every test starts in the site's default language (Russian), whatever a request
    of an earlier test activated in this thread; tests compare with literal Russian."""
    from django.utils import translation

    with translation.override("ru"):
        yield


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Every test starts with no rate counted (games.limits counts in the cache)."""
    from django.core.cache import cache

    cache.clear()
    yield
