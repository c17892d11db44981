"""Club battles through their services: invitations answered by the invited clubs' own leaders,
entries for one's own club only, refusals that write nothing, a player who leaves his club
keeping his points for it, clubmates apart at the event's tables, and the board's order."""

from __future__ import annotations

import pytest
from django.utils import timezone

from battles import selectors, services
from battles.errors import BattleRefused
from battles.models import Battle, BattleClub, BattlePlayer
from clubs.models import Membership
from tests.battles.helpers import club_with, leader_of, make_battle, user
from tournaments import services as event_services
from tournaments.models import Entrant, Result, RoundTable, Tournament

pytestmark = pytest.mark.django_db


def accept_all(battle, owners):
    for club, owner in owners:
        services.do_answer_invitation(owner, battle_id=battle.pk, club_id=club.pk, accept=True)


def test_a_leader_creates_a_battle_its_club_plays_and_the_invited_clubs_answer():
    a, a_owner, _ = club_with("alpha", 1)
    b, b_owner, _ = club_with("beta", 1)
    c, c_owner, _ = club_with("gamma", 1)
    battle = make_battle(a, a_owner, [b, c])
    assert battle.tournament.format == Tournament.Format.ARENA
    assert battle.tournament.description == (
        f"Битва клубов: игроки записываются за свои клубы на странице битвы, /battles/{battle.pk}/"
    )
    statuses = dict(BattleClub.objects.filter(battle=battle).values_list("club_id", "status"))
    assert statuses == {a.pk: "accepted", b.pk: "invited", c.pk: "invited"}
    services.do_answer_invitation(b_owner, battle_id=battle.pk, club_id=b.pk, accept=True)
    services.do_answer_invitation(c_owner, battle_id=battle.pk, club_id=c.pk, accept=False)
    statuses = dict(BattleClub.objects.filter(battle=battle).values_list("club_id", "status"))
    assert statuses == {a.pk: "accepted", b.pk: "accepted", c.pk: "declined"}


def test_only_a_leader_with_the_right_to_run_events_creates_a_battle():
    a, _owner, people = club_with("alpha", 1)
    b, _b_owner, _ = club_with("beta", 1)
    with pytest.raises(BattleRefused) as refused:
        make_battle(a, people[1], [b])
    assert str(refused.value) == "Создавать битвы клуба может только его руководитель с правом проводить турниры."
    assert not Battle.objects.exists() and not Tournament.objects.exists()


def test_a_battle_needs_two_to_fifty_clubs():
    a, a_owner, _ = club_with("alpha", 0)
    with pytest.raises(BattleRefused) as refused:
        make_battle(a, a_owner, [])
    assert str(refused.value) == "В битве участвуют от 2 до 50 клубов."
    assert not Tournament.objects.exists()


def test_a_leader_of_one_club_cannot_accept_for_another():
    a, a_owner, _ = club_with("alpha", 1)
    b, _b_owner, _ = club_with("beta", 1)
    battle = make_battle(a, a_owner, [b])
    stranger = leader_of(a, a_owner, "alpha-leader")
    with pytest.raises(BattleRefused) as refused:
        services.do_answer_invitation(stranger, battle_id=battle.pk, club_id=b.pk, accept=True)
    assert str(refused.value) == "Отвечать за «Клуб beta» может только его руководитель с правом проводить турниры."
    assert BattleClub.objects.get(battle=battle, club=b).status == "invited"


def test_a_leader_granted_the_right_answers_for_his_club():
    a, a_owner, _ = club_with("alpha", 1)
    b, b_owner, _ = club_with("beta", 1)
    battle = make_battle(a, a_owner, [b])
    leader = leader_of(b, b_owner, "beta-leader")
    services.do_answer_invitation(leader, battle_id=battle.pk, club_id=b.pk, accept=True)
    assert BattleClub.objects.get(battle=battle, club=b).status == "accepted"


def test_a_player_cannot_enter_for_a_club_he_is_not_a_member_of():
    a, a_owner, _ = club_with("alpha", 1)
    b, b_owner, b_people = club_with("beta", 1)
    battle = make_battle(a, a_owner, [b])
    accept_all(battle, [(b, b_owner)])
    with pytest.raises(BattleRefused) as refused:
        services.do_enter(b_people[1], battle_id=battle.pk, club_id=a.pk)
    assert str(refused.value) == "Играть можно только за клуб, в котором вы состоите."
    assert not BattlePlayer.objects.exists() and not Entrant.objects.exists()


def test_a_player_cannot_enter_for_two_clubs_in_one_battle():
    a, a_owner, _ = club_with("alpha", 1)
    b, b_owner, _ = club_with("beta", 1)
    battle = make_battle(a, a_owner, [b])
    accept_all(battle, [(b, b_owner)])
    both = user("both")
    Membership.objects.create(club=a, user=both)
    Membership.objects.create(club=b, user=both)
    services.do_enter(both, battle_id=battle.pk, club_id=a.pk)
    with pytest.raises(BattleRefused) as refused:
        services.do_enter(both, battle_id=battle.pk, club_id=b.pk)
    assert str(refused.value) == "both уже играет в этой битве за «Клуб alpha»."
    assert list(BattlePlayer.objects.values_list("club_id", flat=True)) == [a.pk]
    assert Entrant.objects.count() == 1


def test_a_club_that_has_not_accepted_has_no_players():
    a, a_owner, _ = club_with("alpha", 1)
    b, _b_owner, b_people = club_with("beta", 1)
    battle = make_battle(a, a_owner, [b])
    with pytest.raises(BattleRefused) as refused:
        services.do_enter(b_people[1], battle_id=battle.pk, club_id=b.pk)
    assert str(refused.value) == "Этот клуб не участвует в битве."
    assert not Entrant.objects.exists()


def test_a_club_cannot_join_a_battle_after_it_started():
    a, a_owner, a_people = club_with("alpha", 2)
    b, b_owner, b_people = club_with("beta", 2)
    c, c_owner, _ = club_with("gamma", 1)
    battle = make_battle(a, a_owner, [b, c])
    accept_all(battle, [(b, b_owner)])
    for person in a_people[1:]:
        services.do_enter(person, battle_id=battle.pk, club_id=a.pk)
    for person in b_people[1:]:
        services.do_enter(person, battle_id=battle.pk, club_id=b.pk)
    event_services.do_advance_event(tournament_id=battle.tournament_id, now=battle.tournament.starts_at)
    with pytest.raises(BattleRefused) as refused:
        services.do_answer_invitation(c_owner, battle_id=battle.pk, club_id=c.pk, accept=True)
    assert str(refused.value) == "Битва уже началась: клубы к ней больше не присоединяются."
    assert BattleClub.objects.get(battle=battle, club=c).status == "invited"
    with pytest.raises(BattleRefused):
        services.do_invite_club(a_owner, battle_id=battle.pk, club=club_with("delta", 0)[0])
    late = club_with("epsilon", 0)[2][0]
    Membership.objects.create(club=a, user=late)
    with pytest.raises(BattleRefused) as refused:
        services.do_enter(late, battle_id=battle.pk, club_id=a.pk)
    assert str(refused.value) == "Битва уже началась: запись закрыта."
    assert not BattlePlayer.objects.filter(user=late).exists()
    assert BattleClub.objects.filter(battle=battle).count() == 3


def test_the_arena_seats_no_two_clubmates_at_one_table():
    clubs = [club_with(slug, 3) for slug in ("alpha", "beta", "gamma")]
    (a, a_owner, _), *others = clubs
    battle = make_battle(a, a_owner, [c for c, _o, _p in others], table_size=3)
    accept_all(battle, [(c, o) for c, o, _p in others])
    club_of_user = {}
    for club, _owner, people in clubs:
        for person in people[1:]:
            services.do_enter(person, battle_id=battle.pk, club_id=club.pk)
            club_of_user[person.pk] = club.pk
    event_services.do_advance_event(tournament_id=battle.tournament_id, now=battle.tournament.starts_at)
    tables = list(RoundTable.objects.filter(round__tournament=battle.tournament))
    assert len(tables) == 3
    club_of_entrant = dict(BattlePlayer.objects.values_list("entrant_id", "club_id"))
    for table in tables:
        clubs_here = [club_of_entrant[e] for e in table.entrants]
        assert len(set(clubs_here)) == len(clubs_here)


def test_swiss_rounds_seat_no_two_clubmates_at_one_table():
    clubs = [club_with(slug, 4) for slug in ("alpha", "beta", "gamma", "delta")]
    (a, a_owner, _), *others = clubs
    battle = make_battle(a, a_owner, [c for c, _o, _p in others], format="swiss", table_size=4)
    accept_all(battle, [(c, o) for c, o, _p in others])
    for club, _owner, people in clubs:
        for person in people[1:]:
            services.do_enter(person, battle_id=battle.pk, club_id=club.pk)
    event_services.do_advance_event(tournament_id=battle.tournament_id, now=battle.tournament.starts_at)
    tables = list(RoundTable.objects.filter(round__tournament=battle.tournament, round__number=1))
    assert len(tables) == 4
    club_of_entrant = dict(BattlePlayer.objects.values_list("entrant_id", "club_id"))
    for table in tables:
        clubs_here = [club_of_entrant[e] for e in table.entrants]
        assert len(set(clubs_here)) == len(clubs_here) == 4


def give_points(event, points: dict):
    """Results of one finished game per entrant, with the given points (the board reads the event's results)."""
    from tournaments.models import Round

    round_, _ = Round.objects.get_or_create(tournament=event, number=1, defaults={"starts_at": timezone.now()})
    for i, (entrant_id, value) in enumerate(points.items(), start=1):
        Result.objects.create(round=round_, entrant_id=entrant_id, game_number=i, points=value, place=1)


def test_the_board_counts_the_best_players_and_breaks_ties_by_the_next_ones():
    a, a_owner, a_people = club_with("alpha", 3)
    b, b_owner, b_people = club_with("beta", 3)
    c, c_owner, c_people = club_with("gamma", 3)
    battle = make_battle(a, a_owner, [b, c], top_k=2)
    accept_all(battle, [(b, b_owner), (c, c_owner)])
    entrant = {}
    for club, people in ((a, a_people), (b, b_people), (c, c_people)):
        for person in people[1:]:
            (player,) = services.do_enter(person, battle_id=battle.pk, club_id=club.pk)
            entrant[person.username] = player.entrant_id
    give_points(
        battle.tournament,
        {
            entrant["alpha-00"]: 5, entrant["alpha-01"]: 3, entrant["alpha-02"]: 1,
            entrant["beta-00"]: 5, entrant["beta-01"]: 3, entrant["beta-02"]: 2,
            entrant["gamma-00"]: 9, entrant["gamma-01"]: 0, entrant["gamma-02"]: 0,
        },
    )  # fmt: skip
    board = selectors.battle_board(battle)
    assert [(r.club.slug, r.score, r.rank) for r in board.clubs] == [("gamma", 9, 1), ("beta", 8, 2), ("alpha", 8, 3)]
    assert [s.name for s in board.clubs[1].counting] == ["beta-00", "beta-01"]
    assert board.top[0].name == "gamma-00"
    assert "Клубы с равным счётом" in board.tie_rule


def test_a_player_who_leaves_his_club_keeps_his_points_for_it():
    a, a_owner, a_people = club_with("alpha", 1)
    b, b_owner, b_people = club_with("beta", 1)
    battle = make_battle(a, a_owner, [b], top_k=1)
    accept_all(battle, [(b, b_owner)])
    (player,) = services.do_enter(a_people[1], battle_id=battle.pk, club_id=a.pk)
    services.do_enter(b_people[1], battle_id=battle.pk, club_id=b.pk)
    give_points(battle.tournament, {player.entrant_id: 4})
    Membership.objects.filter(club=a, user=a_people[1]).delete()
    board = selectors.battle_board(battle)
    assert (board.clubs[0].club, board.clubs[0].score) == (a, 4)
    assert selectors.clubs_apart(battle.tournament)[player.entrant_id] == a.pk


def test_the_finished_battle_rates_its_clubs_once():
    from battles.models import ClubRating, ClubResult

    a, a_owner, a_people = club_with("alpha", 1)
    b, b_owner, b_people = club_with("beta", 1)
    battle = make_battle(a, a_owner, [b], top_k=1)
    accept_all(battle, [(b, b_owner)])
    (pa,) = services.do_enter(a_people[1], battle_id=battle.pk, club_id=a.pk)
    (pb,) = services.do_enter(b_people[1], battle_id=battle.pk, club_id=b.pk)
    give_points(battle.tournament, {pa.entrant_id: 1, pb.entrant_id: 3})
    Tournament.objects.filter(pk=battle.tournament_id).update(status=Tournament.Status.FINISHED)
    first = services.do_record_battle_result(tournament_id=battle.tournament_id)
    again = services.do_record_battle_result(tournament_id=battle.tournament_id)
    assert first.pk == again.pk and ClubResult.objects.count() == 1
    assert first.placings == [[b.pk], [a.pk]]
    ratings = {r.club_id: r for r in ClubRating.objects.all()}
    assert ratings[b.pk].mu > ratings[a.pk].mu and ratings[b.pk].results == 1


def test_nobody_enters_the_battles_event_past_the_battle():
    a, a_owner, a_people = club_with("alpha", 1)
    b, _b_owner, _ = club_with("beta", 1)
    battle = make_battle(a, a_owner, [b])
    event_services.do_advance_event(tournament_id=battle.tournament_id)
    with pytest.raises(event_services.TournamentRefused) as refused:
        event_services.do_register(tournament_id=battle.tournament_id, user=a_people[1])
    assert str(refused.value) == "Регистрация на это событие закрыта."
    services.do_enter(a_people[1], battle_id=battle.pk, club_id=a.pk)
    assert Entrant.objects.filter(tournament=battle.tournament).count() == 1


def test_a_pair_enters_for_the_club_of_both_partners_only():
    from tournaments.models import Pair

    a, a_owner, a_people = club_with("alpha", 3)
    b, b_owner, b_people = club_with("beta", 1)
    battle = make_battle(a, a_owner, [b], pairs=True)
    accept_all(battle, [(b, b_owner)])
    mixed = Pair.objects.create(player_one=a_people[1], player_two=b_people[1], created_by=a_people[1], status="active")
    with pytest.raises(BattleRefused) as refused:
        services.do_enter(a_people[1], battle_id=battle.pk, club_id=a.pk, pair_id=mixed.pk)
    assert str(refused.value) == "Оба партнёра играют за один клуб, а ваш партнёр в нём не состоит."
    assert not Entrant.objects.exists()
    clubmates = Pair.objects.create(
        player_one=a_people[2], player_two=a_people[3], created_by=a_people[2], status="active"
    )
    players = services.do_enter(a_people[3], battle_id=battle.pk, club_id=a.pk, pair_id=clubmates.pk)
    assert {p.user for p in players} == {a_people[2], a_people[3]}
    assert len({p.entrant_id for p in players}) == 1
    assert battle.tournament.is_pairs and battle.tournament.entrants_per_table == 2
