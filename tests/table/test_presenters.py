"""The presenter: a table snapshot as one viewer may see it, and nothing more."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.template.loader import render_to_string
from django.utils import translation

from games import engine, permissions
from games.table import presenters, rendering
from tests.support.snapshots import card_codes, snapshot_for

RULES = engine.Rules(players=2)


def layout(**kw):
    base = dict(
        hands=[["6S", "7S", "8H", "QD", "KC", "AS"], ["6H", "9S", "10S", "JD", "JC", "7C"]],
        stock=["8S", "9H", "10C"],
        attacker=0,
    )
    base.update(kw)
    return engine.Game.from_layout(RULES, **base)


def test_own_hand_cards_and_playable_marks():
    position = layout()
    ctx = presenters.table_context(snapshot_for(position), 0)
    hand = {c["code"]: c for c in ctx["hand"]}
    assert set(hand) == set(position.hand(0))
    assert hand["6S"]["symbol"] == "♠" and not hand["6S"]["is_red"]
    assert hand["8H"]["symbol"] == "♥" and hand["8H"]["is_red"]
    assert hand["QD"]["symbol"] == "♦" and hand["QD"]["is_red"]
    assert hand["KC"]["symbol"] == "♣" and not hand["KC"]["is_red"]
    assert hand["10C" if "10C" in hand else "AS"]["rank"] in ("10", "A")
    # Trump is clubs (10C is the face-up card): the club is marked.
    assert ctx["trump"]["suit"] == "C"
    assert hand["KC"]["is_trump"] and not hand["AS"]["is_trump"]
    # The attacker leads: every card is playable by one click.
    assert all(c["playable"] and c["action"] == f"attack {c['code']}" for c in hand.values())
    assert ctx["my_turn"] and ctx["buttons"] == []
    assert ctx["trump_card"]["code"] == "10C" and ctx["trump_card_in_stock"]
    assert ctx["stock_size"] == 3 and ctx["discard_size"] == 36 - 15


def test_the_other_seat_sees_card_backs_only():
    position = layout()
    ctx = presenters.table_context(snapshot_for(position), 1)
    assert {c["code"] for c in ctx["hand"]} == set(position.hand(1))
    assert not any(c["playable"] for c in ctx["hand"])
    [opponent] = ctx["opponents"]
    assert opponent["seat"] == 0 and opponent["count"] == 6 and opponent["known"] == []
    assert opponent["role"] == "attacker" and opponent["to_move"]
    assert ctx["status_text"]
    html = rendering.live_fragments(ctx, "en")
    assert card_codes(html) <= set(position.hand(1)) | {"10C"}


def test_defence_targets_and_buttons():
    position = layout()
    position.act(0, "attack 6S")
    ctx = presenters.table_context(snapshot_for(position), 1)
    hand = {c["code"]: c for c in ctx["hand"]}
    # 9S and 10S beat 6S, and so does any club (trump): 7C, JC.
    for code in ("9S", "10S", "7C", "JC"):
        assert hand[code]["playable"]
        assert hand[code]["action"] == f"defend 6S with {code}"  # one target: one click
    assert not hand["6H"]["playable"]
    assert [b["action"] for b in ctx["buttons"]] == ["take"]
    assert ctx["buttons"][0]["label"] == "Беру"  # Russian by default
    [pair] = ctx["pairs"]
    assert pair["attack"]["code"] == "6S" and pair["attack"]["is_target"] and pair["defence"] is None


def test_two_targets_make_a_two_step_defence():
    position = engine.Game.from_layout(
        RULES,
        hands=[["6S", "6D", "KC"], ["9S", "9D", "7H", "8H"]],
        stock=["8S", "9H", "10C"],
        attacker=0,
    )
    position.act(0, "attack 6S")
    position.act(0, "attack 6D")
    ctx = presenters.table_context(snapshot_for(position), 1)
    hand = {c["code"]: c for c in ctx["hand"]}
    assert hand["9S"]["action"] == "defend 6S with 9S"
    assert hand["9D"]["action"] == "defend 6D with 9D"
    position2 = engine.Game.from_layout(
        RULES,
        hands=[["6S", "7S", "KC"], ["QS", "9D", "7H", "8H"]],
        stock=["8S", "9H", "10C"],
        attacker=0,
    )
    position2.act(0, "attack 6S")
    ctx = presenters.table_context(snapshot_for(position2), 1)
    assert {c["code"]: c for c in ctx["hand"]}["QS"]["action"] == "defend 6S with QS"


def test_a_card_beating_two_attack_cards_asks_for_the_target():
    position = engine.Game.from_layout(
        RULES,
        hands=[["6S", "6H", "KC"], ["QS", "9D", "7D", "8D"]],
        stock=["8S", "9H", "10C"],
        attacker=0,
    )
    position.act(0, "attack 6S")
    position.act(0, "attack 6H")
    ctx = presenters.table_context(snapshot_for(position), 1)
    # Trump is clubs; nothing in seat 1 beats two cards... make one: a club would.
    position = engine.Game.from_layout(
        RULES,
        hands=[["6S", "6H", "KS"], ["JC", "9D", "7D", "8D"]],
        stock=["8S", "9H", "10C"],
        attacker=0,
    )
    position.act(0, "attack 6S")
    position.act(0, "attack 6H")
    ctx = presenters.table_context(snapshot_for(position), 1)
    jc = {c["code"]: c for c in ctx["hand"]}["JC"]
    assert jc["playable"] and jc["action"] == "" and sorted(jc["targets"]) == ["6H", "6S"]
    html = rendering.live_fragments(ctx, "ru")
    assert 'data-targets="6S 6H"' in html or 'data-targets="6H 6S"' in html


def test_pass_is_bito_when_covered_and_pas_when_the_defender_takes():
    position = layout()
    position.act(0, "attack 6S")
    position.act(1, "defend 6S with 9S")
    with translation.override("ru"):
        ctx = presenters.table_context(snapshot_for(position), 0)
    assert [(b["action"], b["label"]) for b in ctx["buttons"]] == [("pass", "Бито")]
    position = layout()
    position.act(0, "attack 6S")
    position.act(1, "take")
    with translation.override("ru"):
        ctx = presenters.table_context(snapshot_for(position), 0)
    assert [(b["action"], b["label"]) for b in ctx["buttons"]] == [("pass", "Пас")]
    with translation.override("en"):
        ctx = presenters.table_context(snapshot_for(position), 0)
    assert [b["label"] for b in ctx["buttons"]] == ["Pass"]


def test_transfer_button_in_perevodnoy():
    rules = engine.Rules(variant="perevodnoy", players=3)
    position = engine.Game.from_layout(
        rules,
        hands=[["6S", "7S", "8S"], ["6H", "9D", "7D"], ["QS", "KD", "AD"]],
        stock=["8D", "9H", "10C"],
        attacker=0,
    )
    position.act(0, "attack 6S")
    ctx = presenters.table_context(snapshot_for(position), 1)
    assert [b["action"] for b in ctx["buttons"]] == ["take", "transfer 6H"]
    six = {c["code"]: c for c in ctx["hand"]}["6H"]
    assert six["action"] == "transfer 6H"


def test_spectator_sees_no_hand_at_all():
    position = layout()
    snapshot = snapshot_for(position)
    ctx = presenters.table_context(snapshot, None)
    assert ctx["hand"] == [] and ctx["me"] is None and ctx["buttons"] == []
    assert ctx["bottom"]["seat"] == 0 and len(ctx["opponents"]) == 1
    html = rendering.live_fragments(ctx, "en")
    assert card_codes(html) <= {"10C"}
    assert "data-action" not in html


def test_known_cards_of_an_opponent_are_shown():
    position = layout()
    position.act(0, "attack 6S")
    position.act(1, "take")
    position.act(0, "pass")  # seat 1 picks up 6S: everyone saw it
    ctx = presenters.table_context(snapshot_for(position), 0)
    [opponent] = ctx["opponents"]
    assert [c["code"] for c in opponent["known"]] == ["6S"]
    html = rendering.live_fragments(ctx, "en")
    assert "6S" in card_codes(html)


def test_opponents_sit_clockwise_from_the_viewers_left():
    rules = engine.Rules(players=5)
    position = engine.Game.new(rules, seed=3)
    ctx = presenters.table_context(snapshot_for(position), 2)
    assert [p["seat"] for p in ctx["opponents"]] == [3, 4, 0, 1]
    assert [p["slot"] for p in ctx["opponents"]] == ["left", "top", "top", "right"]


def test_partners_are_marked():
    rules = engine.Rules(players=4, partners=True)
    position = engine.Game.new(rules, seed=5)
    ctx = presenters.table_context(snapshot_for(position), 1)
    partner = [p["seat"] for p in ctx["opponents"] if p["is_partner"]]
    assert partner == [3]


def test_log_is_redacted_for_the_viewer():
    position = layout()
    events = position.act(0, "attack 6S") + position.act(1, "defend 6S with 9S") + position.act(0, "pass")
    draws = [e for e in events if e["type"] == "draw"]
    assert draws and all("cards" in e for e in draws)
    mine = presenters.table_context(snapshot_for(position), 0, events)
    theirs = presenters.table_context(snapshot_for(position), 1, events)
    drawn_by_0 = next(e for e in draws if e["seat"] == 0)["cards"]
    mine_text = " ".join(mine["log"])
    theirs_text = " ".join(theirs["log"])
    assert set(drawn_by_0) <= card_codes(mine_text)
    assert not set(drawn_by_0) & card_codes(theirs_text)
    spectator = " ".join(presenters.table_context(snapshot_for(position), None, events)["log"])
    assert not set(drawn_by_0) & card_codes(spectator)


def test_log_lines_escape_names():
    position = layout()
    events = position.act(0, "attack 6S")
    ctx = presenters.table_context(snapshot_for(position, names=["<script>x</script>", "b"]), 1, events)
    assert "<script>" not in ctx["log"][0] and "&lt;script&gt;" in ctx["log"][0]


def test_countdown_and_seed():
    position = layout()
    now = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
    deadline = (now + timedelta(seconds=17, microseconds=400000)).isoformat()
    ctx = presenters.table_context(snapshot_for(position, deadline=deadline), 1, now=now)
    assert ctx["seconds_left"] == 17 and ctx["deadline"].endswith(".400+00:00")
    assert ctx["game"]["seed_hash"] == "ab" * 32 and ctx["game"]["seed"] is None


def test_result_at_the_end():
    position = engine.Game.from_layout(RULES, hands=[["6S"], ["7H", "8H"]], trump="C", attacker=0)
    events = position.act(0, "attack 6S") + position.act(1, "take")
    assert position.is_over
    result = {"places": {"0": 1, "1": 2}, "durak": 1, "losers": [1], "draw": False}
    snapshot = snapshot_for(position, status="finished", result=result, seed="s33d")
    with translation.override("en"):
        ctx = presenters.table_context(snapshot, 0, events)
        html = rendering.live_fragments(ctx, "en")
    assert ctx["result"]["durak"] == "user1"
    assert [(r["name"], r["place"]) for r in ctx["result"]["places"]] == [("user0", 1), ("user1", 2)]
    assert ctx["game"]["seed"] == "s33d"
    assert "user1 is the durak." in html and "s33d" in html


def test_viewer_seat_and_private_access():
    position = layout()
    snapshot = snapshot_for(position, is_private=True)
    assert permissions.viewer_seat(snapshot, 101) == 1
    assert permissions.viewer_seat(snapshot, 999) is None
    assert permissions.viewer_seat(snapshot, None) is None
    assert permissions.may_watch(snapshot, 101)
    assert not permissions.may_watch(snapshot, 999)
    assert not permissions.may_watch(snapshot, None)
    assert permissions.may_watch(snapshot, None, [snapshot["table"]["id"]])
    assert permissions.may_watch(snapshot_for(position), None)


def test_waiting_table_shows_the_seats():
    snapshot = {
        "table": {
            "id": 3,
            "status": "waiting",
            "variant": "podkidnoy",
            "rules": RULES.to_dict(),
            "seats_count": 2,
            "turn_seconds": None,
            "is_private": False,
            "rated": False,
            "bot_level": "",
            "host_id": 100,
            "host_name": "host",
        },
        "seats": [
            {"number": 0, "user_id": 100, "name": "host", "bot_level": ""},
            {"number": 1, "user_id": None, "name": "", "bot_level": ""},
        ],
        "game": None,
    }
    host = presenters.table_context(snapshot, 0, viewer_id=100)
    assert host["seating"]["show"] and host["seating"]["can_start"] and host["seating"]["can_leave"]
    assert host["seating"]["seats"][1]["can_set_bot"] and not host["seating"]["seats"][1]["can_join"]
    guest = presenters.table_context(snapshot, None, viewer_id=200)
    assert guest["seating"]["seats"][1]["can_join"] and not guest["seating"]["can_start"]
    html = render_to_string("games/table/partials/state.html", {**guest, "csrf_token": "t" * 32})
    assert "Sit here" in html or "Сесть" in html
    assert 'name="csrfmiddlewaretoken" value="' + "t" * 32 in html
