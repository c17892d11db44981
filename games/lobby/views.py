"""The lobby (the home page), opening tables and the table POST endpoints.

Thin views: each write calls one service; a refusal becomes a message on the
table page (or an error on the form).
"""

from functools import wraps

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import limits, selectors
from games.display import bot_choices, default_bot_level, players_text, variant_name
from games.errors import Refusal
from games.models import Table
from games.services import accounts, claim, matchmaking, play, tables

from .forms import NewTableForm, PlayNowForm, QuickGameForm
from .rendering import lobby_context

INVITE_TOKENS = "invite_tokens"  # session key: {table id: the invite token it came through}

# ------------------------------------------------------------------- the lobby


def home(request):
    can_rate = request.user.is_authenticated and not tables.is_guest(request.user)
    context = {
        **lobby_context(request.user),
        "oob": False,
        "play_form": PlayNowForm(),
        "quick_form": QuickGameForm(),
        "can_rate": can_rate,
    }
    return render(request, "games/lobby/home.html", context)


# ------------------------------------------------------------- opening a table


@login_required
def table_new(request):
    can_rate = not tables.is_guest(request.user)
    form = NewTableForm(request.POST or None, can_rate=can_rate)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            limits.check_table_rate(request.user)
            table = tables.do_create_table(
                rules=form.rules,
                host=request.user,
                turn_seconds=data["turn_seconds"],
                is_private=form.is_private,
                rated=data["rated"],
                bot_level=data["bot_level"],
            )
        except Refusal as refusal:
            form.add_error(None, str(refusal))
        else:
            return redirect("games:table", table_id=table.pk)
    return render(request, "games/lobby/new_table.html", {"form": form, "can_rate": can_rate})


def table_invite(request, token: str):
    """A private table's invite link: remember the invitation, go to the table."""
    table = get_object_or_404(Table, invite_token=token)
    if table.status == Table.Status.CLOSED:
        # Its last person left: say so, rather than a seat at an empty table or a bare 404.
        return render(request, "games/lobby/table_gone.html", status=410)
    invited = list(request.session.get("invited_tables", []))
    if table.pk not in invited:
        invited.append(table.pk)
        request.session["invited_tables"] = invited
    tokens = dict(request.session.get(INVITE_TOKENS, {}))
    if tokens.get(str(table.pk)) != token:
        tokens[str(table.pk)] = token  # joining a private table needs it (tables.do_join_table)
        request.session[INVITE_TOKENS] = tokens
    return redirect("games:table", table_id=table.pk)


@require_POST
def table_guest(request, table_id: int):
    """The «play as a guest» button of a table one was invited to: a new guest, seated, in one tap."""
    if request.user.is_authenticated:
        return _back_to_table(table_id)  # already someone: the table's own "take a seat" serves
    if not Table.objects.filter(pk=table_id).exists():
        raise Http404(_("There is no such table."))
    try:
        limits.check_guest_rate(request)  # a Refusal: too many new guests from this address
        user = accounts.do_join_as_guest(
            table_id=table_id, invite_token=invite_token_of(request, table_id), prefix=_("Guest")
        )
    except Refusal as refusal:
        messages.error(request, str(refusal))
        return _back_to_table(table_id)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return _back_to_table(table_id)


def invite_token_of(request, table_id: int) -> str | None:
    """The invite token this browser came through (or sent with the form) for a table."""
    return request.POST.get("invite") or request.session.get(INVITE_TOKENS, {}).get(str(table_id))


# ---------------------------------------------------- POST endpoints of a table


def _back_to_table(table_id: int):
    return redirect(reverse("games:table", kwargs={"table_id": table_id}))


def table_action(view):
    """POST only; a visitor who is not signed in is sent to log in and then back to the table.
    A table that does not exist is a 404 at once (no message left for the next page)."""

    @require_POST
    @wraps(view)
    def wrapper(request, table_id: int):
        if not Table.objects.filter(pk=table_id).exists():
            raise Http404(_("There is no such table."))
        if not request.user.is_authenticated:
            return redirect_to_login(reverse("games:table", kwargs={"table_id": table_id}))
        return view(request, table_id)

    return wrapper


def _seat_number(request, field: str = "seat"):
    value = request.POST.get(field, "").strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        return -1  # no such seat: the service refuses it


@table_action
def table_join(request, table_id: int):
    try:
        tables.do_join_table(
            table_id=table_id,
            user=request.user,
            seat_number=_seat_number(request),
            invite_token=invite_token_of(request, table_id),
        )
    except Refusal as refusal:
        messages.error(request, str(refusal))
    return _back_to_table(table_id)


@table_action
def table_leave(request, table_id: int):
    try:
        tables.do_leave_table(table_id=table_id, user=request.user)
    except Refusal as refusal:
        messages.error(request, str(refusal))
        return _back_to_table(table_id)
    return redirect("games:home")


@table_action
def table_start(request, table_id: int):
    # An agreement that waits for the others is said by the table's own seating region
    # (state.html), which the deal replaces live; a page message would stay through the game.
    try:
        tables.do_start_game(table_id=table_id, user=request.user)
    except Refusal as refusal:
        messages.error(request, str(refusal))
    return _back_to_table(table_id)


@table_action
def table_bot(request, table_id: int):
    seat = _seat_number(request)
    level = request.POST.get("level", "").strip()
    if seat is None:
        messages.error(request, _("Choose a seat for the bot."))
        return _back_to_table(table_id)
    try:
        tables.do_set_bot(table_id=table_id, user=request.user, seat_number=seat, level=level)
    except Refusal as refusal:
        messages.error(request, str(refusal))
    return _back_to_table(table_id)


def _act_on_playing_game(request, table_id: int, service, done: str = ""):
    """Call `service(game_id=..., user=...)` on the game being played at the table."""
    game_id = selectors.playing_game_id(table_id)
    if game_id is None:
        messages.error(request, _("No game is being played at this table."))
        return _back_to_table(table_id)
    try:
        service(game_id=game_id, user=request.user)
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        if done:
            messages.info(request, done)
    return _back_to_table(table_id)


@table_action
def table_resign(request, table_id: int):
    return _act_on_playing_game(
        request,
        table_id,
        play.do_resign,
        done=_("You resigned: a bot plays your cards to the end, and you take last place."),
    )


@table_action
def table_back(request, table_id: int):
    """The "I'm back" button: take the seat back from the autopilot."""
    return _act_on_playing_game(request, table_id, play.do_return_to_seat)


@table_action
def table_finish(request, table_id: int):
    """Play out at once a game that only bots still play."""
    return _act_on_playing_game(request, table_id, play.do_finish_now)


@table_action
def table_claim(request, table_id: int):
    """«Забрать победу»: end the game against an opponent gone from a table without a timer."""
    return _act_on_playing_game(
        request,
        table_id,
        claim.do_claim_victory,
        done=_("You claimed the game: whoever left takes last place, the others rank as they stood."),
    )


# ------------------------------------------------------------------- play now


def _guest_or_user(request):
    """The signed-in person, or a new guest signed in now (guests queue for unrated games)."""
    if request.user.is_authenticated:
        return request.user
    limits.check_guest_rate(request)  # a Refusal: too many new guests from this address
    user = accounts.do_create_guest(prefix=_("Guest"))
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return user


@require_POST
def play_now(request):
    """Join the "play now" queue and go to the waiting page."""
    form = PlayNowForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a variant and a table size."))
        return redirect("games:home")
    try:
        user = _guest_or_user(request)
        entry = matchmaking.do_join_queue(
            user=user,
            variant=form.cleaned_data["variant"],
            players=form.players,
            partners=form.partners,
            rated=form.cleaned_data["rated"],
        )
    except Refusal as refusal:
        messages.error(request, str(refusal))
        return redirect("games:home")
    if entry.status == entry.Status.MATCHED and entry.table_id:
        return redirect("games:table", table_id=entry.table_id)
    return redirect("games:play-wait")


def _queue_context(entry) -> dict:
    now = timezone.now()
    waited = max(0, int((now - entry.created_at).total_seconds()))
    count = matchmaking.waiting_count(entry, now)
    return {
        "entry": entry,
        "variant": variant_name(entry.variant),
        "players_text": players_text(entry.players),
        "waited": waited,
        "waiting": count,
        "missing": max(0, entry.players - count),
        "offer_bots": waited >= matchmaking.BOTS_AFTER_SECONDS,
        "bots_after": matchmaking.BOTS_AFTER_SECONDS,
        "poll_seconds": matchmaking.POLL_SECONDS,
        "bot_choices": bot_choices(),
        "default_level": default_bot_level(),
    }


@login_required
def play_wait(request):
    """The waiting page: the wait, live (htmx asks `play_status` every couple of seconds)."""
    entry = matchmaking.do_poll_queue(user=request.user)
    if entry is None or entry.status == entry.Status.LEFT:
        return redirect("games:home")
    if entry.status == entry.Status.MATCHED and entry.table_id:
        return redirect("games:table", table_id=entry.table_id)
    return render(request, "games/lobby/play_wait.html", _queue_context(entry))


def play_status(request):
    """The live part of the waiting page; once seated, htmx goes to the table."""
    entry = matchmaking.do_poll_queue(user=request.user)
    if entry is None or entry.status == entry.Status.LEFT:
        return _htmx_redirect(reverse("games:home"))
    if entry.status == entry.Status.MATCHED and entry.table_id:
        return _htmx_redirect(reverse("games:table", kwargs={"table_id": entry.table_id}))
    return render(request, "games/lobby/partials/queue_status.html", _queue_context(entry))


def _htmx_redirect(url: str) -> HttpResponse:
    response = HttpResponse(status=204)
    response["HX-Redirect"] = url
    return response


@require_POST
@login_required
def play_leave(request):
    matchmaking.do_leave_queue(user=request.user)
    return redirect("games:home")


@require_POST
@login_required
def play_with_bots(request):
    """Stop waiting: fill the table with bots now."""
    level = request.POST.get("level", "").strip() or default_bot_level()
    try:
        table = matchmaking.do_fill_with_bots(user=request.user, bot_level=level)
    except Refusal as refusal:
        messages.error(request, str(refusal))
        return redirect("games:play-wait")
    return redirect("games:table", table_id=table.pk)
