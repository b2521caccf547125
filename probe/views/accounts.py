"""Accounts: the login page (with the lockout's pause page), password change and reset,
accepting an invitation."""

import math

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from .. import login_devices
from ..forms.common import apply_service_errors
from ..forms.teams import InvitationSignupForm, LoginForm, PasswordResetForm
from ..htmx import HtmxHttpRequest
from ..services import logins as login_services
from ..services import oidc as oidc_services
from ..services import teams as team_services
from ..services.preferences import user_language_offer
from ..wording import sentences


def _short_password_help(form, name: str):
    # Django's help for a new password is a bulleted list of every validator; one line reads
    # better on a small form, and the validators still explain any refusal in full.
    if name in form.fields:
        form.fields[name].help_text = _(
            "At least 8 characters; not all digits, not a common password, not like your name."
        )
    # The confirmation's label in the project's catalogue: Django's own Japanese writes it with
    # half-width brackets (「パスワード(確認用)」).
    confirmation = "new_password2" if name == "new_password1" else "password2"
    if confirmation in form.fields:
        form.fields[confirmation].label = (
            _("New password confirmation")
            if confirmation == "new_password2"
            else _("Password confirmation")
        )
    return form


def oidc_context() -> dict:
    """What a page needs to offer sign-in through the identity provider (nothing when unset)."""
    return {
        "oidc_enabled": oidc_services.oidc_enabled(),
        "oidc_provider_name": oidc_services.oidc_provider_name(),
    }


class LoginView(auth_views.LoginView):
    """Django's login page; a login the lockout refused gets a page saying how long the pause
    lasts (HTTP 429) instead of "wrong password"."""

    redirect_authenticated_user = True
    authentication_form = LoginForm

    def get_context_data(self, **kwargs):
        return super().get_context_data(**oidc_context(), **kwargs)

    def form_valid(self, form):
        response = super().form_valid(form)
        # This browser is now a known device of the user's (probe/login_devices.py).
        login_devices.set_device_cookie(self.request, response, form.get_user().get_username())
        return response

    def form_invalid(self, form):
        pause = getattr(self.request, "login_pause", None)
        if pause is None:
            return super().form_invalid(form)
        context = {
            "minutes": max(1, math.ceil(pause.seconds_left() / 60)),
            "email_enabled": settings.EMAIL_ENABLED,
        }
        return render(self.request, "registration/locked_out.html", context, status=429)


class PasswordChangeView(auth_views.PasswordChangeView):
    success_url = reverse_lazy("home")

    def get_form(self, form_class=None):
        return _short_password_help(super().get_form(form_class), "new_password1")

    def form_valid(self, form):
        response = super().form_valid(form)
        messages.success(self.request, _("Your password has been changed."))
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Mails a reset link when the server can send mail; otherwise says to ask an owner."""

    form_class = PasswordResetForm

    def get_context_data(self, **kwargs):
        return super().get_context_data(email_enabled=settings.EMAIL_ENABLED, **kwargs)

    def post(self, request, *args, **kwargs):
        if not settings.EMAIL_ENABLED:
            return self.get(request, *args, **kwargs)
        return super().post(request, *args, **kwargs)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Setting a new password through a one-time link also lifts a login lockout on the
    account, so a member locked out by someone guessing can get back in at once."""

    success_url = reverse_lazy("login")
    post_reset_login = False

    def get_form(self, form_class=None):
        return _short_password_help(super().get_form(form_class), "new_password1")

    def form_valid(self, form):
        response = super().form_valid(form)
        login_services.login_lock_lift(username=form.user.get_username())
        messages.success(self.request, _("Your new password is set. Log in with it."))
        return response


@never_cache
@login_not_required
def invitation_accept(request: HtmxHttpRequest, token: str):
    invitation = team_services.invitation_find(token=token)
    problem = team_services.invitation_problem(invitation=invitation, user=request.user)
    context = {"invitation": invitation, "problem": problem, **oidc_context()}
    if problem:
        return render(request, "registration/invitation.html", context, status=410)
    signup = None
    # A team that requires the identity provider takes no new local account.
    context["oidc_required"] = context["oidc_enabled"] and invitation.team.require_oidc
    if (
        not request.user.is_authenticated
        and not invitation.invitee_id
        and not context["oidc_required"]
    ):
        signup = InvitationSignupForm(request.POST if "signup" in request.POST else None)
        _short_password_help(signup, "password1")
    if request.method == "POST":
        try:
            if request.user.is_authenticated and "accept" in request.POST:
                membership = team_services.invitation_accept(
                    invitation=invitation, user=request.user
                )
                messages.success(
                    request, _("Welcome to %(team)s.") % {"team": invitation.team.name}
                )
                return redirect(membership.landing)
            if signup is not None and signup.is_valid():
                membership = team_services.invitation_accept_with_new_account(
                    invitation=invitation,
                    username=signup.cleaned_data["username"],
                    password=signup.cleaned_data["password1"],
                )
                login(request, membership.user, backend=settings.AUTHENTICATION_BACKENDS[0])
                user_language_offer(
                    user=membership.user, language=getattr(request, "LANGUAGE_CODE", "")
                )
                messages.success(
                    request,
                    _("Your account is ready. Welcome to %(team)s.")
                    % {"team": invitation.team.name},
                )
                return redirect(membership.landing)
        except ValidationError as error:
            if signup is not None:
                apply_service_errors(signup, error)
            else:
                context["problem"] = sentences(error.messages)
                return render(request, "registration/invitation.html", context, status=410)
    context["signup"] = signup
    return render(request, "registration/invitation.html", context)
