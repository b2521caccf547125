"""A member's notifications: the small inbox, and the mail sent where a server is configured."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Notification(models.Model):
    """One thing waiting for a user, stored as its kind and the experiment's name (the text is
    written in the reader's language when shown or mailed). Never anything a scorer must not
    see before their reveal: no sheet code, no model or configuration name, no answer text."""

    class Kind(models.TextChoices):
        TO_SCORE = "to_score", _("items to score")
        RECHECK = "recheck", _("a key entry you scored was amended")
        RECONCILE = "reconcile", _("reconciliation waits for a lead")
        COLLECTED = "collected", _("an experiment finished collecting")
        MENTIONED = "mentioned", _("someone mentioned you in a comment")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=12, choices=Kind.choices)
    # The experiment's name; for a mention, the name of the place (an experiment or a bank).
    experiment_name = models.CharField(max_length=200)
    # For a mention: who mentioned the user (their name, never the comment's text).
    actor_name = models.CharField(max_length=150, blank=True, default="")
    url = models.CharField(max_length=300)
    # One notification per user and event: sending it again changes nothing.
    key = models.CharField(max_length=120)
    created = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="notification_unique_event")
        ]
        indexes = [models.Index(fields=["user", "read_at"])]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.kind} {self.experiment_name}"
