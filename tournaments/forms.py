"""The event form (admin and director page): every Rules option as a field,
stored as `rules` = games.engine.Rules(...).to_dict()."""

from datetime import timedelta

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils.translation import gettext_lazy as _

from .errors import TournamentRefused
from .models import Tournament

DATETIME_FIELDS = ("registration_opens", "registration_closes", "checkin_opens", "checkin_closes", "starts_at")
RULE_FIELDS = ("deck", "first_bout_limit", "throw_in", "trump_show_transfer", "trump_six_swap")
# Bounds a real event stays within; beyond them a number is a typo (or an attack) and
# would overflow the database column (a server error) instead of getting a clear answer.
NUMBER_BOUNDS = {"table_size": (2, 6), "rounds": (1, 100), "games_per_round": (1, 20), "max_entrants": (2, 10000)}
DURATION_FIELDS = ("pause_between_rounds", "round_time_limit")
LONGEST_DURATION = timedelta(days=1)
EARLIEST_YEAR, LATEST_YEAR = 2000, 2100


class PointsTableField(forms.JSONField):
    """The points by place; empty (the default table) shows as an empty box, so its
    placeholder is seen, not "[]", and an empty box is the empty list again."""

    def prepare_value(self, value):
        if value is None or value == []:
            return ""
        return super().prepare_value(value)

    def to_python(self, value):
        value = super().to_python(value)
        return [] if value is None else value


class TournamentForm(forms.ModelForm):
    deck = forms.TypedChoiceField(label=_("deck"), coerce=int, choices=[(36, "36"), (24, "24"), (52, "52")], initial=36)
    first_bout_limit = forms.TypedChoiceField(
        label=_("attack cards in the first bout"), coerce=int, choices=[(5, "5"), (6, "6")], initial=5
    )
    throw_in = forms.ChoiceField(
        label=_("who throws in"),
        choices=[("all", _("everyone")), ("neighbours", _("the opener's neighbours"))],
        initial="all",
    )
    trump_show_transfer = forms.BooleanField(label=_("transfer by showing a trump"), required=False)
    trump_six_swap = forms.BooleanField(label=_("swap the trump six"), required=False)

    class Meta:
        model = Tournament
        fields = [
            "name",
            "description",
            "variant",
            "kind",
            "table_size",
            "format",
            "rounds",
            "games_per_round",
            "registration_opens",
            "registration_closes",
            "checkin_opens",
            "checkin_closes",
            "starts_at",
            "pause_between_rounds",
            "round_time_limit",
            "turn_seconds",
            "rated",
            "max_entrants",
            "points_table",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in DATETIME_FIELDS:
            # The browser's own date and time picker; shown in the site's time zone.
            self.fields[name].widget = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")
        for name, (low, high) in NUMBER_BOUNDS.items():
            field = self.fields[name]
            bounds = (MinValueValidator, MaxValueValidator)  # in place of the column's own ">= 0": one message, not two
            field.validators = [v for v in field.validators if not isinstance(v, bounds)]
            field.validators += [MinValueValidator(low), MaxValueValidator(high)]
            field.widget.attrs.update(min=low, max=high)
        self.fields["description"].widget.attrs["rows"] = 3
        points = self.fields["points_table"]
        self.fields["points_table"] = PointsTableField(
            label=points.label,
            help_text=points.help_text,
            required=False,
            widget=forms.TextInput(attrs={"placeholder": "[3, 2, 1, 0]"}),
        )
        rules = (self.instance.rules or {}) if self.instance else {}
        for name in RULE_FIELDS:
            if name in rules:
                self.fields[name].initial = rules[name]

    def _clean_duration(self, name):
        value = self.cleaned_data.get(name)
        if value is not None and not timedelta(0) <= value <= LONGEST_DURATION:
            raise forms.ValidationError(_("Give a duration from 0 to 24 hours, e.g. 00:05:00."), code="duration_bounds")
        return value

    def clean_pause_between_rounds(self):
        return self._clean_duration("pause_between_rounds")

    def clean_round_time_limit(self):
        return self._clean_duration("round_time_limit")

    def _clean_moment(self, name):
        value = self.cleaned_data.get(name)
        if value is not None and not EARLIEST_YEAR <= value.year <= LATEST_YEAR:
            raise forms.ValidationError(
                _("Give a date between the years %(earliest)s and %(latest)s."),
                code="date_bounds",
                params={"earliest": EARLIEST_YEAR, "latest": LATEST_YEAR},
            )
        return value

    def clean_registration_opens(self):
        return self._clean_moment("registration_opens")

    def clean_registration_closes(self):
        return self._clean_moment("registration_closes")

    def clean_checkin_opens(self):
        return self._clean_moment("checkin_opens")

    def clean_checkin_closes(self):
        return self._clean_moment("checkin_closes")

    def clean_starts_at(self):
        return self._clean_moment("starts_at")

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        event = self.instance
        for name in self.Meta.fields:
            if name in data:
                setattr(event, name, data[name])
        event.rules = {name: data.get(name) for name in RULE_FIELDS}
        from .services import validate_event

        try:
            validate_event(event)
        except TournamentRefused as refusal:
            raise forms.ValidationError(str(refusal)) from None
        points = data.get("points_table") or []
        if not isinstance(points, list) or not all(isinstance(p, int | float) and p >= 0 for p in points):
            raise forms.ValidationError(_("Points by place are a list of numbers, e.g. [3, 2, 1, 0]."))
        return data

    def save(self, commit=True):
        event = super().save(commit=False)
        event.rules = self.instance.rules
        if commit:
            event.save()
        return event
