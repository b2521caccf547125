"""Prompt versions: the instruction text put before the items."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from .bases import VersionedText
from .teams import Team


class PromptVersion(VersionedText):
    """The exact instruction text put before the items. Never edited: a change is a new version
    (the fields of every versioned text: VersionedText)."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="prompt_versions")

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "name", "version"], name="prompt_unique_name_version"
            )
        ]
        verbose_name = _("prompt version")
        verbose_name_plural = _("prompt versions")
