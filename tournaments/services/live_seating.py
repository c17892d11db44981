"""The director's seating of a round under way: tables not yet begun seated again, a
substitute, a house bot.

While a round is played, a table at which no move has been made yet (its first game
dealt, untouched) may still be changed: `do_reseat_started_round` seats the entrants
of such tables anew, `do_substitute_entrant` puts a player from outside the event in
an entrant's seat (in a singles event he becomes a late entrant and the one replaced
is withdrawn; in a pair event he plays for the pair at that table this round, and the
results stay the pair's). Either way the old game tables are closed without a result
(`games.services.event_tables.do_close_unstarted_table`) and new ones are opened
as at the round's start (`rounds.open_round_tables`).

`do_seat_house_bot` puts a house bot in an absent entrant's seat, at a table not begun
or in a stuck game, where the event allows house bots (`Tournament.house_bots_allowed`).
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.errors import MoveRefused, TableRefused
from games.services import event_tables
from games.services import tables as game_tables

from .. import notify
from ..errors import TournamentRefused
from ..models import Entrant, Result, Round, RoundTable, Tournament
from ..selectors import unbegun_tables
from .absence import ABSENCES_TO_WITHDRAW
from .base import current_round, locked_event
from .director import check_allowed, log_action, require_director
from .entries import entrant_name, new_entrant, refuse_overlap
from .rounds import open_round_tables
from .seating import users_to_seat
from .setup import rules_of

SUBSTITUTED = "substituted"


def _playing_round(event: Tournament) -> Round:
    round_ = current_round(event)
    if not event.is_under_way or round_ is None or round_.status != Round.Status.PLAYING:
        raise TournamentRefused(_("No round is being played now."))
    return Round.objects.select_for_update(of=("self",)).get(pk=round_.pk)


def _close(round_tables: list[RoundTable]) -> None:
    for rt in round_tables:
        try:
            event_tables.do_close_unstarted_table(table_id=rt.table_id)
        except TableRefused:
            raise TournamentRefused(_("Play has begun at table %(number)s."), number=rt.number) from None


def do_reseat_started_round(*, tournament_id: int, by, numbers: list[int], tables: list[list[int]]) -> Round:
    """Seat again the entrants of the round's tables `numbers` (none begun) as `tables`:
    the same entrants, each once, 2 up to the table size at a table."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "reseat")
        round_ = _playing_round(event)
        free = {rt.number: rt for rt in unbegun_tables(round_)}
        chosen = sorted(set(numbers))
        if not chosen:
            raise TournamentRefused(_("Choose the tables to seat again."))
        begun = [n for n in chosen if n not in free]
        if begun:
            raise TournamentRefused(_("Play has begun at table %(number)s."), number=begun[0])
        old = [free[n] for n in chosen]
        seen = [pk for table in tables for pk in table]
        if len(seen) != len(set(seen)) or sorted(seen) != sorted(pk for rt in old for pk in rt.entrants):
            raise TournamentRefused(_("Seat the entrants of the chosen tables, each once."))
        if any(not 2 <= len(table) <= event.entrants_per_table for table in tables):
            raise TournamentRefused(_("Every table needs 2 to %(size)s entrants."), size=event.entrants_per_table)
        if event.is_pairs and any(len(table) != 2 for table in tables):
            raise TournamentRefused(_("Pairs play two at a table."))
        _close(old)
        RoundTable.objects.filter(pk__in=[rt.pk for rt in old]).delete()
        last = max(round_.tables.values_list("number", flat=True), default=0)
        spare = chosen + list(range(max(last, chosen[-1]) + 1, max(last, chosen[-1]) + 1 + len(tables)))
        for number, table in zip(spare, tables, strict=False):
            RoundTable.objects.create(round=round_, number=number, entrants=list(table))
        seated = open_round_tables(event, round_)
        log_action(event, by, "reseat", round=round_.number, tables=[list(t) for t in tables], replaced=chosen)
    notify.seats_on_commit(tournament_id, round_.number, seated)
    notify.event_changed_on_commit(tournament_id)
    return round_


def do_substitute_entrant(*, tournament_id: int, by, entrant_id: int, user, replaces: int | None = None) -> Entrant:
    """Before play begins at his table, `user` (not in the event) takes the entrant's seat:
    he is a new, late entrant from this round on; the one replaced is withdrawn.
    In a pair event he takes the seat of the partner `replaces` (a user id) instead
    (`_substitute_partner`)."""
    require_director(by)
    if replaces is not None or _is_pairs(tournament_id):
        return _substitute_partner(
            tournament_id=tournament_id, by=by, entrant_id=entrant_id, user=user, replaces=replaces
        )
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "withdraw")
        if event.is_pairs:
            raise TournamentRefused(_("A substitute takes an individual entrant's seat only."))
        round_ = _playing_round(event)
        old = event.entrants.select_for_update(of=("self",)).filter(pk=entrant_id).first()
        if old is None or not old.is_active:
            raise TournamentRefused(_("There is no such entrant in this event."))
        rt = next((t for t in round_.tables.all() if entrant_id in t.entrants), None)
        if rt is None:
            raise TournamentRefused(_("This entrant has no seat in the round being played."))
        if rt.pk not in {t.pk for t in unbegun_tables(round_)}:
            raise TournamentRefused(_("Play has begun at table %(number)s."), number=rt.number)
        if user is None or event.entrants.filter(user=user).exists():
            raise TournamentRefused(_("The substitute must be a player who is not in the event."))
        now = timezone.now()
        new = new_entrant(event, user, None, late=True, wait=True)
        new.state = Entrant.State.ACTIVE  # he takes a place that is already counted
        new.joined_round = round_.number
        new.checked_in, new.checked_in_at = True, now
        new.save()
        old.state, old.state_changed_at = Entrant.State.WITHDRAWN, now
        old.save(update_fields=["state", "state_changed_at"])
        _close([rt])
        rt.entrants = [new.pk if pk == entrant_id else pk for pk in rt.entrants]
        rt.table = None
        rt.save(update_fields=["entrants", "table"])
        seated = open_round_tables(event, round_)
        log_action(event, by, "withdraw", SUBSTITUTED, entrant=old.pk, name=entrant_name(old))
        log_action(event, by, "late", entrant=new.pk, name=entrant_name(new), replaces=old.pk)
    notify.seats_on_commit(tournament_id, round_.number, seated)
    notify.event_changed_on_commit(tournament_id)
    return new


def _is_pairs(tournament_id: int) -> bool:
    return Tournament.objects.filter(pk=tournament_id, kind=Tournament.Kind.PAIRS).exists()


def _seat_of_round(event: Tournament, round_: Round, entrant_id: int) -> tuple[Entrant, RoundTable]:
    """The active entrant and his table in the round being played (refused otherwise)."""
    entrant = event.entrants.select_for_update(of=("self",)).filter(pk=entrant_id).first()
    if entrant is None or not entrant.is_active:
        raise TournamentRefused(_("There is no such entrant in this event."))
    rt = next((t for t in round_.tables.select_for_update(of=("self",)) if entrant_id in t.entrants), None)
    if rt is None:
        raise TournamentRefused(_("This entrant has no seat in the round being played."))
    return entrant, rt


def _substitute_partner(*, tournament_id: int, by, entrant_id: int, user, replaces: int | None) -> Entrant:
    """A pair event: before play begins at the pair's table, `user` takes the seat of its
    partner `replaces` for the games of this round at that table. The pair stays the
    entrant: its results are the pair's, and the next round it plays as registered.
    The substitute is a player not in this event and not entered in an event whose
    time overlaps it (he would be seated twice)."""
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "withdraw")
        if not event.is_pairs:
            raise TournamentRefused(_("Only in a pair event does a substitute replace one partner of a pair."))
        round_ = _playing_round(event)
        pair_entrant, rt = _seat_of_round(event, round_, entrant_id)
        pair = pair_entrant.pair
        if replaces not in (pair.player_one_id, pair.player_two_id):
            raise TournamentRefused(_("Choose the partner of the pair whom the substitute replaces."))
        if rt.pk not in {t.pk for t in unbegun_tables(round_)}:
            raise TournamentRefused(_("Play has begun at table %(number)s."), number=rt.number)
        if user is None or _in_event(event, user.pk):
            raise TournamentRefused(_("The substitute must be a player who is not in the event."))
        if event.rated and game_tables.is_guest(user):
            raise TournamentRefused(_("Rated play needs an account: sign up first."))
        refuse_overlap(event, [user], self_entry=False)
        entrants = {e.pk: e for e in event.entrants.filter(pk__in=rt.entrants).select_related("pair", "user")}
        users = users_to_seat([entrants[pk] for pk in rt.entrants], event)
        users = [user if u.pk == replaces else u for u in users]
        _close([rt])
        table = game_tables.do_create_table(
            rules=rules_of(event, len(users)),
            seat_users=users,
            turn_seconds=event.turn_seconds,
            rated=event.rated,
            start=True,
            rematch=False,
            managed_by_event=True,
            arrival_grace=event.no_show_grace,
        )
        rt.table = table
        rt.save(update_fields=["table"])
        seated = {u.pk: (table.pk, rt.number) for u in users}
        out = next(member for member in pair.members if member.pk == replaces)
        log_action(
            event,
            by,
            "substitute",
            entrant=pair_entrant.pk,
            name=f"{entrant_name(pair_entrant)}: {out.get_username()} → {user.get_username()}",
            in_round=round_.number,
            at_table=rt.number,
            replaced=replaces,
            substitute=user.pk,
        )
    notify.seats_on_commit(tournament_id, round_.number, seated)
    notify.event_changed_on_commit(tournament_id)
    return pair_entrant


def _in_event(event: Tournament, user_id: int) -> bool:
    return event.entrants.filter(
        Q(user_id=user_id) | Q(pair__player_one_id=user_id) | Q(pair__player_two_id=user_id)
    ).exists()


def do_seat_house_bot(*, tournament_id: int, by, entrant_id: int) -> Entrant:
    """A house bot takes the seat of an absent entrant of a singles event that allows
    house bots, at his table of the round being played: a table not begun yet, or a
    stuck game, which the bot plays on from where it stands; either way it plays that
    seat in every game of the round left at the table
    (`games.services.event_tables.do_seat_house_bot`).

    The design: a bot scores nothing for anyone. The entrant whose seat it took is
    absent in each of those games, as after a no-show forfeit (`results._record`
    reads a seat without a person as a house bot's): placed last, counted durak, no
    points, his result marked `absent`; the others rank as if he were not there. His
    absence counts towards `ABSENCES_TO_WITHDRAW` like a forfeit's: reaching
    it, he is withdrawn from the later rounds unless the director keeps him. A game
    with a house bot in it is never rated (the table and the game on are made
    unrated; the ratings' ledger rates nobody in a game with a bot seat besides)."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "reseat")
        if not event.house_bots_allowed:
            raise TournamentRefused(_("This event does not allow house bots."))
        if event.is_pairs:
            raise TournamentRefused(
                _("House bots play for single entrants only: in a pair event, seat a substitute instead.")
            )
        round_ = _playing_round(event)
        entrant, rt = _seat_of_round(event, round_, entrant_id)
        if rt.done or rt.table_id is None:
            raise TournamentRefused(_("The games of this table are over."))
        try:
            event_tables.do_seat_house_bot(table_id=rt.table_id, seat=rt.entrants.index(entrant_id))
        except (TableRefused, MoveRefused) as refusal:
            raise TournamentRefused(refusal.message) from None
        log_action(
            event,
            by,
            "house-bot",
            entrant=entrant.pk,
            name=entrant_name(entrant),
            in_round=round_.number,
            at_table=rt.number,
        )
        earlier = (
            Result.objects.filter(entrant=entrant, absent=True).exclude(round=round_).values("round_id").distinct()
        )
        if not entrant.kept and earlier.count() + 1 >= ABSENCES_TO_WITHDRAW:
            entrant.state, entrant.state_changed_at = Entrant.State.WITHDRAWN, timezone.now()
            entrant.save(update_fields=["state", "state_changed_at"])
            log_action(event, by, "withdraw", "absences", entrant=entrant.pk, name=entrant_name(entrant))
    for user_id in entrant.user_ids():
        notify.user_changed_on_commit(user_id)
    notify.event_changed_on_commit(tournament_id)
    return entrant
