"""Sign-in through the identity provider: who may, and what a first sign-in joins.

Plain rules over the e-mail address the provider vouched for; probe/oidc.py calls them from
allauth's flow. An invitation's e-mail address is what links a provider account to its team:
nobody signs in this way for the first time without a pending invitation to their address
(nobody joins a team without consent), and staff accounts never sign in this way.
"""

from dataclasses import dataclass

from allauth.socialaccount.models import SocialAccount
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import Invitation, Membership, Team
from . import teams as team_services


def oidc_enabled() -> bool:
    return bool(settings.OIDC_ISSUER_URL and settings.OIDC_CLIENT_ID)


def oidc_provider_name() -> str:
    return settings.OIDC_PROVIDER_NAME or "SSO"


def _domain(email: str) -> str:
    return email.rpartition("@")[2].lower()


def _privileged(user) -> bool:
    return user.is_staff or user.is_superuser


def _pending_invitations(email: str):
    return Invitation.objects.select_related("team").filter(
        email__iexact=email, accepted=None, revoked=None, invitee=None
    )


@dataclass(frozen=True)
class SignInCheck:
    problem: str = ""  # why the sign-in is refused ("" when it may go on)
    link_to: object = None  # an existing local account this first sign-in links to


def oidc_sign_in_check(*, email: str, email_verified: bool | None, user=None) -> SignInCheck:
    """May the provider's account with this address sign in? `user`: the account it is already
    linked to, if any."""
    email = (email or "").strip()
    if not email or "@" not in email:
        return SignInCheck(
            _(
                "The identity provider did not give an e-mail address, so this account cannot "
                "be matched to a team. Ask your administrator to release the e-mail claim."
            )
        )
    if email_verified is False:
        return SignInCheck(
            _("The identity provider has not verified %(email)s, so it cannot sign in here.")
            % {"email": email}
        )
    allowed = settings.OIDC_ALLOWED_DOMAINS
    if allowed and _domain(email) not in allowed:
        return SignInCheck(
            _(
                "Accounts of %(domain)s cannot sign in here. Use an account of your "
                "organisation, or log in with a local account."
            )
            % {"domain": _domain(email)}
        )
    staff = _(
        "Staff and administrator accounts log in with their local password, not through the "
        "identity provider."
    )
    if user is not None:
        return SignInCheck(staff if _privileged(user) else "")
    local = list(get_user_model().objects.filter(email__iexact=email, is_active=True)[:2])
    if any(_privileged(account) for account in local):
        return SignInCheck(staff)
    if len(local) == 1:
        # A member who so far logged in locally: the provider vouches for the same address.
        return SignInCheck(link_to=local[0])
    now = timezone.now()
    pending = list(_pending_invitations(email))
    if any(invitation.expires > now for invitation in pending):
        return SignInCheck()
    if pending:
        return SignInCheck(
            _(
                "Your invitation to %(team)s has expired. Ask the team's owner for a new one, "
                "then sign in again."
            )
            % {"team": pending[0].team.name}
        )
    return SignInCheck(
        _(
            "There is no invitation for %(email)s. Ask an owner of your team to invite this "
            "address from the team's Members page, then sign in again."
        )
        % {"email": email}
    )


@transaction.atomic
def oidc_invitations_accept(*, user, email: str) -> str:
    """Accept every pending, unexpired invitation to the address the provider vouched for;
    returns where the sign-in lands (the first invitation's experiment or team), or ""."""
    first = None
    now = timezone.now()
    for invitation in _pending_invitations(email).filter(expires__gt=now).order_by("created"):
        if Membership.objects.filter(team=invitation.team, user=user).exists():
            continue
        membership = team_services.invitation_accept(invitation=invitation, user=user)
        first = first or membership.landing
    return first or ""


def oidc_required_problem(user) -> str:
    """Why this account may not log in with a local password, or "": a non-staff member of a
    team whose owner requires sign-in through the identity provider."""
    if user is None or _privileged(user) or not oidc_enabled():
        return ""
    team = Team.objects.filter(memberships__user=user, require_oidc=True).first()
    if team is None:
        return ""
    return _(
        "%(team)s requires signing in through %(provider)s. Use the button "
        "“Sign in with %(provider)s” below instead of a password."
    ) % {"team": team.name, "provider": oidc_provider_name()}


def _may_sign_in_through_provider(user) -> bool:
    """Whether this account could sign in through the identity provider: an address of an
    allowed domain (any, when none are set)."""
    allowed = settings.OIDC_ALLOWED_DOMAINS
    email = (user.email or "").strip()
    return "@" in email and (not allowed or _domain(email) in allowed)


def members_locked_out(team: Team) -> list:
    """The team's members who would lose access if it required the identity provider: not
    staff, and no address the provider could sign them in with."""
    return [
        m.user
        for m in Membership.objects.filter(team=team, user__is_active=True)
        .select_related("user")
        .order_by("user__username")
        if not _privileged(m.user) and not _may_sign_in_through_provider(m.user)
    ]


def require_oidc_problem(*, user, via_provider_now: bool) -> str:
    """Why this owner may not require the identity provider for their team, or "": they would
    lock themselves out unless they are signed in through it now, or have an account linked to
    it with an address of an allowed domain. Staff keep their local password either way."""
    if via_provider_now or _privileged(user):
        return ""
    email = (user.email or "").strip()
    if not _may_sign_in_through_provider(user):
        if "@" not in email:
            return _(
                "Your account has no e-mail address, so it could not sign in through "
                "%(provider)s: requiring it would lock you out. Sign in through %(provider)s "
                "first."
            ) % {"provider": oidc_provider_name()}
        return _(
            "Accounts of %(domain)s cannot sign in through %(provider)s here, so requiring it "
            "would lock you out. Sign in through %(provider)s with an account of your "
            "organisation first."
        ) % {"domain": _domain(email), "provider": oidc_provider_name()}
    if not SocialAccount.objects.filter(user=user).exists():
        return _(
            "Your account is not linked to %(provider)s yet, so requiring it could lock you "
            "out. Sign in once with “Sign in with %(provider)s”, then require it."
        ) % {"provider": oidc_provider_name()}
    return ""
