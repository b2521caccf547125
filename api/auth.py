"""Bearer tokens, the API's throttles, and the same access rules as the pages."""

from datetime import timedelta

from django.conf import settings
from django.db.models import F
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja.errors import HttpError, Throttled
from ninja.security import HttpBearer

from probe.access import is_blinded, lookup
from probe.middleware import client_ip
from probe.models import role_at_least

from . import throttle
from .models import ApiToken, token_digest

# last_used is written at most this often per token: a busy CI job is not a write per request.
TOUCH_EVERY = timedelta(minutes=1)
# What a read token may do; every other method writes.
READ_METHODS = {"GET", "HEAD", "OPTIONS"}


class TokenAuth(HttpBearer):
    """`Authorization: Bearer <token>`; the request then acts as the token's user, in the
    token's team, within its access.

    Every request counts against its address's rate; a request without a valid token also
    against the address's rate of failed authentications (a guesser or a broken job is refused
    there long before the token rate), and one with a valid token against that token's rate.
    """

    def __call__(self, request):
        address = client_ip(request)
        wait = throttle.hit("address", address, settings.API_ADDRESS_THROTTLE_RATE)
        if wait is not None:
            raise Throttled(wait)
        row = super().__call__(request)
        if row is None:
            wait = throttle.hit("failed", address, settings.API_FAILED_AUTH_THROTTLE_RATE)
            if wait is not None:
                raise Throttled(wait)
            return None
        wait = throttle.hit("token", str(row.pk), settings.API_THROTTLE_RATE)
        if wait is not None:
            raise Throttled(wait)
        if request.method not in READ_METHODS and not row.writes:
            raise HttpError(403, _("This token may only read: make a read-and-write token."))
        return row

    def authenticate(self, request, token: str):
        if not token or len(token) > 200:
            return None
        row = (
            ApiToken.objects.select_related("user", "team")
            .filter(
                digest=token_digest(token),
                revoked__isnull=True,
                user__is_active=True,
                # The user is still a member of the token's team.
                team__memberships__user=F("user"),
            )
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


def reach(request, scope: str, value, role: str):
    """The object named by `value` in the token's team, and the user's membership there.

    Another team's object, or none, is a 404 (never a 403 that confirms it exists), and so is
    an object of another team of the same user; a member whose role is too low gets a 403 that
    names the role needed.
    """
    try:
        obj, membership = lookup(request.user, scope, value)
    except Http404:
        raise HttpError(404, _("Not found.")) from None
    if membership.team.pk != request.api_token.team_id:
        raise HttpError(404, _("Not found."))
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
