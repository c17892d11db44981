"""The director's actions: what each button of the director's page posts, as one table.

Each entry is one action: its name (the `action` field of the form), the permission
it needs (who may: a director, for each of them today), the service it calls with the
arguments it cleans from the form, the message said when it is done (translated) and
how a refusal is reported. `views.direct` looks the posted name up here; a name that
is not here is refused whole, changing nothing.

What the event's status allows (`services.TRANSITIONS`) is not checked here: each
service checks it under the event's lock, after its own checks of the form's values,
so that two directors acting at once get one winner and one clear answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.contrib import messages
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from games import selectors as game_selectors
from games.errors import Refusal

from . import absence, selectors, services
from .errors import TournamentRefused
from .forms import TournamentForm, pair_number
from .models import Entrant, Tournament


class Done(NamedTuple):
    """What a message and the page after it are made from: the event (as read before the
    action), the arguments the service was called with, and what it returned."""

    event: Tournament
    arguments: dict
    result: Any


class InvalidForm(TournamentRefused):
    """The setup form has errors: each is reported by `each_form_error`."""

    def __init__(self, form):
        super().__init__(_("Fill in the form first."))
        self.form = form


# --------------------------------------------------------------- refusals


def one_message(request, refusal: Refusal) -> None:
    messages.error(request, str(refusal))


def each_form_error(request, refusal: Refusal) -> None:
    """One message per error, named by the field's label (not "* rounds * ..." with its code name)."""
    if not isinstance(refusal, InvalidForm):
        return one_message(request, refusal)
    form = refusal.form
    for name, errors in form.errors.items():
        label = capfirst(form.fields[name].label) if name in form.fields else ""
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else error)


# ------------------------------------------------------- the form's fields


def _nothing(*_args) -> dict:
    return {}


def _no_warnings(_done) -> list[str]:
    return []


def _reason(post) -> dict:
    return {"reason": post.get("reason", "").strip()}


def _entrant(post) -> dict:
    return {"entrant_id": int(post["entrant"])}


def _places(post) -> dict[str, str]:
    """{entrant id: place} from the correction form's place-<entrant id> fields."""
    return {key.removeprefix("place-"): value for key, value in post.items() if key.startswith("place-")}


def _seats(post, prefix: str) -> list[tuple[int, list[int]]]:
    """The tables of a seating form from its <prefix>-<table>-<seat> selects (an empty select: a free seat)."""
    seats: dict[int, dict[int, int]] = {}
    for key, value in post.items():
        if key.startswith(prefix) and value.strip():
            table, seat = (int(part) for part in key.removeprefix(prefix).split("-"))
            seats.setdefault(table, {})[seat] = int(value)
    return [(table, [row[seat] for seat in sorted(row)]) for table, row in sorted(seats.items())]


def _player(typed: str):
    """The player whose name was typed (any case, Cyrillic too: SQLite's own iexact folds ASCII only)."""
    user = game_selectors.player_by_typed_name(typed)
    if user is None:
        raise TournamentRefused(_("There is no such player."))
    return user


def _late(event: Tournament, post) -> dict:
    pair_id = pair_number(post.get("pair"), _("A pair's number is digits only."))
    typed = post.get("username", "").strip()
    if event.is_pairs and not typed:  # a pair is chosen by its names (`pairs_to_enter`)
        user = selectors.pair_player(pair_id)
        if user is None:
            raise TournamentRefused(_("Choose one of the active pairs."))
    else:
        user = _player(typed)
    return {"user": user, "pair_id": pair_id}


def _withdrawal(disqualify: bool):
    def arguments(_event, post) -> dict:
        return {**_entrant(post), "disqualify": disqualify, **_reason(post)}

    return arguments


def _confirm_withdrawal(event: Tournament, arguments: dict) -> dict:
    """The first step only asks: what the second step would refuse for the entrant, the first refuses."""
    entrant = selectors.entrant_in(event, arguments["entrant_id"])
    if entrant is None:
        raise TournamentRefused(_("There is no such entrant in this event."))
    if not services.allowed(event, "withdraw"):
        raise TournamentRefused(services.STATUS_REFUSALS[event.status])
    if entrant.state not in (Entrant.State.ACTIVE, Entrant.State.WAITING):
        raise TournamentRefused(_("This entrant is already out of the event."))
    return {"entrant": entrant}


def _correction(_event, post) -> dict:
    return {"result_id": int(post["result"]), "points": post.get("points"), "note": post.get("note", "")}


def _places_correction(_event, post) -> dict:
    return {
        "round_table_id": int(post["table"]),
        "game_number": int(post["game"]),
        "places": _places(post),
        **_reason(post),
    }


def _adjudication(_event, post) -> dict:
    return {"round_table_id": int(post["round_table"]), "places": _places(post)}


def _typed_seating(_event, post) -> dict:
    """Tables typed one a line, entrant ids apart by spaces or commas."""
    tables = [
        [int(x) for x in line.replace(",", " ").split()] for line in post.get("tables", "").splitlines() if line.strip()
    ]
    return {"number": int(post.get("round") or 1), "tables": tables}


def _draft_edit(event: Tournament, post) -> dict:
    round_ = services.current_round(event)
    return {"number": round_.number if round_ else 1, "tables": [row for _table, row in _seats(post, "seat-")]}


def _live_reseat(_event, post) -> dict:
    numbers = sorted(int(key.removeprefix("table-")) for key in post if key.startswith("table-"))
    return {"numbers": numbers, "tables": [row for number, row in _seats(post, "live-") if number in numbers]}


def _substitution(_event, post) -> dict:
    user = _player(post.get("username", "").strip())
    if post.get("partner"):  # a pair event: "<entrant>-<user>", the partner replaced
        entrant_id, replaces = (int(part) for part in post["partner"].split("-", 1))
        return {"entrant_id": entrant_id, "user": user, "replaces": replaces}
    return {"entrant_id": int(post.get("entrant") or 0), "user": user}


def _setup(event: Tournament, post) -> dict:
    form = TournamentForm(post, instance=event)
    if not form.is_valid():
        raise InvalidForm(form)
    return {"form": form}


# ------------------------------------------------------------ the messages


def _named(done: Done) -> dict:
    return {"name": done.result}


def _started(done: Done) -> str:
    # Between rounds "Start now" starts the next round: say which, not "the event".
    return "round" if done.event.is_under_way and services.current_round(done.event) is not None else "event"


def _round_number(done: Done) -> dict:
    round_ = services.current_round(done.event) if done.event.is_under_way else None
    return {"number": round_.number} if round_ else {}


def _draft_cost(done: Done) -> dict:
    draft = selectors.draft_view(done.event) or {}
    return {"repeats": draft.get("repeats", 0), "spread": draft.get("spread", "0")}


def _rematches(done: Done) -> list[str]:
    """After an edit of the draft, a warning naming each rematch."""
    draft = selectors.draft_view(done.event) or {}
    return [
        _("Rematch: %(first)s and %(second)s have already shared a table.") % {"first": first, "second": second}
        for first, second in draft.get("rematches", [])
    ]


def _substituted(done: Done) -> str:
    return "partner" if "replaces" in done.arguments else "entrant"


def _substitute_names(done: Done) -> dict:
    if "replaces" not in done.arguments:
        return {"name": done.result}
    pair = done.result.pair
    partner = next(member for member in pair.members if member.pk == done.arguments["replaces"])
    return {"name": done.arguments["user"].get_username(), "partner": partner.get_username(), "pair": pair}


def _director_page(done: Done) -> str:
    return reverse("tournaments:direct", kwargs={"tournament_id": done.event.pk})


# --------------------------------------------------------------- the table


@dataclass(frozen=True)
class DirectorAction:
    """One action of the director's page; `views._direct_action` is the one code that runs them."""

    name: str  # the form's `action`
    service: Callable[..., Any]  # called with tournament_id, by and the arguments
    # A text, or one per case (`case` names it); "%(...)s" filled by `details`.
    message: Any
    permission: Callable[[Any], bool] = services.can_direct  # who may (a user)
    arguments: Callable[[Tournament, Any], dict] = _nothing  # the form cleaned for the service
    case: Callable[[Done], str] | None = None
    details: Callable[[Done], dict] = _nothing
    warnings: Callable[[Done], list[str]] = _no_warnings
    refusals: Callable[[Any, Refusal], None] = one_message  # how a refusal is reported
    goes_to: Callable[[Done], str] = _director_page  # the page after it is done
    # A first step that only asks (its page's context), before the confirmed form calls the service.
    confirm: Callable[[Tournament, dict], dict] | None = None

    def texts(self) -> list:
        """Every message this action may say when done (lazy, translated when shown)."""
        return list(self.message.values()) if isinstance(self.message, Mapping) else [self.message]

    def said(self, done: Done) -> str:
        text = self.message[self.case(done)] if self.case else self.message
        details = self.details(done)
        return text % details if details else str(text)


ACTIONS: dict[str, DirectorAction] = {
    action.name: action
    for action in (
        # The event's life (services.TRANSITIONS).
        DirectorAction(
            "start",
            services.do_start_now,
            {"event": _("The event is started."), "round": _("Round %(number)s is started.")},
            case=_started,
            details=_round_number,
        ),
        DirectorAction("publish-event", services.do_publish_event, _("The event is published.")),
        DirectorAction(
            "pause", services.do_set_paused, _("The event is paused."), arguments=lambda e, p: {"paused": True}
        ),
        DirectorAction(
            "resume",
            services.do_set_paused,
            _("The event goes on."),
            arguments=lambda e, p: {"paused": False},
        ),
        DirectorAction(
            "edit", services.do_edit_event, _("The setup is saved."), arguments=_setup, refusals=each_form_error
        ),
        DirectorAction(
            "copy",
            services.do_copy_event,
            _("The event is copied for next week."),
            goes_to=lambda done: reverse("tournaments:direct", kwargs={"tournament_id": done.result.pk}),
        ),
        DirectorAction(
            "cancel",
            services.do_cancel_event,
            _("The event is cancelled."),
            arguments=lambda e, p: _reason(p),
        ),
        DirectorAction(
            "reopen", services.do_reopen_event, _("The event is reopened."), arguments=lambda e, p: _reason(p)
        ),
        DirectorAction(
            "finish", services.do_finish_event, _("The event is finished."), arguments=lambda e, p: _reason(p)
        ),
        DirectorAction(
            "delete",
            services.do_delete_event,
            _("The event “%(name)s” is deleted."),
            details=_named,
            goes_to=lambda done: reverse("tournaments:direct-list"),
        ),
        # Entrants.
        DirectorAction(
            "late",
            services.do_add_late_entrant,
            _("Entrant %(name)s is added."),
            arguments=_late,
            details=_named,
        ),
        DirectorAction(
            "withdraw",
            services.do_withdraw,
            _("Entrant %(name)s is withdrawn from the event."),
            arguments=_withdrawal(disqualify=False),
            details=_named,
            confirm=_confirm_withdrawal,
        ),
        DirectorAction(
            "disqualify",
            services.do_withdraw,
            _("Entrant %(name)s is disqualified."),
            arguments=_withdrawal(disqualify=True),
            details=_named,
            confirm=_confirm_withdrawal,
        ),
        DirectorAction(
            "reinstate",
            services.do_reinstate,
            _("Entrant %(name)s is reinstated and plays again from the next round."),
            arguments=lambda e, p: {**_entrant(p), **_reason(p)},
            details=_named,
        ),
        DirectorAction(
            "check-in",
            services.do_set_checked_in,
            _("Entrant %(name)s is checked in."),
            arguments=lambda e, p: {**_entrant(p), "checked_in": True},
            details=_named,
        ),
        DirectorAction(
            "check-out",
            services.do_set_checked_in,
            _("Entrant %(name)s is checked out."),
            arguments=lambda e, p: {**_entrant(p), "checked_in": False},
            details=_named,
        ),
        DirectorAction(
            "keep",
            absence.do_keep_entrant,
            _("Entrant %(name)s stays in the event despite the absences."),
            arguments=lambda e, p: _entrant(p),
            details=_named,
        ),
        # Results.
        DirectorAction("correct", services.do_correct_result, _("The points are corrected."), arguments=_correction),
        DirectorAction(
            "places",
            services.do_correct_places,
            _("The outcome of the game is corrected."),
            arguments=_places_correction,
        ),
        DirectorAction(
            "adjudicate",
            absence.do_adjudicate_game,
            _("The places are set and the game is recorded."),
            arguments=_adjudication,
        ),
        DirectorAction(
            "end-table",
            services.do_end_table_round,
            _("The table's round is ended with the games played there."),
            arguments=lambda e, p: {"round_table_id": int(p["round_table"])},
        ),
        DirectorAction("retry", services.do_retry_stuck_step, _("The step succeeded: the event goes on.")),
        # Seating.
        DirectorAction(
            "preview",
            services.do_draft_round,
            _("The seating of the next round is computed: check it, edit it, publish it."),
        ),
        DirectorAction("reseat", services.do_reseat_round, _("The round is seated."), arguments=_typed_seating),
        DirectorAction(
            "draft-edit",
            services.do_reseat_round,
            _("The draft is saved: repeated pairs %(repeats)s, score spread %(spread)s."),
            arguments=_draft_edit,
            details=_draft_cost,
            warnings=_rematches,
        ),
        DirectorAction("publish", services.do_publish_round, _("The seating is published: the players see it.")),
        DirectorAction(
            "live-reseat",
            services.do_reseat_started_round,
            _("The chosen tables are seated again: their games are dealt anew."),
            arguments=_live_reseat,
        ),
        DirectorAction(
            "substitute",
            services.do_substitute_entrant,
            {
                "entrant": _("Player %(name)s takes the seat as a substitute."),
                "partner": _("Player %(name)s replaces %(partner)s in the pair %(pair)s."),
            },
            arguments=_substitution,
            case=_substituted,
            details=_substitute_names,
        ),
        DirectorAction(
            "house-bot",
            services.do_seat_house_bot,
            _("A house bot takes the seat of entrant %(name)s."),
            arguments=lambda e, p: _entrant(p),
            details=_named,
        ),
        # Announcements.
        DirectorAction(
            "announce",
            services.do_announce,
            _("The announcement is sent."),
            arguments=lambda e, p: {"text": p.get("text", "")},
        ),
        DirectorAction(
            "unannounce",
            services.do_remove_announcement,
            _("The announcement is removed: players no longer see it."),
            arguments=lambda e, p: {"announcement_id": int(p["announcement"])},
        ),
    )
}
