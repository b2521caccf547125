"""The API tokens page's form: input only; the token is issued by ApiToken.issue."""

from django import forms
from django.utils.translation import gettext_lazy

from probe.models import Team

from .models import ApiToken

__all__ = ["TokenForm"]


class TokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=100,
        help_text=gettext_lazy("What the token is for, such as “CI regression gate”."),
    )
    team = forms.ModelChoiceField(
        label=gettext_lazy("Team"),
        queryset=Team.objects.none(),
        help_text=gettext_lazy("The token acts in this team only, with your role there."),
    )
    access = forms.ChoiceField(
        label=gettext_lazy("Access"),
        choices=ApiToken.Access.choices,
        initial=ApiToken.Access.READ,
        widget=forms.RadioSelect,
        help_text=gettext_lazy(
            "A read token can fetch but never change anything, whatever your role."
        ),
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        teams = Team.objects.filter(memberships__user=user).order_by("name", "pk")
        self.fields["team"].queryset = teams
        if len(teams) == 1:
            self.fields["team"].initial = teams[0].pk
