"""Event pages, pair pages and the director's page. Thin: each write calls one
service; a refusal becomes a message on the page it came from."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from games import selectors as game_selectors
from games.choices import Variant
from games.errors import Refusal

from . import archive, director_actions, exports, formats, paper, selectors, services, standings
from .forms import TournamentForm, pair_number
from .models import Entrant, Pair, Round, Tournament


def event_list(request):
    return render(request, "tournaments/list.html", {"events": selectors.events_by_state()})


def archive_page(request):
    return render(request, "tournaments/archive.html", archive.archive_page(request.GET))


def hall_of_fame(request):
    variant = archive.hall_variant(request.GET)
    return render(
        request, "tournaments/hall_of_fame.html", {"hall": archive.hall_of_fame(variant), "variants": Variant.choices}
    )


def panel_context(event: Tournament, user) -> dict:
    """Everything the live part of the event page shows (the same for the page and the socket)."""
    entry = selectors.entry_of(event, user)
    table = services.points_table(event)
    rows = selectors.standings_table(event)
    finished = event.status == Tournament.Status.FINISHED
    return {
        "event": event,
        "entry": entry,
        "round": selectors.round_view(event, user),
        "standings": rows,
        "crosstable": selectors.crosstable(event) if finished else None,
        "points_table": table,
        "bye_points": standings.bye_points(table),
        "registration_open": services.registration_open(event),
        "checkin_open": services.checkin_open(event),
        "total_rounds": services.total_rounds(event),
        "is_director": services.can_direct(user),
        "my_pairs": selectors.active_pairs_of(user) if event.is_pairs and not entry else [],
        "my_user_id": getattr(user, "pk", None),
        "seconds_to_start": _seconds_to_start(event),
        "waiting_position": selectors.waiting_position(entry),
        "waiting_list": (
            selectors.waiting_list(event) if event.max_entrants and event.status in services.BEFORE_START else []
        ),
        "event_full": services.is_full(event),
        "checked_in_names": selectors.checked_in_names(event) if event.checkin_opens else [],
        "bye_rounds": selectors.bye_rounds(event, entry),
        "requested_bye_points": services.requested_bye_points(event),
        "announcements": selectors.announcements_of(event),
        # An arena has no rounds: its board (clock, counts, standings, the player's streak) instead.
        "arena": selectors.arena_board(event, user) if event.event_format.continuous else None,
        "arena_scoring": arena_scoring(event) if event.event_format.continuous else None,
    }


def arena_scoring(event: Tournament) -> dict:
    """What the arena's rules box states (formats.arena): the points by place at each size of
    table it may deal (the event's size down to two), the streak and the berserk point."""
    return {
        "points_by_size": [
            {"size": size, "points": formats.default_points(size)} for size in range(event.entrants_per_table, 1, -1)
        ],
        "streak_after": formats.STREAK_AFTER,
        "berserk_bonus": formats.BERSERK_BONUS,
    }


def _seconds_to_start(event: Tournament) -> int | None:
    if event.status not in (Tournament.Status.SCHEDULED, Tournament.Status.REGISTRATION, Tournament.Status.CHECKIN):
        return None
    return max(0, int((event.starts_at - timezone.now()).total_seconds()))


def render_panel(event: Tournament, user, oob: bool = False, csrf_token: str | None = None, request=None) -> str:
    """The live panel; its forms need the viewer's CSRF token (`request`'s, or `csrf_token` for a socket)."""
    context = {**panel_context(event, user), "oob": oob}
    if csrf_token:
        context["csrf_token"] = csrf_token
    return render_to_string("tournaments/partials/panel.html", context, request=request)


def _public_event(request, tournament_id: int) -> Tournament:
    """The event, if the viewer may see it: a draft only its directors see."""
    event = get_object_or_404(Tournament, pk=tournament_id)
    if event.status == Tournament.Status.DRAFT and not services.can_direct(request.user):
        raise Http404
    return event


def event_page(request, tournament_id: int):
    event = _public_event(request, tournament_id)
    return render(request, "tournaments/event.html", {**panel_context(event, request.user), "oob": False})


def event_panel(request, tournament_id: int):
    event = _public_event(request, tournament_id)
    return HttpResponse(render_panel(event, request.user, request=request))


def _act(request, tournament_id: int, action, done_message=None):
    try:
        action()
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        if done_message:
            messages.success(request, done_message)
    return redirect(_next_or(request, "tournaments:event", tournament_id=tournament_id))


def _next_or(request, fallback: str, **kwargs) -> str:
    """`next` when it is a path on this site; anything else (another host, a scheme, a
    bare word like "x") is ignored for the page `fallback` names."""
    url = request.POST.get("next") or request.GET.get("next") or ""
    safe = url.startswith("/") and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return url if safe else reverse(fallback, kwargs=kwargs)


@login_required
@require_POST
def register(request, tournament_id: int):
    try:
        entrant = services.do_register(
            tournament_id=tournament_id, user=request.user, pair_id=pair_number(request.POST.get("pair"))
        )
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        position = selectors.waiting_position(entrant)
        if position is None:
            messages.success(request, _("You are entered."))
        else:
            messages.info(
                request,
                _("The event is full: you are on the waiting list, number %(position)s.") % {"position": position},
            )
    return redirect(_next_or(request, "tournaments:event", tournament_id=tournament_id))


@login_required
@require_POST
def unregister(request, tournament_id: int):
    try:
        entrant = services.do_unregister(tournament_id=tournament_id, user=request.user)
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        if entrant.state == Entrant.State.WAITING:
            messages.success(request, _("You have left the waiting list."))
        else:
            messages.success(request, _("Your entry is withdrawn."))
    return redirect(_next_or(request, "tournaments:event", tournament_id=tournament_id))


@login_required
@require_POST
def request_bye(request, tournament_id: int):
    """Ask to sit out a round (`round`), or with `cancel` withdraw the request."""
    cancel = "cancel" in request.POST
    try:
        entrant = services.do_request_bye(
            tournament_id=tournament_id, user=request.user, round_number=None if cancel else request.POST.get("round")
        )
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        if cancel:
            messages.success(request, _("Your bye request is withdrawn."))
        else:
            messages.success(
                request,
                _("You will sit out round %(number)s (a requested bye).") % {"number": entrant.requested_bye_round},
            )
    return redirect(_next_or(request, "tournaments:event", tournament_id=tournament_id))


@login_required
@require_POST
def check_in(request, tournament_id: int):
    return _act(
        request,
        tournament_id,
        lambda: services.do_check_in(tournament_id=tournament_id, user=request.user),
        _("You are checked in."),
    )


@dataclass(frozen=True)
class ArenaButton:
    """One of an arena player's buttons: the service it calls (with the player and the
    event's or the game's id from the URL), what the page then says, and the page to go
    back to when the form names no `next`: the event's page, or the event list for a
    button that names a game (there is no game's page to go back to)."""

    service: Callable[..., object]
    done_message: str
    back_to_event: bool = True


# The arena's buttons (formats.arena), by the `button` each of their URLs passes (tournaments/urls.py).
ARENA_BUTTONS = {
    "pause": ArenaButton(
        services.do_arena_pause, gettext_lazy("You are paused: you are not seated again until you come back.")
    ),
    "return": ArenaButton(
        services.do_arena_return, gettext_lazy("You are back: you are seated as soon as others are free.")
    ),
    "leave": ArenaButton(services.do_arena_leave, gettext_lazy("You have left the arena: your games keep counting.")),
    # The table page's «Berserk»: it names the table as `next`; the event list is only a fallback.
    "berserk": ArenaButton(
        services.do_berserk,
        gettext_lazy("Berserk: your turn timer is halved in this game; win it for the extra point."),
        back_to_event=False,
    ),
}


@login_required
@require_POST
def arena_button(request, button: str, **target):
    """A press of ARENA_BUTTONS[button]; `target` is the URL's `tournament_id` or `game_id`."""
    press = ARENA_BUTTONS[button]
    try:
        press.service(user=request.user, **target)
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, str(press.done_message))
    if press.back_to_event:
        return redirect(_next_or(request, "tournaments:event", **target))
    return redirect(_next_or(request, "tournaments:list"))


def export(request, tournament_id: int, what: str, fmt: str):
    """An export of the event (exports.WRITERS: standings or games as CSV, XLSX, TRF-like text)."""
    event = _public_event(request, tournament_id)
    try:
        content, content_type, filename = exports.export(event, what, fmt)
    except LookupError:
        raise Http404 from None
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def my_seat(request):
    return HttpResponse(
        render_to_string("tournaments/partials/seat_notice.html", {"seat": selectors.seat_for(request.user)})
    )


# ------------------------------------------------------------------- pairs


@login_required
def pairs(request):
    if request.method == "POST":
        name = request.POST.get("partner", "").strip()
        partner = game_selectors.player_by_typed_name(name) if name else None
        if name and partner is None:  # "choose another player" told a typo nothing
            messages.error(request, _("There is no such player."))
            return redirect("tournaments:pairs")
        try:
            services.do_invite_partner(user=request.user, partner=partner)
        except Refusal as refusal:
            messages.error(request, str(refusal))
        else:
            messages.success(request, _("Invitation sent."))
        return redirect("tournaments:pairs")
    return render(request, "tournaments/pairs.html", selectors.pairs_page(request.user))


def pair_page(request, pair_id: int):
    pair = get_object_or_404(Pair.objects.select_related("player_one", "player_two"), pk=pair_id)
    return render(
        request,
        "tournaments/pair.html",
        {"pair": pair, "results": selectors.pair_results(pair), "ratings": selectors.pair_ratings(pair)},
    )


@login_required
@require_POST
def pair_answer(request, pair_id: int):
    try:
        accept = request.POST.get("accept") == "1"
        pair = services.do_answer_invitation(pair_id=pair_id, user=request.user, accept=accept)
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        partner = pair.player_one.get_username()
        if accept:
            messages.success(request, _("You and %(partner)s are a pair now.") % {"partner": partner})
        else:
            messages.info(request, _("You declined the invitation of %(partner)s.") % {"partner": partner})
    return redirect("tournaments:pairs")


@login_required
@require_POST
def pair_dissolve(request, pair_id: int):
    try:
        services.do_dissolve_pair(pair_id=pair_id, user=request.user)
    except Refusal as refusal:
        messages.error(request, str(refusal))
    return redirect("tournaments:pairs")


# ----------------------------------------------------------- the director


def director_only(view):
    @wraps(view)
    @login_required
    def wrapped(request, *args, **kwargs):
        if not services.can_direct(request.user):
            raise PermissionDenied(_("Only a tournament director may do this."))  # the site's 403 page
        return view(request, *args, **kwargs)

    return wrapped


# ------------------------------------------------------------------- paper


def _print_round(request, event: Tournament) -> Round | None:
    """?round=N, else the latest round; a round that is not there is a 404, not an empty sheet."""
    raw = request.GET.get("round", "")
    if raw and not (raw.isascii() and raw.isdigit() and len(raw) <= 4):
        raise Http404
    round_ = paper.round_of(event, int(raw) if raw else None)
    if raw and round_ is None:
        raise Http404
    return round_


def _print_page(request, template: str, sheet: dict):
    return render(request, template, {**sheet, "is_director": services.can_direct(request.user)})


def _pdf(content: bytes, event: Tournament, name: str) -> HttpResponse:
    response = HttpResponse(content, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="event-{event.pk}-{name}.pdf"'
    return response


def print_pairings(request, tournament_id: int, pdf: bool = False):
    event = _public_event(request, tournament_id)
    sheet = paper.pairings(event, _print_round(request, event), director=services.can_direct(request.user))
    url = request.build_absolute_uri(reverse("tournaments:event", args=[event.pk]))
    if pdf:
        return _pdf(paper.pairings_pdf(sheet, url), event, "pairings")
    return _print_page(
        request, "tournaments/print/pairings.html", {**sheet, "event_url": url, "qr": paper.qr_svg_uri(url)}
    )


@director_only
def print_slips(request, tournament_id: int, pdf: bool = False):
    event = get_object_or_404(Tournament, pk=tournament_id)
    sheet = paper.result_slips(event, _print_round(request, event))
    if pdf:
        return _pdf(paper.slips_pdf(sheet), event, "slips")
    return _print_page(request, "tournaments/print/slips.html", {**sheet, "note": paper.slip_note(event)})


def print_standings(request, tournament_id: int, pdf: bool = False):
    event = _public_event(request, tournament_id)
    sheet = paper.standings_sheet(event)
    if pdf:
        return _pdf(paper.standings_pdf(sheet), event, "standings")
    return _print_page(request, "tournaments/print/standings.html", sheet)


@director_only
def direct_list(request):
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            event, created = services.do_create_event(
                event=form.save(commit=False),
                by=request.user,
                key=request.POST.get("creation_key"),
                draft=request.POST.get("draft") == "1",
            )
        except Refusal as refusal:
            messages.error(request, str(refusal))
        else:
            if created:
                messages.success(request, _("The event is created."))
            else:  # the same form sent twice (a double click): the first made the event
                messages.info(request, _("This event was already created by the same form."))
            return redirect("tournaments:direct", tournament_id=event.pk)
    events = Tournament.objects.order_by("-starts_at")[:100]
    return render(
        request,
        "tournaments/direct_list.html",
        {"form": form, "events": events, "creation_key": uuid.uuid4().hex},
    )


@director_only
def direct(request, tournament_id: int):
    event = get_object_or_404(Tournament, pk=tournament_id)
    if request.method == "POST":
        return _direct_action(request, event)
    form = TournamentForm(instance=event)
    rounds = list(event.round_set.order_by("number").prefetch_related("tables", "results"))
    names = selectors.entrant_names(event)
    for round_ in rounds:
        round_.flag_lines = selectors.round_flags(round_, names)
        round_.games = selectors.correctable_games(round_, names)
    return render(
        request,
        "tournaments/direct.html",
        {
            **panel_context(event, request.user),
            "form": form,
            "rounds": rounds,
            "entrants": event.entrants.select_related("user", "pair__player_one", "pair__player_two"),
            "names": names,
            "oob": False,
            # "Start now" starts the event, or between rounds the next round; never a round on or an event over.
            "can_start_now": _can_start_now(event),
            "can": {action: services.allowed(event, action) for action in services.TRANSITIONS},
            "history": selectors.director_history(event),
            "adjudicable": selectors.adjudicable_tables(event),
            "absence_rows": selectors.absence_rows(event),
            "stuck_steps": selectors.stuck_steps(event),
            "late_pairs": selectors.pairs_to_enter(event) if event.is_pairs else [],
            "announcement_limit": services.ANNOUNCEMENT_LIMIT,
            "all_announcements": selectors.announcements_of(event, for_director=True),
            "draft": selectors.draft_view(event),
            "live_seating": selectors.live_seating_view(event),
            "house_bot_seats": selectors.house_bot_seats(event),
        },
    )


def _can_start_now(event: Tournament) -> bool:
    if not services.allowed(event, "start"):
        return False
    if not event.is_under_way:
        return True
    latest = services.current_round(event)
    return latest is not None and latest.status == Round.Status.SCHEDULED


def _direct_action(request, event: Tournament):
    """One director action (`director_actions.ACTIONS`): looked up, its permission checked,
    its service called; every one answers on the director's page, a refusal as a message."""
    action = director_actions.ACTIONS.get(request.POST.get("action", ""))
    if action is None:  # a form of another version of the page, or a hand-made post: nothing changes
        page = {"exception": _("There is no such action on the director's page.")}
        return render(request, "400.html", page, status=400)
    if not action.permission(request.user):
        raise PermissionDenied(_("Only a tournament director may do this."))  # the site's 403 page
    try:
        arguments = action.arguments(event, request.POST)
        if action.confirm and request.POST.get("confirm") != "1":  # the first step only asks
            page = {"event": event, "action": action.name, **action.confirm(event, arguments)}
            return render(request, "tournaments/direct_confirm.html", page)
        result = action.service(tournament_id=event.pk, by=request.user, **arguments)
    except Refusal as refusal:
        action.refusals(request, refusal)
    except (KeyError, ValueError):
        messages.error(request, _("Fill in the form first."))
    else:
        done = director_actions.Done(event, arguments, result)
        for warning in action.warnings(done):
            messages.warning(request, warning)
        messages.success(request, action.said(done))
        return redirect(action.goes_to(done))
    return redirect("tournaments:direct", tournament_id=event.pk)
