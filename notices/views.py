import json

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST

from . import calendar, push, selectors, services, tokens
from .models import Kind

MAX_SUBSCRIPTION_BYTES = 4096


def _feed_response(name: str, entries: list[dict], request) -> HttpResponse:
    def url_of(event):
        return request.build_absolute_uri(reverse("tournaments:event", kwargs={"tournament_id": event.pk}))

    body = calendar.feed(name, entries, url_of, request.get_host())
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="events.ics"'
    return response


def club_calendar(request):
    return _feed_response(gettext("Club events"), selectors.club_calendar(), request)


def player_calendar(request, token: str):
    user_id = tokens.read_calendar_token(token)
    if user_id is None:
        raise Http404(gettext("This calendar link is not valid."))
    return _feed_response(gettext("My events"), selectors.player_calendar(user_id), request)


@login_required
@require_http_methods(["GET", "POST"])
def preferences(request):
    pref = selectors.preference_of(request.user)
    if pref.pk is None:  # never saved: offer the language the player reads the site in
        pref.language = translation.get_language()
    saved = False
    if request.method == "POST":
        pref = services.do_save_preferences(
            user=request.user,
            email_kinds=request.POST.getlist("email"),
            push_kinds=request.POST.getlist("push"),
            language=request.POST.get("language", translation.get_language()),
        )
        saved = True
    rows = [
        {"kind": kind, "label": label, "email": kind in pref.email_kinds, "push": kind in pref.push_kinds}
        for kind, label in Kind.choices
    ]
    calendar_url = request.build_absolute_uri(
        reverse("notices:player-calendar", kwargs={"token": tokens.calendar_token(request.user.pk)})
    )
    context = {
        "rows": rows,
        "pref": pref,
        "saved": saved,
        "has_email": bool(request.user.email),
        "push_enabled": push.push_enabled(),
        "vapid_public_key": push_public_key(),
        "calendar_url": calendar_url,
        "club_calendar_url": request.build_absolute_uri(reverse("notices:calendar")),
    }
    return render(request, "notices/preferences.html", context)


def push_public_key() -> str:
    return settings.VAPID_PUBLIC_KEY if push.push_enabled() else ""


@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    """GET asks (a mail scanner that follows links unsubscribes nobody); POST unsubscribes."""
    found = tokens.read_unsubscribe_token(token)
    if found is None or found[1] not in services.KINDS:
        return render(request, "notices/unsubscribe.html", {"invalid": True}, status=400)
    label = Kind(found[1]).label
    if request.method == "POST":
        services.do_unsubscribe(token=token)
        return render(request, "notices/unsubscribe.html", {"done": True, "label": label})
    return render(request, "notices/unsubscribe.html", {"label": label})


@login_required
@require_POST
def push_subscription(request):
    """The browser's PushSubscription.toJSON() as JSON (with the CSRF token in X-CSRFToken)."""
    if not push.push_enabled():
        return JsonResponse({"error": gettext("Push notifications are not set up on this site.")}, status=404)
    if len(request.body) > MAX_SUBSCRIPTION_BYTES:
        return JsonResponse({"error": gettext("This is not a push subscription.")}, status=400)
    try:
        data = json.loads(request.body)
    except ValueError:
        return JsonResponse({"error": gettext("This is not a push subscription.")}, status=400)
    if isinstance(data, dict) and data.get("unsubscribe"):
        services.do_unsubscribe_push(user=request.user, endpoint=str(data.get("endpoint", "")))
        return JsonResponse({"ok": True})
    try:
        services.do_subscribe_push(user=request.user, data=data)
    except services.NoticeRefused as refusal:
        return JsonResponse({"error": str(refusal)}, status=400)
    return JsonResponse({"ok": True}, status=201)


def preferences_redirect(request):
    return redirect("notices:preferences")
