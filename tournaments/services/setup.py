"""An event's setup: its rules and points table, checking it, creating, copying and editing it.

`rules_of` and `points_table` say what the setup means at a table (the lifecycle and the
results read them); `schedule_nudges_on_commit` asks for nudges at the setup's times,
whenever they are set (create, copy, edit, reopen).
"""

from __future__ import annotations

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import engine
from games.errors import rule_error_lazy
from games.services import tables as game_tables

from .. import formats, notify, registry, standings
from ..errors import TournamentRefused
from ..models import Tournament
from . import entries
from .base import locked_event
from .director import check_allowed, log_action, require_director


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


ARENA_MOST_MINUTES = 24 * 60


def validate_event(tournament: Tournament) -> None:
    """Refuse a setup that cannot run; called by the admin forms and the services."""
    if tournament.is_pairs and tournament.table_size != 4:
        raise TournamentRefused(_("Pairs play 2v2 at tables of four."))
    if not 2 <= tournament.table_size <= 6:
        raise TournamentRefused(_("A table seats 2 to 6 players."))
    event_format = registry.of(tournament)
    if tournament.is_pairs and not event_format.pairs:
        raise TournamentRefused(_("This format takes no pairs."))
    if not tournament.is_pairs and tournament.table_size not in event_format.table_sizes:
        raise TournamentRefused(
            _("This format is played only at tables of these sizes: %(sizes)s."),
            sizes=", ".join(str(size) for size in event_format.table_sizes),
        )
    if tournament.third_place_match and not (event_format.third_place and tournament.entrants_per_table == 2):
        raise TournamentRefused(_("Only a knockout at tables of two can have a third-place match."))
    if tournament.turn_seconds not in game_tables.TURN_TIMER_CHOICES:
        raise TournamentRefused(_("The turn timer is none, 15, 30 or 60 seconds."))
    if event_format.continuous:
        if not tournament.arena_minutes or not 1 <= tournament.arena_minutes <= ARENA_MOST_MINUTES:
            raise TournamentRefused(
                _("An arena lasts from 1 to %(most)s minutes: set its duration."), most=ARENA_MOST_MINUTES
            )
        if not tournament.turn_seconds:
            raise TournamentRefused(_("An arena needs a turn timer, so that its games end in time."))
    if tournament.round_time_limit and not tournament.turn_seconds:
        raise TournamentRefused(_("A round time limit needs a turn timer, so that the games end."))
    refusal = standings.tiebreak_refusal(tournament.tiebreaks or [])
    if refusal is not None:
        raise TournamentRefused(refusal)
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
            arena_minutes=source.arena_minutes,
            berserk_allowed=source.berserk_allowed,
            third_place_match=source.third_place_match,
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


def next_minute(now=None):
    """The earliest start a director may set: the next whole minute (a start in the
    current minute would be due before anyone could enter)."""
    now = now or timezone.now()
    return now.replace(second=0, microsecond=0) + timedelta(minutes=1)


def do_create_event(*, event: Tournament, by, key: str | None, draft: bool = False) -> tuple[Tournament, bool]:
    """Save a new event from the director's form; `key` is the form's one-time key, so a
    second submit of the same form returns the event of the first (created False). A `draft`
    is seen by directors only, and nothing happens to it until it is published."""
    require_director(by)
    key = (key or "").strip()[:64] or None
    if key:
        existing = Tournament.objects.filter(creation_key=key).first()
        if existing is not None:
            return existing, False
    event.created_by = by
    event.creation_key = key
    if draft:
        event.status = Tournament.Status.DRAFT
    try:
        with transaction.atomic():
            validate_event(event)
            event.save()
            log_action(event, by, "create")
    except IntegrityError:
        existing = Tournament.objects.filter(creation_key=key).first() if key else None
        if existing is None:
            raise
        return existing, False
    if not draft:  # a draft's nudges are sent when it is published
        schedule_nudges_on_commit(event.pk)
    return event, True


def do_edit_event(*, tournament_id: int, by, form) -> Tournament:
    """Save the director's edit of the setup (`form`: a valid TournamentForm of the event)."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "edit")
        saved = form.save(commit=False)
        # Only the setup: the status and the times the sweep keeps are the locked row's.
        saved.save(update_fields=[*form.Meta.fields, "rules"])
        log_action(event, by, "edit")
        entries.promote_waiting(saved)  # a raised max_entrants makes room for the waiting list
    schedule_nudges_on_commit(tournament_id)
    notify.event_changed_on_commit(tournament_id)
    return saved


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
