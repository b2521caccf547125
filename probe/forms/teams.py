"""Forms for the team pages: inviting a member, changing a member's role, and the account an
invitee creates."""

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.utils.translation import gettext_lazy as _

from ..models import Role
from ..services.oidc import oidc_required_problem
from ..services.teams import USERNAME_TAKEN


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


class InvitationSignupForm(UserCreationForm):
    """The account an e-mail invitee creates. A taken username says what to do next (pick
    another, or log in if it is theirs) and nothing about the account that holds it."""

    def clean_username(self):
        username = self.cleaned_data.get("username")
        if username and self._meta.model.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError(USERNAME_TAKEN, code="username_taken")
        return username


class LoginForm(AuthenticationForm):
    """Django's login form; a member of a team that requires the identity provider is told to
    sign in there instead (the password was right, but is not the way in for them)."""

    def confirm_login_allowed(self, user):
        super().confirm_login_allowed(user)
        problem = oidc_required_problem(user)
        if problem:
            raise forms.ValidationError(problem, code="oidc_required")
