"""Pairs: inviting a partner, answering the invitation, dissolving the pair.

A pair belongs to two players, not to an event, so nothing here locks an event.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import limits
from games.services import tables as game_tables

from .. import notify
from ..errors import TournamentRefused
from ..models import Entrant, Pair, Tournament


def do_invite_partner(*, user, partner) -> Pair:
    if partner is None or partner.pk == user.pk:
        raise TournamentRefused(_("Choose another player as your partner."))
    if game_tables.is_guest(user) or game_tables.is_guest(partner):
        raise TournamentRefused(_("Pairs are for players with an account."))
    with transaction.atomic():
        live = Pair.objects.filter(status__in=[Pair.Status.INVITED, Pair.Status.ACTIVE]).filter(
            Q(player_one=user, player_two=partner) | Q(player_one=partner, player_two=user)
        )
        if live.exists():
            raise TournamentRefused(_("You already have a pair or an invitation with this player."))
        if not limits.hit("pair-invite", user.pk, limits.setting("PAIR_INVITE_RATE")):
            raise TournamentRefused(_("You are sending too many pair invitations: try again later."))
        pair = Pair.objects.create(player_one=user, player_two=partner, created_by=user)
    notify.user_changed_on_commit(partner.pk)
    return pair


def _locked_pair(pair_id: int) -> Pair:
    pair = Pair.objects.select_for_update(of=("self",)).filter(pk=pair_id).first()
    if pair is None:
        raise TournamentRefused(_("There is no such pair."))
    return pair


def do_answer_invitation(*, pair_id: int, user, accept: bool) -> Pair:
    with transaction.atomic():
        pair = _locked_pair(pair_id)
        if pair.player_two_id != user.pk:
            raise TournamentRefused(_("This invitation is not yours to answer."))
        if pair.status != Pair.Status.INVITED:
            raise TournamentRefused(_("This invitation has already been answered."))
        pair.status = Pair.Status.ACTIVE if accept else Pair.Status.DECLINED
        pair.answered_at = timezone.now()
        pair.save(update_fields=["status", "answered_at"])
    notify.user_changed_on_commit(pair.player_one_id)
    return pair


def do_dissolve_pair(*, pair_id: int, user) -> Pair:
    """Either partner ends the pair; its games and results stay."""
    with transaction.atomic():
        pair = _locked_pair(pair_id)
        if user.pk not in (pair.player_one_id, pair.player_two_id):
            raise TournamentRefused(_("This is not your pair."))
        if pair.status not in (Pair.Status.INVITED, Pair.Status.ACTIVE):
            raise TournamentRefused(_("This pair has already ended."))
        running = pair.entries.filter(state=Entrant.State.ACTIVE, tournament__status__in=Tournament.UNDER_WAY).exists()
        if running:
            raise TournamentRefused(_("The pair plays in a running event: withdraw from it first."))
        pair.status = Pair.Status.DISSOLVED
        pair.dissolved_at = timezone.now()
        pair.save(update_fields=["status", "dissolved_at"])
        return pair
