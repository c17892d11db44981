"""Event pages, pair pages and the director's page. Thin: each write calls one
service; a refusal becomes a message on the page it came from."""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.errors import Refusal

from . import selectors, services, standings
from .forms import TournamentForm
from .models import Pair, Round, Tournament


def event_list(request):
    return render(request, "tournaments/list.html", {"events": selectors.events_by_state()})


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
        "my_user_id": getattr(user, "pk", None),
        "seconds_to_start": _seconds_to_start(event),
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


def event_page(request, tournament_id: int):
    event = get_object_or_404(Tournament, pk=tournament_id)
    return render(request, "tournaments/event.html", {**panel_context(event, request.user), "oob": False})


def event_panel(request, tournament_id: int):
    event = get_object_or_404(Tournament, pk=tournament_id)
    return HttpResponse(render_panel(event, request.user, request=request))


def _act(request, tournament_id: int, action, done_message=None):
    try:
        action()
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        if done_message:
            messages.success(request, done_message)
    return redirect(request.POST.get("next") or "tournaments:event", tournament_id=tournament_id)


@login_required
@require_POST
def register(request, tournament_id: int):
    pair_id = request.POST.get("pair") or None
    return _act(
        request,
        tournament_id,
        lambda: services.do_register(
            tournament_id=tournament_id, user=request.user, pair_id=int(pair_id) if pair_id else None
        ),
        _("You are entered."),
    )


@login_required
@require_POST
def unregister(request, tournament_id: int):
    return _act(request, tournament_id, lambda: services.do_unregister(tournament_id=tournament_id, user=request.user))


@login_required
@require_POST
def check_in(request, tournament_id: int):
    return _act(
        request,
        tournament_id,
        lambda: services.do_check_in(tournament_id=tournament_id, user=request.user),
        _("You are checked in."),
    )


def standings_csv(request, tournament_id: int):
    event = get_object_or_404(Tournament, pk=tournament_id)
    response = HttpResponse(selectors.standings_csv(event), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="event-{event.pk}-standings.csv"'
    return response


def games_csv(request, tournament_id: int):
    event = get_object_or_404(Tournament, pk=tournament_id)
    response = HttpResponse(selectors.games_csv(event), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="event-{event.pk}-games.csv"'
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
        partner = get_user_model().objects.filter(username__iexact=name).first() if name else None
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
    return render(request, "tournaments/pairs.html", {"pairs": selectors.pairs_of(request.user)})


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


@director_only
def direct_list(request):
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        event = form.save(commit=False)
        event.created_by = request.user
        event.save()
        services.schedule_nudges_on_commit(event.pk)
        return redirect("tournaments:direct", tournament_id=event.pk)
    events = Tournament.objects.order_by("-starts_at")[:100]
    return render(request, "tournaments/direct_list.html", {"form": form, "events": events})


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
            "announcement_limit": services.ANNOUNCEMENT_LIMIT,
        },
    )


def _can_start_now(event: Tournament) -> bool:
    if event.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        return False
    if event.status != Tournament.Status.RUNNING:
        return True
    latest = services.current_round(event)
    return latest is not None and latest.status == Round.Status.SCHEDULED


def _direct_action(request, event: Tournament):
    action = request.POST.get("action")
    by = request.user
    try:
        if action == "start":
            services.do_start_now(tournament_id=event.pk, by=by)
        elif action in ("pause", "resume"):
            services.do_set_paused(tournament_id=event.pk, by=by, paused=action == "pause")
        elif action == "late":
            user = get_user_model().objects.filter(username=request.POST.get("username", "").strip()).first()
            pair_id = request.POST.get("pair") or None
            services.do_add_late_entrant(
                tournament_id=event.pk, by=by, user=user, pair_id=int(pair_id) if pair_id else None
            )
        elif action in ("withdraw", "disqualify"):
            services.do_withdraw(entrant_id=int(request.POST["entrant"]), by=by, disqualify=action == "disqualify")
        elif action == "correct":
            services.do_correct_result(
                result_id=int(request.POST["result"]),
                by=by,
                points=request.POST.get("points"),
                note=request.POST.get("note", ""),
            )
        elif action == "reseat":
            tables = [
                [int(x) for x in line.replace(",", " ").split()]
                for line in request.POST.get("tables", "").splitlines()
                if line.strip()
            ]
            services.do_reseat_round(
                tournament_id=event.pk, number=int(request.POST.get("round") or 1), by=by, tables=tables
            )
        elif action == "announce":
            services.do_announce(tournament_id=event.pk, by=by, text=request.POST.get("text", ""))
        elif action == "edit":
            form = TournamentForm(request.POST, instance=event)
            if not form.is_valid():
                # One message per error, named by the field's label (not "* rounds * ..." with its code name).
                for field, errors in form.errors.items():
                    label = capfirst(form.fields[field].label) if field in form.fields else ""
                    for error in errors:
                        messages.error(request, f"{label}: {error}" if label else error)
                return redirect("tournaments:direct", tournament_id=event.pk)
            if event.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED):
                messages.error(request, _("The event has started: its setup is fixed."))
                return redirect("tournaments:direct", tournament_id=event.pk)
            form.save()
            services.schedule_nudges_on_commit(event.pk)
        elif action == "copy":
            copy = services.do_copy_event(tournament_id=event.pk, by=by)
            return redirect("tournaments:direct", tournament_id=copy.pk)
        else:
            messages.error(request, _("Unknown action."))
            return redirect("tournaments:direct", tournament_id=event.pk)
    except Refusal as refusal:
        messages.error(request, str(refusal))
    except (KeyError, ValueError):
        messages.error(request, _("Fill in the form first."))
    else:
        messages.success(request, _("Done."))
    return redirect("tournaments:direct", tournament_id=event.pk)
