"""Issue 15, "Absence is a result": "seat a substitute or a house bot in a seat (the event
says whether house bots are allowed; their results are never rated)".

A house bot takes an absent entrant's seat at a table of the round being played, not
begun yet or stuck; the entrant is absent in those games (last, durak, no points). In a
pair event a substitute takes one partner's seat before play begins, and the results stay
the pair's. Each refusal is compared with its Russian text."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.html import escape

from games import bots, positions
from games.models import Game, Table
from games.services import play
from ratings import services as rating_services
from ratings.models import RatingChange
from tournaments import selectors, services, tasks
from tournaments.errors import TournamentRefused
from tournaments.forms import TournamentForm
from tournaments.models import DirectorAction, Entrant, Pair, Result, Round, RoundTable, Tournament

from .helpers import latest_game, make_event, make_users, play_game, play_round
from .test_admin_forms import ADD, _admin_data, _errors, _with_defaults

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


def bot_event(prefix, **kw):
    users = make_users(4, prefix=prefix)
    event = make_event(**{"table_size": 2, "rounds": 2, "house_bots_allowed": True, **kw})
    start(event, users)
    return event, users


def play_out(game) -> Game:
    """Every awaited seat moves: a person as a heuristic bot would, a house bot when it is due."""
    game = Game.objects.get(pk=game.pk)
    while not game.is_over:
        position = positions.position_of(game)
        seat = position.to_move()[0]
        record = game.seats.get(number=seat)
        if record.is_bot_controlled:
            assert game.bot_due_at is not None, "the house bot's move is scheduled"
            play.do_advance_game(game_id=game.pk, now=game.bot_due_at)
        else:
            action = bots.get_bot("heuristic", seed=game.move_count).choose(position.view(seat))
            play.do_player_move(game_id=game.pk, user=record.user, action=action, expected_seat=seat)
        game = Game.objects.get(pk=game.pk)
    tasks.record_game(game.pk)
    return game


def one_move(game):
    position = positions.position_of(game)
    seat = position.to_move()[0]
    user = game.seats.get(number=seat).user
    action = bots.get_bot("heuristic", seed=0).choose(position.view(seat))
    play.do_player_move(game_id=game.pk, user=user, action=action, expected_seat=seat)


def refused(call) -> str:
    with pytest.raises(TournamentRefused) as caught:
        call()
    return caught.value.reason


# ---------------------------------------------------------------- the setup


def test_issue15_the_admin_saves_whether_house_bots_may_sit_in(admin_client):
    """The admin's add form shows the box and saves it."""
    assert 'name="house_bots_allowed"' in admin_client.get(ADD).content.decode()
    data = _with_defaults(admin_client, _admin_data(house_bots_allowed="on"))
    response = admin_client.post(ADD, data)
    assert response.status_code == 302, _errors(response)
    assert Tournament.objects.get(name="Кубок четверга").house_bots_allowed


def test_issue15_the_directors_form_shows_the_house_bots_box(client, director):
    assert "house_bots_allowed" in TournamentForm().fields
    event = make_event()
    client.force_login(director)
    page = client.get(f"/tournaments/{event.pk}/direct/").content.decode()
    assert 'name="house_bots_allowed"' in page


# ------------------------------------------------------------- house bots


def test_issue15_a_house_bot_at_a_table_not_begun_plays_the_seat_and_the_entrant_is_absent(director):
    event, _users = bot_event("hb", rated=True)
    first, second = round_tables(event)
    present, absent = first.entrants
    absent_user = Entrant.objects.get(pk=absent).user

    services.do_seat_house_bot(tournament_id=event.pk, by=director, entrant_id=absent)

    game = latest_game(first.table_id)
    bot_seat = game.seats.get(number=1)
    assert bot_seat.user is None and bot_seat.bot_level, "the bot plays the absent entrant's seat"
    assert not game.rated and not Table.objects.get(pk=first.table_id).rated
    assert absent_user.pk not in set(Table.objects.get(pk=first.table_id).seats.values_list("user_id", flat=True))
    assert DirectorAction.objects.filter(tournament=event, action="house-bot", detail__entrant=absent).exists()

    game = play_out(game)
    other = play_game(latest_game(second.table_id))
    tasks.record_game(other.pk)
    mine = Result.objects.get(entrant_id=absent, game=game)
    theirs = Result.objects.get(entrant_id=present, game=game)
    assert (mine.place, mine.points, mine.is_durak, mine.absent) == (2, 0.0, True, True)
    assert (theirs.place, theirs.is_durak, theirs.absent) == (1, False, False)
    assert theirs.points > 0
    assert Entrant.objects.get(pk=absent).is_active, "one absence: he may play the next round"
    lines = {line.entrant: line for line in selectors.standings_of(event)}
    assert lines[absent].points == 0.0 and lines[absent].duraks == 1
    assert lines[present].points == theirs.points


def test_issue15_a_game_with_a_house_bot_is_never_rated(director):
    """Ratings skip it: the game is not rated, and even marked rated the ledger rates nobody in it."""
    event, _users = bot_event("hr", rated=True)
    first, second = round_tables(event)
    services.do_seat_house_bot(tournament_id=event.pk, by=director, entrant_id=first.entrants[0])
    bot_game = play_out(latest_game(first.table_id))
    people_game = play_game(latest_game(second.table_id))
    tasks.record_game(people_game.pk)
    assert people_game.rated and not bot_game.rated

    rating_services.rate_game(bot_game.pk)
    rating_services.rate_game(people_game.pk)
    assert RatingChange.objects.filter(game=people_game).count() == 2, "the people's game is rated"
    assert not RatingChange.objects.filter(game=bot_game).exists()

    Game.objects.filter(pk=bot_game.pk).update(rated=True)  # were it ever marked rated
    rating_services.recompute("podkidnoy")
    assert RatingChange.objects.filter(game=people_game).count() == 2
    assert not RatingChange.objects.filter(game=bot_game).exists()


def test_issue15_a_house_bot_takes_over_a_stuck_game_for_the_rest_of_the_round(director):
    users = make_users(2, prefix="hs")
    event = make_event(table_size=2, rounds=1, games_per_round=2, house_bots_allowed=True)
    start(event, users)
    (rt,) = round_tables(event)
    game = latest_game(rt.table_id)
    one_move(game)
    one_move(Game.objects.get(pk=game.pk))
    stuck = rt.entrants[1]

    services.do_seat_house_bot(tournament_id=event.pk, by=director, entrant_id=stuck)

    game.refresh_from_db()
    assert game.move_count == 2 and game.status == Game.Status.PLAYING, "the game goes on from where it stands"
    first = play_out(game)
    second = play_out(latest_game(rt.table_id))
    assert second.number == 2 and second.seats.get(number=1).bot_level, "the bot plays the round's next game too"
    rows = Result.objects.filter(entrant_id=stuck).order_by("game_number")
    assert [(r.game_id, r.place, r.points, r.is_durak, r.absent) for r in rows] == [
        (first.pk, 2, 0.0, True, True),
        (second.pk, 2, 0.0, True, True),
    ]
    assert Round.objects.get(tournament=event, number=1).status == Round.Status.FINISHED


def test_issue15_a_second_absence_by_house_bot_withdraws_the_entrant_unless_kept(director):
    """Absent twice (a forfeit, then a house bot in his seat): withdrawn from later rounds, unless kept."""
    event, _users = bot_event("hw", rounds=3)
    play_round(event, 1)
    first, second = round_tables(event)
    again, kept = first.entrants[1], second.entrants[1]
    Result.objects.filter(round__number=1, entrant_id__in=[again, kept]).update(absent=True)  # as a forfeit leaves it
    Entrant.objects.filter(pk=kept).update(kept=True)
    tasks.sweep_events()
    assert Round.objects.get(tournament=event, number=2).status == Round.Status.PLAYING

    services.do_seat_house_bot(tournament_id=event.pk, by=director, entrant_id=again)
    services.do_seat_house_bot(tournament_id=event.pk, by=director, entrant_id=kept)

    assert Entrant.objects.get(pk=again).state == Entrant.State.WITHDRAWN
    assert Entrant.objects.get(pk=kept).state == Entrant.State.ACTIVE


def test_issue15_house_bots_refused_where_the_event_does_not_allow_them(director):
    users = make_users(4, prefix="hn")
    event = make_event(table_size=2, rounds=2)
    start(event, users)
    rt = round_tables(event)[0]
    reason = refused(lambda: services.do_seat_house_bot(tournament_id=event.pk, by=director, entrant_id=rt.entrants[0]))
    assert reason == "В этом событии боты клуба не допускаются."
    assert latest_game(rt.table_id).seats.get(number=0).user_id is not None


def test_issue15_house_bot_refused_for_a_seat_of_another_event(director):
    event, _users = bot_event("ho")
    other, _others = bot_event("hp")
    foreign = round_tables(other)[0]
    reason = refused(
        lambda: services.do_seat_house_bot(tournament_id=event.pk, by=director, entrant_id=foreign.entrants[0])
    )
    assert reason == "В этом событии нет такого участника."
    assert not latest_game(foreign.table_id).seats.filter(bot_level__gt="").exists()


def test_issue15_house_bot_refused_when_no_round_is_played_or_the_table_is_over(director):
    event, _users = bot_event("hf")
    first, second = round_tables(event)
    play_out(latest_game(first.table_id))
    reason = refused(
        lambda: services.do_seat_house_bot(tournament_id=event.pk, by=director, entrant_id=first.entrants[0])
    )
    assert reason == "Партии за этим столом уже закончены."
    play_out(latest_game(second.table_id))
    assert Round.objects.get(tournament=event, number=1).status == Round.Status.FINISHED
    reason = refused(
        lambda: services.do_seat_house_bot(tournament_id=event.pk, by=director, entrant_id=first.entrants[0])
    )
    assert reason == "Сейчас не идёт ни один тур."


def test_issue15_house_bot_refused_twice_and_in_a_pair_event(director):
    event, _users = bot_event("ht")
    rt = round_tables(event)[0]
    services.do_seat_house_bot(tournament_id=event.pk, by=director, entrant_id=rt.entrants[0])
    reason = refused(lambda: services.do_seat_house_bot(tournament_id=event.pk, by=director, entrant_id=rt.entrants[0]))
    assert reason == "На этом месте уже играет бот клуба."

    pairs_event, _people, pairs = pair_event("hq", house_bots_allowed=True)
    entrant = Entrant.objects.get(tournament=pairs_event, pair=pairs[0])
    reason = refused(
        lambda: services.do_seat_house_bot(tournament_id=pairs_event.pk, by=director, entrant_id=entrant.pk)
    )
    assert reason == "Боты клуба играют только за одиночных участников: в парном событии посадите замену."


def test_issue15_only_a_director_seats_a_house_bot():
    event, users = bot_event("hd")
    rt = round_tables(event)[0]
    reason = refused(lambda: services.do_seat_house_bot(tournament_id=event.pk, by=users[0], entrant_id=rt.entrants[1]))
    assert reason == "Это может сделать только судья турнира."


def test_issue15_the_director_page_seats_a_house_bot_by_name(client, director):
    event, _users = bot_event("hv")
    rt = round_tables(event)[0]
    absent = Entrant.objects.get(pk=rt.entrants[1])
    client.force_login(director)
    url = f"/tournaments/{event.pk}/direct/"
    page = client.get(url).content.decode()
    assert "Посадить бота клуба" in page and f'<option value="{absent.pk}">' in page
    answer = client.post(url, {"action": "house-bot", "entrant": absent.pk}, follow=True)
    assert f"Место участника {absent.user.username} занимает бот клуба." in answer.content.decode()
    assert "посажен бот клуба" in answer.content.decode(), "the director's history lists it"
    assert latest_game(rt.table_id).seats.get(number=1).bot_level


# -------------------------------------------------------- pair substitutes


def pair_event(prefix, **kw):
    users = make_users(4, prefix=prefix)
    pairs = []
    for first, second in ((users[0], users[1]), (users[2], users[3])):
        pair = services.do_invite_partner(user=first, partner=second)
        services.do_answer_invitation(pair_id=pair.pk, user=second, accept=True)
        pairs.append(Pair.objects.get(pk=pair.pk))
    event = make_event(kind=Tournament.Kind.PAIRS, table_size=4, rounds=2, **kw)
    for pair in pairs:
        services.do_register(tournament_id=event.pk, user=pair.player_one, pair_id=pair.pk)
    start(event, [])
    return event, users, pairs


def test_issue15_a_substitute_plays_for_one_partner_and_the_result_stays_the_pairs(director):
    event, users, pairs = pair_event("ps", rated=True)
    (sub,) = make_users(1, prefix="pssub")
    (rt,) = round_tables(event)
    old_table = rt.table_id
    entrant = Entrant.objects.get(tournament=event, pair=pairs[1])

    kept = services.do_substitute_entrant(
        tournament_id=event.pk, by=director, entrant_id=entrant.pk, user=sub, replaces=pairs[1].player_two_id
    )

    assert kept.pk == entrant.pk
    rt.refresh_from_db()
    assert rt.table_id != old_table and Table.objects.get(pk=old_table).status == Table.Status.CLOSED
    game = latest_game(rt.table_id)
    seated = set(game.seats.values_list("user_id", flat=True))
    assert sub.pk in seated and pairs[1].player_two_id not in seated and pairs[1].player_one_id in seated
    assert not Entrant.objects.filter(tournament=event, user=sub).exists(), "the pair stays the entrant"
    assert DirectorAction.objects.filter(tournament=event, action="substitute", detail__substitute=sub.pk).exists()

    play_game(game)
    tasks.record_game(game.pk)
    results = Result.objects.filter(round__tournament=event, game=game)
    assert {r.entrant_id for r in results} == set(rt.entrants)
    assert Entrant.objects.get(pk=entrant.pk).is_active
    assert sorted(r.place for r in results) == [1, 2]


def test_issue15_a_pair_substitute_must_replace_a_partner_of_that_pair(director):
    event, users, pairs = pair_event("pm")
    (sub,) = make_users(1, prefix="pmsub")
    entrant = Entrant.objects.get(tournament=event, pair=pairs[1])
    reason = refused(
        lambda: services.do_substitute_entrant(
            tournament_id=event.pk, by=director, entrant_id=entrant.pk, user=sub, replaces=pairs[0].player_one_id
        )
    )
    assert reason == "Выберите партнёра пары, вместо которого сядет замена."


def test_issue15_a_pair_substitute_already_in_the_event_is_refused(director):
    event, users, pairs = pair_event("pi")
    entrant = Entrant.objects.get(tournament=event, pair=pairs[1])
    reason = refused(
        lambda: services.do_substitute_entrant(
            tournament_id=event.pk,
            by=director,
            entrant_id=entrant.pk,
            user=pairs[0].player_two,
            replaces=pairs[1].player_two_id,
        )
    )
    assert reason == "Заменой может быть только игрок, не участвующий в событии."


def test_issue15_a_pair_substitute_seated_in_an_overlapping_event_is_refused(director):
    event, users, pairs = pair_event("pv")
    (sub,) = make_users(1, prefix="pvsub")
    other = make_event(name="Соседний турнир", starts_at=timezone.now())
    Entrant.objects.create(tournament=other, user=sub)
    entrant = Entrant.objects.get(tournament=event, pair=pairs[1])
    before = RoundTable.objects.get(round__tournament=event).table_id
    reason = refused(
        lambda: services.do_substitute_entrant(
            tournament_id=event.pk, by=director, entrant_id=entrant.pk, user=sub, replaces=pairs[1].player_two_id
        )
    )
    assert reason == (
        f"Игрок {sub.username} уже записан на событие «Соседний турнир», которое идёт в то же время: "
        "один игрок не может играть в двух событиях сразу."
    )
    assert RoundTable.objects.get(round__tournament=event).table_id == before


def test_issue15_a_pair_substitute_is_refused_once_play_has_begun(director):
    event, users, pairs = pair_event("pb")
    (sub,) = make_users(1, prefix="pbsub")
    (rt,) = round_tables(event)
    one_move(latest_game(rt.table_id))
    entrant = Entrant.objects.get(tournament=event, pair=pairs[1])
    reason = refused(
        lambda: services.do_substitute_entrant(
            tournament_id=event.pk, by=director, entrant_id=entrant.pk, user=sub, replaces=pairs[1].player_two_id
        )
    )
    assert reason == f"За столом {rt.number} игра уже началась."


def test_issue15_one_partner_is_replaced_only_in_a_pair_event(director):
    users = make_users(4, prefix="pn")
    (sub,) = make_users(1, prefix="pnsub")
    event = make_event(table_size=2, rounds=2)
    start(event, users)
    rt = round_tables(event)[0]
    reason = refused(
        lambda: services.do_substitute_entrant(
            tournament_id=event.pk, by=director, entrant_id=rt.entrants[0], user=sub, replaces=users[0].pk
        )
    )
    assert reason == "Заменить одного партнёра пары можно только в парном событии."


def test_issue15_the_director_page_substitutes_a_partner_by_name(client, director):
    event, users, pairs = pair_event("pp")
    (sub,) = make_users(1, prefix="ppsub")
    entrant = Entrant.objects.get(tournament=event, pair=pairs[1])
    client.force_login(director)
    url = f"/tournaments/{event.pk}/direct/"
    page = client.get(url).content.decode()
    assert f'value="{entrant.pk}-{pairs[1].player_two_id}"' in page
    answer = client.post(
        url,
        {"action": "substitute", "partner": f"{entrant.pk}-{pairs[1].player_two_id}", "username": sub.username},
        follow=True,
    )
    said = (
        f"Замена в паре {escape(str(pairs[1]))}: игрок {sub.username} играет вместо игрока "
        f"{pairs[1].player_two.username}."
    )
    assert said in answer.content.decode()
    history = f"{escape(str(pairs[1]))}: {pairs[1].player_two.username} → {sub.username}"
    assert "замена одного партнёра пары" in answer.content.decode() and history in answer.content.decode()
    assert sub.pk in set(
        latest_game(RoundTable.objects.get(round__tournament=event).table_id).seats.values_list("user_id", flat=True)
    )
