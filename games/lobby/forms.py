from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from games import engine
from games.choices import Variant
from games.display import bot_choices, default_bot_level, rule_error_text
from games.services.tables import DEFAULT_PUBLIC_TURN_SECONDS

PLAYER_CHOICES = [(n, str(n)) for n in range(2, 7)]
DECK_CHOICES = [
    (24, _("24 cards (nines to aces)")),
    (36, _("36 cards (sixes to aces)")),
    (52, _("52 cards (twos to aces)")),
]
FIRST_BOUT_CHOICES = [(5, _("5 cards")), (6, _("6 cards"))]
THROW_IN_CHOICES = [("all", _("every player")), ("neighbours", _("only the attacker's neighbours"))]
TIMER_CHOICES = [
    ("", _("no timer (private tables only)")),
    ("15", _("15 seconds")),
    ("30", _("30 seconds")),
    ("60", _("60 seconds")),
]
VISIBILITY_CHOICES = [
    ("public", _("public: listed in the lobby")),
    ("private", _("private: only people with the invite link")),
]


class NewTableForm(forms.Form):
    """Every option of engine.Rules, plus the table's timer, visibility, bots and rating."""

    variant = forms.ChoiceField(label=_("Variant"), choices=Variant.choices, initial=Variant.PODKIDNOY)
    players = forms.TypedChoiceField(label=_("Players"), choices=PLAYER_CHOICES, coerce=int, initial=2)
    partners = forms.BooleanField(
        label=_("Partners"),
        required=False,
        help_text=_("4 players: two pairs sitting opposite; 6 players: two teams of three."),
    )
    deck = forms.TypedChoiceField(label=_("Deck"), choices=DECK_CHOICES, coerce=int, initial=36)
    first_bout_limit = forms.TypedChoiceField(
        label=_("Cards in the first bout"), choices=FIRST_BOUT_CHOICES, coerce=int, initial=5
    )
    throw_in = forms.ChoiceField(label=_("Who throws in"), choices=THROW_IN_CHOICES, initial="all")
    trump_show_transfer = forms.BooleanField(
        label=_("Transfer by showing a trump"), required=False, help_text=_("Perevodnoy only.")
    )
    trump_six_swap = forms.BooleanField(
        label=_("Trump six swap"),
        required=False,
        help_text=_("The trump six may be swapped for the face-up trump card."),
    )
    turn_seconds = forms.TypedChoiceField(
        label=_("Turn timer"),
        choices=TIMER_CHOICES,
        coerce=int,
        empty_value=None,
        required=False,
        initial=str(DEFAULT_PUBLIC_TURN_SECONDS),
        help_text=format_lazy(
            _("A public table always has one: without a choice it gets {seconds} seconds."),
            seconds=DEFAULT_PUBLIC_TURN_SECONDS,
        ),
    )
    visibility = forms.ChoiceField(
        label=_("Table"), choices=VISIBILITY_CHOICES, initial="public", widget=forms.RadioSelect
    )
    bot_level = forms.ChoiceField(
        label=_("Bots for empty seats"),
        required=False,
        help_text=_("When you start the game, bots of this level take the empty seats."),
    )
    rated = forms.BooleanField(
        label=_("Rated"), required=False, help_text=_("For signed-up players only; no bots at a rated table.")
    )

    def __init__(self, *args, can_rate: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bot_level"].choices = [("", _("no bots"))] + bot_choices()
        if not can_rate:  # the service refuses a guest's rated table; say so up front
            self.fields["rated"].help_text = _("Guests cannot play rated games: sign up first.")
        self.rules = None

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        if data.get("rated") and data.get("visibility") == "private":
            # the service refuses it too (games.services.tables.do_create_table)
            self.add_error("rated", _("Private tables are never rated: open a public table for a rated game."))
            return data
        try:
            self.rules = engine.Rules(
                variant=data["variant"],
                players=data["players"],
                partners=data["partners"],
                deck=data["deck"],
                first_bout_limit=data["first_bout_limit"],
                throw_in=data["throw_in"],
                trump_show_transfer=data["trump_show_transfer"],
                trump_six_swap=data["trump_six_swap"],
            )
        except ValueError as error:
            raise forms.ValidationError(rule_error_text(str(error))) from None
        return data

    RULE_FIELDS = (
        "variant",
        "players",
        "partners",
        "deck",
        "first_bout_limit",
        "throw_in",
        "trump_show_transfer",
        "trump_six_swap",
    )

    def rule_fields(self):
        return [self[name] for name in self.RULE_FIELDS]

    def table_fields(self):
        return [field for field in self if field.name not in self.RULE_FIELDS]

    @property
    def is_private(self) -> bool:
        return self.cleaned_data["visibility"] == "private"


TABLE_SIZE_CHOICES = [
    ("2", _("2 players")),
    ("3", _("3 players")),
    ("4", _("4 players")),
    ("4p", _("4 players, 2 against 2")),
    ("5", _("5 players")),
    ("6", _("6 players")),
    ("6p", _("6 players, 3 against 3")),
]


class PlayNowForm(forms.Form):
    """The "play now" form: the kind of game to wait for (the queue, games.services.matchmaking)."""

    variant = forms.ChoiceField(label=_("Variant"), choices=Variant.choices, initial=Variant.PODKIDNOY)
    size = forms.ChoiceField(label=_("Table"), choices=TABLE_SIZE_CHOICES, initial="2")
    rated = forms.BooleanField(label=_("Rated"), required=False)

    @property
    def players(self) -> int:
        return int(self.cleaned_data["size"].rstrip("p"))

    @property
    def partners(self) -> bool:
        return self.cleaned_data["size"].endswith("p")


class QuickGameForm(forms.Form):
    """The guest's quick game against bots: how strong they are."""

    bot_level = forms.ChoiceField(label=_("Bots"), required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bot_level"].choices = bot_choices()
        self.fields["bot_level"].initial = default_bot_level()
