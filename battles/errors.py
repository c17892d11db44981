"""The battles app's refusal."""

from games.errors import Refusal


class BattleRefused(Refusal):
    """Something a battle's rules or state do not allow; the message is translated."""
