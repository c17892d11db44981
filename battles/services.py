"""Every write of a club battle, one `do_*` function each, one transaction each.

The battle's row is locked (`select_for_update`) by whatever changes who plays in it, so two
clicks at once are applied one after the other and the second sees the first: a player entering
for two clubs at once gets one entry and a refusal. Nothing is written when a step is refused.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from clubs.models import Club
from clubs.selectors import is_member, may
from tournaments import notify as event_notify
from tournaments import services as event_services
from tournaments import signals as event_signals
from tournaments.models import Pair, Tournament
from tournaments.services.base import locked_event
from tournaments.services.entries import new_entrant

from . import signals
from .club_rating import do_record_club_result
from .errors import BattleRefused
from .models import MAX_CLUBS, MAX_TOP, MIN_CLUBS, MIN_TOP, Battle, BattleClub, BattlePlayer

#: Formats a battle is played in: the event's own (arena or Swiss), individual or in 2v2 pairs.
FORMATS = (Tournament.Format.ARENA, Tournament.Format.SWISS)
#: Statuses of its event in which clubs still join and players still enter.
BEFORE_START = (Tournament.Status.SCHEDULED, Tournament.Status.REGISTRATION, Tournament.Status.CHECKIN)
SOURCE = "battle"


def _signed_in(user) -> None:
    if user is None or not user.is_authenticated:
        raise BattleRefused(_("Sign in first."))


def _locked_battle(battle_id: int) -> Battle:
    battle = Battle.objects.select_for_update(of=("self",)).filter(pk=battle_id).select_related("tournament").first()
    if battle is None:
        raise BattleRefused(_("There is no such battle."))
    return battle


def _not_started(battle: Battle) -> None:
    if battle.tournament.status not in BEFORE_START:
        raise BattleRefused(_("The battle has started: no club joins it now."))


@transaction.atomic
def do_create_battle(
    actor,
    *,
    club: Club,
    name: str,
    variant: str,
    format: str,
    pairs: bool,
    table_size: int,
    top_k: int,
    starts_at,
    invited: list[Club],
    arena_minutes: int | None = None,
    rounds: int | None = None,
    turn_seconds: int = 30,
) -> Battle:
    """A leader with the right to run events creates a battle for his club (which takes part) and
    invites the other clubs; each of them answers through its own leaders."""
    _signed_in(actor)
    if not may(actor, club, "run_events"):
        raise BattleRefused(_("Only a leader of the club with the right to run events may create its battles."))
    if format not in FORMATS:
        raise BattleRefused(_("A battle is an arena or Swiss rounds."))
    if not isinstance(top_k, int) or not MIN_TOP <= top_k <= MAX_TOP:
        raise BattleRefused(_("From 1 to 20 of a club's players count."))
    others = {c.pk: c for c in invited if c.pk != club.pk}
    if not MIN_CLUBS <= len(others) + 1 <= MAX_CLUBS:
        raise BattleRefused(_("A battle is fought by 2 to 50 clubs."))
    if any(c.suspended_at is not None for c in others.values()):
        raise BattleRefused(_("A suspended club cannot be invited."))
    if starts_at is None or starts_at <= timezone.now():
        raise BattleRefused(_("The battle starts in the future."))
    event = Tournament(
        name=(name or "").strip()[:120],
        variant=variant,
        kind=Tournament.Kind.PAIRS if pairs else Tournament.Kind.INDIVIDUAL,
        table_size=4 if pairs else table_size,
        format=format,
        starts_at=starts_at,
        arena_minutes=arena_minutes if format == Tournament.Format.ARENA else None,
        rounds=(rounds or 1) if format == Tournament.Format.SWISS else 1,
        pause_between_rounds=timedelta(minutes=1),
        turn_seconds=turn_seconds,
        created_by=actor,
        # Entered for a club on the battle's page only (do_enter): the event's own registration
        # is closed from the start, so nobody plays in it for no club.
        registration_closes=timezone.now(),
    )
    if not event.name:
        raise BattleRefused(_("Give the battle a name."))
    if format == Tournament.Format.SWISS and not (rounds and 1 <= rounds <= 30):
        raise BattleRefused(_("Swiss rounds: from 1 to 30."))
    try:
        event_services.validate_event(event)
    except event_services.TournamentRefused as refusal:
        raise BattleRefused(refusal.message) from None
    event.save()
    battle = Battle.objects.create(tournament=event, organiser=club, top_k=top_k, created_by=actor)
    # The event's own page says where it is entered (its registration is closed to everyone).
    event.description = gettext("A club battle: players enter for their clubs on the battle's page, %(url)s") % {
        "url": reverse("battles:battle", kwargs={"battle_id": battle.pk})
    }
    event.save(update_fields=["description"])
    BattleClub.objects.create(
        battle=battle, club=club, status=BattleClub.Status.ACCEPTED, answered_at=timezone.now(), answered_by=actor
    )
    for other in others.values():
        invitation = BattleClub.objects.create(battle=battle, club=other)
        signals.send_on_commit(signals.club_invited, battle_club_id=invitation.pk)
    event_services.schedule_nudges_on_commit(event.pk)
    return battle


@transaction.atomic
def do_invite_club(actor, *, battle_id: int, club: Club) -> BattleClub:
    """The organising club's leader invites one more club before the start."""
    _signed_in(actor)
    battle = _locked_battle(battle_id)
    if battle.organiser is None or not may(actor, battle.organiser, "run_events"):
        raise BattleRefused(_("Only a leader of the organising club invites clubs."))
    _not_started(battle)
    if club.suspended_at is not None:
        raise BattleRefused(_("A suspended club cannot be invited."))
    if battle.clubs.filter(club=club).exists():
        raise BattleRefused(_("This club is invited already."))
    if battle.clubs.exclude(status=BattleClub.Status.DECLINED).count() >= MAX_CLUBS:
        raise BattleRefused(_("A battle is fought by 2 to 50 clubs."))
    invitation = BattleClub.objects.create(battle=battle, club=club)
    signals.send_on_commit(signals.club_invited, battle_club_id=invitation.pk)
    event_notify.event_changed_on_commit(battle.tournament_id)
    return invitation


@transaction.atomic
def do_answer_invitation(actor, *, battle_id: int, club_id: int, accept: bool) -> BattleClub:
    """A leader of the invited club (with the right to run events) accepts or declines for it.
    Nobody answers for a club he does not lead, and no club joins once the battle started."""
    _signed_in(actor)
    battle = _locked_battle(battle_id)
    invitation = (
        BattleClub.objects.select_for_update(of=("self",))
        .filter(battle=battle, club_id=club_id)
        .select_related("club")
        .first()
    )
    if invitation is None:
        raise BattleRefused(_("This club is not invited to this battle."))
    if not may(actor, invitation.club, "run_events"):
        raise BattleRefused(
            _("Only a leader of «%(club)s» with the right to run events answers for it."), club=invitation.club.name
        )
    _not_started(battle)
    if invitation.status != BattleClub.Status.INVITED:
        raise BattleRefused(_("This club has answered already."))
    invitation.status = BattleClub.Status.ACCEPTED if accept else BattleClub.Status.DECLINED
    invitation.answered_at = timezone.now()
    invitation.answered_by = actor
    invitation.save(update_fields=["status", "answered_at", "answered_by"])
    event_notify.event_changed_on_commit(battle.tournament_id)
    return invitation


@transaction.atomic
def do_enter(user, *, battle_id: int, club_id: int, pair_id: int | None = None) -> list[BattlePlayer]:
    """A member of an accepted club enters for it (a pair: both partners of that club)."""
    _signed_in(user)
    battle = _locked_battle(battle_id)
    taking_part = battle.clubs.filter(club_id=club_id).select_related("club").first()
    if taking_part is None or taking_part.status != BattleClub.Status.ACCEPTED:
        raise BattleRefused(_("This club does not play in this battle."))
    club = taking_part.club
    if not is_member(user, club):
        raise BattleRefused(_("You can play only for a club you are a member of."))
    people = [user]
    if battle.tournament.is_pairs:
        pair = (
            Pair.objects.filter(pk=pair_id, status=Pair.Status.ACTIVE)
            .select_related("player_one", "player_two")
            .first()
            if pair_id
            else None
        )
        if pair is None or user.pk not in (pair.player_one_id, pair.player_two_id):
            raise BattleRefused(_("A pairs battle is entered by an active pair you belong to."))
        partner = pair.player_two if pair.player_one_id == user.pk else pair.player_one
        if not is_member(partner, club):
            raise BattleRefused(_("Both partners of a pair play for one club: your partner is not its member."))
        people.append(partner)
    elif pair_id:
        raise BattleRefused(_("This battle is for single players."))
    entered = BattlePlayer.objects.filter(battle=battle, user__in=people).select_related("club").first()
    if entered is not None:
        raise BattleRefused(
            _("%(player)s plays for «%(club)s» in this battle already."),
            player=entered.user.username,
            club=entered.club.name,
        )
    event = locked_event(battle.tournament_id)
    if event.status not in BEFORE_START:
        raise BattleRefused(_("The battle has started: entries are closed."))
    try:
        entrant = new_entrant(event, user, pair_id, self_entry=True)
    except event_services.TournamentRefused as refusal:
        raise BattleRefused(refusal.message) from None
    entrant.save()
    event_signals.send_on_commit(event_signals.registration_confirmed, tournament_id=event.pk, entrant_id=entrant.pk)
    event_notify.event_changed_on_commit(event.pk)
    return [BattlePlayer.objects.create(battle=battle, club=club, user=person, entrant=entrant) for person in people]


def do_record_battle_result(*, tournament_id: int):
    """Once the battle's event is over: its clubs' placings go to the club rating (once).
    Only clubs that had players are placed; fewer than two, and nothing is rated."""
    from .selectors import battle_board

    battle = Battle.objects.filter(tournament_id=tournament_id).select_related("tournament").first()
    if battle is None or battle.tournament.status != Tournament.Status.FINISHED:
        return None
    board = battle_board(battle)
    placings: list[list[int]] = []
    last_rank = None
    for row in board.clubs:
        if not row.players:
            continue
        if row.rank == last_rank:
            placings[-1].append(row.club.pk)
        else:
            placings.append([row.club.pk])
            last_rank = row.rank
    if sum(len(group) for group in placings) < 2:
        return None
    return do_record_club_result(
        variant=battle.tournament.variant, placings=placings, source=SOURCE, source_id=battle.pk
    )
