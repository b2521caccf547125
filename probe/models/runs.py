"""Runs of an experiment on one model configuration, their attempts and parsed responses."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .bases import LeasedWork, ProviderCall
from .configs import ModelConfig
from .experiments import Experiment, ExperimentItem


class Run(LeasedWork):
    """One administration of the experiment's items to one model configuration (one repeat)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting")
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Collecting")
        COLLECTED = "collected", _("Collected")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")
        CLOSED = "closed", _("Closed as failed")

    FINISHED = (Status.COLLECTED, Status.CLOSED)

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="runs")
    model_config = models.ForeignKey(ModelConfig, on_delete=models.PROTECT, related_name="runs")
    repeat = models.PositiveSmallIntegerField(default=1)
    order = models.PositiveIntegerField(default=0)  # place in the randomised run order
    config_snapshot = models.JSONField(default=dict)  # the configuration's settings at creation
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    error_request_id = models.CharField(max_length=200, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    compliance = models.FloatField(null=True, blank=True)  # share of items parsed without issue
    # Collection bookkeeping (LeasedWork): a worker collecting the run holds its lease (a token
    # and an expiry it renews); the periodic sweep queues the run again when nobody holds it.
    # A run of an earlier experiment included in a follow-up as it was (copied, not collected).
    included_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["experiment", "order", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["experiment", "model_config", "repeat"], name="run_unique_config_repeat"
            )
        ]

    def __str__(self) -> str:
        return f"{self.config_snapshot.get('label', self.model_config_id)} #{self.repeat}"

    @property
    def label(self) -> str:
        return self.config_snapshot.get("label") or str(self.model_config)

    @property
    def is_manual(self) -> bool:
        return self.config_snapshot.get("provider") == "manual"


class Attempt(ProviderCall):
    """One HTTP attempt (or one pasted reply) for a run: every one is kept, with its raw body
    (the fields every provider call records: ProviderCall)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="attempts")
    # None in sheet mode (one request for all items); the item in per-item mode.
    item = models.ForeignKey(
        ExperimentItem, null=True, blank=True, on_delete=models.CASCADE, related_name="attempts"
    )
    reasoning_tokens = models.PositiveIntegerField(null=True, blank=True)
    retry_after = models.FloatField(null=True, blank=True)
    pasted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The attempt this one is a copy of (a run included in a follow-up as it was): the copy of
    # a response finds its attempt's copy by it.
    copied_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["run", "item", "number", "pk"]
        indexes = [models.Index(fields=["run", "item", "outcome"], name="attempt_run_item_outcome")]

    def __str__(self) -> str:
        return f"attempt {self.number} of run {self.run_id}: {self.outcome}"


class Response(models.Model):
    """One run's answer to one item: parsed from an attempt's text, which stays as it was."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="responses")
    item = models.ForeignKey(ExperimentItem, on_delete=models.CASCADE, related_name="responses")
    attempt = models.ForeignKey(Attempt, on_delete=models.PROTECT, related_name="responses")
    # None (not ""): the item is missing from the sheet, which is not the same as an empty answer.
    answer = models.TextField(null=True, blank=True)  # noqa: DJ001
    confidence = models.CharField(max_length=6, blank=True)  # HIGH | MEDIUM | LOW | ""
    abstained = models.BooleanField(default=False)
    hedged = models.BooleanField(default=False)
    issues = models.JSONField(default=list, blank=True)
    parser_version = models.PositiveSmallIntegerField(default=1)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "item__position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "item"], name="response_unique_run_item")
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} item {self.item_id}: {self.answer!r}"
