"""The director's actions are one table (`tournaments.director_actions.ACTIONS`): every
button of the director's page posts an action of the table, every action of the table
reaches its service from the page's URL, a name that is not there is refused with a 400
that changes nothing, and every message the table says is translated."""

from __future__ import annotations

import dataclasses
import html
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from tournaments import director_actions
from tournaments.director_actions import ACTIONS, Done
from tournaments.errors import TournamentRefused
from tournaments.models import DirectorAction, Tournament

from .helpers import make_event, make_users

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.BASE_DIR) / "templates" / "tournaments"

# One form that fills every field any action reads (the setup's too), confirmed.
EVERY_FIELD = {
    "confirm": "1",
    "entrant": "1",
    "result": "1",
    "table": "1",
    "game": "1",
    "round_table": "1",
    "announcement": "1",
    "round": "1",
    "tables": "1 2",
    "username": "director",
    "text": "Перерыв десять минут.",
    "reason": "проверка",
    "name": "Кубок",
    "variant": "podkidnoy",
    "kind": "individual",
    "table_size": 4,
    "format": "swiss",
    "rounds": 3,
    "games_per_round": 1,
    "starts_at": "2030-01-01 19:00",
    "pause_between_rounds": "00:02:00",
    "no_show_grace": "00:02:00",
    "turn_seconds": 30,
    "deck": 36,
    "first_bout_limit": 5,
    "throw_in": "all",
}


def direct_url(event):
    return f"/tournaments/{event.pk}/direct/"


def test_every_action_the_directors_page_posts_is_in_the_table():
    posted = set()
    for template in TEMPLATES.rglob("*.html"):
        posted |= set(re.findall(r'name="action" value="([a-z-]+)"', template.read_text()))
    assert posted, "the director's forms were not found"
    assert posted <= set(ACTIONS), posted - set(ACTIONS)
    # The confirmation page posts back the action it asks about (withdraw or disqualify).
    assert {name for name, action in ACTIONS.items() if action.confirm} == {"withdraw", "disqualify"}


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_every_action_in_the_table_reaches_its_service(client, director, monkeypatch, name):
    event = make_event()
    calls = []

    def service(**arguments):
        calls.append(arguments)
        raise TournamentRefused("Дошло до службы.")

    monkeypatch.setitem(ACTIONS, name, dataclasses.replace(ACTIONS[name], service=service))
    client.force_login(director)

    answer = client.post(direct_url(event), {"action": name, **EVERY_FIELD}, follow=True)

    assert answer.status_code == 200 and "Дошло до службы." in answer.text
    assert len(calls) == 1
    assert calls[0]["tournament_id"] == event.pk and calls[0]["by"] == director


@pytest.mark.parametrize("posted", [{"action": "launch"}, {"action": ""}, {}, {"action": "Start"}])
def test_an_unknown_action_is_refused_with_a_400_and_changes_nothing(client, director, posted):
    event = make_event()
    for user in make_users(2, prefix="u"):
        event.entrants.create(user=user)
    before = (Tournament.objects.filter(pk=event.pk).values().get(), list(event.entrants.values()))
    client.force_login(director)

    answer = client.post(direct_url(event), {**posted, "entrant": event.entrants.first().pk, "confirm": "1"})

    assert answer.status_code == 400
    page = answer.text
    assert '<html lang="ru">' in page and "<h1>Неверный запрос</h1>" in page  # the site's page
    assert "На странице директора нет такого действия." in page
    assert (Tournament.objects.filter(pk=event.pk).values().get(), list(event.entrants.values())) == before
    assert not DirectorAction.objects.filter(tournament=event).exists()
    # Nothing waits for the next page either: the refusal was the answer itself.
    assert "нет такого действия" not in client.get(direct_url(event)).text


def test_the_400_page_speaks_english_too(client, director):
    client.force_login(director)
    answer = client.post(direct_url(make_event()), {"action": "launch"}, headers={"accept-language": "en"})
    assert answer.status_code == 400
    page = html.unescape(answer.text)
    assert "<h1>Bad request</h1>" in page and "There is no such action on the director's page." in page


def test_every_message_of_the_table_is_translated():
    for name, action in ACTIONS.items():
        assert action.texts(), name
        for message in action.texts():
            with translation.override("en"):
                english = str(message)
            with translation.override("ru"):
                russian = str(message)
            assert russian and russian != english, (name, english)
            assert not re.search(r"[A-Za-z]{4,}", re.sub(r"%\(\w+\)s", "", russian)), (name, russian)


def test_the_tables_messages_read_in_russian():
    event = make_event()
    with translation.override("ru"):
        assert ACTIONS["start"].said(Done(event, {}, [])) == "Событие начато."
        assert ACTIONS["publish-event"].said(Done(event, {}, event)) == "Событие опубликовано."
        assert ACTIONS["delete"].said(Done(event, {}, "Кубок")) == "Событие «Кубок» удалено."


def test_a_non_director_is_refused_before_any_action_is_looked_up(client, django_user_model):
    client.force_login(django_user_model.objects.create_user(username="player"))
    event = make_event()
    for posted in ({"action": "cancel"}, {"action": "launch"}):
        assert client.post(direct_url(event), posted).status_code == 403
    assert Tournament.objects.get(pk=event.pk).status == event.status
    assert director_actions.ACTIONS["cancel"].permission(None) is False
