"""Issue 20: the arena's domain side. Whoever finishes a game is seated again with others
who are free; points by place, doubled on a streak (after two games won in a row, until
a game is not won), one point more for a won berserk game (half the turn timer); pause,
come back, leave; a no-show paused after his first forfeit; a seating pass that runs twice
seats nobody twice; at the end no new game, the games in play finish and count, and the
event finishes by itself. Points are recounted here by hand; refusals compared in Russian.

Places are set by the director (absence.do_adjudicate_game), so every game's outcome is
known; the berserk timer is checked on games played move by move through the play service.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import bots, positions
from games.models import Game, GameSeat
from games.services import play, presence
from tests.tournaments.helpers import latest_game, make_event, make_users
from tournaments import absence, selectors, services
from tournaments.errors import TournamentRefused
from tournaments.models import DirectorAction, Entrant, Result, Round, RoundTable, Tournament

pytestmark = pytest.mark.django_db

WAIT = timedelta(seconds=6)  # past formats.MIN_WAIT_S: whoever is free is ready to be seated


def make_arena(users, table_size=3, **kw):
    start = timezone.now() + timedelta(minutes=1)
    event = make_event(
        format=Tournament.Format.ARENA, arena_minutes=5, table_size=table_size, starts_at=start, rounds=1, **kw
    )
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    services.do_advance_event(tournament_id=event.pk, now=start)
    event.refresh_from_db()
    return event, start


def open_tables(event) -> list[RoundTable]:
    return list(RoundTable.objects.filter(round__tournament=event, done=False).order_by("number"))


def entrant(event, user) -> Entrant:
    return Entrant.objects.get(tournament=event, user=user)


def finish(event, rt, places: dict, director, now):
    """The director sets the places of the game at the table ({entrant: place})."""
    absence.do_adjudicate_game(
        tournament_id=event.pk,
        round_table_id=rt.pk,
        places={pk: places[pk] for pk in rt.entrants},
        by=director,
        now=now,
    )


def points(event) -> dict[int, float]:
    totals: dict[int, float] = {}
    for r in Result.objects.filter(round__tournament=event):
        totals[r.entrant_id] = totals.get(r.entrant_id, 0.0) + r.points
    return totals


def test_issue20_the_start_seats_everyone_free_at_tables_of_the_event(director):
    users = make_users(7)
    event, start = make_arena(users, table_size=3)
    assert event.status == Tournament.Status.RUNNING and event.arena_ends_at == start + timedelta(minutes=5)
    tables = open_tables(event)
    assert [len(rt.entrants) for rt in tables] == [3, 3], "full tables first; the seventh waits"
    assert all(rt.table_id for rt in tables)
    # The seventh alone waits: never a table of one, however long.
    assert services.do_arena_seating_pass(tournament_id=event.pk, now=start + WAIT) == 0
    seat = selectors.seat_for(users[0]) or selectors.seat_for(users[1])
    assert seat["arena"] is True and seat["table_url"] == f"/table/{seat['table_id']}/"


def test_issue20_streaks_recounted_by_hand_and_after_a_correction(director):
    a, b, c = users = make_users(3)
    event, now = make_arena(users, table_size=3)
    ea, eb, ec = (entrant(event, u).pk for u in users)
    # At three: 2/1/0 by place; doubled after two games won in a row, until a game is not won.
    outcomes = [
        {ea: 1, eb: 2, ec: 3},  # a 2 (won 1)        b 1   c 0
        {ea: 1, eb: 3, ec: 2},  # a 2 (won 2)        b 0   c 1
        {ea: 1, eb: 2, ec: 3},  # a 2x2 = 4 (won 3)  b 1   c 0
        {ea: 2, eb: 1, ec: 3},  # a 1x2 = 2, ends    b 2   c 0
        {ea: 1, eb: 2, ec: 3},  # a 2 (won 1)        b 1   c 0
    ]
    tables = []
    for places in outcomes:
        (rt,) = open_tables(event)
        finish(event, rt, places, director, now)
        tables.append(rt)
        now += WAIT  # the three just met: they are dealt together once they have waited
        assert services.do_arena_seating_pass(tournament_id=event.pk, now=now) == 1
        if places is outcomes[2]:
            board = selectors.arena_board(event, a, now=now)
            assert (board.me.streak, board.me.on_fire) == (3, True), "on fire after two games won in a row"
    assert points(event) == {ea: 12.0, eb: 5.0, ec: 1.0}
    board = selectors.arena_board(event, a, now=now)
    assert [row.entrant_id for row in board.rows] == [ea, eb, ec]
    assert board.me.per_game == (2.0, 2.0, 4.0, 2.0, 2.0) and (board.me.streak, board.me.on_fire) == (1, False)
    assert board.playing_count == 3 and board.free_count == 0 and board.seconds_left == 300 - 5 * 6

    # The director corrects game 2 (c won it, a second): a's streak is broken there, so game 3
    # is no longer doubled, and game 4 neither; c's win now counts.
    services.do_correct_places(
        tournament_id=event.pk,
        round_table_id=tables[1].pk,
        game_number=tables[1].number,
        places={ea: 2, eb: 3, ec: 1},
        by=director,
        reason="перепутали места",
    )
    # a: 2 (won 1), 1 (ends), 2 (won 1), 1, 2 = 8; c: 0, 2, 0, 0, 0 = 2; b unchanged 5
    assert points(event) == {ea: 8.0, eb: 5.0, ec: 2.0}
    assert selectors.arena_board(event, a, now=now).me.per_game == (2.0, 1.0, 2.0, 1.0, 2.0)
    logged = DirectorAction.objects.get(tournament=event, action="correct").detail["after"]
    assert {name: row["points"] for name, row in logged.items()} == {a.username: 1.0, b.username: 0.0, c.username: 2.0}
    with pytest.raises(TournamentRefused) as refused:
        services.do_correct_result(
            tournament_id=event.pk,
            result_id=Result.objects.filter(round__tournament=event).first().pk,
            by=director,
            points=3,
        )
    assert str(refused.value) == "На арене очки следуют из мест и серий: исправьте места."


def test_issue20_berserk_halves_his_timer_and_scores_one_more_when_won(director):
    a, b = make_users(2)
    event, now = make_arena([a, b], table_size=2)
    (rt,) = open_tables(event)
    game = latest_game(rt.table_id)
    users = {s.number: s.user for s in game.seats.select_related("user")}
    seat_of = {u.pk: n for n, u in users.items()}
    first = users[positions.position_of(game).to_move()[0]]
    # The player to move goes berserk: his running turn is cut to half the timer (30 -> 15 s).
    assert selectors.berserk_offer(table_id=rt.table_id, user=first) == game.pk
    services.do_berserk(game_id=game.pk, user=first)
    services.do_berserk(game_id=game.pk, user=first)  # a repeat changes nothing
    game.refresh_from_db()
    assert game.deadline - timezone.now() <= timedelta(seconds=15)
    assert selectors.berserk_offer(table_id=rt.table_id, user=first) is None
    # Every turn: half the timer when the game waits for him alone, the whole of it for the other.
    for _ in range(6):
        position = positions.position_of(game)
        if position.is_over:
            break
        seat = position.to_move()[0]
        action = bots.get_bot("heuristic", seed=game.move_count).choose(position.view(seat))
        moved_at = timezone.now()
        play.do_player_move(game_id=game.pk, user=users[seat], action=action, expected_seat=seat)
        game.refresh_from_db()
        if game.deadline is None:
            continue
        waited = {users[n] for n in positions.position_of(game).to_move()}
        left = (game.deadline - moved_at).total_seconds()
        assert left == pytest.approx(15 if waited == {first} else 30, abs=1.5), (waited, left)
    other = b if first == a else a
    assert GameSeat.objects.get(game=game, number=seat_of[first.pk]).berserk
    # He has moved: the other has too (or will): refused after one's first move, in Russian.
    mover = other if Game.objects.get(pk=game.pk).moves.filter(seat=seat_of[other.pk]).exists() else first
    if mover == other:
        with pytest.raises(TournamentRefused) as refused:
            services.do_berserk(game_id=game.pk, user=other)
        assert str(refused.value) == "Берсерк возможен только до вашего первого хода в партии."
    # He wins the game: 1 by place at two, +1 for berserk.
    ef, eo = entrant(event, first).pk, entrant(event, other).pk
    finish(event, rt, {ef: 1, eo: 2}, director, now)
    assert points(event) == {ef: 2.0, eo: 0.0}
    assert Result.objects.get(entrant_id=ef).berserk and not Result.objects.get(entrant_id=eo).berserk

    # The next game: the other goes berserk and loses: no bonus, plain points.
    now += WAIT
    assert services.do_arena_seating_pass(tournament_id=event.pk, now=now) == 1
    (rt2,) = open_tables(event)
    game2 = latest_game(rt2.table_id)
    services.do_berserk(game_id=game2.pk, user=other)
    finish(event, rt2, {ef: 1, eo: 2}, director, now)
    assert points(event) == {ef: 3.0, eo: 0.0}


def test_issue20_berserk_refused_after_the_first_move_and_where_not_allowed(director):
    a, b = make_users(2)
    event, _now = make_arena([a, b], table_size=2)
    (rt,) = open_tables(event)
    game = latest_game(rt.table_id)
    position = positions.position_of(game)
    seat = position.to_move()[0]
    mover = game.seats.get(number=seat).user
    action = bots.get_bot("heuristic", seed=0).choose(position.view(seat))
    play.do_player_move(game_id=game.pk, user=mover, action=action, expected_seat=seat)
    with pytest.raises(TournamentRefused) as refused:
        services.do_berserk(game_id=game.pk, user=mover)
    assert str(refused.value) == "Берсерк возможен только до вашего первого хода в партии."
    assert not GameSeat.objects.get(game=game, number=seat).berserk
    assert selectors.berserk_offer(table_id=rt.table_id, user=mover) is None

    stranger = make_users(1, prefix="x")[0]
    with pytest.raises(TournamentRefused) as refused:
        services.do_berserk(game_id=game.pk, user=stranger)
    assert str(refused.value) == "Вы не участвуете в этой игре."

    Tournament.objects.filter(pk=event.pk).update(berserk_allowed=False)
    other = b if mover == a else a
    with pytest.raises(TournamentRefused) as refused:
        services.do_berserk(game_id=game.pk, user=other)
    assert str(refused.value) == "Берсерк на этой арене не разрешён."
    assert selectors.berserk_offer(table_id=rt.table_id, user=other) is None


def test_issue20_pause_come_back_and_leave(director):
    a, b, c, d = users = make_users(4)
    event, now = make_arena(users, table_size=2)
    ids = {u: entrant(event, u).pk for u in users}
    t1, t2 = open_tables(event)
    # a pauses during his game: it goes on and counts, but he is not seated after it.
    paused = services.do_arena_pause(tournament_id=event.pk, user=a)
    assert paused.arena_paused
    with pytest.raises(TournamentRefused) as refused:
        services.do_arena_pause(tournament_id=event.pk, user=a)
    assert str(refused.value) == "Вы уже на паузе."
    rt_a = next(rt for rt in (t1, t2) if ids[a] in rt.entrants)
    rt_other = t2 if rt_a == t1 else t1
    finish(event, rt_a, {pk: place for place, pk in enumerate(rt_a.entrants, 1)}, director, now)
    finish(event, rt_other, {pk: place for place, pk in enumerate(rt_other.entrants, 1)}, director, now)
    now += WAIT
    assert services.do_arena_seating_pass(tournament_id=event.pk, now=now) == 1
    (rt,) = open_tables(event)
    assert ids[a] not in rt.entrants and len(rt.entrants) == 2
    board = selectors.arena_board(event, a, now=now)
    assert board.me.paused and (board.free_count, board.playing_count, board.paused_count) == (1, 2, 1)
    assert Result.objects.filter(entrant_id=ids[a]).count() == 1, "his game counted"

    # He comes back: free from now, seated with the one waiting.
    with pytest.raises(TournamentRefused) as refused:
        services.do_arena_return(tournament_id=event.pk, user=b if ids[b] in rt.entrants else c)
    assert str(refused.value) == "Вы не на паузе."
    services.do_arena_return(tournament_id=event.pk, user=a)
    assert services.do_arena_seating_pass(tournament_id=event.pk, now=timezone.now() + WAIT) == 1
    assert any(ids[a] in t.entrants for t in open_tables(event))

    # d leaves (in a game or not): never seated again; his points stand among the others.
    leaver = d
    services.do_arena_leave(tournament_id=event.pk, user=leaver)
    with pytest.raises(TournamentRefused) as refused:
        services.do_arena_return(tournament_id=event.pk, user=leaver)
    assert str(refused.value) == "Вы покинули эту арену."
    for table in open_tables(event):
        finish(event, table, {pk: place for place, pk in enumerate(table.entrants, 1)}, director, now)
    later = timezone.now() + 2 * WAIT
    services.do_arena_seating_pass(tournament_id=event.pk, now=later)
    assert all(ids[leaver] not in t.entrants for t in open_tables(event))
    rows = {row.entrant_id: row for row in selectors.arena_board(event, now=later).rows}
    assert rows[ids[leaver]].left and rows[ids[leaver]].points == points(event).get(ids[leaver], 0.0)
    line = next(li for li in selectors.standings_table(event) if li["entrant"] == ids[leaver])
    assert line["group"] == "active", "who left keeps his place by points"

    outsider = make_users(1, prefix="o")[0]
    with pytest.raises(TournamentRefused) as refused:
        services.do_arena_pause(tournament_id=event.pk, user=outsider)
    assert str(refused.value) == "Вы не играете на этой арене."


def test_issue20_a_no_show_is_paused_after_his_first_forfeit(director):
    a, b, c, no_show = users = make_users(4)
    event, now = make_arena(users, table_size=2, no_show_grace=timedelta(seconds=30))
    ids = {u: entrant(event, u).pk for u in users}
    for rt in open_tables(event):
        for u in users:
            if u != no_show:
                presence.do_mark_seen(table_id=rt.table_id, user_id=u.pk)
    forfeit_rt = next(rt for rt in open_tables(event) if ids[no_show] in rt.entrants)
    dealt_at = latest_game(forfeit_rt.table_id).started_at
    absence.do_forfeit_no_shows(now=dealt_at + timedelta(seconds=31))
    mine = Result.objects.get(entrant_id=ids[no_show])
    assert (mine.absent, mine.points, mine.place) == (True, 0.0, 2)
    mate = next(pk for pk in forfeit_rt.entrants if pk != ids[no_show])
    assert Result.objects.get(entrant_id=mate).points == 1.0, "the other wins at two"
    assert Entrant.objects.get(pk=ids[no_show]).arena_paused, "paused after his first forfeit"
    assert Entrant.objects.get(pk=ids[no_show]).state == Entrant.State.ACTIVE
    for table in open_tables(event):
        finish(event, table, {pk: place for place, pk in enumerate(table.entrants, 1)}, director, now)
    assert services.do_arena_seating_pass(tournament_id=event.pk, now=timezone.now() + WAIT) == 1
    assert all(ids[no_show] not in t.entrants for t in open_tables(event)), "not seated while paused"


def test_issue20_a_pass_run_twice_seats_nobody_twice(director):
    users = make_users(8)
    event, now = make_arena(users, table_size=4)
    t1, t2 = open_tables(event)
    finish(event, t1, {pk: place for place, pk in enumerate(t1.entrants, 1)}, director, now)
    finish(event, t2, {pk: place for place, pk in enumerate(t2.entrants, 1)}, director, now)
    now += WAIT  # (at two tables of four some of the last table-mates meet again: they wait first)
    first = services.do_arena_seating_pass(tournament_id=event.pk, now=now)
    again = services.do_arena_seating_pass(tournament_id=event.pk, now=now)  # the repeated nudge
    assert (first, again) == (2, 0)
    seated = [pk for rt in open_tables(event) for pk in rt.entrants]
    assert sorted(seated) == sorted(e.pk for e in event.entrants.all()), "each once"
    # 8 free after two tables of 4: mixed, nobody with all three of his last table-mates.
    for rt in open_tables(event):
        assert not set(rt.entrants) <= set(t1.entrants) and not set(rt.entrants) <= set(t2.entrants)


def test_issue20_the_end_no_new_game_games_in_play_count_and_the_event_finishes(director):
    users = make_users(6)
    event, start = make_arena(users, table_size=2)
    t1, t2, t3 = open_tables(event)
    end = event.arena_ends_at
    finish(event, t1, {pk: place for place, pk in enumerate(t1.entrants, 1)}, director, end - timedelta(seconds=30))
    # Past the end: the two who finished are not seated again ...
    assert services.do_arena_seating_pass(tournament_id=event.pk, now=end + timedelta(seconds=1)) == 0
    assert services.do_sweep_event(tournament_id=event.pk, now=end + timedelta(seconds=2)) == []
    assert len(open_tables(event)) == 2
    # ... the games in play finish and count ...
    finish(event, t2, {pk: place for place, pk in enumerate(t2.entrants, 1)}, director, end + timedelta(seconds=3))
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING, "one game is still in play"
    game = latest_game(t3.table_id)
    users_at = {s.number: s.user for s in game.seats.select_related("user")}
    while not game.is_over:  # the last game is played out; the sweep records it (its nudge was lost)
        position = positions.position_of(game)
        seat = position.to_move()[0]
        action = bots.get_bot("heuristic", seed=game.move_count).choose(position.view(seat))
        play.do_player_move(game_id=game.pk, user=users_at[seat], action=action, expected_seat=seat)
        game.refresh_from_db()
    services.do_sweep_event(tournament_id=event.pk, now=end + timedelta(seconds=10))
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED, "it finishes by itself"
    assert Round.objects.get(tournament=event).status == Round.Status.FINISHED
    assert Result.objects.filter(round__tournament=event).count() == 6, "every game counts"
    assert RoundTable.objects.filter(round__tournament=event).count() == 3, "no game dealt after the end"
    board = selectors.arena_board(event, now=end + timedelta(seconds=10))
    assert board.is_over and board.seconds_left == 0


def test_issue20_pairs_are_seated_two_against_two(director):
    from tournaments.models import Pair

    users = make_users(8)
    pairs = [
        Pair.objects.create(player_one=users[i], player_two=users[i + 1], created_by=users[i], status="active")
        for i in range(0, 8, 2)
    ]
    start = timezone.now() + timedelta(minutes=1)
    event = make_event(
        format=Tournament.Format.ARENA, kind=Tournament.Kind.PAIRS, arena_minutes=5, table_size=4, starts_at=start
    )
    for pair in pairs:
        Entrant.objects.create(tournament=event, pair=pair)
    services.do_advance_event(tournament_id=event.pk, now=start)
    tables = open_tables(event)
    assert [len(rt.entrants) for rt in tables] == [2, 2], "two pairs a table"
    for rt in tables:
        game = latest_game(rt.table_id)
        seated = {s.number: s.user_id for s in game.seats.all()}
        first, second = (Entrant.objects.get(pk=pk).pair for pk in rt.entrants)
        assert {seated[0], seated[2]} == {first.player_one_id, first.player_two_id}, "partners opposite"
        assert {seated[1], seated[3]} == {second.player_one_id, second.player_two_id}
    rt = tables[0]
    finish(event, rt, {rt.entrants[0]: 1, rt.entrants[1]: 2}, director, start)
    assert {r.entrant_id: r.points for r in Result.objects.filter(round_table=rt)} == {
        rt.entrants[0]: 1.0,
        rt.entrants[1]: 0.0,
    }


def test_issue20_an_arena_needs_its_duration_and_a_turn_timer():
    from tournaments.services import setup

    event = make_event(format=Tournament.Format.ARENA, arena_minutes=None)
    with pytest.raises(TournamentRefused) as refused:
        setup.validate_event(event)
    assert str(refused.value) == "Арена длится от 1 до 1440 минут: укажите её продолжительность."
    event.arena_minutes, event.turn_seconds = 30, None
    with pytest.raises(TournamentRefused) as refused:
        setup.validate_event(event)
    assert str(refused.value) == "Арене нужен таймер хода, чтобы её партии заканчивались вовремя."
