"""A player's address for mail: given at sign-up (optional) or on his profile, confirmed by a
signed link that expires before any mail goes to it, changeable (the confirmed one keeps
working until the new one is confirmed), and used for Django's password reset, which mails
only a confirmed address and never says whether an address is known."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth import get_user_model
from django.core import mail, signing
from django.test import Client
from django.urls import reverse

from games.models import Profile
from games.services import accounts
from notices import selectors as notice_selectors
from notices import services as notice_services
from notices.models import Channel
from tests.support.games import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-secret-42"
LINK_RE = re.compile(r"https?://[^\s\"<]+/account/email/confirm/[^\s\"<]+/")
RESET_RE = re.compile(r"https?://[^\s\"<]+/password-reset/[^\s\"<]+/[^\s\"<]+/")


@pytest.fixture(autouse=True)
def mail_after_commit(django_capture_on_commit_callbacks, monkeypatch):
    """A confirmation mail leaves once its change commits: each request here commits."""
    request = Client.request

    def committed(self, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return request(self, **kwargs)

    monkeypatch.setattr(Client, "request", committed)


def html(response) -> str:
    return response.content.decode()


def sign_up(client, **extra):
    data = {"username": "masha", "password1": PASSWORD, "password2": PASSWORD, **extra}
    return client.post(reverse("games:signup"), data)


def confirmation_link(message) -> str:
    return LINK_RE.search(message.body).group(0)


def path_of(link: str) -> str:
    return "/" + link.split("://", 1)[1].split("/", 1)[1]


def mail_channels(user) -> list:
    """The channels a notice the player chose would go on (notices' own rule)."""
    user = get_user_model().objects.get(pk=user.pk)
    notice_services.do_save_preferences(user=user, email_kinds=["round"], push_kinds=[], language="ru")
    return notice_selectors.channels_for(user, "round", notice_selectors.preferences_for([user.pk]))


def test_the_sign_up_form_asks_for_an_optional_address_without_djangos_help_texts(client):
    page = html(client.get(reverse("games:signup")))
    assert "Почта (необязательно)" in page and 'name="email"' in page
    assert "Не более 150 символов" not in page  # Django's help for the user name
    assert "Пароль не должен быть слишком похож" not in page  # and its password rules
    assert "Для подтверждения введите" not in page
    assert sign_up(client).status_code == 302  # without an address too
    assert mail.outbox == []


def test_an_address_given_at_sign_up_gets_no_notice_until_its_link_is_followed(client):
    assert sign_up(client, email="masha@mail.example").status_code == 302
    user = get_user_model().objects.get(username="masha")
    assert user.email == "" and Profile.objects.get(user=user).pending_email == "masha@mail.example"
    (message,) = mail.outbox
    assert message.to == ["masha@mail.example"]
    assert message.subject == "Подтвердите адрес почты в клубе «Дурак»"
    assert "Здравствуйте, masha!" in message.body
    assert "Ссылка действует 3 дня. Пока вы по ней не перейдёте, писем на этот адрес не будет." in message.body
    assert mail_channels(user) == []  # no notice mail to an address not confirmed

    link = path_of(confirmation_link(message))
    asked = html(client.get(link))  # a mail scanner that follows the link confirms nothing
    assert "Подтвердить masha@mail.example как ваш адрес почты?" in asked
    assert get_user_model().objects.get(pk=user.pk).email == ""
    done = html(client.post(link))
    assert "Адрес masha@mail.example подтверждён" in done
    assert get_user_model().objects.get(pk=user.pk).email == "masha@mail.example"
    assert Profile.objects.get(user=user).pending_email == ""
    assert mail_channels(user) == [Channel.EMAIL]
    assert client.post(link).status_code == 200  # followed twice: still confirmed, nothing else


def test_a_changed_address_waits_for_its_own_link_and_the_old_one_works_until_then(client):
    user = make_user("boris")
    client.force_login(user)
    client.post(reverse("games:account"), {"email": "boris@old.example", "address": ""})
    client.post(path_of(confirmation_link(mail.outbox[-1])))
    assert get_user_model().objects.get(pk=user.pk).email == "boris@old.example"

    page = html(client.post(reverse("games:account"), {"email": "boris@new.example", "address": ""}))
    assert "Мы отправили ссылку на boris@new.example" in page
    assert "Письма приходят на boris@old.example (адрес подтверждён)." in page
    assert mail.outbox[-1].to == ["boris@new.example"]
    first_link = path_of(confirmation_link(mail.outbox[-1]))
    assert get_user_model().objects.get(pk=user.pk).email == "boris@old.example"  # mail still goes there
    assert mail_channels(user) == [Channel.EMAIL]

    # he changes his mind before following it: the first link no longer confirms anything
    client.post(reverse("games:account"), {"email": "boris@third.example", "address": ""})
    refused = client.post(first_link)
    assert refused.status_code == 400
    assert "Эта ссылка — для адреса, который больше не ждёт подтверждения." in html(refused)
    assert get_user_model().objects.get(pk=user.pk).email == "boris@old.example"
    client.post(path_of(confirmation_link(mail.outbox[-1])))
    assert get_user_model().objects.get(pk=user.pk).email == "boris@third.example"

    # an empty address drops it: no mail at all
    client.post(reverse("games:account"), {"email": "", "address": ""})
    assert get_user_model().objects.get(pk=user.pk).email == ""
    assert mail_channels(user) == []


def test_a_forged_or_expired_link_is_refused_and_changes_nothing(client, monkeypatch):
    user = make_user("vera")
    client.force_login(user)
    client.post(reverse("games:account"), {"email": "vera@mail.example", "address": ""})
    forged = client.post(reverse("games:confirm-email", kwargs={"token": "not-a-token"}))
    assert forged.status_code == 400
    assert "Ссылка для подтверждения недействительна или устарела: укажите адрес ещё раз." in html(forged)
    other = accounts.confirmation_token(user.pk + 1000, "vera@mail.example")
    assert client.post(reverse("games:confirm-email", kwargs={"token": other})).status_code == 400
    made_at = time.time() - (accounts.CONFIRM_DAYS * 24 * 3600 + 60)
    monkeypatch.setattr(signing.time, "time", lambda: made_at)
    old = accounts.confirmation_token(user.pk, "vera@mail.example")
    monkeypatch.undo()
    assert client.post(reverse("games:confirm-email", kwargs={"token": old})).status_code == 400
    assert get_user_model().objects.get(pk=user.pk).email == ""


def test_the_confirmation_mail_is_in_the_language_the_player_reads_the_site_in(client):
    client.post(
        reverse("games:signup"),
        {"username": "mary", "password1": PASSWORD, "password2": PASSWORD, "email": "mary@mail.example"},
        headers={"accept-language": "en"},
    )
    (message,) = mail.outbox
    assert message.subject == "Confirm your address for Durak"
    assert "The link works for 3 days. Until you follow it, no mail goes to this address." in message.body


def reset(client, address, language="ru"):
    return client.post(reverse("games:password-reset"), {"email": address}, headers={"accept-language": language})


def test_a_forgotten_password_is_reset_through_a_confirmed_address_only(client):
    user = get_user_model().objects.create_user(username="anna", password=PASSWORD, email="anna@mail.example")
    Profile.objects.filter(user=user).update(pending_email="anna@waiting.example")
    login_page = html(client.get(reverse("games:login")))
    assert "Забыли пароль?" in login_page and reverse("games:password-reset") in login_page

    answers = [reset(client, address) for address in ("nobody@mail.example", "anna@waiting.example")]
    assert mail.outbox == []  # an unknown address and one not confirmed get nothing
    known = reset(client, "anna@mail.example")
    # the same answer whether or not an account has the address
    assert {answer.headers["Location"] for answer in [*answers, known]} == {reverse("games:password-reset-sent")}
    sent = html(client.get(reverse("games:password-reset-sent")))
    assert "Если этот адрес подтверждён в чьей-то учётной записи" in sent

    (message,) = mail.outbox
    assert message.to == ["anna@mail.example"]
    assert message.subject == "Сброс пароля в клубе «Дурак»"
    assert "Кто-то попросил сбросить пароль вашей учётной записи в клубе «Дурак»." in message.body
    link = path_of(RESET_RE.search(message.body).group(0))
    form_page = client.get(link, follow=True)
    assert "Новый пароль" in html(form_page)
    new = "another-long-secret-7"
    done = client.post(form_page.redirect_chain[-1][0], {"new_password1": new, "new_password2": new}, follow=True)
    assert "Пароль изменён. Войдите с новым паролем." in html(done)
    assert get_user_model().objects.get(pk=user.pk).check_password(new)


def test_the_reset_mail_is_in_english_for_an_english_reader(client):
    get_user_model().objects.create_user(username="mary", password=PASSWORD, email="mary@mail.example")
    reset(client, "mary@mail.example", "en")
    (message,) = mail.outbox
    assert message.subject == "Reset your password at the Durak club"
    assert "Someone asked to reset the password of your account at the Durak club." in message.body


def test_a_guest_has_no_account_settings(client):
    user, _table = accounts.do_play_as_guest()
    client.force_login(user)
    assert client.get(reverse("games:account")).headers["Location"] == reverse("games:signup")
    page = html(client.get(reverse("games:profile", kwargs={"username": user.username})))
    assert 'action="/account/"' not in page


def test_confirmation_links_and_password_resets_are_limited_so_no_mailbox_is_flooded(client, settings):
    settings.MAIL_LINK_RATE = (2, 3600)
    user = get_user_model().objects.create_user(username="gleb", password=PASSWORD, email="gleb@mail.example")
    client.force_login(user)
    for address in ("one@mail.example", "two@mail.example"):
        client.post(reverse("games:account"), {"email": address, "address": ""})
    refused = html(client.post(reverse("games:account"), {"email": "three@mail.example", "address": "she"}))
    assert "Слишком много ссылок для подтверждения: попробуйте через час." in refused
    assert [m.to for m in mail.outbox] == [["one@mail.example"], ["two@mail.example"]]
    assert Profile.objects.get(user=user).pending_email == "two@mail.example"
    assert Profile.objects.get(user=user).address == ""  # a refused form changes nothing
    client.post(reverse("games:account"), {"email": "gleb@mail.example", "address": "he"})
    assert Profile.objects.get(user=user).address == "he"  # the confirmed address again sends no link

    client.logout()
    mail.outbox.clear()
    for address in ("gleb@mail.example", "nobody@mail.example"):
        assert reset(client, address).status_code == 302
    refused = reset(client, "gleb@mail.example")
    assert refused.status_code == 200
    assert "Слишком много сбросов пароля с вашего адреса: попробуйте через час." in html(refused)
    assert len(mail.outbox) == 1


def test_a_guest_who_signs_up_with_an_address_gets_its_link(client):
    guest, _table = accounts.do_play_as_guest()
    client.force_login(guest)
    assert sign_up(client, email="sasha@mail.example").status_code == 302
    user = get_user_model().objects.get(pk=guest.pk)  # the guest became the account
    assert user.username == "masha" and user.email == ""
    assert Profile.objects.get(user=user).pending_email == "sasha@mail.example"
    (message,) = mail.outbox
    assert message.to == ["sasha@mail.example"]
    client.post(path_of(confirmation_link(message)))
    assert get_user_model().objects.get(pk=guest.pk).email == "sasha@mail.example"
