"""Forms for the team pages: inviting a member, changing a member's role."""

from django import forms
from django.utils.translation import gettext_lazy as _

from ..models import Role


class InvitationForm(forms.Form):
    invitee = forms.CharField(
        label=_("E-mail address or username"),
        max_length=254,
        help_text=_(
            "A username works only for someone who already shares one of your teams; "
            "invite anyone else by e-mail address."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices, initial=Role.SCORER)


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices)
