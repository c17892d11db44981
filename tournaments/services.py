"""Writes of the tournaments app: pairs, entries, and running an event.

Every `do_*` is one transaction. The event's own row is locked
(`select_for_update`) by everything that moves the event on, so a repeated or
late Celery nudge and a director's click are applied one after the other, and
the second sees what the first did: starting round 3 twice seats nobody twice
(and the unique (tournament, number) of Round stands behind it).
"""

from __future__ import annotations

import logging
import math
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from games import engine, limits
from games.services import corrections as game_corrections
from games.services import tables as game_tables

from . import formats, game_records, notify, standings
from .errors import TournamentRefused
from .formats.seating import repeat_flags, repeat_pairs, score_flags
from .models import DirectorAction, Entrant, Pair, Result, Round, RoundTable, StuckStep, Tournament
from .rule_errors import rule_error_lazy

log = logging.getLogger(__name__)


# ------------------------------------------------------------------- pairs


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
    pair = Pair.objects.select_for_update().filter(pk=pair_id).first()
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
        running = pair.entries.filter(state=Entrant.State.ACTIVE, tournament__status=Tournament.Status.RUNNING).exists()
        if running:
            raise TournamentRefused(_("The pair plays in a running event: withdraw from it first."))
        pair.status = Pair.Status.DISSOLVED
        pair.dissolved_at = timezone.now()
        pair.save(update_fields=["status", "dissolved_at"])
        return pair


# ------------------------------------------------------------ event setup


def rules_of(tournament: Tournament, players: int | None = None) -> engine.Rules:
    """The event's rules for one table: pairs play 2v2 at four as partners."""
    data = dict(tournament.rules or {})
    data["variant"] = tournament.variant
    if tournament.is_pairs:
        data["players"], data["partners"] = 4, True
    else:
        data["players"], data["partners"] = players or tournament.table_size, False
    return engine.Rules.from_dict(data)


def points_table(tournament: Tournament, seats: int | None = None) -> list[float]:
    """Points for places 1..seats: the event's table (default `formats.default_points`
    of a full table); a smaller table keeps the top places' points and the last place's."""
    size = tournament.entrants_per_table
    full = [float(p) for p in (tournament.points_table or formats.default_points(size))]
    full = (full + [0.0] * size)[: max(size, len(full))]
    seats = seats or size
    if seats >= len(full):
        return full[:seats]
    return full[: seats - 1] + [full[-1]]


def validate_event(tournament: Tournament) -> None:
    """Refuse a setup that cannot run; called by the admin forms and the services."""
    if tournament.is_pairs and tournament.table_size != 4:
        raise TournamentRefused(_("Pairs play 2v2 at tables of four."))
    if not 2 <= tournament.table_size <= 6:
        raise TournamentRefused(_("A table seats 2 to 6 players."))
    if tournament.turn_seconds not in game_tables.TURN_TIMER_CHOICES:
        raise TournamentRefused(_("The turn timer is none, 15, 30 or 60 seconds."))
    if tournament.round_time_limit and not tournament.turn_seconds:
        raise TournamentRefused(_("A round time limit needs a turn timer, so that the games end."))
    try:
        rules_of(tournament)
    except (ValueError, TypeError) as exc:
        raise TournamentRefused(_("These rules are not valid: %(error)s"), error=rule_error_lazy(exc)) from None
    times = [
        (tournament.registration_opens, tournament.registration_closes),
        (tournament.checkin_opens, tournament.checkin_closes),
        (tournament.registration_opens, tournament.starts_at),
        (tournament.checkin_opens, tournament.starts_at),
    ]
    if any(a and b and a > b for a, b in times):
        raise TournamentRefused(_("The times are out of order: a window closes before it opens."))


def do_copy_event(*, tournament_id: int, by=None, shift: timedelta = timedelta(days=7)) -> Tournament:
    """Next week's event: the same setup, every time moved on by `shift`."""
    with transaction.atomic():
        source = Tournament.objects.get(pk=tournament_id)
        copy = Tournament(
            name=source.name,
            description=source.description,
            variant=source.variant,
            rules=source.rules,
            kind=source.kind,
            table_size=source.table_size,
            format=source.format,
            rounds=source.rounds,
            games_per_round=source.games_per_round,
            pause_between_rounds=source.pause_between_rounds,
            round_time_limit=source.round_time_limit,
            turn_seconds=source.turn_seconds,
            rated=source.rated,
            max_entrants=source.max_entrants,
            points_table=source.points_table,
            tiebreaks=list(source.tiebreaks or []),
            created_by=by,
        )
        for name in ("registration_opens", "registration_closes", "checkin_opens", "checkin_closes", "starts_at"):
            value = getattr(source, name)
            setattr(copy, name, value + shift if value else None)
        copy.save()
    schedule_nudges_on_commit(copy.pk)
    return copy


# ------------------------------------------------------------ entries


def _locked_event(tournament_id: int) -> Tournament:
    event = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if event is None:
        raise TournamentRefused(_("There is no such event."))
    return event


def registration_open(event: Tournament, now=None) -> bool:
    now = now or timezone.now()
    if event.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        return False
    if event.registration_opens and event.registration_opens > now:
        return False
    return not (event.registration_closes and event.registration_closes <= now)


def checkin_open(event: Tournament, now=None) -> bool:
    now = now or timezone.now()
    if event.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        return False
    if not event.checkin_opens or event.checkin_opens > now:
        return False
    return not (event.checkin_closes and event.checkin_closes <= now)


def do_register(*, tournament_id: int, user, pair_id: int | None = None) -> Entrant:
    with transaction.atomic():
        event = _locked_event(tournament_id)
        if not registration_open(event):
            raise TournamentRefused(_("Registration for this event is closed."))
        entrant = _new_entrant(event, user, pair_id, self_entry=True, wait=True)
        entrant.save()
    notify.event_changed_on_commit(tournament_id)
    return entrant


def is_full(event: Tournament) -> bool:
    return bool(event.max_entrants) and event.entrants.filter(state=Entrant.State.ACTIVE).count() >= event.max_entrants


def _promote_waiting(event: Tournament) -> list[Entrant]:
    """Before the start, a freed place goes to the first on the waiting list (in order of
    registration); one who meanwhile holds a seat in an overlapping event waits on."""
    if event.status not in BEFORE_START:
        return []
    promoted = []
    waiting = event.entrants.select_for_update().filter(state=Entrant.State.WAITING).select_related("pair")
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
    rounds = max(1, event.rounds or 1)
    per_round = event.round_time_limit or GAME_ESTIMATE * max(1, event.games_per_round or 1)
    return per_round * rounds + (event.pause_between_rounds or timedelta(0)) * (rounds - 1)


def _span(event: Tournament, now) -> tuple:
    end = event.starts_at + expected_duration(event)
    if event.status == Tournament.Status.RUNNING:
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


def _refuse_overlap(event: Tournament, people: list, self_entry: bool) -> None:
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


def _new_entrant(
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
        _refuse_overlap(event, [pair.player_one, pair.player_two], self_entry)
        return Entrant(tournament=event, pair=pair, late=late)
    if pair_id:
        raise TournamentRefused(_("This event is for single players."))
    if event.entrants.filter(user=user).exists():
        raise TournamentRefused(_("You are already entered in this event."))
    _refuse_overlap(event, [user], self_entry)
    return Entrant(tournament=event, user=user, late=late)


def _entry_of(event: Tournament, user) -> Entrant | None:
    if user is None or not user.is_authenticated:
        return None
    return (
        event.entrants.select_for_update()
        .filter(Q(user=user) | Q(pair__player_one=user) | Q(pair__player_two=user))
        .first()
    )


def do_unregister(*, tournament_id: int, user) -> Entrant:
    """Withdraw one's own entry (or place on the waiting list) before the start; returns the
    deleted entry. A freed place goes to the first on the waiting list."""
    with transaction.atomic():
        event = _locked_event(tournament_id)
        entrant = _entry_of(event, user)
        if entrant is None:
            raise TournamentRefused(_("You are not entered in this event."))
        if event.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED):
            raise TournamentRefused(_("The event has started: ask the director to withdraw you."))
        entrant.delete()
        _promote_waiting(event)
    notify.event_changed_on_commit(tournament_id)
    return entrant


def do_check_in(*, tournament_id: int, user) -> Entrant:
    with transaction.atomic():
        event = _locked_event(tournament_id)
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
        event = _locked_event(tournament_id)
        entrant = _entry_of(event, user)
        if entrant is None or entrant.state == Entrant.State.WAITING:
            raise TournamentRefused(_("You are not entered in this event."))
        if event.format != Tournament.Format.SWISS:
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


# A requested bye scores this share of the bye the seating gives (standings.bye_points).
REQUESTED_BYE_SHARE = 0.5


def requested_bye_points(event: Tournament) -> float:
    return standings.bye_points(points_table(event)) * REQUESTED_BYE_SHARE


def _requested_bye_results(event: Tournament, round_: Round) -> None:
    """Those who asked to sit out this round: a bye result of requested_bye_points (the
    seating left them out: `_eligible`)."""
    if event.format != Tournament.Format.SWISS:
        return
    asked = event.entrants.filter(state=Entrant.State.ACTIVE, requested_bye_round=round_.number)
    for pk in asked.values_list("pk", flat=True):
        Result.objects.get_or_create(
            round=round_,
            entrant_id=pk,
            game_number=0,
            defaults={"is_bye": True, "points": requested_bye_points(event), "note": "requested bye"},
        )


# ------------------------------------------------------- running an event


def current_round(event: Tournament) -> Round | None:
    return event.round_set.order_by("-number").first()


def do_advance_event(*, tournament_id: int, now=None) -> list[str]:
    """Do everything that is due at `now` (the sweep and every nudge call this).

    Idempotent: it reads the event under its lock and acts only on times that
    have passed and steps not yet taken. Returns what it did, for logs and tests.
    """
    done, failures = _advance_steps(tournament_id, now or timezone.now(), hold=frozenset())
    if failures:
        raise failures[0]
    return done


def _advance_steps(tournament_id: int, now, hold) -> tuple[list[str], list[StepFailed]]:
    """The event's own move (windows, round starts) under its lock; then, for the round
    being played, each finished game's results stored and committed on their own, and
    only then each table's next game dealt, each in a transaction of its own: a step
    that fails takes back nothing stored before it, and keeps no other from running.
    Steps in `hold` ((step, round table id) that wait for their next attempt) are skipped."""
    done: list[str] = []
    failures: list[StepFailed] = []
    try:
        if (StuckStep.Step.ADVANCE, None) not in hold:
            try:
                with transaction.atomic():
                    done += _advance(_locked_event(tournament_id), now)
            except TournamentRefused:
                raise
            except Exception as exc:
                failures.append(StepFailed(StuckStep.Step.ADVANCE, None, exc))
        done += _record_finished_games(tournament_id, now, failures, hold)
        done += _deal_due_games(tournament_id, now, failures, hold)
    finally:
        if done:
            notify.event_changed_on_commit(tournament_id)
    return done, failures


def _advance(event: Tournament, now) -> list[str]:
    done: list[str] = []
    if event.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        return done
    fields = []
    if event.registration_opened_at is None and (event.registration_opens is None or event.registration_opens <= now):
        event.registration_opened_at = now
        fields.append("registration_opened_at")
        if event.status == Tournament.Status.SCHEDULED:
            event.status = Tournament.Status.REGISTRATION
            fields.append("status")
        done.append("registration opened")
    if event.registration_closed_at is None and event.registration_closes and event.registration_closes <= now:
        event.registration_closed_at = now
        fields.append("registration_closed_at")
        done.append("registration closed")
    if event.checkin_opened_at is None and event.checkin_opens and event.checkin_opens <= now:
        event.checkin_opened_at = now
        event.status = Tournament.Status.CHECKIN
        fields += ["checkin_opened_at", "status"]
        done.append("check-in opened")
    if event.checkin_closed_at is None and event.checkin_closes and event.checkin_closes <= now:
        event.checkin_closed_at = now
        fields.append("checkin_closed_at")
        done.append("check-in closed")
    if fields:
        event.save(update_fields=sorted(set(fields)))
    if "check-in closed" in done and event.status != Tournament.Status.RUNNING and not event.paused:
        first, _created = Round.objects.get_or_create(
            tournament=event, number=1, defaults={"starts_at": event.starts_at}
        )
        if first.status == Round.Status.SCHEDULED and not first.seated_by_director:
            _draft(event, first)
            done.append("round 1 drafted")
    if event.paused:
        return done
    if event.status != Tournament.Status.RUNNING:
        if event.starts_at <= now:
            done += _start_round(event, 1, now)
        return done
    latest = current_round(event)
    if latest is None:
        done += _start_round(event, 1, now)
    elif latest.status == Round.Status.SCHEDULED and latest.starts_at <= now:
        done += _start_round(event, latest.number, now)
    # A round being played: do_advance_event records and deals after this transaction.
    return done


def do_start_round(*, tournament_id: int, number: int, now=None) -> list[str]:
    """Start round `number` now if it is the next one; a repeat does nothing."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _locked_event(tournament_id)
        if event.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            return []
        done = _start_round(event, number, now)
    notify.event_changed_on_commit(tournament_id)
    return done


def _eligible(event: Tournament, number: int) -> list[Entrant]:
    entrants = event.entrants.filter(state=Entrant.State.ACTIVE, joined_round__lte=number, eliminated_in_round=None)
    if event.format == Tournament.Format.SWISS:
        entrants = entrants.exclude(requested_bye_round=number)  # asked to sit it out
    if event.checkin_opens is not None:
        entrants = entrants.filter(checked_in=True)
    return list(entrants.select_related("pair", "user").order_by("registered_at", "pk"))


def entrant_ratings(event: Tournament, entrants) -> dict[int, float]:
    """Entrant -> rating (a pair: its partners' mean); {} while ratings are not there."""
    try:
        from ratings.selectors import ratings_for
    except ImportError:
        return {}
    user_ids = sorted({uid for e in entrants for uid in e.user_ids()})
    try:
        by_user = ratings_for(user_ids, event.variant)
    except Exception:  # seeding falls back to registration order
        log.exception("ratings unavailable for event %s", event.pk)
        return {}
    out = {}
    for e in entrants:
        values = [_number(by_user.get(uid)) for uid in e.user_ids()]
        values = [v for v in values if v is not None]
        if values:
            out[e.pk] = sum(values) / len(values)
    return out


def _number(value):
    if value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    for name in ("display", "rating", "value"):
        if hasattr(value, name):
            return _number(getattr(value, name))
    if isinstance(value, dict):
        for name in ("display", "rating", "value"):
            if name in value:
                return _number(value[name])
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _seeded(event: Tournament, entrants) -> tuple[list[int], dict[int, float]]:
    """Entrant ids by rating (best first) when ratings exist, else by registration order."""
    ratings = entrant_ratings(event, entrants)
    order = {e.pk: i for i, e in enumerate(entrants)}
    ids = sorted(order, key=lambda pk: (-ratings.get(pk, float("-inf")) if ratings else 0, order[pk]))
    return ids, ratings


def _start_round(event: Tournament, number: int, now) -> list[str]:
    previous = event.round_set.filter(number__lt=number).order_by("-number").first()
    if number > 1 and (previous is None or previous.number != number - 1 or previous.status != Round.Status.FINISHED):
        return []
    round_ = Round.objects.select_for_update().filter(tournament=event, number=number).first()
    if round_ is not None and round_.status != Round.Status.SCHEDULED:
        return []  # already started: a repeat seats nobody twice
    if round_ is None:
        try:
            with transaction.atomic():
                round_ = Round.objects.create(tournament=event, number=number, starts_at=now)
        except IntegrityError:
            return []
    if round_.tables.exists() and not round_.seated_by_director and draft_is_stale(event, round_):
        RoundTable.objects.filter(round=round_).delete()  # an untouched draft of another field: seat anew
    if round_.tables.exists():
        _drop_ineligible(event, round_)
        _seat_newcomers(event, round_)
        if number == 1:  # seated by the director: the seeds are still the event's
            entrants = _eligible(event, 1)
            _fix_seeds(entrants, _seeded(event, entrants)[0])
    if not round_.tables.exists():
        seating = _seat(event, number)
        if seating is None:
            if number == 1:
                event.status = Tournament.Status.CANCELLED
                event.finished_at = now
                event.save(update_fields=["status", "finished_at"])
                round_.delete()
                return ["cancelled: too few entrants"]
            _finish_event(event, now)
            round_.delete()
            return ["finished: nobody left to seat"]
        _store_seating(round_, seating)
    entrants = {e.pk: e for e in event.entrants.select_related("pair", "user")}
    seated_users: dict[int, tuple[int, int]] = {}
    for rt in round_.tables.select_for_update().order_by("number"):
        if rt.table_id is not None:
            continue
        users = _seat_users([entrants[pk] for pk in rt.entrants], event)
        table = game_tables.do_create_table(
            rules=rules_of(event, len(users)),
            seat_users=users,
            turn_seconds=event.turn_seconds,
            rated=event.rated,
            start=True,
            rematch=False,  # the event deals each game of the round, players never do
            managed_by_event=True,  # and its seats are fixed: nobody leaves or joins, between games too
        )
        rt.table = table
        rt.save(update_fields=["table"])
        for user in users:
            seated_users[user.pk] = (table.pk, rt.number)
    table_of_points = points_table(event)
    for pk in round_.byes:
        Result.objects.get_or_create(
            round=round_,
            entrant_id=pk,
            game_number=0,
            defaults={"is_bye": True, "points": 0.0 if _is_knockout(event) else standings.bye_points(table_of_points)},
        )
    Entrant.objects.filter(pk__in=round_.byes).update(byes=_byes_plus_one())
    _requested_bye_results(event, round_)
    round_.status = Round.Status.PLAYING
    round_.started_at = now
    round_.published_at = round_.published_at or now
    round_.ends_at = now + event.round_time_limit if event.round_time_limit else None
    round_.save(update_fields=["status", "started_at", "ends_at", "published_at"])
    if event.status != Tournament.Status.RUNNING:
        event.status = Tournament.Status.RUNNING
        event.started_at = now
        event.save(update_fields=["status", "started_at"])
    notify.seats_on_commit(event.pk, number, seated_users)
    if round_.ends_at:
        notify.nudge_event_on_commit(event.pk, event.variant, round_.ends_at)
    return [f"round {number} started"]


def _drop_ineligible(event: Tournament, round_: Round) -> None:
    """A director's seating made earlier: who withdrew since sits nowhere; a table left
    with one entrant makes him sit out (a bye)."""
    eligible = {e.pk for e in _eligible(event, round_.number)}
    byes = [pk for pk in round_.byes if pk in eligible]
    for rt in round_.tables.all():
        present = [pk for pk in rt.entrants if pk in eligible]
        if present == rt.entrants:
            continue
        if len(present) >= 2 and not event.is_pairs:
            rt.entrants = present
            rt.save(update_fields=["entrants"])
        else:
            byes += present
            rt.delete()
    round_.byes = byes
    round_.save(update_fields=["byes"])


def _byes_plus_one():
    from django.db.models import F

    return F("byes") + 1


def _is_knockout(event: Tournament) -> bool:
    return event.format == Tournament.Format.KNOCKOUT


def _seat_users(entrants: list[Entrant], event: Tournament) -> list:
    if event.is_pairs:
        first, second = entrants
        # Partners opposite: seats 0 and 2 one pair, 1 and 3 the other.
        return [first.pair.player_one, second.pair.player_one, first.pair.player_two, second.pair.player_two]
    return [e.user for e in entrants]


def _history(event: Tournament, before: int) -> list[list[list[int]]]:
    history = []
    for round_ in event.round_set.filter(number__lt=before).order_by("number").prefetch_related("tables"):
        history.append([list(rt.entrants) for rt in round_.tables.all()])
    return history


def _scores(event: Tournament) -> dict[int, float]:
    scores: dict[int, float] = {}
    for entrant_id, points in Result.objects.filter(round__tournament=event).values_list("entrant_id", "points"):
        scores[entrant_id] = scores.get(entrant_id, 0.0) + points
    return scores


def _seat(event: Tournament, number: int):
    """The seating of round `number` from the formats (None: fewer than two to seat)."""
    entrants = _eligible(event, number)
    if len(entrants) < 2:
        return None
    ids, ratings = _seeded(event, entrants)
    if number == 1:
        _fix_seeds(entrants, ids)
    size = event.entrants_per_table
    if event.format == Tournament.Format.SWISS:
        scores = _scores(event)
        byes_had = {e.pk: e.byes for e in entrants}
        return formats.swiss_round(
            ids,
            {pk: scores.get(pk, 0.0) for pk in ids},
            _history(event, number),
            size,
            ratings=ratings or None,
            byes_had=byes_had,
            seed=event.pk * 1000 + number,
        )
    if event.format == Tournament.Format.ROUND_ROBIN:
        field_ids = _round_robin_field(event, ids)
        schedule = formats.round_robin_schedule(field_ids, size, seed=event.pk)
        if number > len(schedule):
            return None
        planned = schedule[number - 1]
        playing = set(ids)
        tables, byes = [], [pk for pk in planned.byes if pk in playing]
        for table in planned.tables:
            present = [pk for pk in table if pk in playing]
            if len(present) >= 2:
                tables.append(present)
            else:
                byes += present
        return formats.Seating(tables=tables, byes=byes, repeats=planned.repeats, flags=list(planned.flags))
    seeds = {e.pk: e.seed for e in entrants if e.seed is not None}
    return formats.knockout_round(ids, size, seeds=seeds, round_number=number)


def _fix_seeds(entrants: list[Entrant], ids: list[int]) -> None:
    """The seeds of the event (1 is the best), fixed at its start: a knockout's later
    rounds follow the bracket they made, not the ratings of the day."""
    for seed, pk in enumerate(ids, start=1):
        Entrant.objects.filter(pk=pk).update(seed=seed)
    for e in entrants:
        e.seed = ids.index(e.pk) + 1


def _round_robin_field(event: Tournament, ids: list[int]) -> list[int]:
    """The field is fixed by round one: the schedule is rebuilt from the same list every round."""
    first = event.round_set.filter(number=1).first()
    if first is None or not first.tables.exists():
        return ids
    field_ids = {pk for rt in first.tables.all() for pk in rt.entrants} | set(first.byes)
    order = {e.pk: i for i, e in enumerate(event.entrants.order_by("registered_at", "pk"))}
    seeded = [pk for pk in ids if pk in field_ids] + sorted(field_ids - set(ids), key=order.get)
    return seeded


def _store_seating(round_: Round, seating) -> None:
    RoundTable.objects.filter(round=round_).delete()
    for i, table in enumerate(seating.tables, start=1):
        RoundTable.objects.create(round=round_, number=i, entrants=list(table))
    round_.byes = list(seating.byes)
    round_.flags = [list(f) if isinstance(f, tuple | list) else [None, str(f)] for f in (seating.flags or [])]
    round_.save(update_fields=["byes", "flags"])


# ------------------------------------------------- the draft of a round


def eligible_entrants(event: Tournament, number: int) -> list[Entrant]:
    """Who plays round `number` if it started now (the draft's field)."""
    return _eligible(event, number)


def meetings_before(event: Tournament, number: int) -> dict[int, dict[int, int]]:
    """Who shared a table with whom in the rounds before `number`."""
    return formats.meetings(_history(event, number))


def scores_of(event: Tournament) -> dict[int, float]:
    """Each entrant's points so far (the scores a Swiss seats by)."""
    return _scores(event)


def seating_of(event: Tournament, number: int, tables: list[list[int]], byes: list[int]) -> formats.Seating:
    """A seating made by hand, with the flags the formats give theirs: repeats (against the
    rounds before `number`) and, in a Swiss, who is pulled up or down by score."""
    met = meetings_before(event, number)
    pairs = repeat_pairs(tables, met)
    flags: list[tuple[int, str]] = [(pk, "bye") for pk in byes]
    if event.format == Tournament.Format.SWISS and tables:
        scores = _scores(event)
        flags += score_flags(tables, {pk: scores.get(pk, 0.0) for table in tables for pk in table})
    flags += repeat_flags(pairs)
    return formats.Seating(tables=tables, byes=list(byes), repeats=len(pairs), flags=flags)


def _draft(event: Tournament, round_: Round) -> None:
    """Seat a scheduled round now, as a draft: the director sees it, may edit and publish it;
    untouched, it is what the round starts with (recomputed if the field changed meanwhile)."""
    if round_.status != Round.Status.SCHEDULED:
        return
    RoundTable.objects.filter(round=round_).delete()  # (a round robin's field is not the old draft's)
    seating = _seat(event, round_.number)
    if seating is None:  # fewer than two to seat: the start decides (cancel or finish)
        round_.byes, round_.flags = [], []
    else:
        _store_seating(round_, seating)
    round_.drafted_for = _draft_key(event, round_.number)
    round_.seated_by_director = False
    round_.published_at = None
    round_.save(update_fields=["byes", "flags", "drafted_for", "seated_by_director", "published_at"])


def _draft_key(event: Tournament, number: int) -> list[list]:
    """What a draft was computed from: each eligible entrant with his score."""
    scores = _scores(event)
    return [[e.pk, round(scores.get(e.pk, 0.0), 6)] for e in sorted(_eligible(event, number), key=lambda e: e.pk)]


def draft_is_stale(event: Tournament, round_: Round) -> bool:
    """The field or the scores changed since the draft was computed (a withdrawal, a late
    entrant, a correction): an untouched draft is computed again at the start."""
    return _draft_key(event, round_.number) != list(round_.drafted_for or [])


def _seat_newcomers(event: Tournament, round_: Round) -> None:
    """Entrants who became eligible after the director edited the draft (late entrants):
    each to the emptiest table with a free seat; the rest together at new tables, one
    left alone sits out."""
    placed = {pk for rt in round_.tables.all() for pk in rt.entrants} | set(round_.byes)
    new = [e.pk for e in _eligible(event, round_.number) if e.pk not in placed]
    if not new:
        return
    tables = list(round_.tables.order_by("number"))
    rest = []
    for pk in new:
        free = [] if event.is_pairs else [rt for rt in tables if len(rt.entrants) < event.entrants_per_table]
        if not free:
            rest.append(pk)
            continue
        rt = min(free, key=lambda t: (len(t.entrants), t.number))
        rt.entrants = [*rt.entrants, pk]
        rt.save(update_fields=["entrants"])
    number = max((rt.number for rt in tables), default=0)
    size = 2 if event.is_pairs else event.entrants_per_table
    while len(rest) >= 2:
        number += 1
        RoundTable.objects.create(round=round_, number=number, entrants=rest[:size])
        rest = rest[size:]
    if rest:
        round_.byes = [*round_.byes, *rest]
        round_.save(update_fields=["byes"])


def _draft_round_of(event: Tournament) -> Round:
    """The round a director's draft actions act on: round 1 before the start (made if
    missing), between rounds the scheduled next one."""
    if event.status != Tournament.Status.RUNNING:
        round_, _created = Round.objects.get_or_create(
            tournament=event, number=1, defaults={"starts_at": event.starts_at}
        )
    else:
        round_ = current_round(event)
    if round_ is None or round_.status != Round.Status.SCHEDULED:
        raise TournamentRefused(_("No round is waiting to start: there is no draft to show."))
    return Round.objects.select_for_update().get(pk=round_.pk)


def do_draft_round(*, tournament_id: int, by) -> Round:
    """The director's "preview": the waiting round's seating computed now (an edited draft
    is replaced by the automatic one)."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "reseat")
        round_ = _draft_round_of(event)
        _draft(event, round_)
        _log(event, by, "draft", round=round_.number)
    notify.event_changed_on_commit(tournament_id)
    return round_


def do_publish_round(*, tournament_id: int, by) -> Round:
    """Show the waiting round's draft to the players (the start publishes it anyway)."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "reseat")
        round_ = _draft_round_of(event)
        if not round_.tables.exists():
            raise TournamentRefused(_("There is no seating to publish yet."))
        round_.published_at = timezone.now()
        round_.save(update_fields=["published_at"])
        _log(event, by, "publish", round=round_.number)
    notify.event_changed_on_commit(tournament_id)
    return round_


def total_rounds(event: Tournament) -> int | None:
    """Rounds the event plays (None for a knockout: until one is left)."""
    if event.format == Tournament.Format.KNOCKOUT:
        return None
    if event.format == Tournament.Format.ROUND_ROBIN:
        first = event.round_set.filter(number=1).first()
        if first is not None and first.tables.exists():
            field_size = len({pk for rt in first.tables.all() for pk in rt.entrants} | set(first.byes))
            schedule = formats.round_robin_schedule(list(range(field_size)), event.entrants_per_table, seed=event.pk)
            return min(event.rounds, len(schedule)) if event.rounds else len(schedule)
    return event.rounds


def do_record_game(*, game_id: int, now=None) -> list[str]:
    """A game at an event table has ended: store its results (once), and finish
    the round when all are done. Only once they are committed is the round's next
    game dealt at that table: a deal that fails takes no result back, and is
    noted for the sweep to retry (`note_failure`)."""
    game = game_records.finished_game(game_id)
    if game is None:
        return []
    rt = RoundTable.objects.filter(table_id=game["table_id"]).select_related("round").first()
    if rt is None:
        return []
    now = now or timezone.now()
    tournament_id = rt.round.tournament_id
    done = _record_one(tournament_id, rt.pk, game, now)
    try:
        done += _deal_next(tournament_id, rt.pk, now)
    except Exception as exc:  # the result stays; the sweep deals later, with backoff
        note_failure(tournament_id, StepFailed(StuckStep.Step.DEAL, rt.pk, exc), now)
    if done:
        notify.event_changed_on_commit(tournament_id)
    return done


def _record_one(tournament_id: int, round_table_id: int, game: dict, now) -> list[str]:
    """One game's results, in a transaction of their own."""
    with transaction.atomic():
        return _record(_locked_event(tournament_id), round_table_id, game, now)


def _record(event: Tournament, round_table_id: int, game: dict, now) -> list[str]:
    rt = RoundTable.objects.select_for_update().select_related("round").get(pk=round_table_id)
    round_ = rt.round
    if rt.done or round_.status != Round.Status.PLAYING:
        return []  # e.g. a game someone dealt at the table after the round's games were played
    if Result.objects.filter(round=round_, game_id=game["pk"]).exists():
        return []
    game_number = rt.games_played + 1
    entrants = rt.entrants
    table = points_table(event, len(entrants))
    if event.is_pairs:
        places_by_team = standings.pair_places(game["seats"])
        places = {entrants[team]: places_by_team[team] for team in range(len(entrants))}
        points = standings.game_points(places, len(entrants), table)
        durak = {pk: places[pk] == 2 and len(set(places.values())) == 2 for pk in entrants}
    else:
        places, losers = _table_places(entrants, {s["number"]: s for s in game["seats"]})
        points = standings.game_points(places, len(entrants), table)
        points.update(dict.fromkeys(losers, 0.0))
        durak = {pk: pk in losers for pk in entrants}
    for pk in entrants:
        Result.objects.create(
            round=round_,
            round_table=rt,
            entrant_id=pk,
            game_id=game["pk"],
            game_number=game_number,
            place=places[pk],
            points=points[pk],
            is_durak=durak[pk],
        )
    rt.games_played = game_number
    rt.save(update_fields=["games_played"])
    done = [f"game {game['pk']} recorded"]
    out_of_time = round_.ends_at is not None and round_.ends_at <= now
    if rt.games_played >= event.games_per_round or out_of_time:
        done += _close_table(event, rt, now)
    # Otherwise the next game is dealt once this result is committed (`_deal_next`), never in
    # this transaction: a deal that fails must not take the result back with it.
    return done


def _close_table(event: Tournament, rt: RoundTable, now) -> list[str]:
    """The table's round is over (its games played, its time up, or the director's word);
    the round ends with its last table."""
    rt.done = True
    rt.save(update_fields=["done"])
    # Their "go to your table" notice is out of date: each page asks again.
    for entrant in Entrant.objects.filter(pk__in=rt.entrants).select_related("pair"):
        for user_id in entrant.user_ids():
            notify.user_changed_on_commit(user_id)
    round_ = rt.round
    if not round_.tables.filter(done=False).exists():
        return _finish_round(event, round_, now)
    return []


def _table_places(entrants: list[int], seats: dict[int, dict]) -> tuple[dict[int, int], set[int]]:
    """Places at a singles table, and who scores nothing.

    A seat that abandoned (resigned, or went on autopilot) is counted last, so
    its `counted_place` can equal the durak's: the abandoned share the last
    places below everyone who played on, and they, not the durak who outlasted
    them, score nothing. Without an abandonment the places are the game's and
    the durak scores nothing.
    """
    key = {entrants[n]: (1, 0) if seats[n]["abandoned"] else (0, seats[n]["counted_place"]) for n in seats}
    places = {pk: 1 + sum(other < key[pk] for other in key.values()) for pk in key}
    abandoned = {entrants[n] for n in seats if seats[n]["abandoned"]}
    losers = abandoned or {entrants[n] for n in seats if seats[n]["is_loser"]}
    return places, losers


def _playing_round(tournament_id: int) -> tuple[Tournament, Round] | tuple[None, None]:
    event = Tournament.objects.filter(pk=tournament_id).first()
    if event is None or event.status != Tournament.Status.RUNNING:
        return None, None
    round_ = current_round(event)
    if round_ is None or round_.status != Round.Status.PLAYING:
        return None, None
    return event, round_


def _record_finished_games(tournament_id: int, now, failures: list, hold=frozenset()) -> list[str]:
    """The sweep's safety net: games that ended without their nudge being handled.
    Each is recorded in a transaction of its own: one that fails is noted in
    `failures` and keeps no other table's result from being stored."""
    done: list[str] = []
    event, round_ = _playing_round(tournament_id)
    if round_ is None:
        return done
    open_tables = list(round_.tables.filter(done=False, table__isnull=False))
    latest = game_records.latest_games([rt.table_id for rt in open_tables])
    recorded = _recorded_games(round_, latest.values())
    for rt in open_tables:
        row = latest.get(rt.table_id)
        if row and row["status"] == "finished" and row["pk"] not in recorded:
            if (StuckStep.Step.RECORD, rt.pk) in hold:
                continue
            game = game_records.finished_game(row["pk"])
            if game is None:
                continue
            try:
                done += _record_one(tournament_id, rt.pk, game, now)
            except Exception as exc:  # noted; the sweep tries again after a pause
                failures.append(StepFailed(StuckStep.Step.RECORD, rt.pk, exc))
    return done


def _recorded_games(round_: Round, rows) -> set[int]:
    game_ids = [row["pk"] for row in rows]
    return set(Result.objects.filter(round=round_, game_id__in=game_ids).values_list("game_id", flat=True))


def _deal_due_games(tournament_id: int, now, failures: list, hold=frozenset()) -> list[str]:
    """Deal the next game wherever the round waits for one: a table of the round
    being played, not done, with fewer games than the round has, whose latest game
    is finished and recorded. Each table in a transaction of its own, after the
    results are committed; one that fails is noted in `failures`. Repeating it
    deals nothing twice."""
    done: list[str] = []
    event, round_ = _playing_round(tournament_id)
    if round_ is None:
        return done
    open_tables = list(round_.tables.filter(done=False, table__isnull=False, games_played__lt=event.games_per_round))
    latest = game_records.latest_games([rt.table_id for rt in open_tables])
    recorded = _recorded_games(round_, latest.values())
    for rt in open_tables:
        row = latest.get(rt.table_id)
        if row is not None and (row["status"] != "finished" or row["pk"] not in recorded):
            continue
        if (StuckStep.Step.DEAL, rt.pk) in hold:
            continue
        try:
            done += _deal_next(tournament_id, rt.pk, now)
        except Exception as exc:  # noted; the sweep tries again after a pause
            failures.append(StepFailed(StuckStep.Step.DEAL, rt.pk, exc))
    return done


def _deal_next(tournament_id: int, round_table_id: int, now) -> list[str]:
    """The round's next game at one table, if it waits for one (re-checked under the
    event's lock, so a nudge and the sweep deal it once). A time limit that came
    between two games ends the table's round instead."""
    with transaction.atomic():
        event = _locked_event(tournament_id)
        rt = RoundTable.objects.select_for_update().select_related("round").get(pk=round_table_id)
        round_ = rt.round
        if rt.done or rt.table_id is None or round_.status != Round.Status.PLAYING:
            return []
        if rt.games_played >= event.games_per_round:
            return []
        latest = game_records.latest_games([rt.table_id]).get(rt.table_id)
        if latest is not None and (latest["status"] != "finished" or not _recorded_games(round_, [latest])):
            return []  # a game is on (a repeated nudge dealt it), or its result is not stored yet
        if round_.ends_at is not None and round_.ends_at <= now:
            return [f"table {rt.number}: out of time", *_close_table(event, rt, now)]
        game_tables.do_deal_next_game(table_id=rt.table_id)
        return [f"table {rt.number}: game {rt.games_played + 1} dealt"]


def _finish_round(event: Tournament, round_: Round, now) -> list[str]:
    round_.status = Round.Status.FINISHED
    round_.finished_at = now
    round_.save(update_fields=["status", "finished_at"])
    done = [f"round {round_.number} finished"]
    if _is_knockout(event):
        _eliminate(event, round_)
        alive = event.entrants.filter(state=Entrant.State.ACTIVE, eliminated_in_round=None).count()
        last = alive <= 1
    else:
        last = round_.number >= (total_rounds(event) or 0)
    if last:
        _finish_event(event, now)
        done.append("event finished")
        return done
    starts_at = now + event.pause_between_rounds
    following, _created = Round.objects.get_or_create(
        tournament=event, number=round_.number + 1, defaults={"starts_at": starts_at}
    )
    _draft(event, following)  # the director sees (and may edit) the next seating before it starts
    notify.nudge_event_on_commit(event.pk, event.variant, starts_at)
    done.append(f"round {round_.number + 1} scheduled")
    return done


def _eliminate(event: Tournament, round_: Round) -> None:
    """Knockout: the formats say who goes on from each table's summed points."""
    table_results = []
    for rt in round_.tables.all():
        totals = dict.fromkeys(rt.entrants, 0.0)
        for entrant_id, points in rt.results.values_list("entrant_id", "points"):
            totals[entrant_id] += points
        # Equal totals: the better seed (earlier seat) goes on; a knockout needs a decision.
        ranked = sorted(totals, key=lambda pk: (-totals[pk], rt.entrants.index(pk)))
        table_results.append({pk: place for place, pk in enumerate(ranked, start=1)})
    survivors = set(formats.knockout_survivors(table_results, drop=1)) | set(round_.byes)
    seated = {pk for rt in round_.tables.all() for pk in rt.entrants}
    Entrant.objects.filter(pk__in=seated - survivors).update(eliminated_in_round=round_.number)


def _finish_event(event: Tournament, now) -> None:
    if event.status == Tournament.Status.CANCELLED:
        return  # a game that ended after the director cancelled the event: it stays cancelled
    event.status = Tournament.Status.FINISHED
    event.finished_at = now
    fields = ["status", "finished_at"]
    if event.rated and event.ratings_nudged_at is None:
        event.ratings_nudged_at = now
        fields.append("ratings_nudged_at")
        notify.recompute_ratings_on_commit(event.variant)
    event.save(update_fields=fields)


# ------------------------------------------------------ director actions


def can_direct(user) -> bool:
    if user is None or not user.is_authenticated:
        return False
    return user.is_superuser or user.groups.filter(name=DIRECTORS_GROUP).exists()


DIRECTORS_GROUP = "Tournament directors"


def _director(user) -> None:
    if not can_direct(user):
        raise TournamentRefused(_("Only a tournament director may do this."))


_S = Tournament.Status
BEFORE_START = frozenset({_S.SCHEDULED, _S.REGISTRATION, _S.CHECKIN})
LIVE = BEFORE_START | {_S.RUNNING}

# The event's life in one place: each director action and the statuses it may act from.
# (Paused is the `paused` flag of a live event; the sweep moves scheduled -> registration
# -> check-in -> running -> finished, or cancels an event nobody can play.)
TRANSITIONS: dict[str, frozenset] = {
    "start": LIVE,  # the event, or between rounds the next round
    "pause": LIVE,
    "resume": LIVE,
    "edit": BEFORE_START | {_S.CANCELLED},  # a cancelled event gets a new time before it is reopened
    "late": LIVE,
    "withdraw": LIVE,
    "reinstate": LIVE,
    "checkin": LIVE,
    "reseat": LIVE,
    "announce": LIVE,
    "correct": frozenset({_S.RUNNING}),  # a finished event is reopened first
    "cancel": LIVE,
    "reopen": frozenset({_S.CANCELLED, _S.FINISHED}),
    "finish": frozenset({_S.RUNNING}),  # a reopened event, once its corrections are made
    "delete": BEFORE_START | {_S.CANCELLED},  # and only if it never started
}

# Why an action is refused from a status (an action's own reason first).
STATUS_REFUSALS = {
    _S.SCHEDULED: _("The event has not started yet."),
    _S.REGISTRATION: _("The event has not started yet."),
    _S.CHECKIN: _("The event has not started yet."),
    _S.RUNNING: _("The event is under way: this is not possible now."),
    _S.FINISHED: _("The event is finished: reopen it first."),
    _S.CANCELLED: _("The event is cancelled: reopen it first."),
}
ACTION_REFUSALS = {
    "reopen": _("Only a cancelled or finished event can be reopened."),
    "delete": _("Only an event that never started can be deleted."),
    "finish": _("Only a running event can be finished."),
    "edit": _("The event has started: its setup is fixed."),
}


def allowed(event: Tournament, action: str) -> bool:
    return event.status in TRANSITIONS[action]


def _allow(event: Tournament, action: str) -> None:
    if not allowed(event, action):
        raise TournamentRefused(ACTION_REFUSALS.get(action) or STATUS_REFUSALS[event.status])


def _log(event: Tournament, by, action: str, reason: str = "", **detail) -> None:
    DirectorAction.objects.create(
        tournament=event,
        by=by if getattr(by, "pk", None) else None,
        at=timezone.now(),
        action=action,
        reason=(reason or "")[:200],
        detail=detail,
    )


def _name(entrant: Entrant) -> str:
    return str(entrant)


def next_minute(now=None):
    """The earliest start a director may set: the next whole minute (a start in the
    current minute would be due before anyone could enter)."""
    now = now or timezone.now()
    return now.replace(second=0, microsecond=0) + timedelta(minutes=1)


def do_create_event(*, event: Tournament, by, key: str | None) -> tuple[Tournament, bool]:
    """Save a new event from the director's form; `key` is the form's one-time key, so a
    second submit of the same form returns the event of the first (created False)."""
    _director(by)
    key = (key or "").strip()[:64] or None
    if key:
        existing = Tournament.objects.filter(creation_key=key).first()
        if existing is not None:
            return existing, False
    event.created_by = by
    event.creation_key = key
    try:
        with transaction.atomic():
            validate_event(event)
            event.save()
            _log(event, by, "create")
    except IntegrityError:
        existing = Tournament.objects.filter(creation_key=key).first() if key else None
        if existing is None:
            raise
        return existing, False
    schedule_nudges_on_commit(event.pk)
    return event, True


def do_edit_event(*, tournament_id: int, by, form) -> Tournament:
    """Save the director's edit of the setup (`form`: a valid TournamentForm of the event)."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "edit")
        saved = form.save(commit=False)
        # Only the setup: the status and the times the sweep keeps are the locked row's.
        saved.save(update_fields=[*form.Meta.fields, "rules"])
        _log(event, by, "edit")
        _promote_waiting(saved)  # a raised max_entrants makes room for the waiting list
    schedule_nudges_on_commit(tournament_id)
    notify.event_changed_on_commit(tournament_id)
    return saved


def do_start_now(*, tournament_id: int, by) -> list[str]:
    """Start the event (or its next scheduled round) at once."""
    _director(by)
    now = timezone.now()
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "start")
        if event.status != Tournament.Status.RUNNING:
            count = len(_eligible(event, 1))
            if count < 2:
                # Starting would cancel the event: refuse, and say why.
                if event.checkin_opens is not None:
                    raise TournamentRefused(
                        _("At least two checked-in entrants are needed to start; now there are %(count)s."),
                        count=count,
                    )
                raise TournamentRefused(
                    _("At least two entrants are needed to start; now there are %(count)s."), count=count
                )
            event.starts_at = now
            event.save(update_fields=["starts_at"])
        else:
            latest = current_round(event)
            if latest is None or latest.status != Round.Status.SCHEDULED:
                raise TournamentRefused(_("No round is waiting to start: wait until the round being played ends."))
            latest.starts_at = now
            latest.save(update_fields=["starts_at"])
        if event.paused:
            event.paused = False
            event.save(update_fields=["paused"])
        _log(event, by, "start")
    return do_advance_event(tournament_id=tournament_id, now=now)


def do_set_paused(*, tournament_id: int, by, paused: bool) -> Tournament:
    """Pause: no round starts until the director resumes; the round being played goes on."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "pause" if paused else "resume")
        if event.paused == paused:
            return event
        event.paused = paused
        event.paused_at = timezone.now() if paused else None
        event.save(update_fields=["paused", "paused_at"])
        _log(event, by, "pause" if paused else "resume")
    notify.event_changed_on_commit(tournament_id)
    return event


def do_cancel_event(*, tournament_id: int, by, reason: str = "") -> Tournament:
    """The event will not be played (or not played on): nothing more is seated or started.
    Games at its tables that are under way may be finished by their players."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "cancel")
        before = event.status
        event.status = Tournament.Status.CANCELLED
        event.finished_at = timezone.now()
        event.save(update_fields=["status", "finished_at"])
        _log(event, by, "cancel", reason, before=before, after=event.status)
    notify.event_changed_on_commit(tournament_id)
    return event


def do_reopen_event(*, tournament_id: int, by, reason: str = "") -> Tournament:
    """A cancelled or finished event is live again (logged: who, when, why).

    Finished: it is running again, with every round played, so that results can be
    corrected; "finish" ends it again. Cancelled after it started: running again, the
    sweep goes on from where it stopped. Cancelled before it started: back to its
    registration (or scheduled, or check-in), which needs a start time in the future.
    """
    _director(by)
    reason = (reason or "").strip()
    if not reason:
        raise TournamentRefused(_("Say why the event is reopened."))
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "reopen")
        before = event.status
        if event.status == Tournament.Status.FINISHED or event.started_at is not None:
            event.status = Tournament.Status.RUNNING
        else:
            if event.starts_at < next_minute():
                raise TournamentRefused(_("Set a start time in the future first (in the setup), then reopen."))
            if event.checkin_opened_at is not None:
                event.status = Tournament.Status.CHECKIN
            elif event.registration_opened_at is not None:
                event.status = Tournament.Status.REGISTRATION
            else:
                event.status = Tournament.Status.SCHEDULED
        event.finished_at = None
        event.save(update_fields=["status", "finished_at"])
        _log(event, by, "reopen", reason, before=before, after=event.status)
    schedule_nudges_on_commit(tournament_id)
    notify.event_changed_on_commit(tournament_id)
    return event


def do_finish_event(*, tournament_id: int, by, reason: str = "") -> Tournament:
    """End a running event now that no round is being played (a reopened event after its
    corrections, or a Swiss ended early); a round scheduled but not started is dropped."""
    _director(by)
    now = timezone.now()
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "finish")
        if event.round_set.filter(status=Round.Status.PLAYING).exists():
            raise TournamentRefused(_("A round is being played: wait until it ends."))
        event.round_set.filter(status=Round.Status.SCHEDULED).delete()
        event.ratings_nudged_at = None  # the ratings follow the event's final results
        _finish_event(event, now)
        _log(event, by, "finish", reason, before=Tournament.Status.RUNNING, after=event.status)
    notify.event_changed_on_commit(tournament_id)
    return event


def do_delete_event(*, tournament_id: int, by) -> str:
    """Delete an event that never started (its entries go with it); returns its name."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        started = event.started_at is not None or event.round_set.exclude(status=Round.Status.SCHEDULED).exists()
        if started or not allowed(event, "delete"):
            raise TournamentRefused(ACTION_REFUSALS["delete"])
        name = event.name
        event.delete()
    log.info("event %s (%s) deleted by %s", tournament_id, name, getattr(by, "pk", None))
    return name


def do_add_late_entrant(*, tournament_id: int, by, user, pair_id: int | None = None) -> Entrant:
    """The director adds an entrant once the event is under way; he joins from
    the next round not yet started, with 0 points for the rounds he missed."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "late")
        if event.format != Tournament.Format.SWISS and event.status == Tournament.Status.RUNNING:
            raise TournamentRefused(_("Late entries join Swiss events only."))
        entrant = _new_entrant(event, user, pair_id, late=event.status == Tournament.Status.RUNNING)
        latest = current_round(event)
        if latest is None:
            entrant.joined_round = 1
        else:
            entrant.joined_round = latest.number if latest.status == Round.Status.SCHEDULED else latest.number + 1
        entrant.checked_in = True
        entrant.checked_in_at = timezone.now()
        entrant.save()
        _log(event, by, "late", entrant=entrant.pk, name=_name(entrant))
    notify.event_changed_on_commit(tournament_id)
    return entrant


def do_withdraw(*, tournament_id: int, entrant_id: int, by, disqualify: bool = False, reason: str = "") -> Entrant:
    """Left out of every later round; results so far stay (standings keep them).
    Only an entrant of this event, and only while the event is live."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        entrant = event.entrants.select_for_update().filter(pk=entrant_id).first()
        if entrant is None:
            raise TournamentRefused(_("There is no such entrant in this event."))
        _allow(event, "withdraw")
        if not (entrant.is_active or entrant.state == Entrant.State.WAITING):
            raise TournamentRefused(_("This entrant is already out of the event."))
        held_place = entrant.is_active
        entrant.state = Entrant.State.DISQUALIFIED if disqualify else Entrant.State.WITHDRAWN
        entrant.state_changed_at = timezone.now()
        entrant.save(update_fields=["state", "state_changed_at"])
        _log(event, by, "disqualify" if disqualify else "withdraw", reason, entrant=entrant.pk, name=_name(entrant))
        if held_place:
            _promote_waiting(event)
    notify.event_changed_on_commit(tournament_id)
    return entrant


def do_reinstate(*, tournament_id: int, entrant_id: int, by, reason: str = "") -> Entrant:
    """Undo a withdrawal or a disqualification while the event is live: he plays again from the
    next round seated (his results so far stay). Before the start he needs a free place; a
    knockout under way cannot take back one who left its bracket."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        entrant = event.entrants.select_for_update().filter(pk=entrant_id).first()
        if entrant is None:
            raise TournamentRefused(_("There is no such entrant in this event."))
        _allow(event, "reinstate")
        if entrant.state not in (Entrant.State.WITHDRAWN, Entrant.State.DISQUALIFIED):
            raise TournamentRefused(_("Only a withdrawn or disqualified entrant can be reinstated."))
        if _is_knockout(event) and event.status == Tournament.Status.RUNNING:
            raise TournamentRefused(_("A knockout under way cannot take an entrant back into its bracket."))
        if event.status in BEFORE_START and is_full(event):
            raise TournamentRefused(_("The event is full: there is no place to reinstate the entrant."))
        was = entrant.state
        entrant.state = Entrant.State.ACTIVE
        entrant.state_changed_at = timezone.now()
        entrant.save(update_fields=["state", "state_changed_at"])
        _log(event, by, "reinstate", reason, entrant=entrant.pk, name=_name(entrant), was=was)
    notify.event_changed_on_commit(tournament_id)
    return entrant


def do_set_checked_in(*, tournament_id: int, entrant_id: int, by, checked_in: bool) -> Entrant:
    """The director checks an entrant in or out (logged); when the event has a check-in, only
    those checked in are seated, from the next round seated."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        entrant = event.entrants.select_for_update().filter(pk=entrant_id).first()
        if entrant is None:
            raise TournamentRefused(_("There is no such entrant in this event."))
        _allow(event, "checkin")
        if not entrant.is_active:
            raise TournamentRefused(_("Only an entrant with a place in the event can be checked in."))
        if entrant.checked_in == checked_in:
            if checked_in:
                raise TournamentRefused(_("Entrant %(name)s is already checked in."), name=_name(entrant))
            raise TournamentRefused(_("Entrant %(name)s is not checked in."), name=_name(entrant))
        entrant.checked_in = checked_in
        entrant.checked_in_at = timezone.now() if checked_in else None
        entrant.save(update_fields=["checked_in", "checked_in_at"])
        _log(event, by, "check_in" if checked_in else "check_out", entrant=entrant.pk, name=_name(entrant))
    notify.event_changed_on_commit(tournament_id)
    return entrant


MOST_POINTS = 100.0  # a bound for a points entry when the points table is all zero


def parse_points(value) -> float:
    """A points entry as typed: "1.5" or the Russian "1,5"; a number that is finite, not negative."""
    if isinstance(value, str):
        value = value.strip().replace(",", ".")
    try:
        points = float(value)
    except (TypeError, ValueError):
        raise TournamentRefused(_("Points must be a number, e.g. 1,5.")) from None
    if not math.isfinite(points):  # "nan" was a server error, "1e400" an infinite score
        raise TournamentRefused(_("Points must be a number, e.g. 1,5."))
    if points < 0:
        raise TournamentRefused(_("Points cannot be negative."))
    return points


def most_points(event: Tournament) -> float:
    """The most one game (or a bye) can score: the top of the event's points table."""
    table = points_table(event)
    return max([*table, standings.bye_points(table)]) or MOST_POINTS


def do_correct_result(*, tournament_id: int, result_id: int, by, points, note: str = "") -> Result:
    """Set one result's points by hand (a bye, or a score the places do not give);
    the outcome of a game is corrected by places (`do_correct_places`)."""
    _director(by)
    points = parse_points(points)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        result = (
            Result.objects.select_for_update()
            .select_related("entrant")
            .filter(pk=result_id, round__tournament=event)
            .first()
        )
        if result is None:
            raise TournamentRefused(_("There is no such result in this event."))
        _allow(event, "correct")
        most = most_points(event)
        if points > most:
            raise TournamentRefused(_("A result scores at most %(most)s points in this event."), most=_points(most))
        before = result.points
        if result.original_points is None:
            result.original_points = result.points
        result.points = points
        result.corrected_by = by
        result.corrected_at = timezone.now()
        result.note = note[:200]
        result.save(update_fields=["points", "original_points", "corrected_by", "corrected_at", "note"])
        _log(
            event,
            by,
            "points",
            note,
            result=result.pk,
            round=result.round.number,
            name=_name(result.entrant),
            before=before,
            after=points,
        )
    notify.event_changed_on_commit(tournament_id)
    return result


def _points(value: float) -> str:
    """1.5 -> "1,5" in Russian, "1.5" in English; 3.0 -> "3"."""
    from django.utils.formats import number_format

    return number_format(value, decimal_pos=None if value != int(value) else 0)


def do_correct_places(
    *, tournament_id: int, round_table_id: int, game_number: int, places: dict, by, reason: str
) -> list[Result]:
    """Correct the outcome of one game at a table: the places of all its entrants, from which
    the points, the durak finish and (knockout) who goes on follow, and so do the ratings
    (the game's counted places are corrected too). Logged with the old and new outcome."""
    _director(by)
    reason = (reason or "").strip()
    if not reason:
        raise TournamentRefused(_("Say why the outcome is corrected."))
    with transaction.atomic():
        event = _locked_event(tournament_id)
        rt = (
            RoundTable.objects.select_for_update()
            .select_related("round")
            .filter(pk=round_table_id, round__tournament=event)
            .first()
        )
        if rt is None:
            raise TournamentRefused(_("There is no such table in this event."))
        _allow(event, "correct")
        round_ = rt.round
        results = {
            r.entrant_id: r
            for r in Result.objects.select_for_update()
            .select_related("entrant__pair", "entrant__user")
            .filter(round_table=rt, game_number=game_number)
        }
        entrants = list(rt.entrants)
        if not results or set(results) != set(entrants):
            raise TournamentRefused(_("That game has no result to correct."))
        try:
            given = {int(pk): int(place) for pk, place in places.items()}
        except (TypeError, ValueError, AttributeError):
            raise TournamentRefused(_("Give every entrant at the table a place.")) from None
        if set(given) != set(entrants):
            raise TournamentRefused(_("Give every entrant at the table a place."))
        if any(not 1 <= p <= len(entrants) for p in given.values()):
            raise TournamentRefused(_("A place is a number from 1 to %(count)s."), count=len(entrants))
        later = event.round_set.filter(number__gt=round_.number)
        if _is_knockout(event) and later.exclude(status=Round.Status.SCHEDULED).exists():
            raise TournamentRefused(
                _("The next round of the knockout has started: only its latest round can be corrected.")
            )
        table = points_table(event, len(entrants))
        points = standings.game_points(given, len(entrants), table)
        worst = max(given.values())
        if event.is_pairs:
            durak = {pk: given[pk] == 2 and len(set(given.values())) == 2 for pk in entrants}
        else:
            durak = {pk: given[pk] == worst and min(given.values()) < worst for pk in entrants}
            points.update({pk: 0.0 for pk in entrants if durak[pk]})  # the durak scores nothing
        before, after, now = {}, {}, timezone.now()
        for pk in entrants:
            result = results[pk]
            name = _name(result.entrant)
            before[name] = {"place": result.place, "points": result.points, "durak": result.is_durak}
            if result.original_points is None:
                result.original_points = result.points
            result.place, result.points, result.is_durak = given[pk], points[pk], durak[pk]
            result.corrected_by, result.corrected_at, result.note = by, now, reason[:200]
            result.save(
                update_fields=["place", "points", "is_durak", "original_points", "corrected_by", "corrected_at", "note"]
            )
            after[name] = {"place": given[pk], "points": points[pk], "durak": durak[pk]}
        game_id = next((r.game_id for r in results.values() if r.game_id), None)
        if game_id is not None:
            # What the ratings read: the counted places of the game's seats.
            if event.is_pairs:
                seat_places = {n: given[entrants[n % 2]] for n in range(4)}
            else:
                seat_places = {n: given[pk] for n, pk in enumerate(entrants)}
            game_corrections.do_correct_counted_places(game_id=game_id, places=seat_places, by_id=by.pk, now=now)
        if _is_knockout(event) and round_.status == Round.Status.FINISHED:
            # Who goes on follows the corrected places; a next round not started is seated again.
            Entrant.objects.filter(tournament=event, eliminated_in_round=round_.number).update(eliminated_in_round=None)
            _eliminate(event, round_)
            for scheduled in later.filter(status=Round.Status.SCHEDULED):
                RoundTable.objects.filter(round=scheduled).delete()
                scheduled.byes = []
                scheduled.seated_by_director = False
                scheduled.save(update_fields=["byes", "seated_by_director"])
        _log(
            event,
            by,
            "correct",
            reason,
            round=round_.number,
            table=rt.number,
            game_number=game_number,
            game=game_id,
            before=before,
            after=after,
        )
        if event.rated and game_id is not None:
            notify.recompute_ratings_on_commit(event.variant)
    notify.event_changed_on_commit(tournament_id)
    return [results[pk] for pk in entrants]


def do_reseat_round(*, tournament_id: int, number: int, by, tables: list[list[int]]) -> Round:
    """The director seats a round that has not started: every eligible entrant
    once, tables of 2 up to the table size; the rest sit out (a bye)."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "reseat")
        round_ = Round.objects.select_for_update().filter(tournament=event, number=number).first()
        if round_ is None:
            if number != 1 or event.status == Tournament.Status.RUNNING:
                raise TournamentRefused(_("That round is not scheduled."))
            round_ = Round.objects.create(tournament=event, number=1, starts_at=event.starts_at)
        if round_.status != Round.Status.SCHEDULED:
            raise TournamentRefused(_("That round has already started."))
        eligible = {e.pk for e in _eligible(event, number)}
        seen = [pk for table in tables for pk in table]
        if len(seen) != len(set(seen)):
            raise TournamentRefused(_("An entrant sits at one table only."))
        if not set(seen) <= eligible:
            raise TournamentRefused(_("Only entrants who play this round can be seated."))
        if any(not 2 <= len(table) <= event.entrants_per_table for table in tables):
            raise TournamentRefused(_("Every table needs 2 to %(size)s entrants."), size=event.entrants_per_table)
        if event.is_pairs and any(len(table) != 2 for table in tables):
            raise TournamentRefused(_("Pairs play two at a table."))
        byes = sorted(eligible - set(seen))
        _store_seating(round_, seating_of(event, number, [list(t) for t in tables], byes))
        round_.seated_by_director = True
        round_.published_at = None  # an edited draft is shown to the players once published again
        round_.drafted_for = _draft_key(event, number)
        round_.save(update_fields=["seated_by_director", "published_at", "drafted_for"])
        _log(event, by, "reseat", round=number, tables=[list(t) for t in tables])
    notify.event_changed_on_commit(tournament_id)
    return round_


ANNOUNCEMENT_LIMIT = 500  # characters: an announcement is read on a phone between games


def do_announce(*, tournament_id: int, by, text: str) -> Tournament:
    _director(by)
    text = (text or "").strip()
    if not text:
        raise TournamentRefused(_("Write the message first."))
    if len(text) > ANNOUNCEMENT_LIMIT:
        raise TournamentRefused(
            ngettext_lazy(
                "An announcement has at most %(limit)s character.",
                "An announcement has at most %(limit)s characters.",
                "limit",
            ),
            limit=ANNOUNCEMENT_LIMIT,
        )
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "announce")
        event.announcement = text
        event.announced_at = timezone.now()
        event.save(update_fields=["announcement", "announced_at"])
        user_ids = sorted({uid for e in event.entrants.select_related("pair") for uid in e.user_ids()})
    notify.announce_on_commit(tournament_id, user_ids, text)
    return event


# ------------------------------------------------------------- nudges


def due_event_ids(now=None) -> list[int]:
    """Events with something due (for the sweep): not over, and a time passed or a round on."""
    now = now or timezone.now()
    live = Tournament.objects.exclude(status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED])
    due = live.filter(
        Q(status=Tournament.Status.RUNNING)
        | Q(starts_at__lte=now)
        | Q(registration_opened_at__isnull=True, registration_opens__isnull=True)
        | Q(registration_opened_at__isnull=True, registration_opens__lte=now)
        | Q(registration_closed_at__isnull=True, registration_closes__lte=now)
        | Q(checkin_opened_at__isnull=True, checkin_opens__lte=now)
        | Q(checkin_closed_at__isnull=True, checkin_closes__lte=now)
    )
    return list(due.order_by("pk").values_list("pk", flat=True))


# ------------------------------------------------- steps that keep failing

# A step that fails is tried again after RETRY_FIRST, then twice as long each
# time, at most RETRY_MAX apart; it is logged once, when it first fails, and the
# director's page shows it (StuckStep) with the actions that resolve it.
RETRY_FIRST = timedelta(seconds=10)
RETRY_MAX = timedelta(minutes=10)


class StepFailed(Exception):
    """A step of an event failed after what came before it was stored."""

    def __init__(self, step: str, round_table_id: int | None, error: BaseException):
        super().__init__(f"{step}: {error!r}")
        self.step, self.round_table_id, self.error = step, round_table_id, error


def retry_pause(failures: int) -> timedelta:
    return min(RETRY_FIRST * 2 ** min(max(failures - 1, 0), 20), RETRY_MAX)


def note_failure(tournament_id: int, failure: StepFailed, now=None) -> StuckStep | None:
    """Count a failed step and set its next attempt; log it only the first time."""
    now = now or timezone.now()
    with transaction.atomic():
        event = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if event is None:
            return None
        kind = {"step": failure.step, "round_table_id": failure.round_table_id}
        stuck = StuckStep.objects.select_for_update().filter(tournament=event, **kind).first()
        first = stuck is None
        if first:
            stuck = StuckStep(tournament=event, first_failed_at=now, **kind)
        stuck.failures += 1
        stuck.error = f"{type(failure.error).__name__}: {failure.error}"[:300]
        stuck.last_failed_at = now
        stuck.next_attempt_at = now + retry_pause(stuck.failures)
        stuck.save()
    if first:
        log.error(
            "event %s: %s failed (round table %s); retried with backoff and shown to the director",
            tournament_id,
            failure.step,
            failure.round_table_id,
            exc_info=failure.error,
        )
        notify.event_changed_on_commit(tournament_id)
    return stuck


def do_sweep_event(*, tournament_id: int, now=None) -> list[str]:
    """One event's turn in the sweep: whatever is due. A step that failed waits for
    its next attempt (a growing pause) while the rest of the event goes on; a failure
    is noted (`note_failure`), not raised, and a step that succeeds again is cleared."""
    now = now or timezone.now()
    stuck = list(StuckStep.objects.filter(tournament_id=tournament_id))
    hold = frozenset((s.step, s.round_table_id) for s in stuck if s.next_attempt_at > now)
    done, failures = _advance_steps(tournament_id, now, hold)
    failed = set()
    for failure in failures:
        note_failure(tournament_id, failure, now)
        failed.add((failure.step, failure.round_table_id))
    cleared = [s.pk for s in stuck if (s.step, s.round_table_id) not in hold | failed]
    if cleared and StuckStep.objects.filter(pk__in=cleared).delete()[0]:
        log.info("event %s: a step that failed succeeded", tournament_id)
        notify.event_changed_on_commit(tournament_id)
    return done


def do_retry_stuck_step(*, tournament_id: int, by) -> list[str]:
    """The director: try the failing steps again now, not at their next attempt."""
    _director(by)
    now = timezone.now()
    with transaction.atomic():
        event = _locked_event(tournament_id)
        stuck = list(StuckStep.objects.select_for_update().filter(tournament=event))
        if not stuck:
            raise TournamentRefused(_("No step of this event waits for a retry."))
        StuckStep.objects.filter(pk__in=[s.pk for s in stuck]).update(next_attempt_at=now)
        _log(event, by, "retry", steps=[[s.step, s.round_table_id, s.failures, s.error] for s in stuck])
    done = do_sweep_event(tournament_id=tournament_id, now=now)
    if StuckStep.objects.filter(tournament_id=tournament_id, last_failed_at__gte=now).exists():
        raise TournamentRefused(_("The step failed again: it is retried later."))
    return done


def do_end_table_round(*, tournament_id: int, round_table_id: int, by) -> list[str]:
    """The director ends one table's round with the games recorded there so far
    (a table whose next game cannot be dealt); the round ends with its last table."""
    _director(by)
    now = timezone.now()
    if not RoundTable.objects.filter(pk=round_table_id, round__tournament_id=tournament_id).exists():
        raise TournamentRefused(_("There is no such table in this event."))
    with transaction.atomic():
        event = _locked_event(tournament_id)
        rt = RoundTable.objects.select_for_update().select_related("round").get(pk=round_table_id)
        if rt.done or rt.round.status != Round.Status.PLAYING:
            raise TournamentRefused(_("This table's round is already over."))
        latest = game_records.latest_games([rt.table_id]).get(rt.table_id) if rt.table_id else None
        if latest is not None and latest["status"] != "finished":
            raise TournamentRefused(_("A game is on at this table: end its round once the game is over."))
        done = [f"table {rt.number}: ended by the director", *_close_table(event, rt, now)]
        StuckStep.objects.filter(tournament=event, round_table=rt).delete()
        _log(event, by, "end_table", round=rt.round.number, table=rt.number, game_number=rt.games_played)
    notify.event_changed_on_commit(tournament_id)
    return done


def schedule_nudges_on_commit(tournament_id: int) -> None:
    """Nudges at the event's exact times (the sweep covers any that get lost)."""

    def send():
        event = Tournament.objects.filter(pk=tournament_id).first()
        if event is None:
            return
        now = timezone.now()
        times = [
            event.registration_opens,
            event.registration_closes,
            event.checkin_opens,
            event.checkin_closes,
            event.starts_at,
        ]
        for when in sorted({t for t in times if t and t > now}):
            notify.nudge_event(event.pk, event.variant, when)

    transaction.on_commit(send)
