"""The lobby (the home page), opening tables and the table POST endpoints.

Thin views: each write calls one service; a refusal becomes a message on the
table page (or an error on the form).
"""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import selectors
from games.errors import Refusal
from games.models import Table
from games.services import play, tables

from .forms import NewTableForm
from .rendering import lobby_context

# ------------------------------------------------------------------- the lobby


def home(request):
    return render(request, "games/lobby/home.html", {**lobby_context(request.user), "oob": False})


# ------------------------------------------------------------- opening a table


@login_required
def table_new(request):
    can_rate = not tables.is_guest(request.user)
    form = NewTableForm(request.POST or None, can_rate=can_rate)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
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
    table = get_object_or_404(Table.objects.exclude(status=Table.Status.CLOSED), invite_token=token)
    invited = list(request.session.get("invited_tables", []))
    if table.pk not in invited:
        invited.append(table.pk)
        request.session["invited_tables"] = invited
    return redirect("games:table", table_id=table.pk)


# ---------------------------------------------------- POST endpoints of a table


def _back_to_table(table_id: int):
    return redirect(reverse("games:table", kwargs={"table_id": table_id}))


def table_action(view):
    """POST only; a visitor who is not signed in is sent to log in and then back to the table."""

    @require_POST
    @wraps(view)
    def wrapper(request, table_id: int):
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
        tables.do_join_table(table_id=table_id, user=request.user, seat_number=_seat_number(request))
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


@table_action
def table_resign(request, table_id: int):
    game_id = selectors.playing_game_id(table_id)
    if game_id is None:
        messages.error(request, _("No game is being played at this table."))
        return _back_to_table(table_id)
    try:
        play.do_resign(game_id=game_id, user=request.user)
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        messages.info(request, _("You resigned: a bot plays your cards to the end, and you take last place."))
    return _back_to_table(table_id)
