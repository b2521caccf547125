"""Password logins as the lockout counts them (probe/selectors/logins.py reads them)."""

from django.db import models
from django.utils import timezone


class LoginAttempt(models.Model):
    """One password check, kept for the login lockout.

    A failure is a row per wrong password, forgotten after LOGIN_FAILURE_WINDOW; a success is one
    row per (username, address), its time moved on at each login, which makes that address
    *known* for that username; a notice is the e-mail (and audit entry) telling an account that
    its logins were paused, at most one per window. Usernames are kept case-folded, so "Alice"
    and "alice" are one counter; an address is the client's (probe.middleware.client_ip).
    """

    class Kind(models.TextChoices):
        FAILED = "failed", "failed"
        SUCCEEDED = "succeeded", "succeeded"
        NOTIFIED = "notified", "notified"

    username = models.CharField(max_length=150)
    ip_address = models.CharField(max_length=45)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.FAILED)
    created = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        indexes = [
            models.Index(fields=["username", "kind", "created"], name="login_username_kind"),
            models.Index(fields=["ip_address", "kind", "created"], name="login_address_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.username} from {self.ip_address}"
