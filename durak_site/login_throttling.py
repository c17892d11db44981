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
