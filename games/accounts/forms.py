from django import forms
from django.contrib.auth.forms import UserCreationForm

from games.services.accounts import username_refusal


class SignUpForm(UserCreationForm):
    """A user name and a password twice; nothing else is needed to play."""

    class Meta(UserCreationForm.Meta):
        fields = ("username",)

    def clean_username(self):
        """Not a guest's name, not a staff-like one, not an existing one in other case or spacing."""
        refusal = username_refusal(self.cleaned_data.get("username") or "")
        if refusal:
            raise forms.ValidationError(str(refusal), code="reserved")
        return super().clean_username()
