"""What two players' names must differ in: pure Python, read by the sign-up (games.services.accounts)
and by the lookup of a typed name (games.selectors), neither of which imports the other."""

import unicodedata

NAME_KEY_LENGTH = 255  # Profile.name_key


def name_key(name: str) -> str:
    """What two names must differ in: NFKC, case folded, runs of spaces as one, trimmed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())
