"""What the table says aloud: each seat's last declaration («Беру», «Бито», «Пас»,
«Перевод»), the note when the clock moved for the viewer, and why a card of his
hand cannot be played now. Read from the events the viewer may see and his view."""

from __future__ import annotations

from django.utils.translation import pgettext, pgettext_lazy

# The engine's events that are a move, one per move (the first event of each move).
MOVE_EVENTS = frozenset({"attack", "defend", "transfer", "show", "take", "pass", "swap"})

DECLARATIONS = {
    "take": pgettext_lazy("declaration", "I take"),
    "pass": pgettext_lazy("declaration", "Done"),  # «Бито»: every card was covered
    "pass_after_take": pgettext_lazy("declaration", "Pass"),  # «Пас»: the defender took
    "transfer": pgettext_lazy("declaration", "Transfer"),
}

TIMEOUT_NOTES = {
    "attack": pgettext_lazy("table", "Time ran out: a card was played for you."),
    "take": pgettext_lazy("table", "Time ran out: the cards were taken for you."),
}
TIMEOUT_NOTE = pgettext_lazy("table", "Time ran out: the move was made for you.")


def declarations(events, move_count: int, players: int) -> list[dict]:
    """The last declaration of each seat within the last `players` moves, by seat:
    {"seat", "kind", "text", "move"} (`move`: its number in the game, so a bubble is
    told apart from an earlier one of the same words)."""
    moves = sum(1 for e in events if e.get("type") in MOVE_EVENTS)
    number = move_count - moves  # the number of the first move the events hold
    said: dict[int, dict] = {}
    defender_takes = False  # within a bout, after "take" a pass is «Пас», before it «Бито»
    for event in events:
        kind = event.get("type")
        if kind in ("bout_end", "bout_start", "deal"):
            defender_takes = False
        if kind not in MOVE_EVENTS:
            continue
        seat = event.get("seat")
        word = None
        if kind == "take":
            defender_takes, word = True, "take"
        elif kind == "pass":
            word = "pass_after_take" if defender_takes else "pass"
        elif kind in ("transfer", "show"):
            word = "transfer"
        if word is not None:
            said[seat] = {"seat": seat, "kind": word, "text": str(DECLARATIONS[word]), "move": number}
        else:
            said.pop(seat, None)  # a card played since: the words are old
        number += 1
    recent = move_count - max(players, 1)
    return [said[s] for s in sorted(said) if said[s]["move"] >= recent]


def timeout_note(events, viewer_seat: int | None) -> str:
    """The note at the viewer's seat while his last move is one the clock made for him."""
    if viewer_seat is None:
        return ""
    note, timed_out = None, False
    for event in events:
        kind = event.get("type")
        if kind == "deal":
            note, timed_out = None, False
        elif kind == "timeout" and event.get("seat") == viewer_seat:
            note, timed_out = TIMEOUT_NOTES.get(event.get("kind"), TIMEOUT_NOTE), True
        elif kind in MOVE_EVENTS and event.get("seat") == viewer_seat:
            if timed_out:
                timed_out = False  # the move the clock made
            else:
                note = None  # a move of his own since
    return str(note) if note is not None else ""


def unplayable_reason(view: dict, viewer_seat: int | None, my_turn: bool, on_autopilot: bool, over: bool) -> str:
    """Why a card of the viewer's hand that is not playable cannot be played now."""
    if viewer_seat is None or over:
        return ""
    if on_autopilot:
        return pgettext("table", "The autopilot plays your cards.")
    if not my_turn:
        return pgettext("table", "Not your move: wait for your turn.")
    if viewer_seat == view["defender"]:
        return pgettext("table", "This card beats none of the cards on the table.")
    if not view["table"]:
        return pgettext("table", "This card cannot be led now.")
    if not any(a.split()[0] in ("attack", "transfer") for a in view["legal_actions"]):
        return pgettext("table", "No more cards may be thrown in now.")
    return pgettext("table", "Only a card of a rank already on the table may be thrown in.")
