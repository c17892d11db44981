"""URL slots that match only what the site could have made, registered in GamesConfig.ready
under these names for every app's URLs (`<username:username>`, `<token:token>`).

A value no page links to (a NUL, a right-to-left mark, 3,000 letters) then never
reaches a view, let alone a query: the resolver answers with the site's 404.
"""

from __future__ import annotations

from django.contrib.auth.validators import UnicodeUsernameValidator


class UsernameConverter:
    """A player's name as sign-up allows it: the characters of Django's username
    validator (letters, digits and @.+-_), at most the column's 150."""

    regex = UnicodeUsernameValidator.regex.removeprefix("^").removesuffix(r"+\Z") + "{1,150}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class TokenConverter:
    """A token the site made: an invite token (secrets.token_urlsafe) or a signed value
    (django.core.signing: URL-safe base64, its "." and ":" separators)."""

    regex = r"[A-Za-z0-9_.:\-]{1,400}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


CONVERTERS = {"username": UsernameConverter, "token": TokenConverter}
