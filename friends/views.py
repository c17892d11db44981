"""The friends page and the follow / keep away / invite buttons. Thin views: each write
calls one service; a refusal becomes a message on the next page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.errors import Refusal
from games.selectors import private_table_to_invite_to
from games.services.tables import is_guest

from . import selectors, services


def _back(request):
    target = request.POST.get("next") or ""
    # A path only: a bare word would be taken for a URL's name by redirect() (a server error).
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    if target.startswith("/") and allowed:
        return redirect(target)
    return redirect("friends:index")


def _act(request, service, done: str = "", **kwargs):
    try:
        service(user=request.user, other_id=request.POST.get("player", ""), **kwargs)
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        if done:
            messages.info(request, done)
    return _back(request)


@login_required
def index(request):
    user = request.user
    context = {
        "guest": is_guest(user),
        "friends": selectors.friends_of(user),
        "invitations": selectors.invitations_for(user),
        "kept_away": selectors.kept_away(user),
        "private_table": private_table_to_invite_to(user),
    }
    return render(request, "friends/index.html", context)


@require_POST
@login_required
def follow(request):
    return _act(request, services.do_follow)


@require_POST
@login_required
def unfollow(request):
    return _act(request, services.do_unfollow)


@require_POST
@login_required
def keep_away(request):
    return _act(request, services.do_keep_away, kind=request.POST.get("kind", ""))


@require_POST
@login_required
def let_back(request):
    return _act(request, services.do_let_back)


@require_POST
@login_required
def invite(request):
    try:
        services.do_invite(user=request.user, friend_id=request.POST.get("player", ""))
    except Refusal as refusal:
        messages.error(request, str(refusal))
    else:
        messages.info(request, _("Invitation sent: it waits on your friend's friends page."))
    return _back(request)
