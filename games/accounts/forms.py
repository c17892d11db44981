from django.contrib.auth.forms import UserCreationForm


class SignUpForm(UserCreationForm):
    """A user name and a password twice; nothing else is needed to play."""

    class Meta(UserCreationForm.Meta):
        fields = ("username",)
