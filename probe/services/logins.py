"""The login lockout's writes: each password check recorded, a success remembered for its
address, the account told once when its logins are paused, and a password reset lifting it.

The rules are in probe/selectors/logins.py; probe/backends.py calls these around every password
check (the login page and the admin's alike).
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import connection, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..models import LoginAttempt
from ..selectors.logins import (
    ADDRESS,
    LoginPause,
    failure_summary,
    login_key,
    login_pause,
    notice_sent_lately,
)
from ..selectors.preferences import user_language
from .teams import login_lockout_record

logger = logging.getLogger(__name__)


# Advisory lock classes (PostgreSQL): one lock per username, one per address.
USERNAME_LOCK, ADDRESS_LOCK = 7301, 7302


def login_attempt_begin(*, username: str, ip_address: str) -> LoginAttempt:
    """Record an attempt as failed before its password is checked: concurrent guesses then each
    see the ones before them (login_pause(before_pk=...)), and a crash mid-check still counts.

    The record is made and committed while its username and its address are locked, so that
    the records of one username (or one address) are committed in the order of their keys: a
    guess never counts the ones before it while one of them is still uncommitted, which let a
    sixth guess in under a limit of five when twenty came at once. On SQLite the write
    transaction itself does this (its writes are one at a time)."""
    now = timezone.now()
    key = login_key(username)
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:  # always the username first: no lock cycle
                cursor.execute(
                    "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [USERNAME_LOCK, key]
                )
                cursor.execute(
                    "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [ADDRESS_LOCK, ip_address]
                )
        # Forgotten failures go as new ones come: one indexed delete, no periodic task needed.
        LoginAttempt.objects.filter(
            kind=LoginAttempt.Kind.FAILED,
            created__lt=now - timedelta(hours=settings.LOGIN_FAILURE_WINDOW_HOURS),
        ).delete()
        return LoginAttempt.objects.create(
            username=key, ip_address=ip_address, kind=LoginAttempt.Kind.FAILED
        )


def login_attempt_withdraw(*, attempt: LoginAttempt) -> None:
    """An attempt refused before its password was checked counts for nothing."""
    LoginAttempt.objects.filter(pk=attempt.pk).delete()


def login_attempt_succeeded(*, attempt: LoginAttempt) -> None:
    """The right password: this (username, address) pair starts again from nothing and the
    address becomes known for the username. Nobody else's counters change."""
    LoginAttempt.objects.filter(
        username=attempt.username, ip_address=attempt.ip_address, kind=LoginAttempt.Kind.FAILED
    ).delete()
    LoginAttempt.objects.update_or_create(
        username=attempt.username,
        ip_address=attempt.ip_address,
        kind=LoginAttempt.Kind.SUCCEEDED,
        defaults={"created": timezone.now()},
    )


def login_attempt_failed(*, attempt: LoginAttempt, site_url: str) -> LoginPause | None:
    """A wrong password. If it paused logins for an account that exists, the account is told,
    once per failure window: in its teams' audit logs and, where mail is set up, by e-mail."""
    pause = login_pause(username=attempt.username, ip_address=attempt.ip_address)
    if pause is None or pause.scope == ADDRESS:
        return pause
    logger.warning(
        "Logins as %r paused (%s, %d failures) from %s",
        attempt.username,
        pause.scope,
        pause.failures,
        attempt.ip_address,
    )
    if notice_sent_lately(username=attempt.username):
        return pause
    user = get_user_model().objects.filter(username__iexact=attempt.username).first()
    if user is None:
        return pause
    LoginAttempt.objects.create(
        username=attempt.username, ip_address=attempt.ip_address, kind=LoginAttempt.Kind.NOTIFIED
    )
    login_lockout_record(username=user.get_username(), ip_address=attempt.ip_address)
    if settings.EMAIL_ENABLED and user.email:
        _send_pause_mail(user=user, pause=pause, ip_address=attempt.ip_address, site_url=site_url)
    return pause


def _send_pause_mail(*, user, pause: LoginPause, ip_address: str, site_url: str) -> None:
    counts = failure_summary(username=user.get_username())
    with translation.override(user_language(user=user) or settings.LANGUAGE_CODE):
        subject = _("Logins to your %(product)s account were paused") % {
            "product": _("Blind probe")
        }
        body = ngettext(
            "Someone entered a wrong password for your account %(name)s %(failures)d times in "
            "the last %(hours)d hours, from %(addresses)d address, most recently from "
            "%(ip)s.\n\n"
            "Logins as %(name)s from there are paused for now; the pause grows with every "
            "further wrong password. Where you have logged in before, you can still log in.\n\n"
            "If this was not you, your password is still safe as long as nobody knows it. To "
            "end the pause at once, set a new password with a reset link:\n%(reset_url)s\n",
            "Someone entered a wrong password for your account %(name)s %(failures)d times in "
            "the last %(hours)d hours, from %(addresses)d addresses, most recently from "
            "%(ip)s.\n\n"
            "Logins as %(name)s from there are paused for now; the pause grows with every "
            "further wrong password. Where you have logged in before, you can still log in.\n\n"
            "If this was not you, your password is still safe as long as nobody knows it. To "
            "end the pause at once, set a new password with a reset link:\n%(reset_url)s\n",
            counts["addresses"],
        ) % {
            "name": user.get_username(),
            "failures": counts["failures"],
            "hours": settings.LOGIN_FAILURE_WINDOW_HOURS,
            "addresses": counts["addresses"],
            "ip": ip_address or "?",
            "reset_url": site_url + "/accounts/password/reset/",
        }
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [user.email])
    except OSError:
        # The audit log still has it; a mail server being down must not break the login page.
        logger.exception("Could not send the login-pause mail to user %s", user.pk)


def login_lock_lift(*, username: str) -> int:
    """Forget every wrong password for this username, from every address (a new password set
    through a reset link: whoever holds the link owns the account). Returns how many."""
    deleted, _counts = LoginAttempt.objects.filter(
        username=login_key(username), kind=LoginAttempt.Kind.FAILED
    ).delete()
    return deleted
