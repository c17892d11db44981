"""The tournaments app's refusal (contract 4)."""

from games.errors import Refusal


class TournamentRefused(Refusal):
    """Something an event's rules or state do not allow; the message is translated."""

    @property
    def reason(self) -> str:
        return str(self)
