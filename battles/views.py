"""Battle pages: the list, the new battle, a battle's page with its live board, answers and
entries, its board as CSV and on paper, and the club ladder. Thin: each write calls one service;
a refusal becomes a message on the page it came from."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST

from clubs.models import Club
from games.choices import Variant
from games.errors import Refusal
from tournaments.exports import Sheet, write_csv

from . import club_rating, selectors, services
from .forms import BattleForm
from .models import Battle


def battle_list(request):
    return render(
        request,
        "battles/list.html",
        {
            "battles": selectors.battles_by_state(),
            "may_organise": selectors.may_organise(request.user),
            "invitations": selectors.invitations_for(request.user),
        },
    )


@login_required
def new_battle(request):
    if not selectors.may_organise(request.user):
        messages.error(request, _("Battles are created by a club's leader with the right to run events."))
        return redirect("battles:list")
    form = BattleForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            battle = services.do_create_battle(
                request.user,
                club=data["club"],
                name=data["name"],
                variant=data["variant"],
                format=data["format"],
                pairs=data["pairs"],
                table_size=data["table_size"],
                top_k=data["top_k"],
                starts_at=data["starts_at"],
                invited=data["invited"],
                arena_minutes=data["arena_minutes"],
                rounds=data["rounds"],
            )
        except Refusal as refusal:
            form.add_error(None, str(refusal))
        else:
            return redirect("battles:battle", battle_id=battle.pk)
    return render(request, "battles/new.html", {"form": form})


def _battle(battle_id: int) -> Battle:
    return get_object_or_404(Battle.objects.select_related("tournament", "organiser"), pk=battle_id)


def board_context(battle: Battle, user) -> dict:
    return {"battle": battle, "event": battle.tournament, "board": selectors.battle_board(battle)}


def render_board(battle: Battle, user, *, oob: bool = False, request=None) -> str:
    return render_to_string("battles/partials/board.html", {**board_context(battle, user), "oob": oob}, request=request)


def battle_page(request, battle_id: int):
    battle = _battle(battle_id)
    context = {
        **board_context(battle, request.user),
        "actions": selectors.page_actions(battle, request.user),
        "my_pairs": selectors.pairs_of(request.user)
        if battle.tournament.is_pairs and request.user.is_authenticated
        else [],
    }
    return render(request, "battles/battle.html", context)


def _act(request, battle_id: int, action, done: str):
    try:
        action()
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, done)
    return redirect("battles:battle", battle_id=battle_id)


def _int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


@require_POST
@login_required
def answer(request, battle_id: int, club_id: int):
    accept = request.POST.get("answer") == "accept"
    return _act(
        request,
        battle_id,
        lambda: services.do_answer_invitation(request.user, battle_id=battle_id, club_id=club_id, accept=accept),
        _("Your club takes part in the battle.") if accept else _("Your club declined the battle."),
    )


@require_POST
@login_required
def enter(request, battle_id: int):
    club_id, pair_id = _int(request.POST.get("club")), _int(request.POST.get("pair"))
    return _act(
        request,
        battle_id,
        lambda: services.do_enter(request.user, battle_id=battle_id, club_id=club_id or 0, pair_id=pair_id),
        _("You play for your club in this battle."),
    )


@require_POST
@login_required
def invite(request, battle_id: int):
    slug = (request.POST.get("club") or "").strip()[:40]

    def act():
        club = Club.objects.filter(slug=slug).first()
        if club is None:
            raise services.BattleRefused(_("No club has this address."))
        services.do_invite_club(request.user, battle_id=battle_id, club=club)

    return _act(request, battle_id, act, _("The club is invited."))


def _number(value: float):
    return int(value) if float(value).is_integer() else value


def board_csv(request, battle_id: int):
    battle = _battle(battle_id)
    board = selectors.battle_board(battle)
    header = [
        pgettext("battle csv", "place"),
        pgettext("battle csv", "club"),
        pgettext("battle csv", "status"),
        pgettext("battle csv", "score"),
        pgettext("battle csv", "players"),
        pgettext("battle csv", "counting players"),
    ]
    rows = [
        [
            row.rank,
            row.club.name,
            row.status_label,
            _number(row.score) if row.rank else None,
            row.players if row.rank else None,
            "; ".join(f"{s.name} ({s.points:g})" for s in row.counting),
        ]
        for row in board.clubs
    ]
    response = HttpResponse(write_csv(Sheet(pgettext("battle csv", "Battle"), header, rows)), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="battle-{battle.pk}.csv"'
    return response


def board_print(request, battle_id: int):
    battle = _battle(battle_id)
    return render(request, "battles/print.html", board_context(battle, request.user))


def club_ladder(request):
    variant = request.GET.get("variant")
    if variant not in Variant.values:
        variant = Variant.PODKIDNOY
    return render(
        request,
        "battles/ladder.html",
        {"rows": club_rating.club_ladder(variant), "variant": variant, "variants": Variant.choices},
    )
