"""Bearer tokens, the API's throttle, and the same access rules as the pages."""

from datetime import timedelta

from django.conf import settings
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja.errors import HttpError
from ninja.security import HttpBearer
from ninja.throttling import SimpleRateThrottle

from probe.access import is_blinded, lookup
from probe.models import Membership, role_at_least

from .models import ApiToken, token_digest

# last_used is written at most this often per token: a busy CI job is not a write per request.
TOUCH_EVERY = timedelta(minutes=1)


class TokenAuth(HttpBearer):
    """`Authorization: Bearer <token>`; the request then acts as the token's user."""

    def authenticate(self, request, token: str):
        if not token or len(token) > 200:
            return None
        row = (
            ApiToken.objects.select_related("user")
            .filter(digest=token_digest(token), revoked__isnull=True, user__is_active=True)
            .first()
        )
        if row is None:
            return None
        now = timezone.now()
        if row.last_used is None or now - row.last_used > TOUCH_EVERY:
            ApiToken.objects.filter(pk=row.pk).update(last_used=now)
        request.user = row.user
        request.api_token = row
        return row


class TokenThrottle(SimpleRateThrottle):
    """Requests per token (per address for a request without a valid token)."""

    scope = "api"

    def get_rate(self) -> str:
        return settings.API_THROTTLE_RATE

    def allow_request(self, request) -> bool:
        # The rate is read per request, so a change of the setting needs no restart of the API.
        if self.rate != settings.API_THROTTLE_RATE:
            self.rate = settings.API_THROTTLE_RATE
            self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request)

    def get_cache_key(self, request) -> str:
        token = getattr(request, "api_token", None)
        ident = f"token-{token.pk}" if token is not None else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def reach(request, scope: str, value, role: str):
    """The object named by `value` in the user's teams, and the user's membership in its team.

    Another team's object, or none, is a 404 (never a 403 that confirms it exists); a member
    whose role is too low gets a 403 that names the role needed.
    """
    try:
        obj, membership = lookup(request.user, scope, value)
    except Http404:
        raise HttpError(404, _("Not found.")) from None
    if not role_at_least(membership.role, role):
        raise HttpError(
            403,
            _("This needs the %(role)s role in the team; you are %(yours)s.")
            % {"role": role, "yours": membership.role},
        )
    request.membership = membership
    request.team = membership.team
    return obj, membership


def blinded(request, experiment) -> bool:
    return is_blinded(experiment, request.user, getattr(request, "membership", None))


def member_of(request, team) -> Membership | None:
    return Membership.objects.filter(team=team, user=request.user).first()
