"""allauth's hooks for sign-in through the identity provider (the rules: services/oidc.py).

A refused sign-in ends on the site's own page saying why (HTTP 403), before any account is
made or linked; an accepted first sign-in accepts the invitations to the address and lands in
the first team joined.
"""

from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.shortcuts import render
from django.utils.translation import gettext as _

from .services import oidc as oidc_services
from .services.preferences import user_language_offer


def _claims(sociallogin) -> tuple[str, bool | None]:
    data = sociallogin.account.extra_data or {}
    claims = {**data.get("userinfo", {}), **data.get("id_token", {})} if data else {}
    email = claims.get("email") or (sociallogin.user.email if sociallogin.user else "")
    verified = claims.get("email_verified")
    if isinstance(verified, str):
        verified = verified.lower() == "true"
    return (email or "").strip(), verified if isinstance(verified, bool) else None


def refused(request, problem: str):
    context = {"problem": problem, "provider_name": oidc_services.oidc_provider_name()}
    return render(request, "registration/oidc_refused.html", context, status=403)


class TeamSocialAccountAdapter(DefaultSocialAccountAdapter):
    def pre_social_login(self, request, sociallogin):
        email, verified = _claims(sociallogin)
        user = sociallogin.user if sociallogin.is_existing else None
        check = oidc_services.oidc_sign_in_check(email=email, email_verified=verified, user=user)
        if check.problem:
            raise ImmediateHttpResponse(refused(request, check.problem))
        if check.link_to is not None:
            sociallogin.connect(request, check.link_to)
        if sociallogin.is_existing:
            self._land(sociallogin, sociallogin.user, email)
        request.session["oidc_email"] = email

    def save_user(self, request, sociallogin, form=None):
        user = super().save_user(request, sociallogin, form)
        # A new account: the browser's language is theirs until they choose another.
        user_language_offer(user=user, language=getattr(request, "LANGUAGE_CODE", ""))
        self._land(sociallogin, user, request.session.pop("oidc_email", user.email))
        return user

    def is_open_for_signup(self, request, sociallogin):
        return True  # pre_social_login has refused anyone without an invitation

    def on_authentication_error(self, request, provider, error=None, exception=None, **kwargs):
        # The provider said no, the user cancelled, or the answer did not verify: the site's
        # own page, in the user's language, instead of allauth's bare one.
        raise ImmediateHttpResponse(
            refused(
                request,
                _(
                    "Signing in through %(provider)s did not complete. Try again, or log in "
                    "with a local account."
                )
                % {"provider": oidc_services.oidc_provider_name()},
            )
        )

    @staticmethod
    def _land(sociallogin, user, email):
        landing = oidc_services.oidc_invitations_accept(user=user, email=email)
        if landing:
            sociallogin.state["next"] = landing
