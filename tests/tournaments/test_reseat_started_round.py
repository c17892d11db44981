"""Seating a round under way (issue 15, "What was seen" 3: "no substitute ... no re-seat
of a started round"): the director seats again the tables of the round being played at
which no move has been made yet, or puts a player from outside the event in an
entrant's seat; a table where play has begun is refused, and nothing changes."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import bots, positions
from games.models import Game, Table
from games.services import play
from tournaments import services, tasks
from tournaments.errors import TournamentRefused
from tournaments.models import DirectorAction, Entrant, Result, Round, RoundTable, Tournament

from .helpers import latest_game, make_event, make_users, play_game, play_round

pytestmark = pytest.mark.django_db


def start(event, users):
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING


def round_tables(event, number=1):
    return list(RoundTable.objects.filter(round__tournament=event, round__number=number).order_by("number"))


def one_move(game):
    position = positions.position_of(game)
    seat = position.to_move()[0]
    user = game.seats.get(number=seat).user
    action = bots.get_bot("heuristic", seed=0).choose(position.view(seat))
    play.do_player_move(game_id=game.pk, user=user, action=action, expected_seat=seat)


def test_tables_not_begun_are_seated_again_and_their_old_games_leave_no_result(director):
    """Seen: "no re-seat of a started round"."""
    users = make_users(4, prefix="rs")
    event = make_event(table_size=2, rounds=2)
    start(event, users)
    first, second = round_tables(event)
    old_tables = [first.table_id, second.table_id]
    old_games = [latest_game(t).pk for t in old_tables]
    a, b = first.entrants
    c, d = second.entrants

    services.do_reseat_started_round(tournament_id=event.pk, by=director, numbers=[1, 2], tables=[[a, c], [b, d]])

    new = round_tables(event)
    assert [rt.entrants for rt in new] == [[a, c], [b, d]]
    assert all(rt.table_id and rt.table_id not in old_tables for rt in new)
    for rt in new:
        seated = set(latest_game(rt.table_id).seats.values_list("user_id", flat=True))
        assert seated == {Entrant.objects.get(pk=pk).user_id for pk in rt.entrants}
    assert not Game.objects.filter(pk__in=old_games).exists(), "the unplayed games leave no result"
    assert set(Table.objects.filter(pk__in=old_tables).values_list("status", flat=True)) == {Table.Status.CLOSED}
    assert not Result.objects.filter(round__tournament=event).exists()

    round_ = play_round(event, 1)
    assert round_.status == Round.Status.FINISHED
    assert Result.objects.filter(round=round_, game__isnull=False).count() == 4


def test_a_table_where_play_has_begun_is_refused_and_nothing_changes(director):
    users = make_users(4, prefix="rb")
    event = make_event(table_size=2, rounds=2)
    start(event, users)
    first, second = round_tables(event)
    one_move(latest_game(second.table_id))
    before = [(rt.pk, rt.table_id, rt.entrants) for rt in round_tables(event)]
    a, b = first.entrants
    c, d = second.entrants

    with pytest.raises(TournamentRefused) as refused:
        services.do_reseat_started_round(tournament_id=event.pk, by=director, numbers=[1, 2], tables=[[a, c], [b, d]])
    assert refused.value.reason == "За столом 2 игра уже началась."
    assert [(rt.pk, rt.table_id, rt.entrants) for rt in round_tables(event)] == before
    assert latest_game(first.table_id).status == Game.Status.PLAYING
    assert Table.objects.get(pk=first.table_id).status == Table.Status.PLAYING


def test_a_reseat_must_seat_the_chosen_tables_entrants(director):
    users = make_users(4, prefix="rw")
    event = make_event(table_size=2, rounds=2)
    start(event, users)
    first, second = round_tables(event)
    a, b = first.entrants
    c, _d = second.entrants
    with pytest.raises(TournamentRefused) as refused:
        services.do_reseat_started_round(tournament_id=event.pk, by=director, numbers=[1], tables=[[a, c]])
    assert refused.value.reason == "Рассадите участников выбранных столов, каждого один раз."
    assert round_tables(event)[0].entrants == [a, b]


def test_a_substitute_plays_the_seat_his_result_counts_and_the_replaced_is_withdrawn(director):
    """Seen: "no substitute"."""
    *players, sub = make_users(5, prefix="sb")
    event = make_event(table_size=2, rounds=2)
    start(event, players)
    first = round_tables(event)[0]
    old_table = first.table_id
    replaced = Entrant.objects.get(pk=first.entrants[1])

    new = services.do_substitute_entrant(tournament_id=event.pk, by=director, entrant_id=replaced.pk, user=sub)

    replaced.refresh_from_db()
    assert replaced.state == Entrant.State.WITHDRAWN
    assert DirectorAction.objects.filter(tournament=event, action="withdraw", reason="substituted").exists()
    assert new.user == sub and new.late and new.joined_round == 1 and new.is_active
    rt = round_tables(event)[0]
    assert rt.entrants == [first.entrants[0], new.pk] and rt.table_id != old_table
    assert Table.objects.get(pk=old_table).status == Table.Status.CLOSED
    game = latest_game(rt.table_id)
    assert sub.pk in set(game.seats.values_list("user_id", flat=True))

    play_game(game)
    tasks.record_game(game.pk)
    result = Result.objects.get(round__tournament=event, entrant=new, game=game)
    assert result.place in (1, 2)
    assert not Result.objects.filter(entrant=replaced).exists()


def test_a_substitute_already_in_the_event_is_refused(director):
    players = make_users(4, prefix="sr")
    event = make_event(table_size=2, rounds=2)
    start(event, players)
    first, second = round_tables(event)
    other = Entrant.objects.get(pk=second.entrants[0])
    with pytest.raises(TournamentRefused) as refused:
        services.do_substitute_entrant(
            tournament_id=event.pk, by=director, entrant_id=first.entrants[0], user=other.user
        )
    assert refused.value.reason == "Заменой может быть только игрок, не участвующий в событии."
    assert round_tables(event)[0].table_id == first.table_id
    assert Entrant.objects.get(pk=first.entrants[0]).is_active


def test_the_director_page_reseats_and_substitutes_by_name(client, director):
    """The director's page: the tables not begun, by name, seated again and a substitute put in."""
    *players, sub = make_users(5, prefix="pg")
    event = make_event(table_size=2, rounds=2)
    start(event, players)
    first, second = round_tables(event)
    a, b = first.entrants
    c, d = second.entrants
    client.force_login(director)
    url = f"/tournaments/{event.pk}/direct/"
    page = client.get(url).content.decode()
    assert "Столы, где игра ещё не началась" in page

    answer = client.post(
        url,
        {
            "action": "live-reseat",
            "table-1": "1",
            "table-2": "1",
            "live-1-1": a,
            "live-1-2": c,
            "live-2-1": b,
            "live-2-2": d,
        },
        follow=True,
    )
    assert "Выбранные столы рассажены заново: партии за ними розданы снова." in answer.content.decode()
    assert [rt.entrants for rt in round_tables(event)] == [[a, c], [b, d]]

    answer = client.post(url, {"action": "substitute", "entrant": d, "username": sub.username}, follow=True)
    assert f"Игрок {sub.username} занимает место как замена." in answer.content.decode()
    assert Entrant.objects.get(pk=d).state == Entrant.State.WITHDRAWN
