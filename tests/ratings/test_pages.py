"""Pages: the ladder per variant with its pair ladder, a player's history as SVG, the admin action."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone, translation

from ratings import at_table, model, selectors, services
from ratings.models import Rating, VariantState
from tests.ratings.helpers import finished_game, people

pytestmark = pytest.mark.django_db


@pytest.fixture
def season():
    """34 rated 1v1 games: anna wins them all (settled: a number; a 1v1 game says
    little, so it takes 23-34 to bring sigma to 7.2), boris and vera play 17 each
    (still too uncertain: the number with "?"); one partners game for the pair ladder."""
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
    # issue 19: provisional numbers are shown, with "?" (as lichess does), not hidden
    assert all(row.shown == f"{row.display}?" and row.rank is None for row in rows[1:])
    assert str(rows[0].shown) in page
    assert "anna &amp; vera" in page  # the pair ladder beside it
    assert f">{rows[1].shown}</td>" in page


def test_provisional_players_have_no_place_but_a_marked_one_explained_in_a_tooltip(client, season):
    anna, boris, vera, gleb = season
    page = client.get(reverse("ratings:ladder", args=["podkidnoy"]), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    players = page[page.index('class="ladder-players"') : page.index('class="ladder-pairs"')]
    row = r'<tr[^>]*>\s*<td class="num">(.*?)</td>\s*<td><a [^>]*>(\w+)</a>'
    place_of = {name: cell for cell, name in re.findall(row, players)}
    # Places count established players only: anna is first; the provisional ones follow, marked.
    assert place_of["anna"] == "1"
    mark = (
        '<abbr class="unranked" title="Рейтинг пока предварительный: место в таблице появится, '
        'когда он устоится.">предв.</abbr>'
    )
    assert place_of["boris"] == place_of["vera"] == place_of["gleb"] == mark
    # The pairs (one partners game each) are all provisional: the same mark.
    pairs = page[page.index('class="ladder-pairs"') :]
    assert pairs.count(mark) == 2 and '<td class="num"></td>' not in pairs


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
    boris_rating = Rating.objects.get(user=boris, variant="podkidnoy")
    gleb_rating = Rating.objects.get(user=gleb, variant="podkidnoy")
    assert shown[anna.pk].isdigit()
    assert shown[boris.pk] == f"{boris_rating.display}?" and shown[gleb.pk] == f"{gleb_rating.display}?"
    assert boris_rating.games >= 10 and boris_rating.sigma > model.PROVISIONAL_SIGMA  # by sigma, not games


def test_issue19_the_chances_of_being_the_durak_in_a_rated_game(season):
    anna, boris, vera, gleb = season
    game = finished_game([(anna, 1), (boris, 2)])
    rows = selectors.game_chance_rows(game.pk)
    assert [r["name"] for r in rows] == ["anna", "boris"]
    assert rows[0]["chance"] < 0.5 < rows[1]["chance"]  # anna won every game: boris likelier the durak
    assert rows[0]["percent"] + rows[1]["percent"] == 100
    unrated = finished_game([(anna, 1), (boris, 2)], rated=False)
    assert selectors.game_chance_rows(unrated.pk) == []
    rated = {"rated": True, "variant": "podkidnoy"}
    with translation.override("ru"):  # as the table shows them before the first move
        html = "".join(at_table.game_notes(rated, {"id": game.pk, "move_count": 0, "over": False}))
    assert "Шанс остаться дураком" in html and f"anna: {rows[0]['percent']}%" in html
    low, high = rows[1]["low"], rows[1]["high"]  # boris is provisional: a range
    assert low < rows[1]["percent"] < high and f"boris: ≈{rows[1]['percent']}% ({low}–{high}%)" in html


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
    table = {"rated": True, "variant": "podkidnoy"}  # the table as it renders
    with django_assert_num_queries(1):
        first = at_table.seat_marks(table, [anna.pk])
    with django_assert_num_queries(0):
        again = at_table.seat_marks(table, [anna.pk])
    assert again == first and first[anna.pk]["text"] == selectors.rating_of(anna.pk, "podkidnoy")


def test_the_profile_partial_shows_each_variant_and_the_chart_of_the_one_played(season, rf):
    anna = season[0]
    with translation.override("ru"):
        html = "".join(at_table.profile_sections(rf.get("/"), anna))
    assert "Подкидной" in html and "Переводной" in html
    assert html.count("<svg") == 1 and "35 партий" in html


# ------------------------------------------------------------------ where players look


def test_the_profile_shows_each_variants_rating_ladder_place_and_chart(client, season):
    anna = season[0]
    html = client.get(reverse("games:profile", args=["anna"]), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    section = html[html.index('<section class="ratings-profile"') :]
    number = selectors.rating_of(anna.pk, "podkidnoy")
    about = reverse("ratings:about")
    assert f'<dd><a class="rating-value" href="{about}">{number}</a> ' in section and "1-е место в таблице" in section
    assert "Переводной" in section and section.count("<svg") == 1
    # boris is provisional: his number with "?" and no place on the ladder.
    boris = client.get(reverse("games:profile", args=["boris"]), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    shown = selectors.rating_of(season[1].pk, "podkidnoy")
    assert shown.endswith("?") and f">{shown}</a> " in boris and "место в таблице" not in boris
    assert selectors.ladder_rank(season[1].pk, "podkidnoy") is None


def test_the_navigation_links_to_the_ratings(client):
    html = client.get(reverse("games:home"), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert f'<a class="nav-ratings" href="{reverse("ratings:index")}">Рейтинги</a>' in html


def _rated_table(seated, *, start=False, rated=True):
    from games import engine
    from games.services import tables as table_services

    return table_services.do_create_table(
        rules=engine.Rules(players=len(seated)), host=seated[0], seat_users=list(seated), rated=rated, start=start
    )


def test_the_lobby_shows_ratings_next_to_names_at_rated_tables_only(client, season):
    anna, boris = season[0], season[1]
    rated = _rated_table([anna, None])
    unrated = _rated_table([boris, None], rated=False)
    html = client.get(reverse("games:home"), HTTP_ACCEPT_LANGUAGE="ru").content.decode()

    def seats_of(table):
        row = html[html.index(f'id="lobby-table-{table.pk}"') :]
        return row[: row.index("</ol>")]

    number = selectors.rating_of(anna.pk, "podkidnoy")
    about = reverse("ratings:about")
    assert f'anna<a class="rating-badge" href="{about}" title="Рейтинг">{number}</a>' in seats_of(rated)
    assert "boris" in seats_of(unrated) and "rating-badge" not in seats_of(unrated)


def _state(table, viewer):
    from games import selectors as game_selectors
    from games.table import presenters, rendering

    snapshot = game_selectors.table_snapshot(table.pk)
    seat = next((s["number"] for s in snapshot["seats"] if s["user_id"] == viewer.pk), None)
    context = presenters.table_context(snapshot, seat, [], viewer_id=viewer.pk)
    return lambda: rendering.live_fragments(context, "ru")


def test_a_rated_table_shows_ratings_and_the_chances_before_the_first_move(season, django_assert_num_queries):
    from django.core.cache import cache

    anna, boris = season[0], season[1]
    cache.clear()
    table = _rated_table([anna, boris], start=True)
    render = _state(table, anna)
    with django_assert_num_queries(5):  # the ratings (one query), the chances (four, once per game)
        html = render()
    number = selectors.rating_of(anna.pk, "podkidnoy")
    about = reverse("ratings:about")
    assert f'<a class="rating-badge" href="{about}" title="Рейтинг">{number}</a>' in html  # anna's own panel
    boris_shown = selectors.rating_of(boris.pk, "podkidnoy")
    assert boris_shown.endswith("?")
    assert (
        f'<a class="rating-badge provisional" href="{about}" title="Предварительный: рейтинг пока неточен">'
        f"{boris_shown}</a>"
    ) in html
    chances = {row["name"]: row["percent"] for row in selectors.game_chance_rows(table.games.get().pk)}
    assert chances["anna"] < 50 < chances["boris"] and chances["anna"] + chances["boris"] == 100
    assert f"anna: {chances['anna']}%" in html and "Шанс остаться дураком" in html
    with django_assert_num_queries(0):  # every later render of this table: from the cache
        again = render()
    assert again == html


def test_the_chances_go_once_the_first_move_is_made_and_unrated_tables_show_no_ratings(season):
    from games import engine
    from games.services import play

    anna, boris = season[0], season[1]
    table = _rated_table([anna, boris], start=True)
    game = table.games.get()
    position = engine.Game.from_json(game.state_json)
    seat = position.to_move()[0]
    play.do_player_move(game_id=game.pk, user=[anna, boris][seat], action=position.legal_actions(seat)[0])
    html = _state(table, anna)()
    assert "rating-badge" in html and "остаться дураком" not in html
    unrated = _rated_table([anna, boris], start=True, rated=False)
    html = _state(unrated, anna)()
    assert "rating-badge" not in html and "остаться дураком" not in html


def test_a_changed_rating_is_not_served_from_the_cache(season, django_capture_on_commit_callbacks):
    anna, boris = season[0], season[1]
    before = selectors.cached_ratings_for([anna.pk], "podkidnoy")[anna.pk]
    game = finished_game([(anna, 2), (boris, 1)])
    with django_capture_on_commit_callbacks(execute=True):
        services.rate_game(game.pk)
    after = selectors.cached_ratings_for([anna.pk], "podkidnoy")[anna.pk]
    assert after == selectors.ratings_for([anna.pk], "podkidnoy")[anna.pk] != before


def test_the_rating_history_links_public_records_and_a_private_tables_game_is_in_nobodys(client, season):
    # Private tables' records are for their players; since issue 16 (point 3) their
    # games are not rated at all, so neither an outsider nor a player sees one there.
    from games.models import Table

    anna, boris = season[0], season[1]
    private = finished_game([(anna, 1), (boris, 2)])
    Table.objects.filter(pk=private.table_id).update(is_private=True)
    services.rate_game(private.pk)
    public = finished_game([(anna, 1), (boris, 2)])
    services.rate_game(public.pk)
    url = reverse("ratings:player", args=["podkidnoy", "anna"])
    outsider = client.get(url).content.decode()
    assert reverse("games:game-record", args=[public.pk]) in outsider
    assert reverse("games:game-record", args=[private.pk]) not in outsider
    client.force_login(boris)
    player = client.get(url).content.decode()
    assert reverse("games:game-record", args=[public.pk]) in player
    assert reverse("games:game-record", args=[private.pk]) not in player
