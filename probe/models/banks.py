"""Item banks: blocks, items, their key entries, and the history of items and keys."""

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from .teams import Team


class Bank(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="banks")
    name = models.CharField(_("name"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    # The language of the headings the bank's text file was written with (Block / ブロック,
    # Answer key / 解答鍵), so that a text export writes them back the same way.
    text_language = models.CharField(
        _("language of the text headings"),
        max_length=8,
        choices=[("en", _("English")), ("ja", _("Japanese"))],
        default="en",
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = _("bank")
        verbose_name_plural = _("banks")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("probe:bank_detail", kwargs={"bank_pk": self.pk})


class Block(models.Model):
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="blocks")
    code = models.CharField(
        _("code"), max_length=4, help_text=_("A short code letter, such as A or B.")
    )
    title = models.CharField(_("title"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    order = models.PositiveIntegerField(_("order"), default=0)

    class Meta:
        ordering = ["order", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["bank", "code"], name="block_unique_code_in_bank")
        ]
        verbose_name = _("block")
        verbose_name_plural = _("blocks")

    def __str__(self) -> str:
        return f"{self.code}. {self.title}"


class AnswerKind(models.TextChoices):
    DATE = "date", _("date")
    NAME = "name", _("name")
    NUMBER = "number", _("number")
    IDENTIFIER = "identifier", _("identifier")
    SHORT_PHRASE = "short_phrase", _("short phrase")
    FREE_TEXT = "free_text", _("free text")


class Item(models.Model):
    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="items")
    question = models.TextField(_("question"))
    answer_format = models.CharField(
        _("expected answer format"),
        max_length=200,
        blank=True,
        help_text=_("Optional, for example 'a status code' or 'one word'."),
    )
    retired = models.BooleanField(_("retired"), default=False)
    topic = models.CharField(
        _("topic"),
        max_length=200,
        blank=True,
        help_text=_("Optional: a finer subject than the block's, for the report's slices."),
    )
    ref = models.CharField(
        _("id in the source file"),
        max_length=100,
        blank=True,
        help_text=_("The item's id in the CSV or JSON Lines file it came from; kept on export."),
    )
    answer_kind = models.CharField(
        _("kind of answer"),
        max_length=20,
        choices=AnswerKind.choices,
        blank=True,
        help_text=_(
            "Date, name, number, identifier, short phrase or free text: for the report's slices."
        ),
    )
    # Changes when the question or the key answer changes; the old ones are kept as ItemVersion
    # rows, and an experiment's snapshot records the version it took.
    version = models.PositiveIntegerField(_("version"), default=1)
    retired_reason = models.TextField(_("why retired"), blank=True)
    order = models.PositiveIntegerField(_("order"), default=0)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["block__order", "block_id", "order", "pk"]
        # A bank page numbers and moves items within their block by this order.
        indexes = [models.Index(fields=["block", "order"], name="item_block_order")]
        verbose_name = _("item")
        verbose_name_plural = _("items")

    def __str__(self) -> str:
        return self.question[:80]

    @property
    def key_entry_or_none(self) -> "KeyEntry | None":
        try:
            return self.key_entry
        except KeyEntry.DoesNotExist:
            return None


class KeyEntry(models.Model):
    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="key_entry")
    answer = models.TextField(_("answer"))
    flagged = models.BooleanField(
        _("flagged (!)"),
        default=False,
        help_text=_("Check against a primary source before marking a model wrong."),
    )
    flag_note = models.TextField(_("flag note"), blank=True)
    sources = models.JSONField(_("source references"), default=list, blank=True)
    sources_checked = models.DateField(
        _("sources checked on"),
        null=True,
        blank=True,
        help_text=_("The day someone last checked the answer against its sources."),
    )
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("key entry")
        verbose_name_plural = _("key entries")

    def __str__(self) -> str:
        return self.answer[:80]


class ItemVersion(models.Model):
    """An item as it was before its question or key answer changed (its version then)."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    question = models.TextField()
    answer_format = models.CharField(max_length=200, blank=True)
    key_answer = models.TextField(blank=True)  # "" when the item had no key entry
    created = models.DateTimeField(auto_now_add=True)  # when it stopped being the current one
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["item", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["item", "version"], name="itemversion_unique_version")
        ]

    def __str__(self) -> str:
        return f"v{self.version}: {self.question[:60]}"


class KeyEntryRevision(models.Model):
    """A bank key entry as it was before a change, with who changed it, when, why and the source."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="key_revisions")
    answer = models.TextField(blank=True)  # "" when the item had no key entry before
    flagged = models.BooleanField(default=False)
    flag_note = models.TextField(blank=True)
    sources = models.JSONField(default=list, blank=True)
    new_answer = models.TextField(blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(auto_now_add=True)
    reason = models.TextField(blank=True)
    source = models.TextField(blank=True)  # the primary source checked, when the review did it

    class Meta:
        ordering = ["item", "-changed_at", "-pk"]

    def __str__(self) -> str:
        return f"key of item {self.item_id} changed {self.changed_at:%Y-%m-%d}"
