"""Events end to end: registration, rounds started by the Celery tasks (called
directly, as the worker would), games played to the end at live tables, the
finished-game task recording them, standings, and the event's end."""

from datetime import timedelta
from itertools import combinations

import pytest
from celery import current_app
from django.utils import timezone

from games.models import Table, TableSeat
from games.services import tables
from tournaments import selectors, services, tasks
from tournaments.models import Entrant, Pair, Result, Round, RoundTable, Tournament

from .helpers import latest_game, make_event, make_users, play_game, play_game_lost_by, play_round

pytestmark = pytest.mark.django_db


def register_all(event, users):
    return [services.do_register(tournament_id=event.pk, user=u) for u in users]


def start(event):
    """The start time has come: the beat sweep starts round one."""
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    event.refresh_from_db()


def table_mates(event):
    met = []
    for rt in RoundTable.objects.filter(round__tournament=event):
        met += [frozenset(p) for p in combinations(rt.entrants, 2)]
    return met


def test_a_16_player_swiss_at_tables_of_four_over_four_rounds(monkeypatch, django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args, queue: sent.append((name, args, queue)))
    users = make_users(16)
    event = make_event(rated=True)
    entrants = register_all(event, users)
    start(event)
    assert event.status == Tournament.Status.RUNNING
    for number in range(1, 5):
        round_ = Round.objects.get(tournament=event, number=number)
        assert round_.status == Round.Status.PLAYING
        seated = [pk for rt in round_.tables.all() for pk in rt.entrants]
        assert sorted(seated) == sorted(e.pk for e in entrants), "everyone plays, once"
        assert [len(rt.entrants) for rt in round_.tables.all()] == [4, 4, 4, 4]
        for rt in round_.tables.all():
            table = Table.objects.get(pk=rt.table_id)
            assert table.rules["players"] == 4 and table.rated and table.turn_seconds == 30
            users_at = list(TableSeat.objects.filter(table=table).order_by("number").values_list("user_id", flat=True))
            assert users_at == [Entrant.objects.get(pk=pk).user_id for pk in rt.entrants], "seats in seat order"
        with django_capture_on_commit_callbacks(execute=True):
            play_round(event, number)
        round_.refresh_from_db()
        assert round_.status == Round.Status.FINISHED
        tasks.sweep_events()  # the pause is 0: the next round starts at once
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    assert event.ratings_nudged_at is not None
    recomputes = [call for call in sent if call[0] == "ratings.tasks.recompute"]
    assert recomputes == [("ratings.tasks.recompute", ["podkidnoy"], "batch")], "ratings brought up to date"
    met = table_mates(event)
    assert len(met) == len(set(met)) == 4 * 4 * 6, "nobody meets a table-mate twice"
    # Standings are the sum of the results; every game gave out 3+2+1+0 = 6 points at most.
    lines = selectors.standings_table(event)
    for line in lines:
        total = sum(Result.objects.filter(entrant_id=line["entrant"]).values_list("points", flat=True))
        assert line["points"] == total
        assert line["games"] == 4
    for rt in RoundTable.objects.filter(round__tournament=event):
        assert sum(rt.results.values_list("points", flat=True)) <= 6
        assert rt.results.filter(is_durak=True).count() <= 1
    assert [line["rank"] for line in lines] == list(range(1, 17))
    points = [(line["points"], line["buchholz"]) for line in lines]
    assert points == sorted(points, reverse=True)


def test_repeated_and_late_tasks_create_nothing_twice():
    users = make_users(8)
    event = make_event(rounds=2)
    register_all(event, users)
    start(event)
    tables_before = Table.objects.count()
    services.do_start_round(tournament_id=event.pk, number=1)
    tasks.sweep_events()
    tasks.advance_event(event.pk)
    services.do_start_round(tournament_id=event.pk, number=2)  # not due: round 1 is on
    assert Table.objects.count() == tables_before == 2
    assert Round.objects.filter(tournament=event).count() == 1
    rt = RoundTable.objects.filter(round__tournament=event).first()
    game = play_game(latest_game(rt.table_id))
    tasks.record_game(game.pk)
    tasks.record_game(game.pk)  # a repeated message
    tasks.sweep_events()  # and the sweep's safety net
    assert Result.objects.filter(game_id=game.pk).count() == 4


def test_a_lost_finished_game_message_is_picked_up_by_the_sweep():
    users = make_users(4)
    event = make_event(rounds=1)
    register_all(event, users)
    start(event)
    play_round(event, 1, signal=False)
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    assert Result.objects.filter(round__tournament=event).count() == 4


def test_games_per_round_are_dealt_at_the_same_table_and_points_are_summed():
    users = make_users(4)
    event = make_event(rounds=1, games_per_round=2)
    register_all(event, users)
    start(event)
    rt = RoundTable.objects.get(round__tournament=event)
    round_ = play_round(event, 1)
    rt.refresh_from_db()
    assert rt.games_played == 2 and round_.status == Round.Status.FINISHED
    assert sorted(set(rt.results.values_list("game_number", flat=True))) == [1, 2]
    assert len(set(rt.results.values_list("game_id", flat=True))) == 2
    for line in selectors.standings_table(event):
        assert line["points"] == sum(rt.results.filter(entrant_id=line["entrant"]).values_list("points", flat=True))


def test_checkin_leaves_out_who_did_not_check_in():
    users = make_users(5)
    now = timezone.now()
    event = make_event(rounds=1, checkin_opens=now - timedelta(minutes=5))
    register_all(event, users)
    tasks.sweep_events()
    for user in users[:4]:
        services.do_check_in(tournament_id=event.pk, user=user)
    start(event)
    rt = RoundTable.objects.get(round__tournament=event)
    seated = {Entrant.objects.get(pk=pk).user_id for pk in rt.entrants}
    assert seated == {u.pk for u in users[:4]}


def test_a_late_entry_and_a_withdrawal_mid_event(director):
    users = make_users(9)
    event = make_event(rounds=3, pause_between_rounds=timedelta(minutes=10))
    entrants = register_all(event, users[:8])
    start(event)
    play_round(event, 1)
    round_two = Round.objects.get(tournament=event, number=2)
    assert round_two.status == Round.Status.SCHEDULED
    assert round_two.starts_at > timezone.now() + timedelta(minutes=9)
    tasks.sweep_events()  # the pause is not over: nothing starts
    assert Round.objects.get(pk=round_two.pk).status == Round.Status.SCHEDULED

    services.do_withdraw(tournament_id=event.pk, entrant_id=entrants[0].pk, by=director)
    services.do_withdraw(tournament_id=event.pk, entrant_id=entrants[1].pk, by=director, disqualify=True)
    late = services.do_add_late_entrant(tournament_id=event.pk, by=director, user=users[8])
    assert late.late and late.joined_round == 2
    services.do_start_now(tournament_id=event.pk, by=director)
    seated = {pk for rt in RoundTable.objects.filter(round=round_two) for pk in rt.entrants}
    assert entrants[0].pk not in seated and entrants[1].pk not in seated
    assert late.pk in seated
    assert len(seated) == 7
    lines = {line["entrant"]: line for line in selectors.standings_table(event)}
    assert lines[late.pk]["points"] == 0, "a late entrant starts with 0"
    assert lines[entrants[0].pk]["state"] == "выбытие"  # not a past tense of one gender (issue 15, point 10)
    assert lines[entrants[1].pk]["state"] == "дисквалификация"
    assert lines[entrants[0].pk]["games"] == 1, "results so far stay"


def test_a_result_correction_changes_the_standings(director):
    users = make_users(4)
    event = make_event(rounds=1)
    register_all(event, users)
    start(event)
    play_round(event, 1)
    last = selectors.standings_table(event)[-1]
    result = Result.objects.get(entrant_id=last["entrant"])
    # A finished event changes only after a deliberate reopen; the outcome is corrected by places.
    services.do_reopen_event(tournament_id=event.pk, by=director, reason="жалоба игрока")
    rt = result.round_table
    others = [pk for pk in rt.entrants if pk != last["entrant"]]
    places = {last["entrant"]: 1, **{pk: place for place, pk in enumerate(others, start=2)}}
    services.do_correct_places(
        tournament_id=event.pk,
        round_table_id=rt.pk,
        game_number=1,
        places=places,
        by=director,
        reason="судейское решение",
    )
    result.refresh_from_db()
    assert result.original_points == last["points"] and result.corrected_by == director
    top = selectors.standings_table(event)[0]
    assert top["entrant"] == last["entrant"] and top["points"] == 3


def test_only_directors_direct(django_user_model):
    users = make_users(4)
    event = make_event()
    register_all(event, users)
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_set_paused(tournament_id=event.pk, by=users[0], paused=True)
    assert str(refused.value) == "Это может сделать только судья турнира."


def test_pause_stops_the_next_round_until_resumed(director):
    users = make_users(4)
    event = make_event(rounds=2)
    register_all(event, users)
    start(event)
    services.do_set_paused(tournament_id=event.pk, by=director, paused=True)
    play_round(event, 1)
    tasks.sweep_events()
    assert Round.objects.get(tournament=event, number=2).status == Round.Status.SCHEDULED
    services.do_set_paused(tournament_id=event.pk, by=director, paused=False)
    tasks.sweep_events()
    assert Round.objects.get(tournament=event, number=2).status == Round.Status.PLAYING


def test_reseat_a_round_that_has_not_started(director):
    users = make_users(6)
    event = make_event(rounds=1)
    entrants = register_all(event, users)
    ids = [e.pk for e in entrants]
    with pytest.raises(services.TournamentRefused):
        services.do_reseat_round(tournament_id=event.pk, number=1, by=director, tables=[ids[:3], ids[2:5]])
    services.do_reseat_round(tournament_id=event.pk, number=1, by=director, tables=[ids[:3], ids[3:]])
    start(event)
    seating = [rt.entrants for rt in RoundTable.objects.filter(round__tournament=event).order_by("number")]
    assert seating == [ids[:3], ids[3:]]
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_reseat_round(tournament_id=event.pk, number=1, by=director, tables=[ids[:3], ids[3:]])
    assert str(refused.value) == "Этот тур уже начался."


def test_an_8_pair_2v2_round_robin(django_user_model):
    users = make_users(16)
    event = make_event(
        name="Парный чемпионат", kind=Tournament.Kind.PAIRS, format=Tournament.Format.ROUND_ROBIN, rounds=7
    )
    pairs = []
    for a, b in zip(users[::2], users[1::2], strict=True):
        pair = services.do_invite_partner(user=a, partner=b)
        services.do_answer_invitation(pair_id=pair.pk, user=b, accept=True)
        pairs.append(pair)
        services.do_register(tournament_id=event.pk, user=a, pair_id=pair.pk)
    start(event)
    for number in range(1, 8):
        round_ = Round.objects.get(tournament=event, number=number)
        for rt in round_.tables.all():
            first, second = (Entrant.objects.get(pk=pk).pair for pk in rt.entrants)
            seats = list(
                TableSeat.objects.filter(table_id=rt.table_id).order_by("number").values_list("user_id", flat=True)
            )
            assert seats == [first.player_one_id, second.player_one_id, first.player_two_id, second.player_two_id]
            assert Table.objects.get(pk=rt.table_id).rules["partners"] is True
        play_round(event, number)
        tasks.sweep_events()
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    met = table_mates(event)
    assert len(met) == len(set(met)) == 28, "every pair met every other pair once"
    for rt in RoundTable.objects.filter(round__tournament=event):
        assert sorted(rt.results.values_list("points", flat=True)) in ([0, 1], [0.5, 0.5])
    assert Pair.objects.filter(status=Pair.Status.ACTIVE).count() == 8


def test_a_two_player_knockout_with_byes():
    users = make_users(5)
    event = make_event(name="Кубок", table_size=2, format=Tournament.Format.KNOCKOUT, rounds=1)
    entrants = register_all(event, users)
    start(event)
    first = Round.objects.get(tournament=event, number=1)
    assert len(first.byes) == 3, "five entrants in a bracket of eight: three byes, to the top seeds"
    assert set(first.byes) == {e.pk for e in entrants[:3]}
    assert [Entrant.objects.get(pk=e.pk).seed for e in entrants] == [1, 2, 3, 4, 5], "no ratings: registration order"
    number = 1
    while True:
        play_round(event, number)
        tasks.sweep_events()
        event.refresh_from_db()
        if event.status == Tournament.Status.FINISHED:
            break
        number += 1
        assert number < 6
    alive = Entrant.objects.filter(tournament=event, eliminated_in_round=None)
    assert alive.count() == 1
    assert number == 3


def test_registration_refusals_in_russian():
    users = make_users(2)
    event = make_event(registration_closes=timezone.now() - timedelta(minutes=1))
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_register(tournament_id=event.pk, user=users[0])
    assert str(refused.value) == "Регистрация на это событие закрыта."
    open_event = make_event()
    services.do_register(tournament_id=open_event.pk, user=users[0])
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_register(tournament_id=open_event.pk, user=users[0])
    assert str(refused.value) == "Вы уже записаны на это событие."
    assert Entrant.objects.filter(tournament=open_event).count() == 1


def test_too_few_entrants_cancel_the_event():
    users = make_users(1)
    event = make_event()
    register_all(event, users)
    start(event)
    assert event.status == Tournament.Status.CANCELLED
    assert not Round.objects.filter(tournament=event).exists()


def test_the_game_finished_signal_enqueues_the_record_on_the_variant_queue(
    monkeypatch, django_capture_on_commit_callbacks
):
    users = make_users(4)
    event = make_event(rounds=1, variant="perevodnoy", rules={"deck": 36})
    register_all(event, users)
    start(event)
    sent = []
    monkeypatch.setattr(tasks.record_game, "apply_async", lambda args, queue: sent.append((args, queue)))
    rt = RoundTable.objects.get(round__tournament=event)
    with django_capture_on_commit_callbacks(execute=True):
        game = play_game(latest_game(rt.table_id))
    assert sent == [([game.pk], "perevodnoy")]
    tasks.record_game(*sent[0][0])
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED


def test_after_the_time_limit_no_further_game_is_dealt():
    users = make_users(4)
    event = make_event(rounds=1, games_per_round=3, round_time_limit=timedelta(minutes=20))
    register_all(event, users)
    start(event)
    round_ = Round.objects.get(tournament=event, number=1)
    assert round_.ends_at is not None
    rt = RoundTable.objects.get(round=round_)
    game = play_game(latest_game(rt.table_id))
    tasks.record_game(game.pk)
    assert latest_game(rt.table_id).number == 2, "within the limit the next game is dealt"
    Round.objects.filter(pk=round_.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    game = play_game(latest_game(rt.table_id))
    tasks.record_game(game.pk)
    rt.refresh_from_db()
    assert rt.done and rt.games_played == 2 and latest_game(rt.table_id).number == 2
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED


def test_a_round_time_limit_needs_a_turn_timer():
    event = make_event(round_time_limit=timedelta(minutes=20), turn_seconds=None)
    with pytest.raises(services.TournamentRefused) as refused:
        services.validate_event(event)
    assert str(refused.value) == "Для лимита времени тура нужно время на ход, чтобы партии заканчивались."


def test_a_directors_seating_leaves_out_who_withdrew_before_the_start(director):
    users = make_users(6)
    event = make_event(rounds=1)
    ids = [e.pk for e in register_all(event, users)]
    services.do_reseat_round(tournament_id=event.pk, number=1, by=director, tables=[ids[:2], ids[2:]])
    services.do_withdraw(tournament_id=event.pk, entrant_id=ids[0], by=director)
    start(event)
    round_ = Round.objects.get(tournament=event, number=1)
    assert [rt.entrants for rt in round_.tables.order_by("number")] == [ids[2:]]
    assert round_.byes == [ids[1]], "left alone at his table, he sits out"
    assert Result.objects.get(entrant_id=ids[1]).points == 1.5


def test_one_game_scored_by_hand_from_the_seats_places():
    users = make_users(4)
    event = make_event(rounds=1)
    register_all(event, users)
    start(event)
    rt = RoundTable.objects.get(round__tournament=event)
    game = play_game(latest_game(rt.table_id))
    tasks.record_game(game.pk)
    by_hand = {1: 3, 2: 2, 3: 1, 4: 0}  # the default points at four: 3/2/1/0
    places = {s.user_id: s.counted_place for s in game.seats.all()}
    assert sorted(places.values()) == [1, 2, 3, 4], "this deal has no shared places"
    lines = selectors.standings_table(event)
    for line in lines:
        user_id = Entrant.objects.get(pk=line["entrant"]).user_id
        assert line["points"] == by_hand[places[user_id]]
        assert line["buchholz"] == (6 - line["points"]) / 3, "the other three's points, averaged per opponent"
    assert [line["points"] for line in lines] == [3, 2, 1, 0]
    assert lines[-1]["duraks"] == 1


def test_table_elimination_at_tables_of_three_ends_with_one_winner():
    users = make_users(6)
    event = make_event(name="Выбывание", table_size=3, format=Tournament.Format.KNOCKOUT)
    register_all(event, users)
    start(event)
    for number in range(1, 8):
        round_ = play_round(event, number)
        alive_before = sum(len(rt.entrants) for rt in round_.tables.all()) + len(round_.byes)
        out = Entrant.objects.filter(tournament=event, eliminated_in_round=number).count()
        assert out >= 1 and out < alive_before
        tasks.sweep_events()
        event.refresh_from_db()
        if event.status == Tournament.Status.FINISHED:
            break
    assert Entrant.objects.filter(tournament=event, eliminated_in_round=None).count() == 1


def test_players_cannot_deal_another_game_at_an_event_table(client):
    """Play again at a round's table would seat the absent opponent, who then
    times out and loses: the event deals its tables' games, nobody else."""
    users = make_users(4)
    event = make_event(rounds=2, pause_between_rounds=timedelta(minutes=5))
    register_all(event, users)
    start(event)
    play_round(event, 1)
    rt = RoundTable.objects.get(round__number=1, round__tournament=event)
    games_before = Table.objects.get(pk=rt.table_id).games.count()
    for user in users:
        if TableSeat.objects.filter(table_id=rt.table_id, user=user).exists():
            with pytest.raises(tables.TableRefused) as refused:
                tables.do_start_game(table_id=rt.table_id, user=user)
            assert str(refused.value) == "Игры за этим столом раздаёт турнир, а не игроки."
    table = Table.objects.get(pk=rt.table_id)
    assert table.games.count() == games_before
    assert table.status == Table.Status.FINISHED
    client.force_login(TableSeat.objects.filter(table=table, user__isnull=False).first().user)
    page = client.get(f"/t/{table.pk}/").content.decode()
    assert "Сыграть ещё" not in page and "/start/" not in page  # the table page offers no deal either


def test_a_game_dealt_at_an_event_table_after_the_round_counts_for_nothing():
    users = make_users(4)
    event = make_event(rounds=2, pause_between_rounds=timedelta(minutes=5))
    register_all(event, users)
    start(event)
    play_round(event, 1)
    rt = RoundTable.objects.get(round__number=1, round__tournament=event)
    extra = tables.do_deal_next_game(table_id=rt.table_id)  # e.g. a late repeated nudge
    extra = play_game(extra)
    tasks.record_game(extra.pk)
    tasks.sweep_events()
    assert not Result.objects.filter(game_id=extra.pk).exists()
    assert Result.objects.filter(round__tournament=event).count() == 4


def test_seeds_follow_the_ratings_when_there_are_some(monkeypatch):
    import ratings.selectors

    users = make_users(5)
    shown = {users[4].pk: "1900", users[3].pk: "1700", users[0].pk: "?"}
    monkeypatch.setattr(
        ratings.selectors, "ratings_for", lambda ids, variant: {uid: shown.get(uid, "?") for uid in ids}
    )
    event = make_event(name="Кубок", table_size=2, format=Tournament.Format.KNOCKOUT)
    entrants = register_all(event, users)
    start(event)
    seeds = {e.user_id: e.seed for e in Entrant.objects.filter(tournament=event)}
    assert seeds[users[4].pk] == 1 and seeds[users[3].pk] == 2
    assert [seeds[u.pk] for u in users[:3]] == [3, 4, 5], "the unrated after, in registration order"
    first = Round.objects.get(tournament=event, number=1)
    assert set(first.byes) == {entrants[4].pk, entrants[3].pk, entrants[0].pk}


def test_round_two_of_a_knockout_follows_the_bracket_of_round_one():
    """Eight entrants at 2-player tables: 1v8, 4v5, 2v7, 3v6; 8, 4, 2 and 3 go on. Round two
    keeps the bracket (the winners of 1v8 and 4v5 meet, so do those of 2v7 and 3v6) instead of
    seeding the survivors again (which would give 2v8 and 3v4)."""
    users = make_users(8)
    event = make_event(name="Кубок", table_size=2, format=Tournament.Format.KNOCKOUT, turn_seconds=None)
    entrants = register_all(event, users)
    entrant_of = dict(enumerate(entrants, start=1))  # seed: entrant; no ratings: registration order
    seed_of = {e.pk: seed for seed, e in entrant_of.items()}
    start(event)
    first = Round.objects.get(tournament=event, number=1)
    assert [[seed_of[pk] for pk in rt.entrants] for rt in first.tables.order_by("number")] == [
        [1, 8],
        [4, 5],
        [2, 7],
        [3, 6],
    ]
    losers = {1, 5, 7, 6}
    for rt in first.tables.all():
        (loser,) = [seed_of[pk] for pk in rt.entrants if seed_of[pk] in losers]
        game = play_game_lost_by(latest_game(rt.table_id), entrant_of[loser].user)
        tasks.record_game(game.pk)
    first.refresh_from_db()
    assert first.status == Round.Status.FINISHED
    out = Entrant.objects.filter(tournament=event, eliminated_in_round=1).values_list("pk", flat=True)
    assert {seed_of[pk] for pk in out} == losers, "who resigned is counted last and goes out"
    tasks.sweep_events()
    second = Round.objects.get(tournament=event, number=2)
    assert second.status == Round.Status.PLAYING
    assert [[seed_of[pk] for pk in rt.entrants] for rt in second.tables.order_by("number")] == [[4, 8], [2, 3]]


def test_who_resigns_is_last_at_the_table_and_the_others_keep_the_top_places():
    """Leaving a game counts as last place (contract: counted_place); the durak who
    outlasted him is not last, so the resigner, not the durak, scores nothing."""
    users = make_users(3)
    event = make_event(table_size=3, rounds=1, turn_seconds=None)
    register_all(event, users)
    start(event)
    rt = RoundTable.objects.get(round__tournament=event)
    game = play_game_lost_by(latest_game(rt.table_id), users[0])
    tasks.record_game(game.pk)
    results = {r.entrant.user_id: r for r in Result.objects.filter(round_table=rt).select_related("entrant")}
    assert results[users[0].pk].points == 0 and results[users[0].pk].place == 3
    assert results[users[0].pk].is_durak
    others = [results[u.pk] for u in users[1:]]
    assert sum(r.points for r in others) == 2 + 1, "places 1 and 2 of 2/1/0, shared or not"
    assert all(r.place in (1, 2) and not r.is_durak for r in others)
