"""Experiments and the snapshot of the items each one gives."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from scoring.schemes import DEFAULT_SCHEME, scheme_choices, scheme_for
from scoring.schemes import Scheme as ScoringScheme
from scoring.schemes.base import SCHEME_KEY_LENGTH

from .banks import Bank, Item
from .prompts import PromptVersion
from .teams import Team


class Experiment(models.Model):
    class Mode(models.TextChoices):
        SHEET = "sheet", _("The whole sheet in one request")
        ITEM = "item", _("One request per item")

    class Status(models.TextChoices):
        READY = "ready", _("Ready to collect")
        COLLECTING = "collecting", _("Collecting")
        COLLECTED = "collected", _("Collection complete")
        CANCELLED = "cancelled", _("Cancelled")

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="experiments")
    name = models.CharField(_("name"), max_length=200)
    bank = models.ForeignKey(
        Bank, null=True, blank=True, on_delete=models.SET_NULL, related_name="experiments"
    )
    bank_name = models.CharField(max_length=200)
    prompt_version = models.ForeignKey(
        PromptVersion,
        on_delete=models.PROTECT,
        related_name="experiments",
        verbose_name=_("prompt version"),
    )
    mode = models.CharField(_("mode"), max_length=10, choices=Mode.choices, default=Mode.SHEET)
    repeats = models.PositiveSmallIntegerField(_("repeats"), default=2)
    seed = models.BigIntegerField(_("run-order seed"))
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.READY)
    scheme = models.CharField(
        _("scoring scheme"),
        max_length=SCHEME_KEY_LENGTH,
        choices=scheme_choices,
        default=DEFAULT_SCHEME,
    )
    hide_confidence = models.BooleanField(
        _("hide confidence while judging correctness"), default=False
    )

    class ConfirmWrong(models.TextChoices):
        ALWAYS = "always", _("Every time")
        ONCE = "once", _("Once per item")
        NEVER = "never", _("Never")

    confirm_wrong = models.CharField(
        _("confirm a HIGH-confidence answer marked wrong"),
        max_length=8,
        choices=ConfirmWrong.choices,
        default=ConfirmWrong.ONCE,
    )
    noise_floor = models.FloatField(
        _("noise floor (items)"),
        null=True,
        blank=True,
        help_text=_("Gaps in net usable below this are noise. Empty: 3 items per 30."),
    )
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    collection_started = models.DateTimeField(null=True, blank=True)
    collection_finished = models.DateTimeField(null=True, blank=True)
    # The earlier experiment this one measures again ("Run again"), if any.
    follows = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="follow_ups",
        verbose_name=_("follows"),
    )

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = _("experiment")
        verbose_name_plural = _("experiments")

    def __str__(self) -> str:
        return self.name

    @property
    def scheme_obj(self) -> ScoringScheme:
        """The scoring scheme (scoring.schemes) stored as ``scheme``."""
        return scheme_for(self.scheme)

    @property
    def collection_complete(self) -> bool:
        return self.status == self.Status.COLLECTED


class ExperimentItem(models.Model):
    """The snapshot of one item and its key entry, taken when the experiment was created."""

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField()  # 1..N, the number the model sees
    block_code = models.CharField(max_length=4)
    block_title = models.CharField(max_length=200)
    question = models.TextField()
    answer_format = models.CharField(max_length=200, blank=True)
    key_answer = models.TextField(blank=True)
    key_flagged = models.BooleanField(default=False)
    key_flag_note = models.TextField(blank=True)
    key_sources = models.JSONField(default=list, blank=True)
    topic = models.CharField(max_length=200, blank=True)
    answer_kind = models.CharField(max_length=20, blank=True)
    item_version = models.PositiveIntegerField(null=True, blank=True)  # the item's, when taken
    source_item = models.ForeignKey(
        Item, null=True, blank=True, on_delete=models.SET_NULL, related_name="snapshots"
    )

    class Meta:
        ordering = ["experiment", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["experiment", "position"], name="experimentitem_unique_position"
            )
        ]

    def __str__(self) -> str:
        return f"{self.position}. {self.question[:60]}"
