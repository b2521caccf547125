"""Forms for the team pages: inviting a member, changing a member's role, and the account an
invitee creates."""

from django import forms
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from ..models import Experiment, Role
from ..selectors.preferences import user_language
from ..services.oidc import oidc_required_problem
from ..services.teams import USERNAME_TAKEN


class InvitationScoringMixin(forms.Form):
    """What the invitee will score: experiments of the team, or every current and future one."""

    experiments = forms.ModelMultipleChoiceField(
        label=_("Experiments to score"),
        queryset=Experiment.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Accepting makes them a scorer there and opens the first one's scoring page."),
    )
    all_experiments = forms.BooleanField(
        label=_("Every current and future experiment of the team"), required=False
    )

    def __init__(self, *args, team=None, **kwargs):
        super().__init__(*args, **kwargs)
        if team is not None:
            self.fields["experiments"].queryset = Experiment.objects.filter(team=team).order_by(
                "-created"
            )


class InvitationForm(InvitationScoringMixin):
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

    field_order = ["invitee", "role", "experiments", "all_experiments"]


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


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset form, its mail written in the account's own language (the page's when the
    account chose none) and signed with the product's name in that language, not the host's."""

    def send_mail(self, subject_template_name, email_template_name, context, *args, **kwargs):
        language = user_language(user=context["user"]) or translation.get_language()
        with translation.override(language):
            context = {**context, "site_name": translation.gettext("Blind probe")}
            super().send_mail(subject_template_name, email_template_name, context, *args, **kwargs)
