"""A whole battle run on its event: Swiss rounds seated with clubmates apart, games decided, the
event finished by itself, and its clubs' placings rated once."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from battles import selectors, services
from battles.models import ClubRating, ClubResult
from tests.battles.helpers import club_with, make_battle
from tournaments import absence
from tournaments import services as event_services
from tournaments.models import RoundTable, Tournament

pytestmark = pytest.mark.django_db


def test_a_swiss_battle_runs_to_its_end_and_rates_its_clubs(django_user_model, django_capture_on_commit_callbacks):
    director = django_user_model.objects.create_user(username="director", is_staff=True)
    director.groups.add(Group.objects.get(name="Tournament directors"))
    a, a_owner, a_people = club_with("alpha", 2)
    b, b_owner, b_people = club_with("beta", 2)
    battle = make_battle(a, a_owner, [b], format="swiss", table_size=2, top_k=2)
    services.do_answer_invitation(b_owner, battle_id=battle.pk, club_id=b.pk, accept=True)
    club_of = {}
    for club, people in ((a, a_people), (b, b_people)):
        for person in people[1:]:
            (player,) = services.do_enter(person, battle_id=battle.pk, club_id=club.pk)
            club_of[player.entrant_id] = club.slug
    Tournament.objects.filter(pk=battle.tournament_id).update(rounds=1)
    event_services.do_advance_event(tournament_id=battle.tournament_id, now=battle.tournament.starts_at)
    tables = list(RoundTable.objects.filter(round__tournament=battle.tournament).order_by("number"))
    assert len(tables) == 2
    assert all(sorted(club_of[e] for e in table.entrants) == ["alpha", "beta"] for table in tables)
    with django_capture_on_commit_callbacks(execute=True):
        for table in tables:
            beta_first = {e: 1 if club_of[e] == "beta" else 2 for e in table.entrants}
            absence.do_adjudicate_game(
                tournament_id=battle.tournament_id, round_table_id=table.pk, places=beta_first, by=director
            )
    battle.tournament.refresh_from_db()
    assert battle.tournament.status == Tournament.Status.FINISHED
    board = selectors.battle_board(battle)
    assert [(row.club.slug, row.score, row.rank) for row in board.clubs] == [("beta", 2, 1), ("alpha", 0, 2)]
    (result,) = ClubResult.objects.all()
    assert (result.source, result.source_id, result.placings) == ("battle", battle.pk, [[b.pk], [a.pk]])
    mu = dict(ClubRating.objects.values_list("club__slug", "mu"))
    assert mu["beta"] > mu["alpha"]
