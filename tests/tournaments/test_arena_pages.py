"""The arena's pages (issue 20): the event page's board and scoring box in both languages,
the player's Pause / Come back / Leave buttons and the table page's «Берсерк», the
director's create form and the admin's add page.

Texts are compared in Russian (the site's default) and, for the page, in English too.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.template.loader import render_to_string
from django.utils import timezone

from games import bots, positions
from games.models import GameSeat
from games.services import play
from tournaments import selectors, services, tasks
from tournaments.models import Entrant, RoundTable, Tournament

from .helpers import latest_game, make_event, make_users, play_game_lost_by
from .test_admin_forms import ADD, _admin_data, _errors, _with_defaults
from .test_director_actions import form_data

pytestmark = pytest.mark.django_db


def make_arena(**kw) -> Tournament:
    fields = {
        "name": "Арена вечера",
        "format": Tournament.Format.ARENA,
        "arena_minutes": 30,
        "table_size": 2,
        "rounds": 1,
        "berserk_allowed": True,
        **kw,
    }
    return make_event(**fields)


def start(event: Tournament, director) -> Tournament:
    services.do_start_now(tournament_id=event.pk, by=director)
    tasks.sweep_events()
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING
    return event


def running_arena(director, count: int = 4, prefix: str = "p", **kw) -> tuple[Tournament, list]:
    users = make_users(count, prefix=prefix)
    event = make_arena(**kw)
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    return start(event, director), users


def open_tables(event: Tournament) -> list[RoundTable]:
    return [rt for rt in RoundTable.objects.filter(round__tournament=event, done=False) if rt.table_id]


def entrant_of(event: Tournament, user) -> Entrant:
    return Entrant.objects.get(tournament=event, user=user)


def table_of(event: Tournament, user) -> RoundTable:
    pk = entrant_of(event, user).pk
    return next(rt for rt in open_tables(event) if pk in rt.entrants)


def win_at_table(event: Tournament, winner, later: timedelta) -> None:
    """At the winner's table (of two) the other resigns; the game is recorded and the free
    players are seated again `later` from now (past the core's short wait for new mates)."""
    rt = table_of(event, winner)
    loser = next(e.user for e in Entrant.objects.filter(pk__in=rt.entrants) if e.user != winner)
    game = play_game_lost_by(latest_game(rt.table_id), loser)
    tasks.record_game(game.pk)
    services.do_arena_seating_pass(tournament_id=event.pk, now=timezone.now() + later)


def page(client, event: Tournament, language: str = "ru") -> str:
    return client.get(f"/tournaments/{event.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()


def flat(html: str) -> str:
    """The page's text with its whitespace folded, for matching sentences across lines."""
    return re.sub(r"\s+", " ", html)


# ------------------------------------------------------------------- the event page


def test_issue20_the_arena_page_shows_time_left_counts_standings_and_the_scoring_box_in_russian(client, director):
    event, users = running_arena(director, count=4)
    client.force_login(users[0])
    html = flat(page(client, event))
    assert "Как считаются очки арены" in html
    assert 'class="arena-clock countdown" data-seconds="' in html and 'Осталось: <span class="clock">' in html
    seconds = int(re.search(r'arena-clock countdown" data-seconds="(\d+)"', html).group(1))
    assert 29 * 60 < seconds <= 30 * 60, "the server's time left of a 30-minute arena just started"
    assert "свободны 0" in html and "играют 4" in html and "на паузе 0" in html
    assert "Ваша серия: 0 первых мест подряд." in html
    for user in users:
        assert user.username in html
    # The scoring box states the core's rules with its constants.
    assert "длится 30 минут от начала" in html
    assert "Очки за места: за столом на 2: 1 / 0." in html
    assert "После 2 выигранных партий подряд вы в ударе (🔥)" in html
    assert "получите 1 дополнительное очко, оно прибавляется после удвоения" in html
    assert "При равенстве очков решают: больше выигранных партий" in html
    assert f'action="/tournaments/{event.pk}/arena/pause/"' in html
    assert f'action="/tournaments/{event.pk}/arena/leave/"' in html
    assert ">Пауза</button>" in html and ">Покинуть арену</button>" in html
    assert 'data-confirm="Покинуть арену насовсем? Вас больше не посадят за стол;' in html
    assert "/static/js/site.js" in html, "the site's script asks before a form with data-confirm is sent"
    assert "Раунд" not in html, "an arena has no rounds"


def test_issue20_the_arena_page_in_english(client, director):
    event, users = running_arena(director, count=2, berserk_allowed=False)
    client.force_login(users[0])
    html = flat(page(client, event, "en"))
    assert "How the arena scores" in html and "Time left:" in html
    assert "free 0" in html and "playing 2" in html and "paused 0" in html
    assert "Your streak: 0 first places in a row." in html
    assert "Berserk is not allowed in this arena." in html
    assert ">Pause</button>" in html and ">Leave the arena</button>" in html


def test_issue20_before_the_start_the_arena_page_explains_the_scoring_without_a_clock_or_streak(client):
    event = make_arena(arena_minutes=45)
    user = make_users(1)[0]
    services.do_register(tournament_id=event.pk, user=user)
    client.force_login(user)
    html = flat(page(client, event))
    assert "Как считаются очки арены" in html and "длится 45 минут от начала" in html
    assert "Осталось:" not in html and "Ваша серия" not in html and "/arena/pause/" not in html


def test_issue20_standings_show_each_games_points_and_the_fire_mark_of_a_streak(client, director):
    event, users = running_arena(director, count=4)
    winner = users[0]
    win_at_table(event, winner, later=timedelta(seconds=30))
    win_at_table(event, winner, later=timedelta(seconds=60))
    client.force_login(winner)
    html = flat(page(client, event))
    row = re.search(r"<tr class=\"mine[^\"]*\">(.*?)</tr>", html).group(1)
    assert winner.username in row and "🔥" in row, "on fire after two wins in a row"
    assert '<strong>2</strong> <span class="arena-games-line"' in row
    assert re.search(r'arena-games-line"[^>]*><span>1</span> <span>1</span></span>', row), row
    assert "Ваша серия: 2 первых места подряд. Вы в ударе: очки следующей партии удваиваются." in html
    # The others see his fire too, not their own streak line.
    client.force_login(users[3])
    other = flat(page(client, event))
    assert "🔥" in other and "Вы в ударе" not in other


# ------------------------------------------------------------------- the buttons


def test_issue20_pause_come_back_and_leave_call_the_services(client, director):
    event, users = running_arena(director, count=2)
    me = users[0]
    client.force_login(me)
    answer = client.post(f"/tournaments/{event.pk}/arena/pause/", follow=True)
    assert "Вы на паузе: вас не сажают за новый стол, пока вы не вернётесь." in answer.content.decode()
    assert entrant_of(event, me).arena_paused is True
    html = flat(page(client, event))
    assert f'action="/tournaments/{event.pk}/arena/return/"' in html and ">Вернуться</button>" in html
    assert "играют 2" in html, "a paused player's game in play goes on"

    answer = client.post(f"/tournaments/{event.pk}/arena/return/", follow=True)
    assert "Вы вернулись: вас посадят, как только освободятся другие." in answer.content.decode()
    assert entrant_of(event, me).arena_paused is False

    answer = client.post(f"/tournaments/{event.pk}/arena/leave/", follow=True)
    assert "Вы покинули арену: сыгранные партии засчитываются." in answer.content.decode()
    assert entrant_of(event, me).arena_left_at is not None
    html = flat(page(client, event))
    assert f'action="/tournaments/{event.pk}/arena/pause/"' not in html


def test_issue20_the_buttons_refuse_bad_input_with_a_message_and_change_nothing(client, director):
    event, users = running_arena(director, count=2)
    stranger = make_users(1, prefix="s")[0]
    client.force_login(stranger)
    answer = client.post(f"/tournaments/{event.pk}/arena/pause/", follow=True)
    assert answer.redirect_chain[-1][0] == f"/tournaments/{event.pk}/"
    assert '<li class="message error">Вы не играете на этой арене.</li>' in answer.content.decode()
    assert not Entrant.objects.filter(tournament=event, arena_paused=True).exists()
    # Pausing twice: the second is refused and the first stands.
    client.force_login(users[0])
    client.post(f"/tournaments/{event.pk}/arena/pause/")
    answer = client.post(f"/tournaments/{event.pk}/arena/pause/", follow=True)
    assert '<li class="message error">Вы уже на паузе.</li>' in answer.content.decode()
    assert list(Entrant.objects.filter(tournament=event, arena_paused=True)) == [entrant_of(event, users[0])]
    # A "next" to another site is ignored: back to the event page.
    answer = client.post(f"/tournaments/{event.pk}/arena/return/", {"next": "https://evil.example/"})
    assert answer["Location"] == f"/tournaments/{event.pk}/"
    # A GET changes nothing, and a visitor who is not signed in is sent to log in.
    assert client.get(f"/tournaments/{event.pk}/arena/pause/").status_code == 405
    client.logout()
    answer = client.post(f"/tournaments/{event.pk}/arena/leave/")
    assert answer.status_code == 302 and "/login/" in answer["Location"]
    assert not Entrant.objects.filter(tournament=event, arena_left_at__isnull=False).exists()


# ------------------------------------------------------------------- berserk at the table


def test_issue20_the_table_page_offers_berserk_before_the_first_move_and_the_button_calls_the_service(client, director):
    event, users = running_arena(director, count=2)
    me = users[0]
    rt = table_of(event, me)
    game = latest_game(rt.table_id)
    client.force_login(me)
    table_page = client.get(f"/table/{rt.table_id}/").content.decode()
    assert f'action="/tournaments/berserk/{game.pk}/"' in table_page
    assert ">Берсерк</button>" in table_page
    assert f"<strong>арена, стол {rt.number}</strong>" in table_page, "no rounds at an arena's table either"
    answer = client.post(f"/tournaments/berserk/{game.pk}/", {"next": f"/table/{rt.table_id}/"})
    assert answer.status_code == 302 and answer["Location"] == f"/table/{rt.table_id}/"
    assert GameSeat.objects.get(game=game, user=me).berserk is True
    followed = client.get(answer["Location"]).content.decode()
    assert "Берсерк: в этой партии ваше время на ход вдвое меньше" in followed
    assert f'action="/tournaments/berserk/{game.pk}/"' not in followed, "once is enough"


def test_issue20_no_berserk_button_for_a_spectator_or_where_berserk_is_not_allowed(client, director):
    event, users = running_arena(director, count=2, berserk_allowed=False)
    rt = table_of(event, users[0])
    game = latest_game(rt.table_id)
    client.force_login(users[0])
    assert "/tournaments/berserk/" not in client.get(f"/table/{rt.table_id}/").content.decode()
    answer = client.post(f"/tournaments/berserk/{game.pk}/", {"next": f"/table/{rt.table_id}/"}, follow=True)
    assert '<li class="message error">Берсерк на этой арене не разрешён.</li>' in answer.content.decode()
    assert GameSeat.objects.get(game=game, user=users[0]).berserk is False

    other, _users = running_arena(director, count=2, prefix="q")
    rt = open_tables(other)[0]
    client.force_login(make_users(1, prefix="w")[0])
    assert "/tournaments/berserk/" not in client.get(f"/table/{rt.table_id}/").content.decode()


def test_issue20_after_his_first_move_the_berserk_button_is_gone_and_a_late_press_is_refused(client, director):
    event, users = running_arena(director, count=2)
    rt = table_of(event, users[0])
    game = latest_game(rt.table_id)
    position = positions.position_of(game)
    seat = position.to_move()[0]
    mover = GameSeat.objects.get(game=game, number=seat).user
    action = bots.get_bot("heuristic", seed=0).choose(position.view(seat))
    play.do_player_move(game_id=game.pk, user=mover, action=action, expected_seat=seat)
    client.force_login(mover)
    assert "/tournaments/berserk/" not in client.get(f"/table/{rt.table_id}/").content.decode()
    answer = client.post(f"/tournaments/berserk/{game.pk}/", {"next": f"/table/{rt.table_id}/"}, follow=True)
    assert '<li class="message error">Берсерк возможен только до вашего первого хода в партии.</li>' in answer.text
    assert GameSeat.objects.get(game=game, user=mover).berserk is False
    # The other has not moved yet: he still may.
    other = next(user for user in users if user != mover)
    client.force_login(other)
    assert f'action="/tournaments/berserk/{game.pk}/"' in client.get(f"/table/{rt.table_id}/").content.decode()


def test_issue20_berserk_at_a_table_of_a_round_event_is_refused(client, director):
    users = make_users(2, prefix="r")
    event = make_event(table_size=2, rounds=1)
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    start(event, director)
    rt = table_of(event, users[0])
    game = latest_game(rt.table_id)
    client.force_login(users[0])
    assert "/tournaments/berserk/" not in client.get(f"/table/{rt.table_id}/").content.decode()
    answer = client.post(f"/tournaments/berserk/{game.pk}/", {"next": f"/table/{rt.table_id}/"}, follow=True)
    assert answer.redirect_chain[-1][0] == f"/table/{rt.table_id}/"
    assert '<li class="message error">Берсерк бывает только в партиях арены.</li>' in answer.text
    assert GameSeat.objects.get(game=game, user=users[0]).berserk is False


# ------------------------------------------------------------------- the seat notice


def test_issue20_the_arena_seat_notice_names_the_table_and_only_a_live_one_moves_the_page(client, director):
    event, users = running_arena(director, count=2)
    rt = table_of(event, users[0])
    client.force_login(users[0])
    loaded = client.get("/tournaments/my-seat/").content.decode()
    assert f'data-arena-table="/table/{rt.table_id}/"' in loaded
    assert "Арена вечера: ваша следующая партия на арене сдана." in loaded
    assert "data-live" not in loaded, "the notice a page loads with only shows the link"
    pushed = render_to_string(
        "tournaments/partials/seat_notice.html", {"oob": True, "seat": selectors.seat_for(users[0])}
    )
    assert f'data-arena-table="/table/{rt.table_id}/" data-live' in pushed
    assert 'hx-swap-oob="true"' in pushed


def test_issue20_the_directors_page_of_an_arena_shows_its_board(client, director):
    event, users = running_arena(director, count=2)
    client.force_login(director)
    html = flat(client.get(f"/tournaments/{event.pk}/direct/").content.decode())
    assert "играют 2" in html and "Осталось:" in html


# ------------------------------------------------------------------- making an arena


def test_issue20_the_directors_form_creates_an_arena_without_rounds(client, director):
    client.force_login(director)
    page_html = client.get("/tournaments/direct/").content.decode()
    assert 'name="arena_minutes"' in page_html and 'name="berserk_allowed"' in page_html
    assert '<option value="arena">арена</option>' in page_html
    data = form_data(name="Арена пятницы", format="arena", arena_minutes=45, berserk_allowed="on", table_size=3)
    data["rounds"] = ""
    answer = client.post("/tournaments/direct/", data, follow=True)
    assert "Событие создано." in answer.content.decode()
    event = Tournament.objects.get(name="Арена пятницы")
    assert (event.format, event.arena_minutes, event.berserk_allowed, event.table_size) == ("arena", 45, True, 3)


def test_issue20_an_arena_needs_its_duration(client, director):
    client.force_login(director)
    data = form_data(name="Арена без времени", format="arena", arena_minutes="")
    answer = client.post("/tournaments/direct/", data)
    assert "Арена длится от 1 до 1440 минут: укажите её продолжительность." in answer.content.decode()
    assert not Tournament.objects.filter(name="Арена без времени").exists()


def test_issue20_a_round_event_still_needs_its_rounds(client, director):
    client.force_login(director)
    data = form_data(name="Швейцарка без туров", rounds="")
    answer = client.post("/tournaments/direct/", data)
    assert answer.status_code == 200
    assert "Обязательное поле." in answer.content.decode()
    assert not Tournament.objects.filter(name="Швейцарка без туров").exists()


def test_issue20_the_admin_add_page_saves_an_arena(admin_client):
    assert 'name="arena_minutes"' in admin_client.get(ADD).content.decode()
    data = _with_defaults(
        admin_client,
        _admin_data(name="Арена в админке", format="arena", arena_minutes="20", rounds="", table_size="4"),
    )
    data.pop("berserk_allowed", None)  # the box left unticked
    response = admin_client.post(ADD, data)
    assert response.status_code == 302, _errors(response)
    event = Tournament.objects.get(name="Арена в админке")
    assert (event.format, event.arena_minutes, event.berserk_allowed, event.table_size) == ("arena", 20, False, 4)
