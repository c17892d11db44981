"""Reads of the notices app: preferences, subscriptions, who hears of what, upcoming events."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from battles.models import BattleClub
from clubs.models import Membership
from tournaments import selectors as event_selectors
from tournaments.models import DirectorAction, Entrant, Round, Tournament
from tournaments.services import expected_duration

from .models import Channel, Kind, Preference, PushSubscription, Sent

# Not in a calendar: an event a director has not published yet, or one that is over.
NOT_LISTED = (Tournament.Status.DRAFT, Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
FINAL_LINES = 10  # the top of the standings in the final mail


def preference_of(user) -> Preference:
    """The player's preferences, or the defaults (nothing chosen) when he never saved any."""
    found = Preference.objects.filter(user=user).first()
    return found or Preference(user=user)


def push_subscriptions_of(user_id: int) -> list[PushSubscription]:
    return list(PushSubscription.objects.filter(user_id=user_id).order_by("pk"))


def channels_for(user, kind: str, preferences: dict[int, Preference]) -> list[str]:
    """The channels on which `user` asked to hear of `kind`. Email only to a confirmed address:
    `User.email` is never anything else (an address given waits in Profile.pending_email until
    its link is followed: games.services.accounts)."""
    pref = preferences.get(user.pk)
    if pref is None:
        return []
    channels = []
    if kind in pref.email_kinds and user.email:
        channels.append(Channel.EMAIL)
    if kind in pref.push_kinds:
        channels.append(Channel.PUSH)
    return channels


def preferences_for(user_ids) -> dict[int, Preference]:
    return {p.user_id: p for p in Preference.objects.filter(user_id__in=list(user_ids))}


def _users(user_ids) -> dict:
    return {u.pk: u for u in get_user_model().objects.filter(pk__in=list(user_ids))}


def _people(entrants) -> list[tuple[int, Entrant]]:
    return [(user_id, entrant) for entrant in entrants for user_id in entrant.user_ids()]


def notice_batch(kind: str, object_id: int) -> dict | None:
    """What one notice is about and who gets it: {"object_key", "event", "items": [(user, context)]}.
    None when the object is gone (an entry withdrawn, an event deleted)."""
    if kind == Kind.REGISTRATION:
        entrants = Entrant.objects.filter(pk=object_id, state=Entrant.State.ACTIVE)
        entrant = entrants.select_related("tournament", "pair").first()
        if entrant is None:
            return None
        event, people = entrant.tournament, [(pk, {}) for pk in entrant.user_ids()]
        key = f"entrant:{entrant.pk}"
    elif kind == Kind.CHECKIN:
        event = Tournament.objects.filter(pk=object_id).first()
        if event is None:
            return None
        active = event.entrants.filter(state=Entrant.State.ACTIVE).select_related("pair")
        people = [(pk, {}) for pk, _entrant in _people(active)]
        key = f"event:{event.pk}"
    elif kind == Kind.ROUND:
        round_ = Round.objects.filter(pk=object_id).select_related("tournament").first()
        if round_ is None:
            return None
        event = round_.tournament
        entrants = {e.pk: e for e in event.entrants.select_related("pair")}
        people = []
        for rt in round_.tables.order_by("number"):
            for entrant_id in rt.entrants:
                entrant = entrants.get(entrant_id)
                for pk in entrant.user_ids() if entrant else []:
                    seat = {"round_number": round_.number, "table_number": rt.number, "table_id": rt.table_id}
                    people.append((pk, seat))
        key = f"round:{round_.pk}"
    elif kind == Kind.CLUB_INVITED:
        invitation = (
            BattleClub.objects.filter(pk=object_id, status=BattleClub.Status.INVITED)
            .select_related("club", "battle__tournament", "battle__organiser")
            .first()
        )
        if invitation is None:
            return None  # answered meanwhile, or the battle is gone: nothing to tell
        event = invitation.battle.tournament
        extra = {
            "club": invitation.club,
            "organiser": invitation.battle.organiser,
            "battle_path": reverse("battles:battle", kwargs={"battle_id": invitation.battle_id}),
        }
        people = [(pk, extra) for pk in club_event_runners(invitation.club)]
        key = f"battle-club:{invitation.pk}"
    elif kind == Kind.FINAL:
        event = Tournament.objects.filter(pk=object_id, status=Tournament.Status.FINISHED).first()
        if event is None:
            return None
        people, key = _final_people(event)
    else:
        return None
    users = _users(pk for pk, _context in people)
    items = [(users[pk], context) for pk, context in people if pk in users]
    return {"object_key": key, "event": event, "items": items}


def club_event_runners(club) -> list[int]:
    """The club's people who may answer for it: its owner and the leaders granted running events."""
    runners = Q(role=Membership.Role.OWNER) | Q(role=Membership.Role.LEADER, may_run_events=True)
    return list(Membership.objects.filter(runners, club=club).order_by("pk").values_list("user_id", flat=True))


def _final_key(event: Tournament) -> str:
    """The first end's mail is `event:<id>`; the end after the n-th reopening of the finished
    event (the director's correction) is `event:<id>:corrected:<n>`, so each is sent once."""
    reopened = DirectorAction.objects.filter(tournament=event, action="reopen", detail__before="finished").count()
    return f"event:{event.pk}:corrected:{reopened}" if reopened else f"event:{event.pk}"


def told_of_final(event: Tournament, *, but: str = "") -> dict[int, dict]:
    """What the final-standings mails of `event` last told each person (his place and points),
    leaving out the message `but` (the one being sent)."""
    mine = Q(object_key=f"event:{event.pk}") | Q(object_key__startswith=f"event:{event.pk}:")
    rows = Sent.objects.filter(mine, kind=Kind.FINAL, sent_at__isnull=False).exclude(object_key=but)
    return {row.recipient_id: row.told for row in rows.order_by("sent_at", "pk") if row.told}


def _final_people(event: Tournament) -> tuple[list, str]:
    """Everyone in the final standings; after a correction, only those whose place or points
    differ from what their last final mail said, with what it said."""
    key = _final_key(event)
    lines = event_selectors.standings_table(event)
    top = lines[:FINAL_LINES]
    before = told_of_final(event, but=key) if key != f"event:{event.pk}" else None
    people = []
    for line in lines:
        told = {"place": line["rank"], "points": line["points"]}
        for pk in line["user_ids"]:
            if before is None:
                people.append((pk, {"line": line, "top": top, "told": told}))
            elif before.get(pk) not in (None, told):
                people.append((pk, {"line": line, "top": top, "told": told, "corrected": True, "before": before[pk]}))
    return people, key


def _listed(events):
    now = timezone.now()
    upcoming = events.exclude(status__in=NOT_LISTED).filter(
        Q(starts_at__gte=now - timedelta(days=1)) | Q(status__in=Tournament.UNDER_WAY)
    )
    return [
        {"event": event, "ends_at": event.starts_at + expected_duration(event)}
        for event in upcoming.order_by("starts_at", "pk")
    ]


def club_calendar() -> list[dict]:
    """Upcoming published events (drafts never, nothing over), each with its expected end."""
    return _listed(Tournament.objects.all())


def player_calendar(user_id: int) -> list[dict]:
    """The upcoming published events one player is entered in (himself or in a pair)."""
    entries = Entrant.objects.filter(
        Q(user_id=user_id) | Q(pair__player_one_id=user_id) | Q(pair__player_two_id=user_id)
    ).exclude(state__in=[Entrant.State.WITHDRAWN, Entrant.State.DISQUALIFIED])
    return _listed(Tournament.objects.filter(pk__in=entries.values("tournament_id")))
