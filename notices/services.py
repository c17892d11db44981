"""Writes of the notices app: preferences, unsubscribing, push subscriptions, and delivery.

`deliver(kind, object_id)` sends one notice to everyone who asked for it, each message
at most once (a `Sent` row per kind, object, recipient and channel, claimed before the
send and marked after it); it returns the failures, which the task retries later.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext

from . import push, selectors, tokens
from .models import Channel, Kind, Preference, PushSubscription, Sent

log = logging.getLogger(__name__)

KINDS = [choice for choice, _label in Kind.choices]
# A sender that died mid-send leaves its claim; after this long another may send.
CLAIM_LEASE = timedelta(minutes=5)
# Browsers one person may get push notices in; a new one replaces the oldest.
MAX_PUSH_SUBSCRIPTIONS = 10


class NoticeRefused(Exception):
    """A request the notices app turns down, with a message for the person."""


def site_url(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def do_save_preferences(*, user, email_kinds, push_kinds, language: str) -> Preference:
    languages = {code for code, _name in settings.LANGUAGES}
    with transaction.atomic():
        pref, _created = Preference.objects.select_for_update().get_or_create(user=user)
        pref.email_kinds = [kind for kind in KINDS if kind in set(email_kinds)]
        pref.push_kinds = [kind for kind in KINDS if kind in set(push_kinds)]
        pref.language = language if language in languages else settings.LANGUAGE_CODE
        pref.save()
    return pref


def do_unsubscribe(*, token: str) -> tuple[int, str]:
    """Stop the mail of one kind for the person the signed token names; returns (user id, kind)."""
    found = tokens.read_unsubscribe_token(token)
    if found is None or found[1] not in KINDS:
        raise NoticeRefused(gettext("This unsubscribe link is not valid."))
    user_id, kind = found
    with transaction.atomic():
        pref = Preference.objects.select_for_update().filter(user_id=user_id).first()
        if pref is not None and kind in pref.email_kinds:
            pref.email_kinds = [k for k in pref.email_kinds if k != kind]
            pref.save(update_fields=["email_kinds", "updated_at"])
    return user_id, kind


def do_subscribe_push(*, user, data) -> PushSubscription:
    """Store a browser's subscription (its PushSubscription.toJSON()); a known endpoint moves to `user`."""
    try:
        endpoint = str(data["endpoint"])
        p256dh, auth = str(data["keys"]["p256dh"]), str(data["keys"]["auth"])
    except (KeyError, TypeError):
        raise NoticeRefused(gettext("This is not a push subscription.")) from None
    if not endpoint.startswith("https://") or len(endpoint) > 1000 or not p256dh or not auth:
        raise NoticeRefused(gettext("This is not a push subscription."))
    if len(p256dh) > 200 or len(auth) > 100:
        raise NoticeRefused(gettext("This is not a push subscription."))
    try:
        push.check_endpoint(endpoint)
    except push.EndpointRefused:
        raise NoticeRefused(gettext("Notices can go only to a browser's push service.")) from None
    with transaction.atomic():
        # The person's row is the lock: two browsers subscribing at once keep the cap.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        subscription, _created = PushSubscription.objects.update_or_create(
            endpoint=endpoint, defaults={"user": user, "p256dh": p256dh, "auth": auth}
        )
        keep = PushSubscription.objects.filter(user=user).order_by("-created_at", "-pk")[:MAX_PUSH_SUBSCRIPTIONS]
        PushSubscription.objects.filter(user=user).exclude(pk__in=list(keep.values_list("pk", flat=True))).delete()
    return subscription


def do_unsubscribe_push(*, user, endpoint: str) -> int:
    return PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()[0]


def _claim(kind: str, key: str, user, channel: str, now) -> Sent | None:
    """The row of this message claimed for this sender, or None when it was sent or is being sent."""
    try:
        sent, _created = Sent.objects.get_or_create(kind=kind, object_key=key, recipient=user, channel=channel)
    except IntegrityError:  # another sender created it meanwhile
        sent = Sent.objects.get(kind=kind, object_key=key, recipient=user, channel=channel)
    if sent.sent_at is not None:
        return None
    free = Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - CLAIM_LEASE)
    if not Sent.objects.filter(pk=sent.pk, sent_at__isnull=True).filter(free).update(claimed_at=now):
        return None
    return sent


def _context(kind: str, event, user, extra: dict, pref: Preference) -> dict:
    context = {
        "kind": kind,
        "event": event,
        "player": user,
        "event_url": site_url(reverse("tournaments:event", kwargs={"tournament_id": event.pk})),
        "preferences_url": site_url(reverse("notices:preferences")),
        "unsubscribe_url": site_url(
            reverse("notices:unsubscribe", kwargs={"token": tokens.unsubscribe_token(user.pk, kind)})
        ),
        **extra,
    }
    if extra.get("battle_path"):
        context["event_url"] = site_url(extra["battle_path"])
    if extra.get("table_id"):
        context["table_url"] = site_url(reverse("games:table", kwargs={"table_id": extra["table_id"]}))
    return context


def _subject(kind: str, context: dict) -> str:
    texts = {
        Kind.REGISTRATION: gettext("You are registered for %(event)s"),
        Kind.CHECKIN: gettext("Check-in for %(event)s is open"),
        Kind.ROUND: gettext("%(event)s, round %(round)s: your table is number %(table)s"),
        Kind.FINAL: gettext("%(event)s: final standings"),
        Kind.CLUB_INVITED: gettext("%(club)s is invited to the club battle %(event)s"),
    }
    if kind == Kind.FINAL and context.get("corrected"):
        texts[kind] = gettext("%(event)s: corrected final standings")
    return texts[kind] % {
        "event": context["event"].name,
        "round": context.get("round_number"),
        "table": context.get("table_number"),
        "club": getattr(context.get("club"), "name", ""),
    }


def _send_email(kind: str, user, context: dict) -> None:
    message = EmailMultiAlternatives(
        subject=_subject(kind, context),
        body=render_to_string(f"notices/email/{kind}.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[user.email],
        headers={"List-Unsubscribe": f"<{context['unsubscribe_url']}>"},
    )
    message.attach_alternative(render_to_string(f"notices/email/{kind}.html", context), "text/html")
    message.send(fail_silently=False)


def _send_push(kind: str, user, context: dict) -> None:
    if not push.push_enabled():
        return
    payload = {
        "title": _subject(kind, context),
        "body": gettext("Open the site to see it."),
        "url": context.get("table_url") or context["event_url"],
        "tag": f"{kind}-{context['event'].pk}",
    }
    if kind == Kind.ROUND:
        payload["body"] = gettext("Your table is ready: table %(table)s.") % {"table": context["table_number"]}
    for subscription in selectors.push_subscriptions_of(user.pk):
        try:
            push.send_push(subscription, payload)
        except push.SubscriptionGone:
            subscription.delete()  # the browser dropped it: never try it again
        except push.EndpointRefused:
            # Its name now leads inside a network, or its host left the list: the person's
            # other browsers still get the notice.
            log.warning("push to subscription %s refused: %s", subscription.pk, subscription.endpoint[:200])


def deliver(kind: str, object_id: int, now=None) -> list[str]:
    """Send notice `kind` about object `object_id` to all who asked for it, each message once.
    Returns a line per failed message (logged, kept in its `Sent` row for the retry)."""
    batch = selectors.notice_batch(kind, object_id)
    if batch is None:
        return []
    preferences = selectors.preferences_for(user.pk for user, _context in batch["items"])
    failures = []
    for user, extra in batch["items"]:
        for channel in selectors.channels_for(user, kind, preferences):
            if channel == Channel.PUSH and not push.push_enabled():
                continue
            sent = _claim(kind, batch["object_key"], user, channel, now or timezone.now())
            if sent is None:
                continue
            pref = preferences[user.pk]
            try:
                with translation.override(pref.language):
                    context = _context(kind, batch["event"], user, extra, pref)
                    (_send_email if channel == Channel.EMAIL else _send_push)(kind, user, context)
            except Exception as exc:
                log.warning("notice %s %s to %s by %s failed: %r", kind, batch["object_key"], user.pk, channel, exc)
                Sent.objects.filter(pk=sent.pk).update(
                    claimed_at=None, attempts=F("attempts") + 1, error=f"{type(exc).__name__}: {exc}"[:300]
                )
                failures.append(f"{channel} to {user.pk}: {exc!r}")
            else:
                told = extra.get("told", {})
                Sent.objects.filter(pk=sent.pk).update(claimed_at=None, sent_at=timezone.now(), error="", told=told)
    return failures
