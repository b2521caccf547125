"""Abstract bases that probe's models share with grading's: a versioned instruction text, a
provider call's record and leased work. Each field is declared once here, with the definition both tables already have, so
inheriting changes no table."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class VersionedText(models.Model):
    """An instruction text kept as versions (a prompt version, a grading prompt version): never
    edited, a change is the next version of the same name with the edited one as its parent,
    hashed, and noted with what changed. The team is the subclass's own."""

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
        abstract = True

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"

    @property
    def short_hash(self) -> str:
        return self.content_hash[:12]


class ProviderCall(models.Model):
    """One request to a provider, kept whatever came back: the outcome, the HTTP status, the
    latency, the token counts, the request id, the error, the extracted text, the raw body
    exactly as received and the request as sent (never with the key: adapters.wire). A run's
    attempt (``Attempt``) and a model grader's (``grading.GradeAttempt``) are such records."""

    class Outcome(models.TextChoices):
        COMPLETE = "complete", _("complete")
        TRUNCATED = "truncated", _("truncated")
        REFUSED = "refused", _("refused")
        RETRYABLE = "retryable", _("error, retried")
        FATAL = "fatal", _("error, fatal")

    SUCCESS = (Outcome.COMPLETE, Outcome.TRUNCATED, Outcome.REFUSED)

    number = models.PositiveSmallIntegerField(default=1)
    created = models.DateTimeField(auto_now_add=True)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    request_id = models.CharField(max_length=200, blank=True)
    finish_reason = models.CharField(max_length=60, blank=True)
    input_tokens = models.PositiveIntegerField(null=True, blank=True)
    output_tokens = models.PositiveIntegerField(null=True, blank=True)
    error_kind = models.CharField(max_length=60, blank=True)
    error_message = models.TextField(blank=True)
    text = models.TextField(blank=True)  # the answer text extracted from the body
    raw_body = models.TextField(blank=True)  # exactly what the provider sent back
    # The request as sent (method, URL, headers, JSON body), never with the key: adapters.wire.
    request_sent = models.JSONField(null=True, blank=True)

    class Meta:
        abstract = True


class LeasedWork(models.Model):
    """Work that one worker at a time does under a lease, in slices, and that the sweep queues
    again when nobody holds it (a run's collection, a grading job): its lease (a token and an
    expiry it renews, probe.services.collection.lease.Leases), when its last task was sent,
    when it last stored something, what the worker holding it is doing, when it started and
    finished, and the error that ended it."""

    error_message = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_token = models.CharField(max_length=32, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)  # last task sent
    progress_at = models.DateTimeField(null=True, blank=True)  # last attempt or result stored
    # What the worker holding the lease is doing (requests in flight, waits, the last error),
    # written with each renewal so the page can say why the work does not move.
    activity = models.JSONField(default=dict, blank=True)

    class Meta:
        abstract = True
