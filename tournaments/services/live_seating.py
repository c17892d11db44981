"""The director's seating of a round under way: tables not yet begun seated again, a substitute.

While a round is played, a table at which no move has been made yet (its first game
dealt, untouched) may still be changed: `do_reseat_started_round` seats the entrants
of such tables anew, `do_substitute_entrant` puts a player from outside the event in
an entrant's seat (he becomes a late entrant; the one replaced is withdrawn). Either
way the old game tables are closed without a result
(`games.services.event_tables.do_close_unstarted_table`) and new ones are opened
as at the round's start (`lifecycle.open_round_tables`).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.errors import TableRefused
from games.services import event_tables

from .. import notify
from ..errors import TournamentRefused
from ..models import Entrant, Round, RoundTable, Tournament
from ..selectors import unbegun_tables
from .base import _locked_event, current_round
from .director import _allow, _director, _log
from .entries import _name, _new_entrant
from .lifecycle import open_round_tables

SUBSTITUTED = "substituted"


def _playing_round(event: Tournament) -> Round:
    round_ = current_round(event)
    if event.status != Tournament.Status.RUNNING or round_ is None or round_.status != Round.Status.PLAYING:
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
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "reseat")
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
        _log(event, by, "reseat", round=round_.number, tables=[list(t) for t in tables], replaced=chosen)
    notify.seats_on_commit(tournament_id, round_.number, seated)
    notify.event_changed_on_commit(tournament_id)
    return round_


def do_substitute_entrant(*, tournament_id: int, by, entrant_id: int, user) -> Entrant:
    """Before play begins at his table, `user` (not in the event) takes the entrant's seat:
    he is a new, late entrant from this round on; the one replaced is withdrawn."""
    _director(by)
    with transaction.atomic():
        event = _locked_event(tournament_id)
        _allow(event, "withdraw")
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
        new = _new_entrant(event, user, None, late=True, wait=True)
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
        _log(event, by, "withdraw", SUBSTITUTED, entrant=old.pk, name=_name(old))
        _log(event, by, "late", entrant=new.pk, name=_name(new), replaces=old.pk)
    notify.seats_on_commit(tournament_id, round_.number, seated)
    notify.event_changed_on_commit(tournament_id)
    return new
