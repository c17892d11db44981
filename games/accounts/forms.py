from django import forms
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm
from django.utils.translation import gettext_lazy as _

from games.choices import Address
from games.services.accounts import username_refusal


class SignUpForm(UserCreationForm):
    """A user name and a password twice; nothing else is needed to play. An address
    is optional: it is confirmed by a link before any mail goes to it."""

    email = forms.EmailField(
        label=_("Email (optional)"),
        required=False,
        help_text=_("For notices and a forgotten password, once you follow the link we send to it."),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Django's help texts (150 characters, the password rules as a list) crowd a phone's
        # form; a refused name or password still says why.
        for name in ("username", "password1", "password2"):
            self.fields[name].help_text = ""
        self.order_fields(["username", "email", "password1", "password2"])

    def clean_username(self):
        """Not a guest's name, not a staff-like one, not an existing one in other case or spacing."""
        refusal = username_refusal(self.cleaned_data.get("username") or "")
        if refusal:
            raise forms.ValidationError(str(refusal), code="reserved")
        return super().clean_username()


class AccountForm(forms.Form):
    """The player's own settings: his address for mail, and how the site speaks of him."""

    email = forms.EmailField(label=_("Email"), required=False)
    address = forms.ChoiceField(
        label=_("In Russian messages, speak of me as"),
        choices=Address.choices,
        required=False,
        widget=forms.RadioSelect,
    )


class ConfirmedAddressResetForm(PasswordResetForm):
    """Django's reset form: it mails only `User.email`, which is only ever a confirmed
    address (games.services.accounts), and the page after it says the same whether or
    not an account has that address."""

    email = forms.EmailField(label=_("Email"), max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"}))
