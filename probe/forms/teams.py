"""Forms for the team pages: inviting a member, changing a member's role, and the account an
invitee creates."""

from django import forms
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.forms import UserCreationForm
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from ..models import Role
from ..selectors.preferences import user_language
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


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset form, its mail written in the account's own language (the page's when the
    account chose none) and signed with the product's name in that language, not the host's."""

    def send_mail(self, subject_template_name, email_template_name, context, *args, **kwargs):
        language = user_language(user=context["user"]) or translation.get_language()
        with translation.override(language):
            context = {**context, "site_name": translation.gettext("Blind probe")}
            super().send_mail(subject_template_name, email_template_name, context, *args, **kwargs)
