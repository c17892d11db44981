"""Pages: the ladder per variant with its pair ladder, a player's history as SVG, the admin action."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.template import Context, Template
from django.urls import reverse
from django.utils import timezone

from ratings import model, selectors, services
from ratings.models import Rating, VariantState
from tests.ratings.helpers import finished_game, people

pytestmark = pytest.mark.django_db


@pytest.fixture
def season():
    """34 rated 1v1 games: anna wins them all (settled: a number; a 1v1 game says
    little, so it takes about 33 to bring sigma to 8), boris and vera play 17 each
    (10 games or more, but still too uncertain: "?"); one partners game for the pair ladder."""
    anna, boris, vera, gleb = people("anna", "boris", "vera", "gleb")
    now = timezone.now()
    for i in range(34):
        finished_game(
            [(anna, 1), (boris if i % 2 else vera, 2)], finished_at=now - timedelta(days=40) + timedelta(hours=20 * i)
        )
    finished_game([(anna, 1), (boris, 3), (vera, 2), (gleb, 4)], partners=True, finished_at=now - timedelta(days=1))
    services.recompute("podkidnoy")
    return anna, boris, vera, gleb


def test_the_ladder_ranks_settled_players_and_marks_provisional_ones(client, season):
    anna, boris, vera, gleb = season
    page = client.get(reverse("ratings:ladder", args=["podkidnoy"]), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Рейтинг" in page
    rows = selectors.ladder("podkidnoy")
    assert rows[0].user_id == anna.pk and rows[0].rank == 1 and rows[0].shown.isdigit()
    assert rows[0].games == 35
    assert all(row.shown == "?" and row.rank is None for row in rows[1:])
    assert str(rows[0].shown) in page
    assert "anna &amp; vera" in page  # the pair ladder beside it
    assert "?" in page


def test_the_trend_counts_only_the_last_30_days(season):
    anna = season[0]
    history = selectors.history(anna.pk, "podkidnoy")
    recent = [h for h in history if h["finished_at"] >= timezone.now() - timedelta(days=30)]
    expected = history[-1]["display"] - (recent[0]["display"] - recent[0]["delta"])
    assert selectors.trends("podkidnoy")[anna.pk] == expected
    assert expected != history[-1]["display"] - (history[0]["display"] - history[0]["delta"])


def test_inactive_players_leave_the_ladder_but_keep_their_rating(season):
    anna = season[0]
    later = timezone.now() + timedelta(days=61)
    assert anna.pk not in [row.user_id for row in selectors.ladder("podkidnoy", now=later)]
    assert Rating.objects.get(user=anna, variant="podkidnoy").games == 35


def test_the_other_variant_has_its_own_empty_ladder(client, season):
    page = client.get(reverse("ratings:ladder", args=["perevodnoy"]), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "В последнее время никто не играл рейтинговых партий в этот вариант." in page


def test_an_unknown_variant_is_not_found(client):
    assert client.get("/ratings/chess/").status_code == 404


def test_a_players_history_is_an_svg_chart_drawn_on_the_server(client, season):
    anna = season[0]
    page = client.get(reverse("ratings:player", args=["podkidnoy", "anna"]), HTTP_ACCEPT_LANGUAGE="ru")
    html = page.content.decode()
    assert page.status_code == 200
    figure = html[html.index("<figure") : html.index("</figure>")]
    assert "<svg" in figure and "<polyline" in figure and "<script" not in figure  # no chart JavaScript
    # SVG numbers stay numbers in Russian too (no decimal comma).
    for value in re.findall(r' (?:x|y|x1|y1|x2|y2|cx|cy)="([^"]*)"', figure):
        float(value)
    chart = selectors.chart(anna.pk, "podkidnoy")
    assert len(chart["points"].split()) == 36  # the start and 35 games
    partial = client.get(reverse("ratings:chart", args=["podkidnoy", "anna"])).content.decode()
    assert partial.lstrip().startswith("<figure") and chart["points"] in partial


def test_an_empty_history_says_so(client, season):
    page = client.get(reverse("ratings:chart", args=["perevodnoy", "anna"]), HTTP_ACCEPT_LANGUAGE="ru")
    assert "В этом варианте ещё нет рейтинговых партий." in page.content.decode()


def test_ratings_next_to_names_cost_one_query(season, django_assert_num_queries):
    anna, boris, vera, gleb = season
    with django_assert_num_queries(1):
        shown = selectors.ratings_for([anna.pk, boris.pk, gleb.pk, None], "podkidnoy")
    assert shown[anna.pk].isdigit() and shown[boris.pk] == "?" and shown[gleb.pk] == "?"
    boris_rating = Rating.objects.get(user=boris, variant="podkidnoy")
    assert boris_rating.games >= model.PROVISIONAL_GAMES and boris_rating.sigma > model.PROVISIONAL_SIGMA


def test_template_tags(season):
    anna = season[0]
    html = Template(
        "{% load ratings %}{% rating_of user 'podkidnoy' %}|{% ratings_for ids 'podkidnoy' as shown %}"
        "{{ shown|rating_for:user }}|{% rating_chart user 'podkidnoy' %}"
    ).render(Context({"user": anna, "ids": [anna.pk]}))
    number = selectors.rating_of(anna.pk, "podkidnoy")
    assert html.startswith(f"{number}|{number}|")
    assert "<polyline" in html


def test_the_chances_of_not_being_the_durak_in_a_rated_game(season):
    anna, boris, vera, gleb = season
    game = finished_game([(anna, 1), (boris, 2)])
    rows = selectors.game_chance_rows(game.pk)
    assert [r["name"] for r in rows] == ["anna", "boris"]
    assert rows[0]["chance"] > 0.5 > rows[1]["chance"]
    assert rows[0]["percent"] + rows[1]["percent"] == 100
    unrated = finished_game([(anna, 1), (boris, 2)], rated=False)
    assert selectors.game_chance_rows(unrated.pk) == []
    html = Template("{% load ratings i18n %}{% language 'ru' %}{% chances_list game %}{% endlanguage %}").render(
        Context({"game": game})
    )
    assert f"anna: {rows[0]['percent']}% не остаться дураком" in html


def test_the_admin_recalculates_a_variant(client, season):
    admin = get_user_model().objects.create_superuser("admin", password="x")
    client.force_login(admin)
    Rating.objects.filter(variant="podkidnoy").update(mu=0.0)
    state = VariantState.objects.get(variant="podkidnoy")
    response = client.post(
        reverse("admin:ratings_variantstate_changelist"),
        {"action": "recalculate_variants", "_selected_action": [state.pk]},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="ru",
    )
    text = response.content.decode()
    assert "Подкидной: рейтинги пересчитаны по 35 партиям." in text
    assert Rating.objects.get(user=season[0], variant="podkidnoy").mu > model.MU


def test_a_live_table_reads_ratings_next_to_names_from_a_short_cache(season, django_assert_num_queries):
    anna = season[0]
    template = Template("{% load ratings %}{% rating_of seat 'podkidnoy' %}")
    seat = {"number": 0, "user_id": anna.pk, "name": "anna"}  # a snapshot's seat, as the table renders it
    with django_assert_num_queries(1):
        first = template.render(Context({"seat": seat}))
    with django_assert_num_queries(0):
        again = template.render(Context({"seat": seat}))
    assert again == first == selectors.rating_of(anna.pk, "podkidnoy")


def test_the_profile_partial_shows_each_variant_and_the_chart_of_the_one_played(season):
    anna = season[0]
    html = Template("{% load ratings i18n %}{% language 'ru' %}{% ratings_profile user %}{% endlanguage %}").render(
        Context({"user": anna})
    )
    assert "Подкидной" in html and "Переводной" in html
    assert html.count("<svg") == 1 and "35 партий" in html
