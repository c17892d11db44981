"""Reads of club battles: the board (clubs by score, their counting players, the top scorers),
lists, what a viewer may do on a battle's page, and the seating groups of a battle's event.

The board reads each entrant's points from the event's own results (the arena's recounted points,
a Swiss round's points by place), so it always agrees with the event's standings.

The tie rule (stated on the battle's page, `TIE_RULE`): clubs are ranked by their score, the
sum of their best `top_k` players' points; clubs equal on it are ranked by their best player's
points, then their second best's, and so on through all their players (a club with fewer players
counts 0 for the missing ones); clubs equal in all of that share the place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Q, Sum
from django.utils.translation import gettext_lazy as _

from clubs.models import Club
from clubs.selectors import clubs_where, may
from tournaments.models import Result, Tournament

from .models import Battle, BattleClub, BattlePlayer

TIE_RULE = _(
    "A club's score is the sum of its best %(top)s players' points. Clubs with equal scores are ranked by "
    "their best player's points, then their second best's, and so on through all their players; clubs equal "
    "in all of that share the place."
)
TOP_SCORERS = 10


@dataclass
class Scorer:
    name: str
    points: float
    club: Club | None = None


@dataclass
class ClubRow:
    club: Club
    status: str
    status_label: str
    score: float = 0.0
    counting: list[Scorer] = field(default_factory=list)
    players: int = 0
    rank: int | None = None
    tie_key: tuple = ()


@dataclass
class Board:
    battle: Battle
    clubs: list[ClubRow]
    top: list[Scorer]
    tie_rule: str


def points_by_entrant(event: Tournament) -> dict[int, float]:
    rows = Result.objects.filter(round__tournament=event).values("entrant_id").annotate(points=Sum("points"))
    return {row["entrant_id"]: float(row["points"] or 0.0) for row in rows}


def entrant_names(players: list[BattlePlayer]) -> dict[int, str]:
    """Each entrant's name: the player's, a pair's partners joined with «&»."""
    names: dict[int, list[str]] = {}
    for player in players:
        names.setdefault(player.entrant_id, []).append(player.user.username)
    return {entrant: " & ".join(sorted(people)) for entrant, people in names.items()}


def battle_board(battle: Battle) -> Board:
    """The board: clubs that play (accepted), ranked by the tie rule, with their counting players;
    invited and declined clubs after them, unranked; the top scorers of the whole battle."""
    players = list(BattlePlayer.objects.filter(battle=battle).select_related("user", "club").order_by("pk"))
    points = points_by_entrant(battle.tournament)
    names = entrant_names(players)
    club_of_entrant = {p.entrant_id: p.club for p in players}
    by_club: dict[int, list[Scorer]] = {}
    for entrant, club in club_of_entrant.items():
        by_club.setdefault(club.pk, []).append(Scorer(names[entrant], points.get(entrant, 0.0), club))
    for scorers in by_club.values():
        scorers.sort(key=lambda s: (-s.points, s.name))
    rows = []
    for taking_part in BattleClub.objects.filter(battle=battle).select_related("club").order_by("pk"):
        scorers = by_club.get(taking_part.club_id, [])
        counting = scorers[: battle.top_k]
        rows.append(
            ClubRow(
                club=taking_part.club,
                status=taking_part.status,
                status_label=taking_part.get_status_display(),
                score=sum(s.points for s in counting),
                counting=counting,
                players=len(scorers),
                tie_key=tuple(s.points for s in scorers),
            )
        )
    playing = [r for r in rows if r.status == BattleClub.Status.ACCEPTED]
    longest = max((len(r.tie_key) for r in playing), default=0)
    for r in playing:
        r.tie_key = (r.score, *r.tie_key, *([0.0] * (longest - len(r.tie_key))))
    playing.sort(key=lambda r: (tuple(-v for v in r.tie_key), r.club.name))
    for i, r in enumerate(playing):
        r.rank = playing[i - 1].rank if i and r.tie_key == playing[i - 1].tie_key else i + 1
    others = [r for r in rows if r.status != BattleClub.Status.ACCEPTED]
    top = sorted(
        (Scorer(names[e], points.get(e, 0.0), club) for e, club in club_of_entrant.items()),
        key=lambda s: (-s.points, s.name),
    )[:TOP_SCORERS]
    return Board(battle=battle, clubs=playing + others, top=top, tie_rule=TIE_RULE % {"top": battle.top_k})


def battles_by_state(limit: int = 50) -> dict[str, list[Battle]]:
    base = Battle.objects.select_related("tournament", "organiser").exclude(tournament__status=Tournament.Status.DRAFT)
    over = [Tournament.Status.FINISHED, Tournament.Status.CANCELLED]
    return {
        "running": list(
            base.filter(tournament__status__in=Tournament.UNDER_WAY).order_by("tournament__starts_at")[:limit]
        ),
        "upcoming": list(
            base.exclude(tournament__status__in=[*over, *Tournament.UNDER_WAY]).order_by("tournament__starts_at")[
                :limit
            ]
        ),
        "past": list(base.filter(tournament__status__in=over).order_by("-tournament__starts_at")[:limit]),
    }


def battles_of_club(club: Club, limit: int = 10) -> list[BattleClub]:
    return list(
        BattleClub.objects.filter(club=club)
        .select_related("battle__tournament")
        .order_by("-battle__tournament__starts_at", "-pk")[:limit]
    )


def invitations_for(user, limit: int = 50) -> list[BattleClub]:
    """Invitations the viewer may answer: to clubs where he runs events, of battles not started."""
    if user is None or not user.is_authenticated:
        return []
    return list(
        BattleClub.objects.filter(
            status=BattleClub.Status.INVITED,
            club__in=clubs_where(user, "run_events"),
            battle__tournament__status__in=[
                Tournament.Status.SCHEDULED,
                Tournament.Status.REGISTRATION,
                Tournament.Status.CHECKIN,
            ],
        )
        .select_related("club", "battle__tournament", "battle__organiser")
        .order_by("battle__tournament__starts_at", "pk")[:limit]
    )


def may_organise(user) -> bool:
    return clubs_where(user, "run_events").exists()


def page_actions(battle: Battle, user) -> dict:
    """What the viewer may do on the battle's page: answer for the invited clubs he leads, enter
    for the accepted clubs he belongs to (unless entered), invite more clubs (the organiser's leader)."""
    clubs = list(BattleClub.objects.filter(battle=battle).select_related("club"))
    open_ = battle.tournament.status in (
        Tournament.Status.SCHEDULED,
        Tournament.Status.REGISTRATION,
        Tournament.Status.CHECKIN,
    )
    actions = {"answer": [], "enter": [], "entered": None, "invite": False, "open": open_}
    if user is None or not user.is_authenticated:
        return actions
    actions["entered"] = BattlePlayer.objects.filter(battle=battle, user=user).select_related("club").first()
    if not open_:
        return actions
    member_of = set(Club.objects.filter(memberships__user=user).values_list("pk", flat=True))
    for taking_part in clubs:
        if taking_part.status == BattleClub.Status.INVITED and may(user, taking_part.club, "run_events"):
            actions["answer"].append(taking_part)
        if taking_part.status == BattleClub.Status.ACCEPTED and taking_part.club_id in member_of:
            actions["enter"].append(taking_part)
    if actions["entered"] is not None:
        actions["enter"] = []
    actions["invite"] = battle.organiser is not None and may(user, battle.organiser, "run_events")
    return actions


def clubs_apart(event: Tournament) -> dict[int, int]:
    """The seating constraint of a battle's event: each entrant's club (tournaments.seating_groups)."""
    rows = BattlePlayer.objects.filter(battle__tournament=event).values_list("entrant_id", "club_id")
    return dict(rows)


def pairs_of(user):
    from tournaments.models import Pair

    return Pair.objects.filter(Q(player_one=user) | Q(player_two=user), status=Pair.Status.ACTIVE).select_related(
        "player_one", "player_two"
    )
