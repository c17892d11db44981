"""Signing up, playing as a guest, and a player's profile.

Logging in and out are Django's own views (see urls.py); logging in keeps its
`next` to a path of this site, as signing up does.
"""

from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games import extensions, limits, permissions, selectors
from games.display import bot_choices, outcome, variant_name
from games.errors import Refusal
from games.services import accounts

from .forms import AccountForm, ConfirmedAddressResetForm, SignUpForm


def _next_url(request, default: str = "games:home"):
    url = request.POST.get("next") or request.GET.get("next")
    # A path of this site only: a bare word like "x" would be taken for a URL name (a 500).
    if (
        url
        and url.startswith("/")
        and url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()}, require_https=request.is_secure())
    ):
        return url
    return default


class LogInView(auth_views.LoginView):
    template_name = "games/accounts/login.html"

    def get_redirect_url(self):
        # Django's check lets a relative "x" through, which would land on /login/x (a 404).
        return _next_url(self.request, "")


def sign_up(request):
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            limits.check_signup_rate(request)
            # A guest becomes the account (his games stay his); a look-alike that signed up a moment ago is refused.
            user = accounts.do_sign_up(form, guest=request.user)
        except Refusal as refusal:
            form.add_error(None, str(refusal))
        else:
            if request.user.is_authenticated and request.user.pk == user.pk:
                update_session_auth_hash(request, user)  # the same session: its invitations are kept
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(_next_url(request))
    return render(request, "games/accounts/signup.html", {"form": form, "next": _next_url(request, "")})


@require_POST
def play_as_guest(request):
    """Sign in as a new guest (or stay the guest one is) and sit down against a bot."""
    user = request.user if request.user.is_authenticated else None
    try:  # a new guest per address, a new table per user: both limited
        if user is None:
            limits.check_guest_rate(request)
        else:
            limits.check_table_rate(user)
    except Refusal as refusal:
        messages.error(request, str(refusal))
        return redirect("games:home")
    level = request.POST.get("bot_level", "").strip()
    if level not in dict(bot_choices()):
        level = accounts.GUEST_BOT_LEVEL  # nothing chosen (or nonsense): the club player, as before
    user, table = accounts.do_play_as_guest(user=user, prefix=_("Guest"), bot_level=level)
    if not request.user.is_authenticated:
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect("games:table", table_id=table.pk)


def profile(request, username: str):
    player = selectors.user_by_name(username)
    if player is None:
        raise Http404(_("There is no such player."))
    stats = selectors.player_record(player)
    for figures in stats["per_variant"]:
        figures["name"] = variant_name(figures["variant"])
    rows = []
    for seat in stats["recent"]:
        css, words = outcome(seat.game.result, seat.number, seat.is_loser, seat.abandoned)
        rows.append(
            {
                "game": seat.game,
                "place": seat.place,
                "counted_place": seat.counted_place,
                "abandoned": seat.abandoned,
                "players": seat.game.rules.get("players"),
                "outcome": words,
                "outcome_class": css,
                "variant": variant_name(seat.game.variant),
                "rated": seat.game.rated,
                "record_visible": permissions.may_see_record(seat.game, request.user),
            }
        )
    profile_obj = getattr(player, "profile", None)
    is_me = request.user.is_authenticated and request.user.pk == player.pk
    return render(
        request,
        "games/accounts/profile.html",
        {
            "player": player,
            "is_guest": bool(profile_obj and profile_obj.is_guest),
            "stats": stats,
            "rows": rows,
            "is_me": is_me,
            # other apps' sections (games.extensions), e.g. the player's events
            "sections": extensions.profile_sections(request, player),
            "account": _account_context(player, AccountForm(initial=_account_initial(player)))
            if is_me and not (profile_obj and profile_obj.is_guest)
            else None,
        },
    )


def _account_initial(user) -> dict:
    profile = getattr(user, "profile", None)
    return {
        "email": (profile.pending_email if profile and profile.pending_email else "") or user.email,
        "address": profile.address if profile else "",
    }


def _account_context(user, form, *, sent: bool = False, saved: bool = False) -> dict:
    profile = getattr(user, "profile", None)
    return {
        "form": form,
        "confirmed": user.email,
        "pending": profile.pending_email if profile else "",
        "sent": sent,
        "saved": saved,
    }


@login_required
@require_http_methods(["GET", "POST"])
def account(request):
    """The player's address for mail (confirmed by a link) and how to speak of him."""
    user = request.user
    if getattr(getattr(user, "profile", None), "is_guest", False):
        messages.info(request, _("Guests have no account settings: sign up first."))
        return redirect("games:signup")
    sent = saved = False
    if request.method == "POST":
        form = AccountForm(request.POST)
        if form.is_valid():
            email = form.cleaned_data["email"] or ""
            try:
                if accounts.email_needs_link(user, email):
                    limits.check_confirmation_rate(user)
            except Refusal as refusal:
                form.add_error("email", str(refusal))
            else:
                accounts.do_set_address(user=user, address=form.cleaned_data["address"] or "")
                sent = accounts.do_change_email(user=user, address=email)
                user.refresh_from_db()
                user.profile.refresh_from_db()
                saved = True
                form = AccountForm(initial=_account_initial(user))
    else:
        form = AccountForm(initial=_account_initial(user))
    return render(
        request, "games/accounts/account.html", {"account": _account_context(user, form, sent=sent, saved=saved)}
    )


@require_http_methods(["GET", "POST"])
def confirm_email(request, token: str):
    """GET asks (a mail scanner that follows links confirms nothing); POST confirms."""
    found = accounts.read_confirmation_token(token)
    if found is None:
        return render(request, "games/accounts/confirm_email.html", {"invalid": True}, status=400)
    if request.method == "POST":
        try:
            user = accounts.do_confirm_email(token=token)
        except accounts.EmailRefused as refusal:
            return render(
                request, "games/accounts/confirm_email.html", {"invalid": True, "reason": str(refusal)}, status=400
            )
        return render(request, "games/accounts/confirm_email.html", {"done": True, "address": user.email})
    return render(request, "games/accounts/confirm_email.html", {"address": found[1]})


class PasswordResetView(auth_views.PasswordResetView):
    """Django's own: a link by mail to a confirmed address, and the same answer for any address."""

    form_class = ConfirmedAddressResetForm
    template_name = "games/accounts/password_reset.html"
    email_template_name = "games/accounts/email/password_reset.txt"
    html_email_template_name = "games/accounts/email/password_reset.html"
    subject_template_name = "games/accounts/email/password_reset_subject.txt"
    success_url = reverse_lazy("games:password-reset-sent")

    def form_valid(self, form):
        try:
            limits.check_password_reset_rate(self.request)
        except Refusal as refusal:
            form.add_error(None, str(refusal))
            return self.form_invalid(form)
        return super().form_valid(form)


class PasswordResetSentView(auth_views.PasswordResetDoneView):
    template_name = "games/accounts/password_reset_sent.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "games/accounts/password_reset_confirm.html"
    success_url = reverse_lazy("games:password-reset-done")


class PasswordResetDoneView(auth_views.PasswordResetCompleteView):
    template_name = "games/accounts/password_reset_done.html"
