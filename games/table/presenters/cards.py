"""The cards a viewer sees and what a click on them does: own hand, table, buttons."""

from __future__ import annotations

from django.utils.translation import pgettext, pgettext_lazy

from games.display import card


def hand_cards(hand: list[str], legal: list[str], trump: str, why_not: str = "") -> list[dict]:
    """Own hand, each card with the actions a click on it can take (`why_not`: what a
    card that cannot be played now says when tapped)."""
    by_card: dict[str, list[str]] = {}
    targets: dict[str, list[str]] = {}
    for action in legal:
        parts = action.split()
        if parts[0] == "defend":
            targets.setdefault(parts[3], []).append(parts[1])
            by_card.setdefault(parts[3], []).append(action)
        elif len(parts) == 2:
            by_card.setdefault(parts[1], []).append(action)
    cards = []
    for code in hand:
        c = card(code, trump)
        actions = by_card.get(code, [])
        c["actions"] = actions
        c["targets"] = targets.get(code, [])
        c["action"] = ""
        direct = [a for a in actions if a.split()[0] in ("attack", "transfer")]
        if len(c["targets"]) == 1 and not direct:
            c["action"] = f"defend {c['targets'][0]} with {code}"
        elif not c["targets"] and direct:
            c["action"] = direct[0]
        c["playable"] = bool(c["action"] or c["targets"])
        c["why"] = "" if c["playable"] else why_not
        cards.append(c)
    return cards


def table_pairs(table, legal: list[str], trump: str) -> list[dict]:
    """The bout's (attack, defence) pairs; attack cards the viewer may cover are targets."""
    uncovered_targets = {a.split()[1] for a in legal if a.startswith("defend ")}
    pairs = []
    for attack, defence in table:
        a = card(attack, trump)
        a["is_target"] = attack in uncovered_targets
        pairs.append({"attack": a, "defence": card(defence, trump) if defence else None})
    return pairs


OTHER_BUTTONS = {
    "transfer": pgettext_lazy("table", "Transfer"),
    "show": pgettext_lazy("table", "Show to transfer"),
    # T6: the six goes under the stock and the face-up trump comes to the hand; the
    # button shows the card one gets (the six given is the only one that may be).
    "swap": pgettext_lazy("table", "Swap the six for the trump"),
}


def buttons(legal: list[str], taking: bool, trump: str, trump_card: str | None = None) -> list[dict]:
    """The moves that are not a click on a card of the hand."""
    found = []
    if "take" in legal:
        found.append({"action": "take", "kind": "take", "label": pgettext("table", "Take"), "card": None})
    if "pass" in legal:
        # "Бито" when every card is covered, "Пас" when the defender has taken.
        label = pgettext("table", "Pass") if taking else pgettext("table", "Done")
        found.append({"action": "pass", "kind": "pass", "label": label, "card": None})
    for action in legal:
        kind, _, code = action.partition(" ")
        if kind in OTHER_BUTTONS:  # (translated only when shown: this runs for every seat after every move)
            label = str(OTHER_BUTTONS[kind])
            shown = trump_card if kind == "swap" and trump_card else code
            found.append({"action": action, "kind": kind, "label": label, "card": card(shown, trump)})
    return found
