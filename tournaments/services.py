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

from games import engine
from games.services import tables as game_tables

from . import formats, game_records, notify, standings
from .errors import TournamentRefused
from .models import Entrant, Pair, Result, Round, RoundTable, Tournament

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
        raise TournamentRefused(_("These rules are not valid: %(error)s"), error=str(exc)) from None
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
        entrant = _new_entrant(event, user, pair_id)
        entrant.save()
    notify.event_changed_on_commit(tournament_id)
    return entrant


def _new_entrant(event: Tournament, user, pair_id: int | None, late: bool = False) -> Entrant:
    if user is None or not user.is_authenticated:
        raise TournamentRefused(_("Sign in to enter events."))
    if event.rated and game_tables.is_guest(user):
        raise TournamentRefused(_("Rated play needs an account: sign up first."))
    if event.max_entrants and event.entrants.filter(state=Entrant.State.ACTIVE).count() >= event.max_entrants:
        raise TournamentRefused(_("The event is full."))
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
        return Entrant(tournament=event, pair=pair, late=late)
    if pair_id:
        raise TournamentRefused(_("This event is for single players."))
    if event.entrants.filter(user=user).exists():
        raise TournamentRefused(_("You are already entered in this event."))
    return Entrant(tournament=event, user=user, late=late)


def _entry_of(event: Tournament, user) -> Entrant | None:
    if user is None or not user.is_authenticated:
        return None
    return (
        event.entrants.select_for_update()
        .filter(Q(user=user) | Q(pair__player_one=user) | Q(pair__player_two=user))
        .first()
    )


def do_unregister(*, tournament_id: int, user) -> None:
    with transaction.atomic():
        event = _locked_event(tournament_id)
        entrant = _entry_of(event, user)
        if entrant is None:
            raise TournamentRefused(_("You are not entered in this event."))
        if event.status in (Tournament.Status.RUNNING, Tournament.Status.FINISHED):
            raise TournamentRefused(_("The event has started: ask the director to withdraw you."))
        entrant.delete()
    notify.event_changed_on_commit(tournament_id)


def do_check_in(*, tournament_id: int, user) -> Entrant:
    with transaction.atomic():
        event = _locked_event(tournament_id)
        entrant = _entry_of(event, user)
        if entrant is None:
            raise TournamentRefused(_("You are not entered in this event."))
        if not checkin_open(event):
            raise TournamentRefused(_("Check-in is not open."))
        if not entrant.checked_in:
            entrant.checked_in = True
            entrant.checked_in_at = timezone.now()
            entrant.save(update_fields=["checked_in", "checked_in_at"])
    notify.event_changed_on_commit(tournament_id)
    return entrant


# ------------------------------------------------------- running an event


def current_round(event: Tournament) -> Round | None:
    return event.round_set.order_by("-number").first()


def do_advance_event(*, tournament_id: int, now=None) -> list[str]:
    """Do everything that is due at `now` (the sweep and every nudge call this).

    Idempotent: it reads the event under its lock and acts only on times that
    have passed and steps not yet taken. Returns what it did, for logs and tests.
    """
    now = now or timezone.now()
    with transaction.atomic():
        done = _advance(_locked_event(tournament_id), now)
    if done:
        notify.event_changed_on_commit(tournament_id)
    return done


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
    elif latest.status == Round.Status.PLAYING:
        done += _record_finished_games(event, latest, now)
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
    if round_.tables.exists():
        _drop_ineligible(event, round_)
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
    round_.status = Round.Status.PLAYING
    round_.started_at = now
    round_.ends_at = now + event.round_time_limit if event.round_time_limit else None
    round_.save(update_fields=["status", "started_at", "ends_at"])
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
    """A game at an event table has ended: store its results (once), deal the
    next game of the round at that table, and finish the round when all are done."""
    game = game_records.finished_game(game_id)
    if game is None:
        return []
    rt = RoundTable.objects.filter(table_id=game["table_id"]).select_related("round").first()
    if rt is None:
        return []
    now = now or timezone.now()
    with transaction.atomic():
        event = _locked_event(rt.round.tournament_id)
        done = _record(event, rt.pk, game, now)
    if done:
        notify.event_changed_on_commit(event.pk)
    return done


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
    done = [f"game {game['pk']} recorded"]
    out_of_time = round_.ends_at is not None and round_.ends_at <= now
    if rt.games_played < event.games_per_round and not out_of_time:
        latest = game_records.latest_games([rt.table_id]).get(rt.table_id)
        if latest is None or latest["status"] == "finished":  # a repeated nudge may have dealt it already
            game_tables.do_deal_next_game(table_id=rt.table_id)
            done.append(f"table {rt.number}: game {game_number + 1} dealt")
    else:
        rt.done = True
        # Their "go to your table" notice is out of date: each page asks again.
        for entrant in Entrant.objects.filter(pk__in=entrants).select_related("pair"):
            for user_id in entrant.user_ids():
                notify.user_changed_on_commit(user_id)
    rt.save(update_fields=["games_played", "done"])
    if rt.done and not round_.tables.filter(done=False).exists():
        done += _finish_round(event, round_, now)
    return done


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


def _record_finished_games(event: Tournament, round_: Round, now) -> list[str]:
    """The sweep's safety net: games that ended without their nudge being handled."""
    done = []
    open_tables = list(round_.tables.filter(done=False, table__isnull=False))
    latest = game_records.latest_games([rt.table_id for rt in open_tables])
    for rt in open_tables:
        row = latest.get(rt.table_id)
        if row and row["status"] == "finished":
            game = game_records.finished_game(row["pk"])
            if game is not None:
                done += _record(event, rt.pk, game, now)
    return done


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
    Round.objects.get_or_create(tournament=event, number=round_.number + 1, defaults={"starts_at": starts_at})
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


def do_start_now(*, tournament_id: int, by) -> list[str]:
    """Start the event (or its next scheduled round) at once."""
    _director(by)
    now = timezone.now()
    with transaction.atomic():
        event = _locked_event(tournament_id)
        if event.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            raise TournamentRefused(_("The event is over."))
        if event.status != Tournament.Status.RUNNING:
            event.starts_at = now
            event.save(update_fields=["starts_at"])
        else:
            latest = current_round(event)
            if latest is None or latest.status != Round.Status.SCHEDULED:
                raise TournamentRefused(_("A round is being played: wait until it ends."))
            latest.starts_at = now
            latest.save(update_fields=["starts_at"])
        if event.paused:
            event.paused = False
            event.save(update_fields=["paused"])
    return do_advance_event(tournament_id=tournament_id, now=now)


def do_set_paused(*, tournament_id: int, by, paused: bool) -> Tournament:
    """Pause: no round starts until the director resumes; the round being played goes on."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        if event.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            raise TournamentRefused(_("The event is over."))
        if event.paused == paused:
            return event
        event.paused = paused
        event.paused_at = timezone.now() if paused else None
        event.save(update_fields=["paused", "paused_at"])
    notify.event_changed_on_commit(tournament_id)
    return event


def do_add_late_entrant(*, tournament_id: int, by, user, pair_id: int | None = None) -> Entrant:
    """The director adds an entrant once the event is under way; he joins from
    the next round not yet started, with 0 points for the rounds he missed."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        if event.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            raise TournamentRefused(_("The event is over."))
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
    notify.event_changed_on_commit(tournament_id)
    return entrant


def do_withdraw(*, entrant_id: int, by, disqualify: bool = False) -> Entrant:
    """Left out of every later round; results so far stay (standings keep them)."""
    _director(by)
    with transaction.atomic():
        entrant = Entrant.objects.select_for_update().filter(pk=entrant_id).first()
        if entrant is None:
            raise TournamentRefused(_("There is no such entrant."))
        if not entrant.is_active:
            raise TournamentRefused(_("This entrant is already out of the event."))
        entrant.state = Entrant.State.DISQUALIFIED if disqualify else Entrant.State.WITHDRAWN
        entrant.state_changed_at = timezone.now()
        entrant.save(update_fields=["state", "state_changed_at"])
    notify.event_changed_on_commit(entrant.tournament_id)
    return entrant


def do_correct_result(*, result_id: int, by, points: float, note: str = "") -> Result:
    _director(by)
    try:
        points = float(points)
    except (TypeError, ValueError):
        raise TournamentRefused(_("Points must be a number.")) from None
    if not math.isfinite(points):  # "nan" was a server error, "1e400" an infinite score
        raise TournamentRefused(_("Points must be a number."))
    if points < 0:
        raise TournamentRefused(_("Points cannot be negative."))
    with transaction.atomic():
        result = Result.objects.select_for_update().select_related("round").filter(pk=result_id).first()
        if result is None:
            raise TournamentRefused(_("There is no such result."))
        if result.original_points is None:
            result.original_points = result.points
        result.points = points
        result.corrected_by = by
        result.corrected_at = timezone.now()
        result.note = note[:200]
        result.save(update_fields=["points", "original_points", "corrected_by", "corrected_at", "note"])
    notify.event_changed_on_commit(result.round.tournament_id)
    return result


def do_reseat_round(*, tournament_id: int, number: int, by, tables: list[list[int]]) -> Round:
    """The director seats a round that has not started: every eligible entrant
    once, tables of 2 up to the table size; the rest sit out (a bye)."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
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
        _store_seating(round_, formats.Seating(tables=[list(t) for t in tables], byes=byes, repeats=0, flags=[]))
        round_.seated_by_director = True
        round_.save(update_fields=["seated_by_director"])
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
        if event.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            raise TournamentRefused(_("The event is over."))
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
