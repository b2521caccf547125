"""API tokens: one per script or CI job, created and revoked by the user on their tokens page.

Only a SHA-256 digest of the token is stored; the token itself is shown once, when it is made.
A token is scoped when it is made to one team of its user, and to reading or to reading and
writing: it acts as its user in that team only, with their role there and never more than its
access allows. It stops working for good when its user leaves that team or is deactivated.
"""

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

PREFIX = "bp_"


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class ApiToken(models.Model):
    class Access(models.TextChoices):
        READ = "read", _("read")
        WRITE = "write", _("read and write")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    # Null only for a token made before tokens had a team, revoked when the team was added
    # (its user was in several teams or none, so no team could be chosen for it).
    team = models.ForeignKey(
        "probe.Team",
        on_delete=models.CASCADE,
        related_name="api_tokens",
        null=True,
        verbose_name=_("team"),
    )
    access = models.CharField(
        _("access"), max_length=5, choices=Access.choices, default=Access.READ
    )
    name = models.CharField(_("name"), max_length=100)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    # The first characters, so the user can tell tokens apart; not enough to use one.
    hint = models.CharField(max_length=12, editable=False)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @property
    def active(self) -> bool:
        return self.revoked is None

    @property
    def writes(self) -> bool:
        return self.access == self.Access.WRITE

    @classmethod
    def issue(cls, *, user, team, access: str, name: str) -> tuple["ApiToken", str]:
        """A new token for `user` in `team`: the row, and the token text (shown once, never
        stored). The caller has checked that the user is a member of the team."""
        text = PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user,
            team=team,
            access=access,
            name=name.strip()[:100],
            digest=token_digest(text),
            hint=text[:10],
        )
        return token, text

    def revoke(self) -> None:
        if self.revoked is None:
            self.revoked = timezone.now()
            self.save(update_fields=["revoked"])
