"""Absence is a result (issue 15, "What was seen" 3 and "Absence is a result"):
a player who never comes to his table forfeits within the grace period instead of
being autopiloted into a durak finish that gives the real durak points; the one who
came gets the win; two absences withdraw him (unless the director keeps him); and a
director ends a stuck game by setting the places himself."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import bots, positions
from games.models import Game, Move
from games.services import play, presence
from tournaments import absence, tasks
from tournaments.models import Entrant, Result, Round, RoundTable, Tournament

from .helpers import latest_game, make_event, make_users, play_game

pytestmark = pytest.mark.django_db


def start(event, users):
    from tournaments import services

    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING


def entrant_of(event, user) -> Entrant:
    return Entrant.objects.get(tournament=event, user=user)


def table_of(event, number, entrant) -> RoundTable:
    tables = RoundTable.objects.filter(round__tournament=event, round__number=number)
    return next(rt for rt in tables if entrant.pk in rt.entrants)


def test_a_player_who_never_connects_forfeits_within_the_grace_and_the_other_wins(client):
    """Seen: the no-show was autopiloted after 3 timeouts and his opponent could end with 0."""
    anna, boris = make_users(2, prefix="ab")
    event = make_event(table_size=2, rounds=2)
    start(event, [anna, boris])
    rt = RoundTable.objects.get(round__tournament=event, round__number=1)
    game = latest_game(rt.table_id)
    presence.do_mark_seen(table_id=rt.table_id, user_id=anna.pk)  # Anna's socket opened the table

    assert absence.do_forfeit_no_shows(now=game.started_at + timedelta(seconds=119)) == []
    game.refresh_from_db()
    assert not game.is_over, "within the grace the game waits for him"

    done = absence.do_forfeit_no_shows(now=game.started_at + event.no_show_grace + timedelta(seconds=1))
    assert any("forfeited" in line for line in done)
    game.refresh_from_db()
    assert game.is_over and game.result["ended"]["reason"] == "forfeit"
    seat_of_boris = game.seats.get(user=boris).number
    assert game.result["losers"] == [seat_of_boris] and game.result["durak"] == seat_of_boris
    won = Result.objects.get(entrant=entrant_of(event, anna), round__number=1)
    lost = Result.objects.get(entrant=entrant_of(event, boris), round__number=1)
    assert (won.place, won.points, won.is_durak, won.absent) == (1, 1.0, False, False)
    assert (lost.place, lost.points, lost.is_durak, lost.absent) == (2, 0.0, True, True)
    assert Round.objects.get(tournament=event, number=1).status == Round.Status.FINISHED
    # The seed and log stay the truth: the verification replays the log to the end it had.
    verdict = positions.verify_game(game)
    assert verdict.ok, verdict.problems
    client.force_login(anna)
    record = client.get(f"/games/{game.pk}/verify/").content.decode()
    assert "Партия не доиграна: ходы из записи (0), затем поражение неявившимся." in record
    # Repeating the sweep changes nothing.
    assert absence.do_forfeit_no_shows(now=game.started_at + timedelta(minutes=5)) == []
    assert Result.objects.filter(round__tournament=event, round__number=1).count() == 2


def test_a_player_who_moved_has_come_even_without_a_socket():
    anna, boris = make_users(2, prefix="mv")
    event = make_event(table_size=2, rounds=1)
    start(event, [anna, boris])
    rt = RoundTable.objects.get(round__tournament=event)
    game = latest_game(rt.table_id)
    position = positions.position_of(game)
    seat = position.to_move()[0]
    mover = game.seats.get(number=seat).user
    other = boris if mover == anna else anna
    action = bots.get_bot("heuristic", seed=1).choose(position.view(seat))
    play.do_player_move(game_id=game.pk, user=mover, action=action, expected_seat=seat)
    assert Move.objects.filter(game=game, source="player").count() == 1
    absence.do_forfeit_no_shows(now=game.started_at + timedelta(minutes=3))
    assert Result.objects.get(entrant=entrant_of(event, mover)).place == 1
    assert Result.objects.get(entrant=entrant_of(event, other)).absent


def test_at_a_table_of_four_the_present_share_the_top_places():
    users = make_users(4, prefix="t4")
    event = make_event(table_size=4, rounds=1)
    start(event, users)
    rt = RoundTable.objects.get(round__tournament=event)
    for user in users[:3]:
        presence.do_mark_seen(table_id=rt.table_id, user_id=user.pk)
    game = latest_game(rt.table_id)
    absence.do_forfeit_no_shows(now=game.started_at + timedelta(minutes=3))
    results = {r.entrant.user_id: r for r in Result.objects.filter(round__tournament=event).select_related("entrant")}
    # 3/2/1/0 at four: the three present share places 1-3 (2 points each), the absent is last with 0.
    assert [(results[u.pk].place, results[u.pk].points) for u in users[:3]] == [(1, 2.0)] * 3
    absent = results[users[3].pk]
    assert (absent.place, absent.points, absent.is_durak, absent.absent) == (4, 0.0, True, True)


def play_other_tables(event, number, skip: RoundTable):
    for rt in RoundTable.objects.filter(round__tournament=event, round__number=number).exclude(pk=skip.pk):
        game = play_game(latest_game(rt.table_id))
        tasks.record_game(game.pk)


def grace_over(event, number, present):
    """The players in `present` opened their tables; the deal of round `number` was 3 minutes ago."""
    for rt in RoundTable.objects.filter(round__tournament=event, round__number=number):
        for user in present:
            presence.do_mark_seen(table_id=rt.table_id, user_id=user.pk)
        Game.objects.filter(table_id=rt.table_id).update(started_at=timezone.now() - timedelta(minutes=3))


def absent_twice(event, users, no_show):
    d = entrant_of(event, no_show)
    for number in (1, 2):
        rt = table_of(event, number, d)
        grace_over(event, number, [u for u in users if u != no_show])
        absence.do_forfeit_no_shows()
        play_other_tables(event, number, rt)
        tasks.sweep_events()  # the pause is 0: the next round starts
    return d


def test_the_no_show_is_not_paired_again_after_two_absences():
    users = make_users(4, prefix="nx")
    event = make_event(table_size=2, rounds=3)
    start(event, users)
    d = absent_twice(event, users, users[3])
    d.refresh_from_db()
    assert absence.absences(d.pk) == 2
    assert d.state == Entrant.State.WITHDRAWN
    third = Round.objects.get(tournament=event, number=3)
    assert third.status == Round.Status.PLAYING
    assert all(d.pk not in rt.entrants for rt in third.tables.all()) and d.pk not in third.byes


def test_the_director_keeps_an_entrant_absent_twice(director, client):
    users = make_users(4, prefix="kp")
    event = make_event(table_size=2, rounds=3, pause_between_rounds=timedelta(hours=1))
    start(event, users)
    d = entrant_of(event, users[3])
    for number in (1, 2):
        rt = table_of(event, number, d)
        grace_over(event, number, users[:3])
        absence.do_forfeit_no_shows()
        play_other_tables(event, number, rt)
        if number == 1:
            Round.objects.filter(tournament=event, number=2).update(starts_at=timezone.now())
            tasks.sweep_events()
    d.refresh_from_db()
    assert d.state == Entrant.State.WITHDRAWN
    client.force_login(director)
    page = client.get(f"/tournaments/{event.pk}/direct/")
    assert "Неявки" in page.text and "kp04" in page.text
    answer = client.post(f"/tournaments/{event.pk}/direct/", {"action": "keep", "entrant": d.pk}, follow=True)
    assert "Участник kp04 остаётся в событии, несмотря на неявки." in answer.text
    d.refresh_from_db()
    assert d.kept and d.state == Entrant.State.ACTIVE
    Round.objects.filter(tournament=event, number=3).update(starts_at=timezone.now())
    tasks.sweep_events()
    third = Round.objects.get(tournament=event, number=3)
    assert any(d.pk in rt.entrants for rt in third.tables.all()), "kept: he plays round 3"


def test_a_no_show_timed_out_onto_the_autopilot_before_the_grace_is_absent():
    """Seen: 3 timeouts put the no-show on autopilot and he was paired again every round."""
    anna, boris = make_users(2, prefix="to")
    event = make_event(table_size=2, rounds=1, turn_seconds=15)
    start(event, [anna, boris])
    rt = RoundTable.objects.get(round__tournament=event)
    presence.do_mark_seen(table_id=rt.table_id, user_id=anna.pk)
    game = latest_game(rt.table_id)
    anna_seat = game.seats.get(user=anna).number
    clock = timezone.now()
    while not game.is_over:
        position = positions.position_of(game)
        seat = position.to_move()[0]
        if seat == anna_seat:
            action = bots.get_bot("heuristic", seed=game.move_count).choose(position.view(seat))
            play.do_player_move(game_id=game.pk, user=anna, action=action, expected_seat=seat)
        else:
            clock += timedelta(seconds=20)
            play.do_advance_game(game_id=game.pk, now=clock)
        game = Game.objects.get(pk=game.pk)
    tasks.record_game(game.pk)
    absence.do_forfeit_no_shows(now=timezone.now())
    assert Result.objects.get(entrant=entrant_of(event, boris)).absent
    assert not Result.objects.get(entrant=entrant_of(event, anna)).absent


def test_the_director_adjudicates_a_stuck_game(director, client):
    users = make_users(4, prefix="ad")
    event = make_event(table_size=4, rounds=1)
    start(event, users)
    rt = RoundTable.objects.get(round__tournament=event)
    client.force_login(director)
    page = client.get(f"/tournaments/{event.pk}/direct/")
    assert "Завершить партию: места" in page.text
    assert f'name="place-{rt.entrants[0]}"' in page.text and ">ad01<" in page.text, "a select per entrant, by name"
    url = f"/tournaments/{event.pk}/direct/"
    # Bad input: a place missing; nothing changes.
    missing = {"action": "adjudicate", "round_table": rt.pk, f"place-{rt.entrants[0]}": "1"}
    answer = client.post(url, missing, follow=True)
    assert "Укажите место каждого участника за столом." in answer.text
    assert not latest_game(rt.table_id).is_over
    places = {f"place-{pk}": str(i) for i, pk in enumerate(reversed(rt.entrants), start=1)}
    answer = client.post(url, {"action": "adjudicate", "round_table": rt.pk, **places}, follow=True)
    assert "Места назначены, партия записана." in answer.text
    game = latest_game(rt.table_id)
    assert game.is_over and game.result["ended"] == {
        "reason": "adjudicated",
        "by": director.pk,
        "at": game.result["ended"]["at"],
        "moves": game.move_count,
    }
    results = {r.entrant_id: r for r in Result.objects.filter(round_table=rt)}
    last = rt.entrants[0]
    assert [results[pk].place for pk in reversed(rt.entrants)] == [1, 2, 3, 4]
    assert [results[pk].points for pk in reversed(rt.entrants)] == [3.0, 2.0, 1.0, 0.0]
    assert results[last].is_durak and sum(r.is_durak for r in results.values()) == 1
    assert all(r.adjudicated_by == director and r.adjudicated_at for r in results.values())
    assert positions.verify_game(game).ok
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED


def test_only_a_director_adjudicates_and_only_at_his_event(director, django_user_model):
    from tournaments.errors import TournamentRefused

    users = make_users(2, prefix="od")
    event = make_event(table_size=2, rounds=1)
    start(event, users)
    other = make_event(table_size=2, rounds=1)
    rt = RoundTable.objects.get(round__tournament=event)
    places = dict(zip(rt.entrants, [1, 2], strict=True))
    with pytest.raises(TournamentRefused, match="Это может сделать только судья турнира."):
        absence.do_adjudicate_game(tournament_id=event.pk, round_table_id=rt.pk, places=places, by=users[0])
    with pytest.raises(TournamentRefused, match="В этом событии нет такого стола."):
        absence.do_adjudicate_game(tournament_id=other.pk, round_table_id=rt.pk, places=places, by=director)
    with pytest.raises(TournamentRefused, match="Место — число от 1 до 2."):
        absence.do_adjudicate_game(
            tournament_id=event.pk, round_table_id=rt.pk, places={rt.entrants[0]: 1, rt.entrants[1]: 3}, by=director
        )
    assert not latest_game(rt.table_id).is_over


def test_the_event_page_states_the_no_show_rule(client):
    event = make_event()
    page = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "Участнику, который не пришёл к столу через 0:02:00 после раздачи, засчитывается поражение" in page


def pair_event(prefix, **kw):
    from tournaments import services
    from tournaments.models import Pair

    users = make_users(4, prefix=prefix)
    pairs = []
    for first, second in ((users[0], users[1]), (users[2], users[3])):
        pair = services.do_invite_partner(user=first, partner=second)
        services.do_answer_invitation(pair_id=pair.pk, user=second, accept=True)
        pairs.append(Pair.objects.get(pk=pair.pk))
    event = make_event(kind=Tournament.Kind.PAIRS, table_size=4, rounds=1, **kw)
    for pair in pairs:
        services.do_register(tournament_id=event.pk, user=pair.player_one, pair_id=pair.pk)
    start(event, [])
    return event, users, pairs


def test_a_pair_with_a_partner_who_never_came_forfeits_and_the_game_is_not_rated():
    event, users, pairs = pair_event("pf", rated=True)
    rt = RoundTable.objects.get(round__tournament=event)
    for user in users[:3]:  # the second pair's second partner never comes
        presence.do_mark_seen(table_id=rt.table_id, user_id=user.pk)
    game = latest_game(rt.table_id)
    absence.do_forfeit_no_shows(now=game.started_at + timedelta(minutes=3))
    game.refresh_from_db()
    assert game.is_over and not game.rated, "a forfeit is not a rated game"
    came = Result.objects.get(entrant__pair=pairs[0])
    absent = Result.objects.get(entrant__pair=pairs[1])
    assert (came.place, came.points, came.is_durak, came.absent) == (1, 1.0, False, False)
    assert (absent.place, absent.points, absent.is_durak, absent.absent) == (2, 0.0, True, True)


def test_the_director_adjudicates_a_pair_table(director):
    event, users, pairs = pair_event("pa", rated=True)
    rt = RoundTable.objects.get(round__tournament=event)
    first, second = rt.entrants
    absence.do_adjudicate_game(tournament_id=event.pk, round_table_id=rt.pk, places={first: 2, second: 1}, by=director)
    game = latest_game(rt.table_id)
    assert game.is_over and not game.rated, "adjudicated before real play: not rated (ratings.counted)"
    losers = sorted(game.seats.filter(is_loser=True).values_list("number", flat=True))
    assert losers == [0, 2], "the first pair sits at seats 0 and 2"
    assert Result.objects.get(entrant_id=first).is_durak and Result.objects.get(entrant_id=second).place == 1


def test_the_beat_sweep_forfeits_the_no_show():
    anna, boris = make_users(2, prefix="sw")
    event = make_event(table_size=2, rounds=2, pause_between_rounds=timedelta(hours=1))
    start(event, [anna, boris])
    grace_over(event, 1, [anna])
    tasks.sweep_events()
    assert Result.objects.get(entrant=entrant_of(event, boris), round__number=1).absent
    assert Result.objects.get(entrant=entrant_of(event, anna), round__number=1).place == 1


# ------------------------------------------------- no autopilot, no rating, before real play


def rate(game) -> int:
    from ratings import services as rating_services

    return rating_services.rate_game(game.pk)


def test_a_no_show_at_a_timer_table_is_not_autopiloted_before_the_grace_and_his_forfeit_is_not_rated(client):
    """Seen: three timeouts (45 s at 15 s a move) came before the grace was over, the bot
    played the whole game and it was rated (the no-show 25 -> 21.8, the others moved too)."""
    from ratings.models import RatingChange

    anna, boris = make_users(2, prefix="ta")
    event = make_event(table_size=2, rounds=2, turn_seconds=15, rated=True, pause_between_rounds=timedelta(hours=1))
    start(event, [anna, boris])
    rt = RoundTable.objects.get(round__tournament=event, round__number=1)
    presence.do_mark_seen(table_id=rt.table_id, user_id=anna.pk)
    game = latest_game(rt.table_id)
    boris_seat = game.seats.get(user=boris)
    # Whoever's turn it is, every timer of the grace runs out: Anna moves when it is hers.
    clock = game.started_at
    while clock < game.started_at + event.no_show_grace - timedelta(seconds=5):
        clock += timedelta(seconds=16)
        position = positions.position_of(game)
        seat = position.to_move()[0]
        if seat != boris_seat.number:
            action = bots.get_bot("heuristic", seed=game.move_count).choose(position.view(seat))
            play.do_player_move(game_id=game.pk, user=anna, action=action, expected_seat=seat)
        play.do_advance_game(game_id=game.pk, now=clock)
        game = Game.objects.get(pk=game.pk)
        boris_seat.refresh_from_db()
        assert not game.is_over and not boris_seat.autopilot and boris_seat.timeouts_in_row == 0
    assert not Move.objects.filter(game=game, seat=boris_seat.number).exclude(source="player").exists()

    absence.do_forfeit_no_shows(now=game.started_at + event.no_show_grace + timedelta(seconds=1))
    game.refresh_from_db()
    assert game.result["ended"]["reason"] == "forfeit" and not game.rated
    assert rate(game) == 0 and not RatingChange.objects.exists()
    lost = Result.objects.get(entrant=entrant_of(event, boris), round__number=1)
    assert (lost.place, lost.points, lost.is_durak, lost.absent) == (2, 0.0, True, True)
    client.force_login(anna)
    record = client.get(f"/games/{game.pk}/").content.decode()
    forfeit_rule = "Без рейтинга: партия решена неявкой (игрок не пришёл к столу). Рейтинг учитывает сыгранные партии."
    assert forfeit_rule in record


def test_a_game_adjudicated_after_six_moves_is_not_rated_and_its_record_says_why(director, client):
    """Seen: a 6-move adjudicated game was rated."""
    from ratings.models import RatingChange

    from .helpers import player_move

    users = make_users(4, prefix="sx")
    event = make_event(table_size=4, rounds=1, rated=True)
    start(event, users)
    rt = RoundTable.objects.get(round__tournament=event)
    for user in users:
        presence.do_mark_seen(table_id=rt.table_id, user_id=user.pk)
    game = latest_game(rt.table_id)
    for _ in range(6):
        assert player_move(game.pk)
    places = {pk: i for i, pk in enumerate(rt.entrants, start=1)}
    absence.do_adjudicate_game(tournament_id=event.pk, round_table_id=rt.pk, places=places, by=director)
    game.refresh_from_db()
    assert game.move_count == 6 and game.result["ended"]["reason"] == "adjudicated"
    assert not game.rated and rate(game) == 0 and not RatingChange.objects.exists()
    client.force_login(users[0])
    record = client.get(f"/games/{game.pk}/").content.decode()
    assert (
        "Без рейтинга: партия решена без доигрывания после 6 ходов, до настоящей игры "
        "(так решённая партия учитывается с 20 ходов)." in record
    )


def test_a_game_adjudicated_after_real_play_is_rated():
    from ratings import counted

    assert counted.counts({"reason": "adjudicated"}, counted.REAL_PLAY_MOVES)
    assert not counted.counts({"reason": "adjudicated"}, counted.REAL_PLAY_MOVES - 1)
    assert not counted.counts({"reason": "forfeit"}, 200)
    assert counted.counts(None, 3), "a game played to its last move counts however short"
