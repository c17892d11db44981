"""Web Push through pywebpush, signed with the site's VAPID keys (settings VAPID_*).

A subscription's endpoint is a URL the browser gives us, so it is an address a stranger
chooses: the batch worker posts only to the browsers' push services
(settings.PUSH_SERVICE_HOSTS) and never to an address inside a network (loopback, private,
link-local, the cloud metadata service), checked when the endpoint is stored and again
before each send, since a name can resolve elsewhere tomorrow. The post never follows a
redirect: a push service answers, it does not send us on.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from urllib.parse import urlsplit

import requests
from django.conf import settings
from pywebpush import WebPushException, webpush

PUSH_TTL = 15 * 60  # seconds a push service keeps a message for a phone that is off: a table is ready now
# (connect, read) seconds: a push service that hangs holds a batch worker this long at most.
PUSH_TIMEOUT = (3, 5)


class SubscriptionGone(Exception):
    """The push service says the subscription no longer exists (404 or 410)."""


class EndpointRefused(Exception):
    """An endpoint that is not a browser's push service, or resolves inside a network."""


def resolve(host: str) -> list[str]:
    """Every address `host` resolves to (literal addresses resolve to themselves)."""
    return sorted({info[4][0] for info in socket.getaddrinfo(host, 443, proto=socket.IPPROTO_TCP)})


# The resolver the checks use; tests put a table of names in its place and never touch DNS.
resolver = resolve


def push_enabled() -> bool:
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY and settings.VAPID_SUBJECT)


def _host_listed(host: str) -> bool:
    for allowed in settings.PUSH_SERVICE_HOSTS:
        allowed = allowed.lower().rstrip(".")
        if allowed.startswith("*."):
            if host.endswith(allowed[1:]) and len(host) > len(allowed) - 1:
                return True
        elif host == allowed:
            return True
    return False


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    # is_global is False for loopback, private, link-local (169.254.169.254, the metadata
    # service), shared (100.64/10), reserved and documentation ranges.
    return ip.is_global and not ip.is_multicast


def check_endpoint(endpoint: str) -> None:
    """Raise EndpointRefused unless `endpoint` is on a push service's host at public addresses."""
    try:
        parts = urlsplit(endpoint)
        host = (parts.hostname or "").rstrip(".")
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise EndpointRefused(endpoint) from None
    if "@" in parts.netloc or "\\" in endpoint or any(c.isspace() for c in endpoint) or not _host_listed(host):
        raise EndpointRefused(endpoint)
    try:
        addresses = resolver(host)
    except (OSError, UnicodeError):
        raise EndpointRefused(endpoint) from None
    if not addresses or not all(_public(address) for address in addresses):
        raise EndpointRefused(endpoint)


class _NoRedirects(requests.Session):
    """A session whose every request stops at the first answer, a redirect included."""

    def request(self, method, url, **kwargs):
        kwargs["allow_redirects"] = False
        return super().request(method, url, **kwargs)


def send_push(subscription, payload: dict) -> None:
    """Send one encrypted message; raises on a failure (EndpointRefused for an endpoint that is
    no longer allowed, a redirect as a failed send), SubscriptionGone for a dead subscription."""
    check_endpoint(subscription.endpoint)
    with _NoRedirects() as session:
        try:
            webpush(
                subscription_info={
                    "endpoint": subscription.endpoint,
                    "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
                },
                data=json.dumps(payload, ensure_ascii=False),
                vapid_private_key=settings.VAPID_PRIVATE_KEY,
                vapid_claims={"sub": settings.VAPID_SUBJECT},
                ttl=PUSH_TTL,
                timeout=PUSH_TIMEOUT,
                requests_session=session,
            )
        except WebPushException as exc:
            status = getattr(exc.response, "status_code", None)
            if status in (404, 410):
                raise SubscriptionGone(str(exc)) from exc
            raise
