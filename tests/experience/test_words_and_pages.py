"""The words of the pages (issue 10, items 2, 3, 8, 9, 10, 11, 12, 13): one numbering,
one name per bot, honest counts, Russian plurals, and the lobby's "your tables"."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from games import engine
from games.models import Game, GameSeat, Move, Table
from games.services import accounts, housekeeping, play, tables
from games.table.presenters.log import log_lines
from tests.support.games import fresh, latest_game, make_user, seat_map

pytestmark = pytest.mark.django_db


def html(response) -> str:
    return response.content.decode()


# ---------------------------------------------------------------- 13: «Бито» and «Пас»


def test_the_log_says_beaten_when_the_cards_are_covered_and_pass_after_a_take():
    names = {0: "alice", 1: "bob", 2: "carol"}
    beaten = [
        {"type": "attack", "seat": 0, "card": "6S", "visible_to": None},
        {"type": "defend", "seat": 1, "target": "6S", "card": "7S", "visible_to": None},
        {"type": "pass", "seat": 0, "visible_to": None},
    ]
    taken = [
        {"type": "bout_start", "attacker": 2, "defender": 0, "visible_to": None},
        {"type": "attack", "seat": 2, "card": "8S", "visible_to": None},
        {"type": "take", "seat": 0, "visible_to": None},
        {"type": "pass", "seat": 2, "visible_to": None},
    ]
    with translation.override("ru"):
        lines = log_lines(beaten + taken, 0, names, None)
    assert lines[2] == "<b>alice</b>: «Бито»"
    assert lines[-1] == "<b>carol</b>: «Пас»"


# ---------------------------------------------------------------- 11: plurals and wording


@pytest.mark.parametrize(
    "count, words",
    [(1, "1 ход, все"), (21, "21 ход, все"), (22, "22 хода, все"), (64, "64 хода, все"), (25, "25 ходов")],
)
def test_russian_plurals_of_moves(count, words):
    from django.utils.translation import ngettext

    with translation.override("ru"):
        text = ngettext("%(count)s move, legal.", "%(count)s moves, all legal, in order.", count) % {"count": count}
    assert text.startswith(words)


def test_the_verify_page_of_a_running_game_does_not_say_it_is_over(client):
    alice, bob = make_user("alice"), make_user("bob")
    game = latest_game(
        tables.do_create_table(rules=engine.Rules(players=2), host=alice, seat_users=[alice, bob], start=True)
    )
    client.force_login(alice)
    page = html(client.get(reverse("games:game-verify", kwargs={"game_id": game.pk})))
    assert "Теперь, когда партия окончена" not in page
    assert "Когда партия закончится, зерно откроют" in page


# ---------------------------------------------------------------- 9, 8: one name, one numbering, links


def bot_game_over(client):
    alice = make_user("alice")
    table = tables.do_create_table(
        rules=engine.Rules(players=3), host=alice, bot_seats={1: "heuristic", 2: "heuristic"}, start=True
    )
    game = latest_game(table)
    play.do_resign(game_id=game.pk, user=alice)
    play.do_finish_now(game_id=game.pk, user=alice)
    client.force_login(alice)
    return fresh(game), alice


def test_a_bot_has_one_name_at_the_table_and_in_the_record(client):
    game, alice = bot_game_over(client)
    table_page = html(client.get(reverse("games:table", kwargs={"table_id": game.table_id})))
    record = html(client.get(reverse("games:game-record", kwargs={"game_id": game.pk})))
    assert "Бот 2" in table_page and "Бот 3" in table_page
    assert "Бот 2" in record and "Бот 3" in record
    assert "Бот: " not in record
    # The record's header has one "Место" column at most: the seat is the row's number.
    header = record.split("<thead>")[1].split("</thead>")[0]
    assert header.count("Место") <= 1 and "Итоговое место" in header


def test_a_finished_table_links_to_its_record_replay_and_verification(client):
    game, _alice = bot_game_over(client)
    page = html(client.get(reverse("games:table", kwargs={"table_id": game.table_id})))
    record = reverse("games:game-record", kwargs={"game_id": game.pk})
    assert f'href="{record}"' in page and f'href="{record}#replay"' in page
    assert reverse("games:game-verify", kwargs={"game_id": game.pk}) in page


# ---------------------------------------------------------------- 10: replay


def test_the_replay_steps_by_htmx_and_lists_every_move(client):
    game, _alice = bot_game_over(client)
    url = reverse("games:game-record", kwargs={"game_id": game.pk})
    page = html(client.get(url))
    assert page.count("<li data-step=") == game.move_count + 1
    assert "replay.js" in page and 'class="button small replay-play"' in page
    step = html(client.get(url + "?step=3", headers={"HX-Request": "true", "HX-Target": "replay"}))
    assert step.startswith('<div class="replay-step" data-step="3"') and "<html" not in step


# ---------------------------------------------------------------- 12: profile


def test_the_profile_counts_draws_and_has_no_double_period(client):
    alice, bob = make_user("alice"), make_user("bob")
    table = tables.do_create_table(rules=engine.Rules(players=2), host=alice, seat_users=[alice, bob], start=False)
    for number, result in ((1, {"places": {"0": 1, "1": 1}, "durak": None, "losers": [], "draw": True}),):
        game = Game.objects.create(
            table=table,
            number=number,
            rules=table.rules,
            variant="podkidnoy",
            seed="s",
            seed_hash="h",
            state_json="{}",
            status=Game.Status.FINISHED,
            result=result,
            finished_at=timezone.now(),
        )
        for seat, user in enumerate((alice, bob)):
            GameSeat.objects.create(game=game, number=seat, user=user, team=seat, place=1, counted_place=1)
    page = html(client.get(reverse("games:profile", kwargs={"username": "alice"})))
    assert "г.." not in page
    stats = page.split('<dl class="stats">')[1].split("</dl>")[0]
    assert "<dt>Ничьи</dt><dd>1</dd>" in stats and "<dt>Победы</dt><dd>0</dd>" in stats
    assert "<dt>Проиграно</dt><dd>0</dd>" in stats and "<dt>Сыграно партий</dt><dd>1</dd>" in stats
    assert "По вариантам" in page and "Подкидной" in page


# ---------------------------------------------------------------- 2, 3: quick games, your tables, idle tables


def test_a_guest_chooses_the_bots_and_a_new_quick_game_ends_the_last(client):
    response = client.post(reverse("games:guest"), {"bot_level": "easy"})
    first = Table.objects.get()
    assert response.url == reverse("games:table", kwargs={"table_id": first.pk})
    assert set(first.seats.exclude(bot_level="").values_list("bot_level", flat=True)) == {"easy"}
    client.post(reverse("games:guest"), {"bot_level": "easy"})
    first_game = latest_game(first)
    assert first_game.is_over, "the previous quick game is ended, not left hanging"
    assert seat_map(first_game)[0].abandoned
    assert Table.objects.count() == 2


def test_your_tables_are_the_running_ones_and_history_is_a_link(client):
    game, alice = bot_game_over(client)
    running = tables.do_create_table(rules=engine.Rules(players=2), host=alice)
    page = html(client.get(reverse("games:home")))
    mine = page.split("lobby-list mine")[1].split("</ul>")[0]
    assert f"lobby-table-{running.pk}" in mine and f"lobby-table-{game.table_id}" not in mine
    assert reverse("games:profile", kwargs={"username": "alice"}) in page


def test_the_table_bot_dropdown_defaults_to_the_tables_level(client):
    alice = make_user("alice")
    table = tables.do_create_table(rules=engine.Rules(players=3), host=alice, bot_level="easy")
    client.force_login(alice)
    page = html(client.get(reverse("games:table", kwargs={"table_id": table.pk})))
    assert '<option value="easy" selected>' in page


def test_idle_tables_are_closed_and_idle_games_without_timer_are_ended():
    alice, bob = make_user("alice"), make_user("bob")
    waiting = tables.do_create_table(rules=engine.Rules(players=2), host=alice)
    # (a private table: a public one always has a turn timer, issue 17)
    playing = tables.do_create_table(
        rules=engine.Rules(players=2), host=bob, bot_seats={1: "heuristic"}, start=True, is_private=True
    )
    timed = tables.do_create_table(
        rules=engine.Rules(players=2), host=make_user("carol"), bot_seats={1: "heuristic"}, start=True, turn_seconds=30
    )
    soon = timezone.now() + timedelta(minutes=5)
    assert housekeeping.do_close_idle_tables(now=soon) == {"closed": 0, "ended": 0}
    later = timezone.now() + housekeeping.WAITING_IDLE + timedelta(minutes=1)
    assert housekeeping.do_close_idle_tables(now=later) == {"closed": 1, "ended": 1}
    assert Table.objects.get(pk=waiting.pk).status == Table.Status.CLOSED
    game = latest_game(playing)
    assert game.is_over and seat_map(game)[0].abandoned and seat_map(game)[0].counted_place == 2
    assert not latest_game(timed).is_over, "a timer game ends by its timer"
    assert housekeeping.do_close_idle_tables(now=later) == {"closed": 0, "ended": 0}, "idempotent"
    assert Move.objects.filter(game=game).count() == game.move_count


def test_end_quick_games_leaves_a_table_between_games():
    alice = make_user("alice")
    alice.profile.is_guest = True  # the profile comes with the user
    alice.profile.save()
    _user, table = accounts.do_play_as_guest(user=alice)
    game = latest_game(table)
    play.do_resign(game_id=game.pk, user=alice)
    play.do_finish_now(game_id=game.pk, user=alice)
    accounts.end_quick_games(alice)
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED


def test_a_private_table_waiting_for_a_friend_is_not_a_quick_game():
    alice = make_user("alice")
    waiting = tables.do_create_table(rules=engine.Rules(players=2), host=alice, is_private=True)
    accounts.do_play_as_guest(user=alice)
    assert Table.objects.get(pk=waiting.pk).status == Table.Status.WAITING


def test_the_housekeeping_task_runs_the_service():
    from games import tasks

    assert tasks.housekeeping() == {"closed": 0, "ended": 0, "matched": 0}


def test_the_record_words_a_pass_as_the_table_did(client):
    game, _alice = bot_game_over(client)
    page = html(client.get(reverse("games:game-record", kwargs={"game_id": game.pk})))
    moves = list(game.moves.order_by("number").values_list("action", flat=True))
    position = engine.Game.new(
        engine.Rules.from_dict(game.rules), seed=game.seed, dealer=game.dealer, deal_method=game.deal_method
    )
    expected = {"пас": 0, "бито": 0}
    for seat, action in game.moves.order_by("number").values_list("seat", "action"):
        if action == "pass":
            expected["пас" if position.taking else "бито"] += 1
        position.act(seat, action)
    assert "pass" in moves
    assert page.count(": пас</a>") == expected["пас"]
    assert page.count(": бито</a>") == expected["бито"]
    assert "пасует (бито)" not in page
