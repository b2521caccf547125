"""Known devices: a browser a user has logged in from keeps a signed cookie naming them, and
with it the lockout's address and everywhere pauses do not apply to that user there.

Without it, whoever shares the victim's address (an office's one outgoing address, a home
router) could keep them paused there, one wrong guess per pause, and a spread of addresses
could keep them out of any new network. The cookie is the user's own proof of a past success,
which no attacker holds; guesses made with it are still counted, per device, and paused after
LOGIN_FAILURE_LIMIT as a pair would be. (This is the "device cookie" defence of OWASP's
guidance on slowing online guessing.)
"""

import secrets
from datetime import timedelta

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.utils import timezone

from .selectors.logins import LoginPause, login_key, pause_delay

COOKIE = "probe_device"
SALT = "probe.login-device"
DEVICE = "device"


def device_token(username: str) -> str:
    """A new signed device token for a user who has just logged in."""
    return signing.dumps({"u": login_key(username), "n": secrets.token_urlsafe(12)}, salt=SALT)


def known_device(request, username: str) -> str | None:
    """The device's id when the request carries a valid token for this username, else None."""
    raw = request.COOKIES.get(COOKIE, "")
    if not raw:
        return None
    max_age = timedelta(days=settings.LOGIN_KNOWN_ADDRESS_DAYS)
    try:
        data = signing.loads(raw, salt=SALT, max_age=max_age)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or data.get("u") != login_key(username):
        return None
    return str(data.get("n", "")) or None


def _key(device: str) -> str:
    return f"login-device:{device}"


def device_pause(device: str) -> LoginPause | None:
    failures, last = cache.get(_key(device), (0, None))
    limit = settings.LOGIN_FAILURE_LIMIT
    if failures < limit or last is None:
        return None
    until = last + pause_delay(failures, limit)
    return LoginPause(DEVICE, until, failures) if until > timezone.now() else None


def device_failed(device: str) -> LoginPause | None:
    failures, _last = cache.get(_key(device), (0, None))
    window = settings.LOGIN_FAILURE_WINDOW_HOURS * 3600
    cache.set(_key(device), (failures + 1, timezone.now()), timeout=window)
    return device_pause(device)


def device_succeeded(device: str) -> None:
    cache.delete(_key(device))


def set_device_cookie(request, response, username: str) -> None:
    response.set_cookie(
        COOKIE,
        device_token(username),
        max_age=settings.LOGIN_KNOWN_ADDRESS_DAYS * 86400,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
        path="/accounts/",
    )
