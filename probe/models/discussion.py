"""Discussion of a key entry: the team's comments beside its disputes (see docs/discussion.md)."""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .banks import Item
from .experiments import Experiment

# An author may edit their comment for this long after writing it; deleting leaves a mark.
EDIT_WINDOW = timedelta(minutes=15)


class CommentBase(models.Model):
    """What every comment has: its author, its text, and its edits and deletion."""

    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    text = models.TextField(_("comment"))
    created = models.DateTimeField(auto_now_add=True)
    edited_at = models.DateTimeField(null=True, blank=True)
    # A deleted comment keeps its place in the thread, saying "deleted", and loses its text.
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["created", "pk"]

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None

    def editable_by(self, user) -> bool:
        return (
            not self.deleted
            and self.author_id is not None
            and self.author_id == user.pk
            and timezone.now() - self.created <= EDIT_WINDOW
        )

    def deletable_by(self, user) -> bool:
        return not self.deleted and self.author_id is not None and self.author_id == user.pk


class KeyEntryComment(CommentBase):
    """A comment on an item's key entry (the bank's item), for the members who see the key.

    ``written_blind`` is recorded when it is written (and kept only while every edit is blind
    too): whether its author could then not tell which model wrote which sheet of any experiment
    of the bank. Only such a comment is shown to someone still scoring one of them blind."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="key_comments")
    # Where it was written (an experiment's key review), for the link of a mention; none on the
    # bank's item page.
    experiment = models.ForeignKey(
        Experiment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    written_blind = models.BooleanField(default=False)

    class Meta(CommentBase.Meta):
        verbose_name = _("key entry comment")
        verbose_name_plural = _("key entry comments")
        indexes = [models.Index(fields=["item", "created"], name="key_comment_thread")]

    def __str__(self) -> str:
        return f"comment {self.pk} on item {self.item_id}"
