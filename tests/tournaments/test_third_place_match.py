"""A knockout's third-place match, the event's option: the two semi-final losers play each other
alongside the final, at tables of 2, and the standings give them 3rd and 4th instead of a shared
3rd. The pure part: test_formats_third_place.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import selectors, services, tasks
from tournaments.forms import AdminTournamentForm, TournamentForm
from tournaments.models import Entrant, Round, Tournament

from .helpers import latest_game, make_event, make_users, play_game_lost_by

pytestmark = pytest.mark.django_db


def knockout_of_four(**kw):
    users = make_users(4)
    event = make_event(name="Кубок", table_size=2, format=Tournament.Format.KNOCKOUT, turn_seconds=None, **kw)
    entrants = [services.do_register(tournament_id=event.pk, user=u) for u in users]
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    return event, dict(enumerate(entrants, start=1))


def play(event, number, seed_of, losers):
    """Round `number`: at each table the seed in `losers` loses; then the next round starts."""
    for rt in Round.objects.get(tournament=event, number=number).tables.order_by("number"):
        (loser,) = [pk for pk in rt.entrants if seed_of[pk] in losers]
        tasks.record_game(play_game_lost_by(latest_game(rt.table_id), Entrant.objects.get(pk=loser).user).pk)
    tasks.sweep_events()
    event.refresh_from_db()


def ranks(event, seed_of):
    return [seed_of[line["entrant"]] for line in selectors.standings_table(event)]


def test_the_semi_final_losers_play_for_third_alongside_the_final_and_are_third_and_fourth():
    event, entrant = knockout_of_four(third_place_match=True)
    seed_of = {e.pk: seed for seed, e in entrant.items()}
    play(event, 1, seed_of, losers={3, 4})  # semi-finals 1 v 4 and 2 v 3
    final_round = Round.objects.get(tournament=event, number=2)
    assert final_round.status == Round.Status.PLAYING
    assert [[seed_of[pk] for pk in rt.entrants] for rt in final_round.tables.order_by("number")] == [[1, 2], [4, 3]], (
        "the final, then the third-place match (the top semi-final's loser first)"
    )
    play(event, 2, seed_of, losers={2, 4})
    assert event.status == Tournament.Status.FINISHED
    assert ranks(event, seed_of) == [1, 2, 3, 4], "3 won the third-place match: third, 4 fourth"
    assert not Round.objects.filter(tournament=event, number=3).exists()
    out = {seed_of[e.pk]: e.eliminated_in_round for e in Entrant.objects.filter(tournament=event)}
    assert out == {1: None, 2: 2, 3: 1, 4: 1}, "the semi-final losers went out in the semi-finals"


def test_the_winner_of_the_third_place_match_is_third_whatever_his_seed():
    event, entrant = knockout_of_four(third_place_match=True)
    seed_of = {e.pk: seed for seed, e in entrant.items()}
    play(event, 1, seed_of, losers={3, 4})
    play(event, 2, seed_of, losers={1, 3})
    assert ranks(event, seed_of) == [2, 1, 4, 3]


def test_without_the_option_the_semi_final_losers_play_no_more():
    event, entrant = knockout_of_four()
    seed_of = {e.pk: seed for seed, e in entrant.items()}
    play(event, 1, seed_of, losers={3, 4})
    assert [
        [seed_of[pk] for pk in rt.entrants] for rt in Round.objects.get(tournament=event, number=2).tables.all()
    ] == [[1, 2]]


def test_the_event_page_names_the_third_place_match_in_russian(client):
    event = make_event(name="Кубок", table_size=2, format=Tournament.Format.KNOCKOUT, third_place_match=True)
    page = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "Матч за третье место: проигравшие в полуфиналах играют друг с другом" in page
    plain = make_event(name="Кубок", table_size=2, format=Tournament.Format.KNOCKOUT)
    assert "Матч за третье место" not in client.get(f"/tournaments/{plain.pk}/").content.decode()


def test_only_a_knockout_at_tables_of_two_can_have_a_third_place_match():
    for setup in ({"format": Tournament.Format.SWISS, "table_size": 2}, {"format": Tournament.Format.KNOCKOUT}):
        event = make_event(third_place_match=True, **setup)
        with pytest.raises(services.TournamentRefused) as refused:
            services.validate_event(event)
        assert str(refused.value) == "Матч за третье место бывает только в турнире на выбывание за столами на двоих."
    services.validate_event(make_event(third_place_match=True, format=Tournament.Format.KNOCKOUT, table_size=2))


def test_the_directors_form_and_the_admin_offer_the_option():
    assert TournamentForm().fields["third_place_match"].label == "Матч за третье место"
    assert "third_place_match" in AdminTournamentForm().fields
