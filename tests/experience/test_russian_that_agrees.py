"""Russian that agrees: a name in the case its sentence needs (or a phrasing that needs
none, for guests, bots and Latin names), a past verb in the gender the player chose on his
profile (words without gender when he chose none), a count that agrees with its number.
Every line is compared with the literal Russian, and with the English where it differs."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from games import engine, wording
from games.models import Profile
from games.services import play
from games.services import tables as table_services
from games.table import presenters, rendering
from games.table.presenters.cards import buttons
from tests.support import games as support_games
from tests.support.snapshots import snapshot_for


@pytest.mark.parametrize(
    ("name", "case", "address", "declined"),
    [
        ("Анна", wording.INSTRUMENTAL, wording.SHE, "Анной"),
        ("Анна", wording.ACCUSATIVE, wording.NEUTRAL, "Анну"),
        ("Борис", wording.INSTRUMENTAL, wording.HE, "Борисом"),
        ("Борис", wording.ACCUSATIVE, wording.NEUTRAL, "Бориса"),
        ("Вера", wording.INSTRUMENTAL, wording.SHE, "Верой"),  # the name, not the word «вера»
        ("Саша", wording.ACCUSATIVE, wording.SHE, "Сашу"),
        ("Любовь", wording.INSTRUMENTAL, wording.SHE, "Любовью"),
        ("пётр", wording.INSTRUMENTAL, wording.HE, "петром"),  # the letters' case kept
        # what cannot be declined: the caller says it another way
        ("Гость-8357", wording.INSTRUMENTAL, wording.NEUTRAL, None),
        ("Бот 2", wording.ACCUSATIVE, wording.NEUTRAL, None),
        ("anna", wording.INSTRUMENTAL, wording.SHE, None),
        ("Кот_123", wording.INSTRUMENTAL, wording.NEUTRAL, None),
        ("Ким", wording.INSTRUMENTAL, wording.SHE, None),  # a woman's masculine name stays as it is
    ],
)
def test_a_name_is_declined_only_when_it_is_a_russian_first_name(name, case, address, declined):
    with translation.override("ru"):
        assert wording.name_in(name, case, address) == declined
    with translation.override("en"):
        assert wording.name_in(name, case, address) == name  # English has no cases


def line(event, names, addresses, language="ru"):
    with translation.override(language):
        return presenters.log_line(event, names, addresses)


def test_a_new_bout_says_whom_the_attacker_goes_under():
    event = {"type": "bout_start", "attacker": 0, "defender": 1}
    assert line(event, {0: "Борис", 1: "Анна"}, {0: "he", 1: "she"}) == "Новый кон: <b>Борис</b> ходит под <b>Анной</b>"
    assert line(event, {0: "Анна", 1: "Борис"}, {}) == "Новый кон: <b>Анна</b> ходит под <b>Борисом</b>"
    # a guest, a bot, a Latin name: no case needed
    assert (
        line(event, {0: "Борис", 1: "Гость-8357"}, {}) == "Новый кон: ходит <b>Борис</b>, отбивается <b>Гость-8357</b>"
    )
    assert line(event, {0: "Анна", 1: "Бот 2"}, {}) == "Новый кон: ходит <b>Анна</b>, отбивается <b>Бот 2</b>"
    assert line(event, {0: "Борис", 1: "anna"}, {}) == "Новый кон: ходит <b>Борис</b>, отбивается <b>anna</b>"
    assert line(event, {0: "Борис", 1: "Анна"}, {}, "en") == "New bout: <b>Борис</b> attacks <b>Анна</b>"
    assert line(event, {0: "Boris", 1: "Bot 2"}, {}, "en") == "New bout: <b>Boris</b> attacks <b>Bot 2</b>"


@pytest.mark.parametrize("kind", ["transfer", "show"])
def test_a_transfer_names_the_new_defender_in_the_accusative_or_without_a_case(kind):
    event = {"type": kind, "seat": 0, "card": "6S", "defender": 1}
    said = {"transfer": "<b>Борис</b> переводит картой ", "show": "<b>Борис</b> показывает "}[kind]
    declined = line(event, {0: "Борис", 1: "Анна"}, {1: "she"})
    assert declined.startswith(said) and declined.endswith(" на <b>Анну</b>")
    undeclined = line(event, {0: "Борис", 1: "Бот 2"}, {})
    assert undeclined.startswith(said) and undeclined.endswith(", теперь отбивается <b>Бот 2</b>")
    assert "на <b>Бот 2</b>" not in undeclined
    english = line(event, {0: "Boris", 1: "Bot 2"}, {}, "en")
    assert english.endswith({"transfer": " to <b>Bot 2</b>", "show": " and transfers to <b>Bot 2</b>"}[kind])


@pytest.mark.parametrize(
    ("count", "russian", "english"),
    [
        (1, "<b>Анна</b> добирает из колоды 1 карту", "<b>Анна</b> draws 1 card from the stock"),
        (2, "<b>Анна</b> добирает из колоды 2 карты", "<b>Анна</b> draws 2 cards from the stock"),
        (5, "<b>Анна</b> добирает из колоды 5 карт", "<b>Анна</b> draws 5 cards from the stock"),
        (21, "<b>Анна</b> добирает из колоды 21 карту", "<b>Анна</b> draws 21 cards from the stock"),
    ],
)
def test_cards_drawn_unseen_are_counted_in_agreement_with_their_number(count, russian, english):
    event = {"type": "draw", "seat": 0, "count": count}
    assert line(event, {0: "Анна"}, {}) == russian
    assert line(event, {0: "Анна"}, {}, "en") == english


def test_the_same_name_with_another_address_is_not_served_from_the_cache():
    event = {"type": "bout_start", "attacker": 0, "defender": 1}
    # «Ким»: a man's name declines, a woman's does not
    assert line(event, {0: "Борис", 1: "Ким"}, {1: "he"}) == "Новый кон: <b>Борис</b> ходит под <b>Кимом</b>"
    assert line(event, {0: "Борис", 1: "Ким"}, {1: "she"}) == "Новый кон: ходит <b>Борис</b>, отбивается <b>Ким</b>"


def finished_snapshot(names, addresses, abandoned):
    position = engine.Game.from_layout(
        engine.Rules(players=3), hands=[["6S"], ["7S"], ["8S"]], stock=["9H"], attacker=0
    )
    snapshot = snapshot_for(position, names=names, status="finished")
    snapshot["addresses"] = {str(100 + n): address for n, address in addresses.items()}
    for seat in snapshot["game"]["seats"]:
        seat["abandoned"] = seat["number"] in abandoned
        seat["autopilot"] = seat["number"] in abandoned
    snapshot["game"]["result"] = {"places": {"0": 1, "1": 2}, "durak": 2, "losers": [2]}
    return snapshot


def result_of(snapshot, language="ru"):
    with translation.override(language):
        context = presenters.table_context(snapshot, 0, viewer_id=100)
        html = "".join(rendering.render_regions(rendering.decorated(context), rendering.region_names(context)).values())
    return context["result"], html


@pytest.mark.parametrize(
    ("address", "sentence", "label"),
    [
        ("she", "Вышла из игры и считается последней: Анна.", "вышла из игры: считается последней"),
        ("he", "Вышел из игры и считается последним: Анна.", "вышел из игры: считается последним"),
        ("", "Последнее место за выход из игры: Анна.", "выход из игры: последнее место"),
    ],
)
def test_one_player_who_left_gets_a_sentence_in_his_gender_not_a_plural(address, sentence, label):
    result, html = result_of(finished_snapshot(["Борис", "Анна", "Вера"], {1: address}, {1}))
    assert result["left_line"] == sentence
    assert sentence in html
    assert f"Анна <small>({label}" in html
    assert "Вышли из игры" not in html
    english, html = result_of(finished_snapshot(["Борис", "Анна", "Вера"], {1: address}, {1}), "en")
    assert english["left_line"] == "Left the game and counted as last: Анна."


def test_a_guest_who_left_gets_words_without_gender_and_several_get_the_plural():
    result, _html = result_of(finished_snapshot(["Борис", "Гость-8357", "Вера"], {}, {1}))
    assert result["left_line"] == "Последнее место за выход из игры: Гость-8357."
    result, _html = result_of(finished_snapshot(["Борис", "Гость-8357", "Вера"], {2: "she"}, {1, 2}))
    assert result["left_line"] == "Вышли из игры и считаются последними: Гость-8357, Вера."


def test_the_trump_six_swap_button_shows_the_trump_one_gets():
    with translation.override("ru"):
        (swap,) = buttons(["swap 6H"], taking=False, trump="H", trump_card="KH")
    assert swap["label"] == "Обменять шестёрку на козырь"
    assert swap["card"]["code"] == "KH"  # what he gets; the six is the one card that may go
    with translation.override("en"):
        (swap,) = buttons(["swap 6H"], taking=False, trump="H", trump_card="KH")
    assert swap["label"] == "Swap the six for the trump"


@pytest.mark.django_db
def test_a_player_says_on_his_profile_how_to_speak_of_him(client):
    vera = support_games.make_user("Вера")
    client.force_login(vera)
    page = client.get(reverse("games:profile", kwargs={"username": "Вера"})).content.decode()
    assert "В сообщениях обо мне писать" in page and "в женском роде" in page
    client.post(reverse("games:account"), {"email": "", "address": "she"})
    assert Profile.objects.get(user=vera).address == "she"
    client.post(reverse("games:account"), {"email": "", "address": "nonsense"})
    assert Profile.objects.get(user=vera).address == "she"  # a refused form changes nothing
    client.post(reverse("games:account"), {"email": "", "address": ""})
    assert Profile.objects.get(user=vera).address == ""


@pytest.mark.django_db
def test_the_profiles_figures_are_nouns_that_fit_anyone(client):
    support_games.make_user("Анна")
    page = client.get(reverse("games:profile", kwargs={"username": "Анна"})).content.decode()
    assert "<dt>Победы</dt>" in page and "Выиграл" not in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("address", "russian"), [("she", "Я вернулась"), ("he", "Я вернулся"), ("", "Вернуться в игру")]
)
def test_the_back_button_speaks_in_the_players_own_gender(client, address, russian):
    anna, boris = support_games.make_user("Анна"), support_games.make_user("Борис")
    Profile.objects.filter(user=anna).update(address=address)
    table = table_services.do_create_table(
        rules=engine.Rules(players=2), host=anna, seat_users=[anna, boris], turn_seconds=15, start=True
    )
    play.do_resign(game_id=support_games.latest_game(table).pk, user=anna)
    client.force_login(anna)
    page = client.get(reverse("games:table", kwargs={"table_id": table.pk})).content.decode()
    assert f'class="t-btn t-btn-back">{russian}</button>' in page
    english = client.get(reverse("games:table", kwargs={"table_id": table.pk}), headers={"accept-language": "en"})
    assert 'class="t-btn t-btn-back">I&#x27;m back</button>' in english.content.decode()
