"""The event form (admin and director page): every Rules option as a field,
stored as `rules` = games.engine.Rules(...).to_dict()."""

import math
from datetime import timedelta

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils.translation import gettext_lazy as _

from . import registry
from .errors import TournamentRefused
from .models import Tournament
from .standings import METRICS, tiebreak_refusal, tiebreaks_for

DATETIME_FIELDS = ("registration_opens", "registration_closes", "checkin_opens", "checkin_closes", "starts_at")
RULE_FIELDS = ("deck", "first_bout_limit", "throw_in", "trump_show_transfer", "trump_six_swap")
# Bounds a real event stays within; beyond them a number is a typo (or an attack) and
# would overflow the database column (a server error) instead of getting a clear answer.
NUMBER_BOUNDS = {"table_size": (2, 6), "rounds": (1, 100), "games_per_round": (1, 20), "max_entrants": (2, 10000)}
LONGEST_DURATION = timedelta(days=1)
EARLIEST_YEAR, LATEST_YEAR = 2000, 2100


def tiebreaks_help() -> str:
    """The tie-breaks a director may order: each registered metric's name and what it is."""
    names = "; ".join(f"{name}: {metric.label}" for name, metric in METRICS.items())
    return _("Names in order, separated by commas, each once (empty: the format's default). %(names)s.") % {
        "names": names
    }


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
            "arena_minutes",
            "berserk_allowed",
            "third_place_match",
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
            "no_show_grace",
            "rated",
            "house_bots_allowed",
            "max_entrants",
            "points_table",
            "tiebreaks",
        ]

    # The director's page gives each moment the browser's own date and time picker; the
    # admin keeps its split date and time inputs (AdminTournamentForm), whose two values
    # its SplitDateTimeField expects: one datetime-local value there is "enter a list".
    browser_date_pickers = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.browser_date_pickers:
            for name in DATETIME_FIELDS:
                # Shown in the site's time zone.
                self.fields[name].widget = forms.DateTimeInput(
                    attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
                )
        for name, (low, high) in NUMBER_BOUNDS.items():
            field = self.fields[name]
            bounds = (MinValueValidator, MaxValueValidator)  # in place of the column's own ">= 0": one message, not two
            field.validators = [v for v in field.validators if not isinstance(v, bounds)]
            field.validators += [MinValueValidator(low), MaxValueValidator(high)]
            field.widget.attrs.update(min=low, max=high)
        self.fields["description"].widget.attrs["rows"] = 3
        # An arena plays for a time, not in rounds: its box may stay empty (clean_rounds).
        self.fields["rounds"].required = False
        self.fields["rounds"].help_text = _("not for an arena: it plays for its duration")
        self.fields["no_show_grace"].required = False  # empty: the default two minutes
        points = self.fields["points_table"]
        self.fields["points_table"] = PointsTableField(
            label=points.label,
            help_text=points.help_text,
            required=False,
            widget=forms.TextInput(attrs={"placeholder": "[3, 2, 1, 0]"}),
        )
        tiebreaks = self.fields["tiebreaks"]  # names separated by commas, not JSON
        self.fields["tiebreaks"] = forms.CharField(
            label=tiebreaks.label,
            help_text=tiebreaks_help(),
            required=False,
            widget=forms.TextInput(attrs={"placeholder": ", ".join(tiebreaks_for("swiss"))}),
        )
        self.initial["tiebreaks"] = ", ".join(getattr(self.instance, "tiebreaks", None) or [])
        rules = (self.instance.rules or {}) if self.instance else {}
        for name in RULE_FIELDS:
            if name in rules:
                self.fields[name].initial = rules[name]

    def _clean_duration(self, name):
        value = self.cleaned_data.get(name)
        if value is not None and not timedelta(0) <= value <= LONGEST_DURATION:
            raise forms.ValidationError(_("Give a duration from 0 to 24 hours, e.g. 00:05:00."), code="duration_bounds")
        return value

    def clean_rounds(self):
        rounds = self.cleaned_data.get("rounds")
        if rounds is not None:
            return rounds
        chosen = registry.FORMATS.get(self.cleaned_data.get("format"))
        if chosen is not None and chosen.continuous:
            return Tournament._meta.get_field("rounds").default  # (the column's own; an arena never reads it)
        raise forms.ValidationError(self.fields["rounds"].error_messages["required"], code="required")

    def clean_pause_between_rounds(self):
        return self._clean_duration("pause_between_rounds")

    def clean_round_time_limit(self):
        return self._clean_duration("round_time_limit")

    def clean_no_show_grace(self):
        value = self._clean_duration("no_show_grace")
        return Tournament._meta.get_field("no_show_grace").default if value is None else value

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
        value = self._clean_moment("starts_at")
        # A start in the past or in the current minute is due at once: the sweep would cancel the
        # event seconds later, before anyone could enter. A new start (a new event, or a changed
        # time) is the next whole minute at the earliest; an old event keeps the time it has.
        new = self.instance._state.adding or "starts_at" in self.changed_data
        if value is not None and new:
            from .services import next_minute

            if value < next_minute():
                raise forms.ValidationError(
                    _("The start must be in the future, from the next minute on."), code="start_in_past"
                )
        return value

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
        return data

    def clean_points_table(self):
        """A list of finite numbers from 0 up, none above the one before it: JSON as Python
        reads it also gives 1e999 and Infinity (inf), NaN, and true and false (ints)."""
        points = self.cleaned_data.get("points_table") or []
        if not isinstance(points, list):
            raise forms.ValidationError(_("Points by place are a list of numbers, e.g. [3, 2, 1, 0]."))
        numbers = all(type(p) in (int, float) and math.isfinite(p) and p >= 0 for p in points)
        if not numbers or any(later > earlier for earlier, later in zip(points, points[1:], strict=False)):
            raise forms.ValidationError(
                _("Points by place are finite numbers from 0 up, not rising with the place, e.g. [3, 2, 1, 0]."),
                code="points_table",
            )
        return points

    def clean_tiebreaks(self):
        """Names of standings.METRICS separated by commas, each once; empty: the format's default."""
        names = [name.strip() for name in (self.cleaned_data.get("tiebreaks") or "").split(",") if name.strip()]
        refusal = tiebreak_refusal(names)
        if refusal is not None:
            raise forms.ValidationError(refusal, code="tiebreaks")
        return names

    def save(self, commit=True):
        event = super().save(commit=False)
        event.rules = self.instance.rules
        if commit:
            event.save()
        return event


class AdminTournamentForm(TournamentForm):
    """The same form in the admin, with the admin's own date and time widgets."""

    browser_date_pickers = False


def pair_number(raw: str | None, refusal=None) -> int | None:
    """The pair chosen in an entry form: a pair's number, or none; anything else
    (a typed "abc", "1.5", other scripts' digits) is refused, not a server error."""
    raw = (raw or "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:
        raise TournamentRefused(refusal or _("Choose one of your active pairs."))
    return int(raw)
