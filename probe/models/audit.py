"""The audit log of a team."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .banks import Bank
from .teams import Team


class AuditEvent(models.Model):
    class Action(models.TextChoices):
        CREATE = "create", _("created")
        UPDATE = "update", _("changed")
        DELETE = "delete", _("deleted")
        MOVE = "move", _("moved")
        RETIRE = "retire", _("retired")
        RESTORE = "restore", _("restored")
        IMPORT = "import", _("imported")
        EXPORT = "export", _("exported")
        KEY_VIEW = "key_view", _("viewed the key")
        MEMBER = "member", _("changed membership")
        LOGIN_LOCKED = "login_locked", _("login locked")

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="audit_events")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Kept as text so the record outlives the bank it describes.
    bank_name = models.CharField(max_length=200, blank=True)
    bank = models.ForeignKey(
        Bank, null=True, blank=True, on_delete=models.SET_NULL, related_name="audit_events"
    )
    action = models.CharField(max_length=20, choices=Action.choices)
    subject = models.CharField(max_length=40)
    summary = models.TextField(blank=True)
    details = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["team", "-created"], name="audit_team_created")]
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")

    def __str__(self) -> str:
        return f"{self.created:%Y-%m-%d %H:%M} {self.user} {self.action} {self.subject}"

    @property
    def subject_label(self) -> str:
        """What the entry is about, in the reader's language (``subject`` is a stored code)."""
        label = SUBJECT_LABELS.get(self.subject)
        return str(label) if label is not None else self.subject


# The codes services write in ``AuditEvent.subject``, as the audit log shows them.
SUBJECT_LABELS = {
    "bank": pgettext_lazy("audit subject", "bank"),
    "block": pgettext_lazy("audit subject", "block"),
    "experiment": pgettext_lazy("audit subject", "experiment"),
    "invitation": pgettext_lazy("audit subject", "invitation"),
    "item": pgettext_lazy("audit subject", "item"),
    "key entry": pgettext_lazy("audit subject", "key entry"),
    "login": pgettext_lazy("audit subject", "login"),
    "member": pgettext_lazy("audit subject", "member"),
    "password reset": pgettext_lazy("audit subject", "password reset"),
    "run": pgettext_lazy("audit subject", "run"),
    "team": pgettext_lazy("audit subject", "team"),
    "model configuration": pgettext_lazy("audit subject", "model configuration"),
    "prompt version": pgettext_lazy("audit subject", "prompt version"),
}
