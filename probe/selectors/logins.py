"""Whether a password login may be checked now: the lockout's counters, read.

Three counters of wrong passwords within LOGIN_FAILURE_WINDOW, none of them cleared by anyone
else's success:

- per (username, address): LOGIN_FAILURE_LIMIT wrong passwords pause that username from that
  address. This is the one an attacker guessing one account from one place meets first;
- per address, whatever the usernames: LOGIN_ADDRESS_FAILURE_LIMIT pause that address (someone
  trying many accounts from one place);
- per username, from every address: only after LOGIN_USERNAME_FAILURE_LIMIT wrong passwords
  from at least LOGIN_USERNAME_ADDRESSES different addresses is the username paused everywhere.

A pause lasts LOGIN_DELAY_SECONDS after the counter's last wrong password, doubled for each
further one, up to LOGIN_MAX_DELAY_MINUTES. A refused attempt checks no password and counts
nothing, so hammering during a pause neither extends it nor gains a guess. The address and
username pauses never apply where that username has logged in before (a *known* address,
LOGIN_KNOWN_ADDRESS_DAYS): an attacker elsewhere cannot keep a member out of their own desk,
and a colleague on the same office address cannot either.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Max, Min, Q
from django.utils import timezone

from ..models import LoginAttempt

PAIR, ADDRESS, USERNAME = "pair", "address", "username"


def login_key(username: str) -> str:
    """How a typed username is counted: case-folded, cut to the longest username there is."""
    return (username or "").casefold()[:150]


@dataclass(frozen=True)
class LoginPause:
    """Why and until when a login is refused without checking its password."""

    scope: str  # PAIR, ADDRESS or USERNAME
    until: datetime
    failures: int

    def seconds_left(self, now: datetime | None = None) -> float:
        return max(0.0, (self.until - (now or timezone.now())).total_seconds())


def pause_delay(failures: int, limit: int) -> timedelta:
    """The pause after the `failures`-th wrong password of a counter whose limit is `limit`."""
    base = settings.LOGIN_DELAY_SECONDS
    longest = settings.LOGIN_MAX_DELAY_MINUTES * 60
    doublings = min(failures - limit, 40)  # 2**40 seconds is far past any ceiling
    return timedelta(seconds=min(base * 2**doublings, longest))


def _pause(scope: str, failures: int, last, limit: int, now) -> LoginPause | None:
    if failures < limit or last is None:
        return None
    until = last + pause_delay(failures, limit)
    return LoginPause(scope, until, failures) if until > now else None


def _username_limit(failures) -> int:
    """Where a username's everywhere-pause starts: at its limit, or at the failure that brought
    the last of the addresses it needs, if that came later (its first pause is then the
    shortest, and grows from there)."""
    firsts = sorted(
        failures.values("ip_address").annotate(first=Min("created")).values_list("first", flat=True)
    )
    threshold = firsts[settings.LOGIN_USERNAME_ADDRESSES - 1]
    reached = failures.filter(created__lte=threshold).count()
    return max(settings.LOGIN_USERNAME_FAILURE_LIMIT, reached)


def known_address(*, username: str, ip_address: str, now: datetime | None = None) -> bool:
    """Whether this username logged in from this address lately."""
    since = (now or timezone.now()) - timedelta(days=settings.LOGIN_KNOWN_ADDRESS_DAYS)
    return LoginAttempt.objects.filter(
        username=login_key(username),
        ip_address=ip_address,
        kind=LoginAttempt.Kind.SUCCEEDED,
        created__gte=since,
    ).exists()


def login_pause(
    *, username: str, ip_address: str, before_pk: int | None = None, now: datetime | None = None
) -> LoginPause | None:
    """The longest pause that applies to a login as `username` from `ip_address`, or None.

    ``before_pk``: count only the failures recorded before that one (a login in progress
    records its own failure first, then asks whether those before it already paused it, so
    that concurrent guesses cannot all slip in under the limit). Three queries.
    """
    now = now or timezone.now()
    name = login_key(username)
    failures = LoginAttempt.objects.filter(
        kind=LoginAttempt.Kind.FAILED,
        created__gte=now - timedelta(hours=settings.LOGIN_FAILURE_WINDOW_HOURS),
    )
    if before_pk is not None:
        failures = failures.filter(pk__lt=before_pk)
    by_name = failures.filter(username=name).aggregate(
        n=Count("pk"),
        addresses=Count("ip_address", distinct=True),
        last=Max("created"),
        pair_n=Count("pk", filter=Q(ip_address=ip_address)),
        pair_last=Max("created", filter=Q(ip_address=ip_address)),
    )
    pauses = [
        _pause(PAIR, by_name["pair_n"], by_name["pair_last"], settings.LOGIN_FAILURE_LIMIT, now)
    ]
    if not known_address(username=name, ip_address=ip_address, now=now):
        by_address = failures.filter(ip_address=ip_address).aggregate(
            n=Count("pk"), last=Max("created")
        )
        limit = settings.LOGIN_ADDRESS_FAILURE_LIMIT
        pauses.append(_pause(ADDRESS, by_address["n"], by_address["last"], limit, now))
        if by_name["addresses"] >= settings.LOGIN_USERNAME_ADDRESSES:
            limit = _username_limit(failures.filter(username=name))
            pauses.append(_pause(USERNAME, by_name["n"], by_name["last"], limit, now))
    found = [pause for pause in pauses if pause is not None]
    return max(found, key=lambda pause: pause.until) if found else None


def notice_sent_lately(*, username: str, now: datetime | None = None) -> bool:
    """Whether this account was already told of a pause within the failure window."""
    since = (now or timezone.now()) - timedelta(hours=settings.LOGIN_FAILURE_WINDOW_HOURS)
    return LoginAttempt.objects.filter(
        username=login_key(username), kind=LoginAttempt.Kind.NOTIFIED, created__gte=since
    ).exists()


def failure_summary(*, username: str, now: datetime | None = None) -> dict:
    """How many wrong passwords this username had within the window, from how many addresses."""
    since = (now or timezone.now()) - timedelta(hours=settings.LOGIN_FAILURE_WINDOW_HOURS)
    return LoginAttempt.objects.filter(
        username=login_key(username), kind=LoginAttempt.Kind.FAILED, created__gte=since
    ).aggregate(failures=Count("pk"), addresses=Count("ip_address", distinct=True))
