"""The form that creates a battle: the organising club, the event's setup, the clubs invited."""

from __future__ import annotations

import re

from django import forms
from django.utils.translation import gettext_lazy as _

from clubs.models import Club
from clubs.selectors import clubs_where
from games.choices import Variant
from tournaments.models import Tournament

from .models import MAX_CLUBS, MAX_TOP, MIN_TOP


class BattleForm(forms.Form):
    club = forms.ModelChoiceField(label=_("Organising club"), queryset=Club.objects.none())
    name = forms.CharField(label=_("Name"), max_length=120)
    variant = forms.ChoiceField(label=_("Variant"), choices=Variant.choices)
    format = forms.ChoiceField(
        label=_("Format"),
        choices=[(Tournament.Format.ARENA, _("arena")), (Tournament.Format.SWISS, _("Swiss rounds"))],
    )
    pairs = forms.BooleanField(label=_("In 2v2 pairs (partners from one club)"), required=False)
    table_size = forms.TypedChoiceField(
        label=_("Players at a table"), coerce=int, choices=[(n, str(n)) for n in range(2, 7)], initial=4
    )
    top_k = forms.IntegerField(label=_("Players who count for a club"), min_value=MIN_TOP, max_value=MAX_TOP, initial=5)
    starts_at = forms.DateTimeField(label=_("Starts at"), widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    arena_minutes = forms.IntegerField(
        label=_("Arena: minutes"), min_value=1, max_value=24 * 60, required=False, initial=60
    )
    rounds = forms.IntegerField(label=_("Swiss: rounds"), min_value=1, max_value=30, required=False, initial=5)
    invited = forms.CharField(
        label=_("Clubs invited"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Their addresses (as in the club's link), separated by spaces or commas."),
    )

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["club"].queryset = clubs_where(user, "run_events")

    def clean_invited(self):
        slugs = [s for s in re.split(r"[\s,;]+", self.cleaned_data["invited"].strip()) if s]
        if len(slugs) > MAX_CLUBS:
            raise forms.ValidationError(_("A battle is fought by 2 to 50 clubs."))
        clubs = {c.slug: c for c in Club.objects.filter(slug__in=slugs)}
        missing = [s for s in slugs if s not in clubs]
        if missing:
            raise forms.ValidationError(
                _("No club has the address %(slugs)s."), params={"slugs": ", ".join(missing[:5])}
            )
        return list(clubs.values())
