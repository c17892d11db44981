"""Entries: registering, the waiting list, check-in, one seat at a time, requested byes,
and the director's entry actions (late entrant, withdraw, reinstate, check in or out).

Each entry is written under the event's lock (`base.locked_event`), so the last free
place goes to one entry only and the waiting list is promoted in order.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.services import tables as game_tables

from .. import notify, registry, signals
from ..errors import TournamentRefused
from ..models import Entrant, Pair, Round, Tournament
from .base import current_round, locked_event
from .director import BEFORE_START, LIVE, check_allowed, entrant_name, log_action, require_director

# No entries, no check-in: a draft (not published), an event under way (running or paused), one over.
CLOSED = (Tournament.Status.DRAFT, *Tournament.UNDER_WAY, Tournament.Status.FINISHED, Tournament.Status.CANCELLED)


def registration_open(event: Tournament, now=None) -> bool:
    now = now or timezone.now()
    if event.status in CLOSED:
        return False
    if event.registration_opens and event.registration_opens > now:
        return False
    return not (event.registration_closes and event.registration_closes <= now)


def checkin_open(event: Tournament, now=None) -> bool:
    now = now or timezone.now()
    if event.status in CLOSED:
        return False
    if not event.checkin_opens or event.checkin_opens > now:
        return False
    return not (event.checkin_closes and event.checkin_closes <= now)


def do_register(*, tournament_id: int, user, pair_id: int | None = None) -> Entrant:
    with transaction.atomic():
        event = locked_event(tournament_id)
        if not registration_open(event):
            raise TournamentRefused(_("Registration for this event is closed."))
        entrant = new_entrant(event, user, pair_id, self_entry=True, wait=True)
        entrant.save()
        if entrant.state == Entrant.State.ACTIVE:
            signals.send_on_commit(signals.registration_confirmed, tournament_id=tournament_id, entrant_id=entrant.pk)
    notify.event_changed_on_commit(tournament_id)
    return entrant


def is_full(event: Tournament) -> bool:
    return bool(event.max_entrants) and event.entrants.filter(state=Entrant.State.ACTIVE).count() >= event.max_entrants


def promote_waiting(event: Tournament) -> list[Entrant]:
    """Before the start, a freed place goes to the first on the waiting list (in order of
    registration); one who meanwhile holds a seat in an overlapping event waits on."""
    if event.status not in BEFORE_START:
        return []
    promoted = []
    waiting = event.entrants.select_for_update(of=("self",)).filter(state=Entrant.State.WAITING).select_related("pair")
    for entrant in waiting.order_by("registered_at", "pk"):
        if is_full(event):
            break
        if overlapping_event(event, entrant.user_ids()) is not None:
            continue
        entrant.state = Entrant.State.ACTIVE
        entrant.state_changed_at = timezone.now()
        entrant.save(update_fields=["state", "state_changed_at"])
        for user_id in entrant.user_ids():
            notify.user_changed_on_commit(user_id)
        signals.send_on_commit(signals.registration_confirmed, tournament_id=event.pk, entrant_id=entrant.pk)
        promoted.append(entrant)
    return promoted


# One player, one seat at a time. An event is taken to last from its start for
# `expected_duration`: its rounds, each its time limit or, without one, its games at
# GAME_ESTIMATE each, with the pauses between them (a running event lasts at least until
# now). Two events whose such spans intersect overlap, unless one is finished or
# cancelled; a withdrawn or disqualified entrant holds no seat. An estimate, so a club can
# still run an afternoon and an evening event; its seat notice shows one table only.
GAME_ESTIMATE = timedelta(minutes=15)


def expected_duration(event: Tournament) -> timedelta:
    if event.event_format.continuous and event.arena_minutes:
        return timedelta(minutes=event.arena_minutes)
    rounds = max(1, event.rounds or 1)
    per_round = event.round_time_limit or GAME_ESTIMATE * max(1, event.games_per_round or 1)
    return per_round * rounds + (event.pause_between_rounds or timedelta(0)) * (rounds - 1)


def _span(event: Tournament, now) -> tuple:
    end = event.starts_at + expected_duration(event)
    if event.is_under_way:
        end = max(end, now)
    return event.starts_at, end


def overlapping_event(event: Tournament, user_ids) -> tuple[Tournament, int] | None:
    """Another live event in which one of `user_ids` holds a seat at the same time as
    `event`, and that person's id; None when there is none."""
    over = [Tournament.Status.FINISHED, Tournament.Status.CANCELLED]
    entries = (
        Entrant.objects.filter(
            Q(user_id__in=user_ids) | Q(pair__player_one_id__in=user_ids) | Q(pair__player_two_id__in=user_ids)
        )
        .filter(state=Entrant.State.ACTIVE)
        .exclude(tournament=event)
        .exclude(tournament__status__in=over)
        .select_related("tournament", "pair")
        .order_by("tournament__starts_at", "pk")
    )
    now = timezone.now()
    start, end = _span(event, now)
    for entry in entries:
        other_start, other_end = _span(entry.tournament, now)
        if start < other_end and other_start < end:
            held = [pk for pk in entry.user_ids() if pk in user_ids]
            return entry.tournament, held[0]
    return None


def refuse_overlap(event: Tournament, people: list, self_entry: bool) -> None:
    found = overlapping_event(event, [person.pk for person in people])
    if found is None:
        return
    other, user_id = found
    if self_entry and len(people) == 1:
        raise TournamentRefused(
            _(
                "You are already entered in “%(event)s”, which runs at the same time: "
                "one player cannot play in two events at once."
            ),
            event=other.name,
        )
    name = next(person.get_username() for person in people if person.pk == user_id)
    raise TournamentRefused(
        _(
            "Player %(player)s is already entered in “%(event)s”, which runs at the same time: "
            "one player cannot play in two events at once."
        ),
        player=name,
        event=other.name,
    )


def new_entrant(
    event: Tournament, user, pair_id: int | None, late: bool = False, self_entry: bool = False, wait: bool = False
) -> Entrant:
    """A new entry (not saved); past max_entrants it is on the waiting list when `wait`, else refused."""
    if user is None or not user.is_authenticated:
        raise TournamentRefused(_("Sign in to enter events."))
    if event.rated and game_tables.is_guest(user):
        raise TournamentRefused(_("Rated play needs an account: sign up first."))
    entrant = _new_entry(event, user, pair_id, late, self_entry)
    if is_full(event):
        if not wait:
            raise TournamentRefused(_("The event is full."))
        entrant.state = Entrant.State.WAITING
    return entrant


def _new_entry(event: Tournament, user, pair_id: int | None, late: bool, self_entry: bool) -> Entrant:
    if event.is_pairs:
        pair = Pair.objects.filter(pk=pair_id, status=Pair.Status.ACTIVE).first() if pair_id else None
        if pair is None or user.pk not in (pair.player_one_id, pair.player_two_id):
            raise TournamentRefused(_("Pair events are entered by an active pair you belong to."))
        members = [pair.player_one_id, pair.player_two_id]
        taken = event.entrants.filter(
            Q(user_id__in=members) | Q(pair__player_one_id__in=members) | Q(pair__player_two_id__in=members)
        )
        if taken.exists():
            raise TournamentRefused(_("One of you is already entered in this event."))
        refuse_overlap(event, [pair.player_one, pair.player_two], self_entry)
        return Entrant(tournament=event, pair=pair, late=late)
    if pair_id:
        raise TournamentRefused(_("This event is for single players."))
    if event.entrants.filter(user=user).exists():
        raise TournamentRefused(_("You are already entered in this event."))
    refuse_overlap(event, [user], self_entry)
    return Entrant(tournament=event, user=user, late=late)


def _entry_of(event: Tournament, user) -> Entrant | None:
    if user is None or not user.is_authenticated:
        return None
    return (
        event.entrants.select_for_update(of=("self",))
        .filter(Q(user=user) | Q(pair__player_one=user) | Q(pair__player_two=user))
        .first()
    )


def do_unregister(*, tournament_id: int, user) -> Entrant:
    """Withdraw one's own entry (or place on the waiting list) before the start; returns the
    deleted entry. A freed place goes to the first on the waiting list."""
    with transaction.atomic():
        event = locked_event(tournament_id)
        entrant = _entry_of(event, user)
        if entrant is None:
            raise TournamentRefused(_("You are not entered in this event."))
        if event.status in (*Tournament.UNDER_WAY, Tournament.Status.FINISHED):
            raise TournamentRefused(_("The event has started: ask the director to withdraw you."))
        entrant.delete()
        promote_waiting(event)
    notify.event_changed_on_commit(tournament_id)
    return entrant


def do_check_in(*, tournament_id: int, user) -> Entrant:
    with transaction.atomic():
        event = locked_event(tournament_id)
        entrant = _entry_of(event, user)
        if entrant is None:
            raise TournamentRefused(_("You are not entered in this event."))
        if entrant.state == Entrant.State.WAITING:
            raise TournamentRefused(_("You are on the waiting list: check-in is for those with a place."))
        if not checkin_open(event):
            raise TournamentRefused(_("Check-in is not open."))
        if not entrant.checked_in:
            entrant.checked_in = True
            entrant.checked_in_at = timezone.now()
            entrant.save(update_fields=["checked_in", "checked_in_at"])
    notify.event_changed_on_commit(tournament_id)
    return entrant


def do_request_bye(*, tournament_id: int, user, round_number) -> Entrant:
    """An entrant asks to sit out round `round_number` of a Swiss event before it starts (one
    requested bye an event; None withdraws the request). He is not seated in that round and
    scores REQUESTED_BYE_SHARE of a bye."""
    with transaction.atomic():
        event = locked_event(tournament_id)
        entrant = _entry_of(event, user)
        if entrant is None or entrant.state == Entrant.State.WAITING:
            raise TournamentRefused(_("You are not entered in this event."))
        if not registry.of(event).requested_byes:
            raise TournamentRefused(_("Byes are requested in Swiss events only."))
        if event.status not in LIVE or not entrant.is_active:
            raise TournamentRefused(_("A bye can be requested only while you are in a live event."))
        started = set(event.round_set.exclude(status=Round.Status.SCHEDULED).values_list("number", flat=True))
        old = entrant.requested_bye_round
        if old is not None and old in started:
            raise TournamentRefused(_("You have already had your requested bye in round %(number)s."), number=old)
        if round_number is None:
            entrant.requested_bye_round = None
        else:
            try:
                number = int(str(round_number).strip())
            except ValueError:
                raise TournamentRefused(_("Choose a round of the event.")) from None
            if not 1 <= number <= event.rounds:
                raise TournamentRefused(_("Choose a round of the event."))
            if number in started:
                raise TournamentRefused(_("Round %(number)s has already started."), number=number)
            entrant.requested_bye_round = number
        entrant.save(update_fields=["requested_bye_round"])
    notify.event_changed_on_commit(tournament_id)
    return entrant


def do_add_late_entrant(*, tournament_id: int, by, user, pair_id: int | None = None) -> Entrant:
    """The director adds an entrant once the event is under way; he joins from
    the next round not yet started, with 0 points for the rounds he missed."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "late")
        if event.is_under_way and not registry.of(event).late_entry_under_way:
            raise TournamentRefused(_("Late entries join Swiss events only."))
        entrant = new_entrant(event, user, pair_id, late=event.is_under_way)
        latest = current_round(event)
        if latest is None:
            entrant.joined_round = 1
        else:
            entrant.joined_round = latest.number if latest.status == Round.Status.SCHEDULED else latest.number + 1
        entrant.checked_in = True
        entrant.checked_in_at = timezone.now()
        entrant.save()
        log_action(event, by, "late", entrant=entrant.pk, name=entrant_name(entrant))
        signals.send_on_commit(signals.registration_confirmed, tournament_id=event.pk, entrant_id=entrant.pk)
    notify.event_changed_on_commit(tournament_id)
    return entrant


def do_withdraw(*, tournament_id: int, entrant_id: int, by, disqualify: bool = False, reason: str = "") -> Entrant:
    """Left out of every later round; results so far stay (standings keep them).
    Only an entrant of this event, and only while the event is live."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        entrant = event.entrants.select_for_update(of=("self",)).filter(pk=entrant_id).first()
        if entrant is None:
            raise TournamentRefused(_("There is no such entrant in this event."))
        check_allowed(event, "withdraw")
        if not (entrant.is_active or entrant.state == Entrant.State.WAITING):
            raise TournamentRefused(_("This entrant is already out of the event."))
        held_place = entrant.is_active
        entrant.state = Entrant.State.DISQUALIFIED if disqualify else Entrant.State.WITHDRAWN
        entrant.state_changed_at = timezone.now()
        entrant.save(update_fields=["state", "state_changed_at"])
        log_action(
            event,
            by,
            "disqualify" if disqualify else "withdraw",
            reason,
            entrant=entrant.pk,
            name=entrant_name(entrant),
        )
        if held_place:
            promote_waiting(event)
    notify.event_changed_on_commit(tournament_id)
    return entrant


def do_reinstate(*, tournament_id: int, entrant_id: int, by, reason: str = "") -> Entrant:
    """Undo a withdrawal or a disqualification while the event is live: he plays again from the
    next round seated (his results so far stay). Before the start he needs a free place; a
    knockout under way cannot take back one who left its bracket."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        entrant = event.entrants.select_for_update(of=("self",)).filter(pk=entrant_id).first()
        if entrant is None:
            raise TournamentRefused(_("There is no such entrant in this event."))
        check_allowed(event, "reinstate")
        if entrant.state not in (Entrant.State.WITHDRAWN, Entrant.State.DISQUALIFIED):
            raise TournamentRefused(_("Only a withdrawn or disqualified entrant can be reinstated."))
        if registry.of(event).knockout and event.is_under_way:
            raise TournamentRefused(_("A knockout under way cannot take an entrant back into its bracket."))
        if event.status in BEFORE_START and is_full(event):
            raise TournamentRefused(_("The event is full: there is no place to reinstate the entrant."))
        was = entrant.state
        entrant.state = Entrant.State.ACTIVE
        entrant.state_changed_at = timezone.now()
        entrant.save(update_fields=["state", "state_changed_at"])
        log_action(event, by, "reinstate", reason, entrant=entrant.pk, name=entrant_name(entrant), was=was)
        signals.send_on_commit(signals.registration_confirmed, tournament_id=event.pk, entrant_id=entrant.pk)
    notify.event_changed_on_commit(tournament_id)
    return entrant


def do_set_checked_in(*, tournament_id: int, entrant_id: int, by, checked_in: bool) -> Entrant:
    """The director checks an entrant in or out (logged); when the event has a check-in, only
    those checked in are seated, from the next round seated."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        entrant = event.entrants.select_for_update(of=("self",)).filter(pk=entrant_id).first()
        if entrant is None:
            raise TournamentRefused(_("There is no such entrant in this event."))
        check_allowed(event, "checkin")
        if not entrant.is_active:
            raise TournamentRefused(_("Only an entrant with a place in the event can be checked in."))
        if entrant.checked_in == checked_in:
            if checked_in:
                raise TournamentRefused(_("Entrant %(name)s is already checked in."), name=entrant_name(entrant))
            raise TournamentRefused(_("Entrant %(name)s is not checked in."), name=entrant_name(entrant))
        entrant.checked_in = checked_in
        entrant.checked_in_at = timezone.now() if checked_in else None
        entrant.save(update_fields=["checked_in", "checked_in_at"])
        log_action(event, by, "check_in" if checked_in else "check_out", entrant=entrant.pk, name=entrant_name(entrant))
    notify.event_changed_on_commit(tournament_id)
    return entrant
