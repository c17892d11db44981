"""Table rules: the house rules with the table options T1-T6 as fields."""

from dataclasses import dataclass, fields

from .cards import DECK_PLAYER_LIMITS

# The variants' names: the one list of them; games.choices.Variant gives them their labels.
PODKIDNOY = "podkidnoy"
PEREVODNOY = "perevodnoy"
VARIANTS = (PODKIDNOY, PEREVODNOY)
THROW_IN_MODES = ("all", "neighbours")

HAND_SIZE = 6  # R4, R16
BOUT_LIMIT = 6  # R12


@dataclass(frozen=True)
class Rules:
    """What a table plays. Every field defaults to the house rule.

    - variant: "podkidnoy" or "perevodnoy" (R22-R26).
    - players: 2 to 6 (R1).
    - partners: play in teams; with 4 players two pairs sitting opposite
      (R2: seats 0+2 against 1+3), with 6 players two teams of three (T4:
      0+2+4 against 1+3+5).
    - deck: 36 (R1), or 24 / 52 (T1).
    - first_bout_limit: attack cards allowed in the first bout, 5 (R12) or 6 (T2).
    - throw_in: "all" (R10) or "neighbours" (T3: besides the opener only the
      players sitting next to him may throw in).
    - trump_show_transfer: transfer by showing a trump of the attack rank (T5;
      R25 forbids it in the house rules).
    - trump_six_swap: the trump six may be swapped for the face-up trump
      before the stock is touched (T6).
    """

    variant: str = PODKIDNOY
    players: int = 2
    partners: bool = False
    deck: int = 36
    first_bout_limit: int = 5
    throw_in: str = "all"
    trump_show_transfer: bool = False
    trump_six_swap: bool = False

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise ValueError(f"Unknown variant {self.variant!r}: choose 'podkidnoy' or 'perevodnoy'.")
        if not isinstance(self.players, int) or isinstance(self.players, bool):
            raise ValueError("The number of players must be a whole number from 2 to 6.")
        if not 2 <= self.players <= 6:
            raise ValueError(f"Durak is played by 2 to 6 players, not {self.players}.")
        if self.deck not in DECK_PLAYER_LIMITS:
            raise ValueError(f"A deck has 24, 36 or 52 cards, not {self.deck}.")
        low, high = DECK_PLAYER_LIMITS[self.deck]
        if not low <= self.players <= high:
            raise ValueError(f"A {self.deck}-card deck seats {low} to {high} players, not {self.players}.")
        if self.partners and self.players not in (4, 6):
            raise ValueError(f"Team play needs 4 players (two pairs) or 6 (two teams of three), not {self.players}.")
        if self.first_bout_limit not in (5, 6):
            raise ValueError(f"The first bout allows 5 or 6 attack cards, not {self.first_bout_limit}.")
        if self.throw_in not in THROW_IN_MODES:
            raise ValueError(f"Throw-in is by 'all' players or by the 'neighbours' only, not {self.throw_in!r}.")
        if self.trump_show_transfer and self.variant != PEREVODNOY:
            raise ValueError("Transfer by showing a trump exists only in perevodnoy.")
        if self.trump_six_swap and self.deck == 24:
            raise ValueError(f"The trump six swap needs sixes, which a {self.deck}-card deck lacks.")

    @property
    def team_size(self) -> int:
        return self.players // 2 if self.partners else 1

    @property
    def transfers(self) -> bool:
        return self.variant == PEREVODNOY

    def team_of(self, seat: int) -> int:
        """Teams alternate around the table (R2, T4); without partners a seat is its own team."""
        return seat % 2 if self.partners else seat

    def to_dict(self) -> dict:
        # Same as dataclasses.asdict (every field is a plain value) without its deep copies.
        return {name: getattr(self, name) for name in _FIELD_NAMES}

    @classmethod
    def from_dict(cls, data: dict) -> "Rules":
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"Unknown rule option(s): {', '.join(sorted(unknown))}.")
        return cls(**data)


_FIELD_NAMES = tuple(f.name for f in fields(Rules))
