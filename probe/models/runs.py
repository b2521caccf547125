"""Runs of an experiment on one model configuration, their attempts and parsed responses."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .configs import ModelConfig
from .experiments import Experiment, ExperimentItem


class Run(models.Model):
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
    error_message = models.TextField(blank=True)
    error_request_id = models.CharField(max_length=200, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    compliance = models.FloatField(null=True, blank=True)  # share of items parsed without issue
    # Collection bookkeeping. A worker collecting the run holds its lease (a token and an
    # expiry it renews); the periodic sweep queues the run again when nobody holds it.
    lease_token = models.CharField(max_length=32, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)  # last task sent for the run
    progress_at = models.DateTimeField(null=True, blank=True)  # last attempt or response stored
    # What the worker holding the lease is doing (requests in flight, waits, the last error),
    # written with each renewal so the page can say why a run does not move.
    activity = models.JSONField(default=dict, blank=True)
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


class Attempt(models.Model):
    """One HTTP attempt (or one pasted reply) for a run: every one is kept, with its raw body."""

    class Outcome(models.TextChoices):
        COMPLETE = "complete", _("complete")
        TRUNCATED = "truncated", _("truncated")
        REFUSED = "refused", _("refused")
        RETRYABLE = "retryable", _("error, retried")
        FATAL = "fatal", _("error, fatal")

    SUCCESS = (Outcome.COMPLETE, Outcome.TRUNCATED, Outcome.REFUSED)

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="attempts")
    # None in sheet mode (one request for all items); the item in per-item mode.
    item = models.ForeignKey(
        ExperimentItem, null=True, blank=True, on_delete=models.CASCADE, related_name="attempts"
    )
    number = models.PositiveSmallIntegerField(default=1)
    created = models.DateTimeField(auto_now_add=True)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    request_id = models.CharField(max_length=200, blank=True)
    finish_reason = models.CharField(max_length=60, blank=True)
    input_tokens = models.PositiveIntegerField(null=True, blank=True)
    output_tokens = models.PositiveIntegerField(null=True, blank=True)
    reasoning_tokens = models.PositiveIntegerField(null=True, blank=True)
    error_kind = models.CharField(max_length=60, blank=True)
    error_message = models.TextField(blank=True)
    retry_after = models.FloatField(null=True, blank=True)
    text = models.TextField(blank=True)  # the answer text extracted from the body
    raw_body = models.TextField(blank=True)  # exactly what the provider sent back
    # The request as sent (method, URL, headers, JSON body), never with the key: adapters.wire.
    request_sent = models.JSONField(null=True, blank=True)
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
