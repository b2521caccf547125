"""API tokens: one per script or CI job, created and revoked by the user on their tokens page.

Only a SHA-256 digest of the token is stored; the token itself is shown once, when it is made.
A token acts as its user, with the user's memberships and roles, nothing more.
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
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
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

    @classmethod
    def issue(cls, *, user, name: str) -> tuple["ApiToken", str]:
        """A new token for `user`: the row, and the token text (shown once, never stored)."""
        text = PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user, name=name.strip()[:100], digest=token_digest(text), hint=text[:10]
        )
        return token, text

    def revoke(self) -> None:
        if self.revoked is None:
            self.revoked = timezone.now()
            self.save(update_fields=["revoked"])
