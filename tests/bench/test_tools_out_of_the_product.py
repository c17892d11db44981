"""Issue 21 point 3, "Tools out of the product": the benchmarks, the load test, the
floor, the memory bench, bot matches and the rating study live in `bench/`, their
commands keep their names, and the site's own lock does not carry their packages.

That no product app imports `bench` or `websockets`, and that `bench` has no import
circle, are import contracts (pyproject.toml, run by `lint-imports`).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[2]
PRODUCT_APPS = ("games", "ratings", "tournaments", "reviews", "durak_site")
TOOL_COMMANDS = (
    "arena",
    "bench_arena",
    "bench_engine",
    "bench_memory",
    "bench_pairing",
    "bench_ratings",
    "bench_review",
    "bench_tables",
    "loadtest",
    "rating_study",
)


@pytest.mark.parametrize("name", TOOL_COMMANDS)
def test_issue21_3_a_tool_command_keeps_its_name_and_comes_from_bench(name):
    # get_commands() gives each name to the first app in INSTALLED_APPS that has it, and
    # bench comes last: a copy left in a product app would win, and show here.
    assert get_commands()[name] == "bench"


@pytest.mark.parametrize(("name", "app"), [("recalc_ratings", "ratings"), ("verify_game", "games")])
def test_issue21_3_the_operators_commands_stay_in_the_product(name, app):
    assert get_commands()[name] == app


def test_issue21_3_no_product_app_holds_a_measurement_module():
    left = [
        str(path.relative_to(ROOT))
        for app in PRODUCT_APPS
        for path in (ROOT / app).rglob("*.py")
        if "bench" in path.relative_to(ROOT).parts
        or path.stem in {"study", "loadtest", "bench"}
        or (path.parent.name == "commands" and path.stem in TOOL_COMMANDS)
    ]
    assert left == []


@pytest.mark.parametrize("package", ["websockets", "openskill"])
def test_measurement_only_packages_are_in_the_dev_lock_only(package):
    """The load test's client and the rating study's other models are never installed on a server."""

    def pins(name):
        text = (ROOT / "requirements" / name).read_text(encoding="utf-8").lower()
        return any(line.split("=")[0].split(">")[0].strip() == package for line in text.splitlines())

    assert not pins("base.in")
    assert not pins("base.txt")
    assert pins("dev.in")
    assert pins("dev.txt")


def _site_starts_without_websockets(extra: str = "") -> subprocess.CompletedProcess:
    """Django set up, the ASGI application and URLs loaded, every command listed, in a
    Python where `import websockets` fails, as on a server installed from base.txt."""
    code = (
        "import sys; sys.modules['websockets'] = None\n"
        "import django; django.setup()\n"
        "import durak_site.asgi, durak_site.urls\n"
        "from django.core.management import get_commands; get_commands()\n" + extra
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "durak_site.settings", "DEBUG": "true", "CELERY_EMBEDDED": "false"}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_issue21_3_the_site_starts_without_websockets():
    result = _site_starts_without_websockets()
    assert result.returncode == 0, result.stderr
    # The same check fails once something imports the load test's client.
    result = _site_starts_without_websockets("import bench.tables\n")
    assert result.returncode != 0 and "websockets" in result.stderr
