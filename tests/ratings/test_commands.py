"""recalc_ratings and bench_ratings from the shell."""

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from ratings.models import Rating
from tests.ratings.helpers import finished_game, people

pytestmark = pytest.mark.django_db


def test_recalc_ratings_rebuilds_one_variant_with_a_progress_bar():
    anna, boris = people("anna", "boris")
    finished_game([(anna, 1), (boris, 2)])
    finished_game([(anna, 1), (boris, 2)], variant="perevodnoy")
    out = StringIO()
    call_command("recalc_ratings", "--variant", "podkidnoy", stdout=out)
    text = out.getvalue()
    assert "[" + "#" * 30 + "] 1/1" in text
    assert text.rstrip().endswith("podkidnoy: 1 games rated")
    assert set(Rating.objects.values_list("variant", flat=True)) == {"podkidnoy"}


def test_recalc_ratings_refuses_an_unknown_variant():
    with pytest.raises(CommandError):
        call_command("recalc_ratings", "--variant", "chess", stdout=StringIO())


def _last_line(line: str) -> dict[str, float]:
    """`games_per_s=<n> library_games_per_s=<n> overhead=<ratio>`, exactly these three."""
    pairs = [item.split("=") for item in line.split()]
    assert [key for key, _ in pairs] == ["games_per_s", "library_games_per_s", "overhead"], line
    return {key: float(value) for key, value in pairs}


def test_bench_ratings_works_on_a_scratch_database_and_ends_with_the_rate(tmp_path):
    anna, boris = people("anna", "boris")
    out = StringIO()
    call_command("bench_ratings", "--games", "60", "--players", "8", stdout=out)
    lines = out.getvalue().strip().splitlines()
    figures = _last_line(lines[-1])
    assert figures["games_per_s"] > 0 and figures["library_games_per_s"] > 0
    # overhead = how many times faster the library alone rates the same games
    assert figures["overhead"] == pytest.approx(figures["library_games_per_s"] / figures["games_per_s"], rel=0.01)
    assert any(line.startswith("the library alone (") and " 60 games in " in line for line in lines)
    # issue 19: the model's own share of the recomputation, and what the site does around it
    shares = next(line for line in lines if line.startswith("of which the site's model "))
    model, around = (float(x) for x in re.search(r" ([0-9.]+)s, around it ([0-9.]+)s \(wall\)$", shares).groups())
    elapsed = float(re.search(r"^recomputed 60 games in ([0-9.]+)s", "\n".join(lines), re.M).group(1))
    assert model > 0 and model + around == pytest.approx(elapsed, abs=0.02)
    seats = next(line for line in lines if line.startswith("generated ")).split(", ")[1].split()[0]
    assert f"history rows {seats} of {seats} seats" in lines  # every seat was read and rated
    # Never the dev or test database: ours still has only its own two players.
    from django.contrib.auth import get_user_model

    assert get_user_model().objects.count() == 2


def test_bench_ratings_on_postgresql_uses_a_scratch_database_and_drops_it(postgres_url):
    import psycopg

    out = StringIO()
    call_command("bench_ratings", "--games", "60", "--players", "8", "--database-url", postgres_url, stdout=out)
    text = out.getvalue()
    assert "(postgresql)" in text and "recomputed 60 games" in text
    seats = text.split("games, ", 1)[1].split()[0]
    assert f"history rows {seats} of {seats} seats" in text
    figures = _last_line(text.strip().splitlines()[-1])
    assert figures["games_per_s"] > 0 and figures["library_games_per_s"] > 0 and figures["overhead"] > 0
    name = text.split("PostgreSQL database ", 1)[1].split()[0]
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None
