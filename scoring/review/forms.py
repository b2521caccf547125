"""The key review's form (of an experiment and of a bank): input only; the decision is made by
services.py."""

from django import forms
from django.utils.translation import gettext_lazy

from scoring.models import KeyDecision

__all__ = ["KeyDecisionForm"]


class KeyDecisionForm(forms.Form):
    source = forms.CharField(
        label=gettext_lazy("Primary source checked"),
        max_length=2000,
        help_text=gettext_lazy("A citation or a URL: where you checked the answer."),
    )
    outcome = forms.ChoiceField(
        label=gettext_lazy("Outcome"), choices=KeyDecision.Outcome.choices, widget=forms.RadioSelect
    )
    new_answer = forms.CharField(
        label=gettext_lazy("New key text"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    note = forms.CharField(
        label=gettext_lazy("Note"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    carry_to_bank = forms.BooleanField(
        label=gettext_lazy("Carry the decision back to the bank's key entry"),
        required=False,
        help_text=gettext_lazy(
            "An amendment becomes the bank's key; the source joins its references either way."
        ),
    )
    clear_bank_flag = forms.BooleanField(
        label=gettext_lazy("and take the (!) off the bank's entry"),
        required=False,
        initial=True,
    )
