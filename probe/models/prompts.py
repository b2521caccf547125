"""Prompt versions: the instruction text put before the items."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .teams import Team


class PromptVersion(models.Model):
    """The exact instruction text put before the items. Never edited: a change is a new version."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="prompt_versions")
    name = models.CharField(_("name"), max_length=120)
    version = models.PositiveIntegerField(_("version"), default=1)
    language = models.CharField(_("language"), max_length=10, default="en")
    text = models.TextField(_("instruction text"))
    content_hash = models.CharField(_("content hash"), max_length=64, editable=False)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )
    note = models.CharField(_("what changed"), max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "name", "version"], name="prompt_unique_name_version"
            )
        ]
        verbose_name = _("prompt version")
        verbose_name_plural = _("prompt versions")

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"

    @property
    def short_hash(self) -> str:
        return self.content_hash[:12]
