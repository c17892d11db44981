"""django-axes with two locks: one name from one address, and one address on any names.

AXES_LOCKOUT_PARAMETERS names both: ["username", "ip_address"] (locked after
AXES_FAILURE_LIMIT failures) and "ip_address" alone, which django-axes would lock
at the same limit. An address shared by several people (a club, an office) needs
a larger one, LOGIN_ADDRESS_FAILURE_LIMIT: django-axes compares one failure count
with one limit, so the address's count is given to it scaled down, reaching
AXES_FAILURE_LIMIT exactly when the address reaches its own limit.

A successful login clears only its own name's failures from that address (django-axes
would clear every parameter's, so logging in to one's own account would wipe the
address's failures on other names).
"""

from __future__ import annotations

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_failure_limit, get_lockout_parameters
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum

ADDRESS = "ip_address"


class AddressAwareHandler(AxesDatabaseHandler):
    def get_failures(self, request, credentials: dict | None = None) -> int:
        limit = get_failure_limit(request, credentials)
        address_limit = max(settings.LOGIN_ADDRESS_FAILURE_LIMIT, 1)
        parameters = get_lockout_parameters(request, credentials)
        worst = 0
        for parameter, attempts in zip(parameters, self.get_user_attempts(request, credentials), strict=True):
            failures = attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            if parameter == ADDRESS:
                # floor(f * limit / address_limit) >= limit exactly when f >= address_limit
                failures = failures * limit // address_limit
            worst = max(worst, failures)
        return worst

    def reset_user_attempts(self, request, credentials: dict | None = None) -> int:
        username = get_client_username(request, credentials)
        count, _ = AccessAttempt.objects.filter(username=username, ip_address=request.axes_ip_address).delete()
        return count


def client_username(request, credentials: dict | None = None) -> str | None:
    """The name a failure is counted under (AXES_USERNAME_CALLABLE): django-axes's own
    choice, the credentials' name or else the form's, clipped to its column. A name
    longer than any player's (the login form lets Django's authenticate try it) was
    a server error on PostgreSQL when it was stored whole."""
    field = settings.AXES_USERNAME_FORM_FIELD
    name = credentials.get(field) if credentials else getattr(request, "data", request.POST).get(field)
    if not isinstance(name, str):
        return name
    return name[: AccessAttempt._meta.get_field("username").max_length]
