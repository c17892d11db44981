"""The draw a director can see before it starts (issue 15, "What must work": "A draw a director
can see before it starts", and "What was seen" 6: "The automatic seating cannot be previewed or
edited before the round; manual re-seat takes raw entrant ids and accepts exact rematches with
no warning"). The next round's seating is a draft from the moment the previous round ends (or
on the director's "preview" before round one): the director page shows it by name with its
flags and cost, the director edits it by name and is warned of rematches, then publishes it;
untouched, it is what the round starts with (computed again if the field changed); players see
it only once it is published or the round has started. Messages are compared in Russian."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import selectors, services, tasks
from tournaments.models import Entrant, Round, Tournament

from .helpers import make_event, make_users, play_round

pytestmark = pytest.mark.django_db


def direct_url(event):
    return f"/tournaments/{event.pk}/direct/"


def event_url(event):
    return f"/tournaments/{event.pk}/"


def start(event):
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    event.refresh_from_db()


def start_round(event, number):
    Round.objects.filter(tournament=event, number=number).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    return Round.objects.get(tournament=event, number=number)


def swiss_after_round_one(players=5):
    """A Swiss of `players` at tables of 2 (one sits out each round), round 1 played; round 2
    waits ten minutes."""
    event = make_event(table_size=2, rounds=3, pause_between_rounds=timedelta(minutes=10))
    users = make_users(players, prefix="d")
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    start(event)
    play_round(event, 1)
    return event, users


def draft_of(event, number=2):
    round_ = Round.objects.get(tournament=event, number=number)
    return round_, [list(rt.entrants) for rt in round_.tables.order_by("number")]


def met_in_round_one(event):
    first = Round.objects.get(tournament=event, number=1)
    return [list(rt.entrants) for rt in first.tables.order_by("number")]


def names(event):
    return selectors.entrant_names(event)


def seats_post(tables, **extra):
    """The draft form as the director's selects send it: seat-<table>-<seat> = the entrant chosen."""
    data = {"action": "draft-edit", **extra}
    for t, table in enumerate(tables, start=1):
        for s, pk in enumerate(table, start=1):
            data[f"seat-{t}-{s}"] = str(pk)
    return data


def test_the_draft_appears_after_round_one_ends_with_names_and_flags(client, director):
    event, users = swiss_after_round_one()
    round_, tables = draft_of(event)
    assert round_.status == Round.Status.SCHEDULED
    assert len(tables) == 2 and round_.byes, "computed when round 1 ended: two tables and a bye"
    assert round_.published_at is None
    bye = names(event)[round_.byes[0]]
    client.force_login(director)
    page = client.get(direct_url(event)).text
    assert "Рассадка следующего тура" in page
    assert "черновик: игроки его пока не видят" in page
    for table in tables:
        for pk in table:
            assert f'<option value="{pk}" selected>{names(event)[pk]}</option>' in page, "each seat by name"
    assert f"{bye}: пропуск тура" in page, "the format's flags (the bye) by name"
    assert "Повторных пар: 0 · разброс очков:" in page


def test_editing_by_name_changes_the_stored_seating_and_recomputes_the_cost(client, director):
    event, users = swiss_after_round_one()
    round_, tables = draft_of(event)
    bye = round_.byes[0]
    # The director seats the bye at table 1 in place of its second entrant, who sits out instead.
    moved = tables[0][1]
    edited = [[tables[0][0], bye], tables[1]]
    client.force_login(director)
    answer = client.post(direct_url(event), seats_post(edited), follow=True)
    round_, stored = draft_of(event)
    assert stored == edited and round_.byes == [moved]
    assert round_.seated_by_director
    text = answer.text
    assert "Черновик сохранён: повторных пар" in text
    cost = selectors.draft_view(event)
    assert f"повторных пар {cost['repeats']}, разброс очков {cost['spread']}." in text
    assert f"{names(event)[moved]}: пропуск тура" in text, "the flags follow the edit"


def test_a_rematch_shows_a_warning_naming_both(client, director):
    event, users = swiss_after_round_one()
    round_, tables = draft_of(event)
    first_table, second_table = met_in_round_one(event)
    round_one_bye = Round.objects.get(tournament=event, number=1).byes[0]
    edited = [first_table, [second_table[0], round_one_bye]]  # round 1's table 1 together again
    client.force_login(director)
    answer = client.post(direct_url(event), seats_post(edited), follow=True)
    a, b = (names(event)[pk] for pk in first_table)
    warning = f"Повторная встреча: {a} и {b} уже сидели за одним столом."
    assert answer.text.count(warning) == 2, "as the message after saving and on the draft itself"
    assert "Повторных пар: 1" in answer.text
    assert selectors.draft_view(event)["repeats"] == 1


def test_an_untouched_draft_is_what_round_two_starts_with(director):
    event, users = swiss_after_round_one()
    round_, tables = draft_of(event)
    byes = list(round_.byes)
    started = start_round(event, 2)
    assert started.status == Round.Status.PLAYING
    assert [list(rt.entrants) for rt in started.tables.order_by("number")] == tables
    assert started.byes == byes
    assert all(rt.table_id for rt in started.tables.all()), "its games are dealt"
    assert started.published_at is not None


def test_a_late_entrant_added_after_the_draft_is_seated(director, django_user_model):
    event, users = swiss_after_round_one()
    round_, tables = draft_of(event)
    late = services.do_add_late_entrant(
        tournament_id=event.pk, by=director, user=django_user_model.objects.create_user(username="opozdal")
    )
    assert selectors.draft_view(event)["stale"], "the director page says the field changed"
    started = start_round(event, 2)
    seated = [pk for rt in started.tables.all() for pk in rt.entrants]
    assert late.pk in seated
    assert sorted(seated) == sorted(Entrant.objects.filter(tournament=event).values_list("pk", flat=True))
    assert started.byes == [] and started.tables.count() == 3


def test_a_late_entrant_joins_a_free_seat_of_an_edited_draft(client, director, django_user_model):
    event = make_event(table_size=4, rounds=2, pause_between_rounds=timedelta(minutes=10))
    for user in make_users(6, prefix="e"):
        services.do_register(tournament_id=event.pk, user=user)
    start(event)
    play_round(event, 1)
    round_, tables = draft_of(event)
    client.force_login(director)
    everyone = [pk for table in tables for pk in table]
    client.post(direct_url(event), seats_post([everyone[:3], everyone[3:]]))
    late = services.do_add_late_entrant(
        tournament_id=event.pk, by=director, user=django_user_model.objects.create_user(username="pozdno")
    )
    started = start_round(event, 2)
    stored = [list(rt.entrants) for rt in started.tables.order_by("number")]
    assert stored == [[*everyone[:3], late.pk], everyone[3:]], "the director's tables kept, the late one added"


def test_a_non_director_cannot_see_or_edit_the_draft(client, director):
    event, users = swiss_after_round_one()
    round_, tables = draft_of(event)
    player = users[0]
    client.force_login(player)
    assert client.get(direct_url(event)).status_code == 403
    swapped = [list(reversed(tables[0])), tables[1]]
    assert client.post(direct_url(event), seats_post(swapped)).status_code == 403
    assert client.post(direct_url(event), {"action": "publish"}).status_code == 403
    assert draft_of(event)[1] == tables, "nothing changed"
    assert 'class="round-tables"' not in client.get(event_url(event)).text, "the draft is not shown to players"
    assert selectors.round_view(event, player)["tables"] == []
    client.force_login(director)
    answer = client.post(direct_url(event), {"action": "publish"}, follow=True)
    assert "Рассадка опубликована: игроки её видят." in answer.text
    client.force_login(player)
    page = client.get(event_url(event)).text
    assert 'class="round-tables"' in page, "published: the players see it before the start"


def test_the_director_previews_round_one_before_the_start(client, director):
    event = make_event(table_size=2, rounds=2)
    for user in make_users(4, prefix="f"):
        services.do_register(tournament_id=event.pk, user=user)
    client.force_login(director)
    page = client.get(direct_url(event)).text
    assert "Пока не рассчитана." in page
    answer = client.post(direct_url(event), {"action": "preview"}, follow=True)
    assert "Рассадка следующего тура рассчитана: проверьте, поправьте и опубликуйте её." in answer.text
    round_, tables = draft_of(event, 1)
    assert len(tables) == 2 and round_.status == Round.Status.SCHEDULED
    start(event)
    assert event.status == Tournament.Status.RUNNING
    assert [list(rt.entrants) for rt in Round.objects.get(tournament=event, number=1).tables.order_by("number")] == (
        tables
    )


def test_check_in_close_drafts_round_one(director):
    now = timezone.now()
    event = make_event(table_size=2, rounds=2, checkin_opens=now - timedelta(minutes=30))
    users = make_users(4, prefix="g")
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    tasks.sweep_events()
    for user in users:
        services.do_check_in(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(checkin_closes=now - timedelta(seconds=1))
    tasks.sweep_events()
    round_, tables = draft_of(event, 1)
    assert round_.status == Round.Status.SCHEDULED and len(tables) == 2


def test_an_entrant_twice_in_the_edit_is_refused_and_changes_nothing(client, director):
    event, users = swiss_after_round_one()
    round_, tables = draft_of(event)
    twice = [[tables[0][0], tables[1][0]], [tables[1][0], tables[1][1]]]
    client.force_login(director)
    answer = client.post(direct_url(event), seats_post(twice), follow=True)
    assert "Участник сидит только за одним столом." in answer.text
    assert draft_of(event)[1] == tables
