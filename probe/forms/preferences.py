"""The time zone forms: a user's own, and a team's (set by an owner)."""

from django import forms
from django.utils.translation import gettext_lazy as _

from ..zone_labels import zone_choices


def _zone_choices(blank_label) -> list:
    return [("", blank_label), *zone_choices()]


class TimeZoneForm(forms.Form):
    time_zone = forms.ChoiceField(label=_("Time zone"), required=False)

    def __init__(self, *args, blank_label: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = _zone_choices(blank_label)
