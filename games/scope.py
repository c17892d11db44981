"""What a websocket's scope says about the person behind it."""

from django.http import HttpRequest
from django.utils import translation


def language_of(scope) -> str:
    """The viewer's language, as LocaleMiddleware picks it for his pages:
    the language cookie, then Accept-Language, then the site's default."""
    request = HttpRequest()
    request.COOKIES = dict(scope.get("cookies") or {})
    for name, value in scope.get("headers") or []:
        if name == b"accept-language":
            request.META["HTTP_ACCEPT_LANGUAGE"] = value.decode("latin-1")
    return translation.get_language_from_request(request)
