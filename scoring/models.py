"""Scorers on experiments, their judgements (with every change kept), and key disputes."""

import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from probe.models import Experiment, ExperimentItem, Response
from probe.models.discussion import CommentBase

from .schemes import Bucket, bucket_choices
from .schemes.base import BUCKET_LENGTH

__all__ = [
    "Allocation",
    "Assignment",
    "Bucket",
    "CarriedBucket",
    "DecisionReceipt",
    "FinalBucket",
    "ItemAllocation",
    "Judgement",
    "JudgementChange",
    "KeyDecision",
    "KeyDispute",
    "Reconciliation",
]


def new_token() -> str:
    return secrets.token_urlsafe(18)


class Assignment(models.Model):
    """One scorer on one experiment. Addressed by an opaque token, never by ids of runs."""

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="assignments")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    token = models.CharField(max_length=40, unique=True, default=new_token, editable=False)
    created = models.DateTimeField(auto_now_add=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revealed_at = models.DateTimeField(null=True, blank=True)
    last_position = models.PositiveIntegerField(default=1)  # where to resume
    # The scorer's progress, kept as they decide so that a decision does not count all their
    # judgements again: judgements that stand, and judgements sent back for a re-check. None
    # when unknown (a key amendment, an undo): the next read counts them once.
    progress_judged = models.PositiveIntegerField(null=True, blank=True, editable=False)
    progress_rechecks = models.PositiveIntegerField(null=True, blank=True, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["experiment", "user"], name="assignment_unique_scorer")
        ]
        verbose_name = _("scorer assignment")

    def __str__(self) -> str:
        return f"{self.user} on {self.experiment}"

    @property
    def revealed(self) -> bool:
        return self.revealed_at is not None


class Judgement(models.Model):
    """One scorer's bucket for one response."""

    class Verdict(models.TextChoices):
        CORRECT = "correct", _("correct")
        WRONG = "wrong", _("wrong")
        DIRECT = "direct", _("bucket set directly")
        PRESET = "preset", _("preset: the answer was UNKNOWN")
        CARRIED = "carried", _("carried from an earlier experiment")
        # Routing (grading's): the grader decided the answer with certainty. Never a human
        # judgement: no agreement figure and no human-only figure counts it.
        GRADED = "graded", _("decided by a grader (routing)")

    # Buckets nobody judged on this page: preset, carried, decided by a grader.
    NOT_BY_PEOPLE = (Verdict.PRESET, Verdict.CARRIED, Verdict.GRADED)

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="judgements")
    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="judgements")
    bucket = models.CharField(max_length=BUCKET_LENGTH, choices=bucket_choices)
    verdict = models.CharField(max_length=8, choices=Verdict.choices)
    unblinded = models.BooleanField(default=False)  # last changed after this scorer's reveal
    needs_recheck = models.BooleanField(default=False)  # the key changed under it
    # The key decision in force when the scorer decided (null: the snapshot's key).
    key_decision = models.ForeignKey(
        "KeyDecision", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The scorer's own note: the lead sees it at reconciliation, other scorers never before.
    note = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "response"], name="judgement_unique_scorer_response"
            )
        ]
        indexes = [
            models.Index(fields=["assignment", "bucket"], name="judgement_assignment_bucket"),
            # The scorer's progress (judged, re-checks) is one count over this index.
            models.Index(fields=["assignment", "needs_recheck"], name="judgement_progress"),
        ]

    def __str__(self) -> str:
        return f"{self.assignment_id}/{self.response_id}: {self.bucket}"


class JudgementChange(models.Model):
    """Every decision, in order: the history behind undo and behind the unblinded marks."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="changes")
    judgement = models.ForeignKey(Judgement, on_delete=models.CASCADE, related_name="changes")
    batch = models.CharField(max_length=32)  # one decision over a group of identical answers
    old_bucket = models.CharField(max_length=16, blank=True)  # "" when it was undecided
    old_verdict = models.CharField(max_length=8, blank=True)
    new_bucket = models.CharField(max_length=16)
    new_verdict = models.CharField(max_length=8)
    after_reveal = models.BooleanField(default=False)
    undone = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    # When the scorer decided and when the item was put before them, by the browser's clock:
    # a decision queued offline reaches the server later than it was made. Null for decisions
    # made without the scoring page's queue (then ``created`` is when it was made).
    decided_at = models.DateTimeField(null=True, blank=True)
    shown_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["assignment", "undone", "-id"], name="change_undo_stack")]

    def __str__(self) -> str:
        return f"{self.old_bucket or '-'} -> {self.new_bucket}"


class KeyDispute(models.Model):
    """A scorer's doubt about a key entry, raised while scoring, for the key review."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        RESOLVED = "resolved", _("resolved")

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="disputes")
    item = models.ForeignKey(ExperimentItem, on_delete=models.CASCADE, related_name="disputes")
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="disputes")
    response = models.ForeignKey(
        Response, null=True, blank=True, on_delete=models.SET_NULL, related_name="disputes"
    )
    note = models.TextField(_("note"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"dispute on item {self.item_id}"


class KeyDecision(models.Model):
    """The key review's decision on one experiment item, checked against a primary source.

    The item's snapshot never changes: the key in force is the newest decision's (an amendment's
    new text, or the snapshot's when confirmed), and an item judged ambiguous is dropped from the
    figures. Every decision is kept: who, when, why, which source.
    """

    class Outcome(models.TextChoices):
        CONFIRMED = "confirmed", _("Key confirmed")
        AMENDED = "amended", _("Key amended")
        AMBIGUOUS = "ambiguous", _("Item ambiguous: dropped from the figures")

    experiment = models.ForeignKey(
        Experiment, on_delete=models.CASCADE, related_name="key_decisions"
    )
    item = models.ForeignKey(ExperimentItem, on_delete=models.CASCADE, related_name="key_decisions")
    outcome = models.CharField(_("outcome"), max_length=10, choices=Outcome.choices)
    previous_answer = models.TextField(blank=True)  # the key in force before this decision
    new_answer = models.TextField(_("new key text"), blank=True)
    source = models.TextField(_("primary source checked"), help_text=_("A citation or a URL."))
    note = models.TextField(_("note"), blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    rechecked = models.PositiveIntegerField(default=0)  # judgements sent back for a re-check
    carried_to_bank = models.BooleanField(default=False)
    bank_flag_cleared = models.BooleanField(default=False)  # carried: the bank's (!) taken off

    class Meta:
        ordering = ["item__position", "-created", "-pk"]

    def __str__(self) -> str:
        return f"{self.outcome} on item {self.item_id}"


class Reconciliation(models.Model):
    """Once begun, scorers' decisions become visible to the lead, who settles disagreements."""

    experiment = models.OneToOneField(
        Experiment, on_delete=models.CASCADE, related_name="reconciliation"
    )
    started_at = models.DateTimeField(auto_now_add=True)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    name_scorers = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"reconciliation of {self.experiment}"


class FinalBucket(models.Model):
    """The team's reconciled bucket for a response: unanimous, or set by a lead with a note."""

    response = models.OneToOneField(Response, on_delete=models.CASCADE, related_name="final")
    bucket = models.CharField(max_length=BUCKET_LENGTH, choices=bucket_choices)
    unanimous = models.BooleanField(default=False)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.response_id}: {self.bucket}"


class CarriedBucket(models.Model):
    """A bucket carried from an earlier experiment: the same item version, the same key in
    force, and the same answer and confidence, already given a final bucket there."""

    response = models.OneToOneField(Response, on_delete=models.CASCADE, related_name="carried")
    bucket = models.CharField(max_length=BUCKET_LENGTH, choices=bucket_choices)
    from_response = models.ForeignKey(
        Response, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    from_experiment = models.ForeignKey(
        Experiment, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    from_experiment_name = models.CharField(max_length=200)
    key_answer = models.TextField(blank=True)  # the key in force it was judged against
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.response_id}: {self.bucket} (carried from {self.from_experiment_name})"


class DecisionReceipt(models.Model):
    """What the server answered to one decision sent from the scoring page's queue.

    The browser names each decision with a key of its own before sending it, and sends it again
    until it hears back: the receipt makes a decision that arrives twice (a retry after a lost
    reply, a reload that resends the queue) apply once and get the same answer again.
    """

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="receipts")
    key = models.CharField(max_length=64)
    outcome = models.JSONField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "key"], name="receipt_unique_key")
        ]

    def __str__(self) -> str:
        return f"{self.assignment_id}/{self.key}"


class Allocation(models.Model):
    """How an experiment's items are shared among a pool of its scorers: each item goes to
    ``per_item`` of them, balanced, in a random draw recorded by its seed. Without one, every
    scorer gets every item (scoring/allocation.py)."""

    experiment = models.OneToOneField(
        Experiment, on_delete=models.CASCADE, related_name="allocation"
    )
    per_item = models.PositiveIntegerField(_("scorers per item"))
    seed = models.BigIntegerField(editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.experiment_id}: {self.per_item} per item (seed {self.seed})"


class ItemAllocation(models.Model):
    """One item in one scorer's share. Released when handed on to another scorer (a departed
    scorer's open item): what they judged on it is kept, but it leaves their queue."""

    allocation = models.ForeignKey(Allocation, on_delete=models.CASCADE, related_name="items")
    assignment = models.ForeignKey(
        Assignment, on_delete=models.CASCADE, related_name="allocated_items"
    )
    item = models.ForeignKey(ExperimentItem, on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    released = models.DateTimeField(null=True, blank=True)
    # Responses of the item this scorer does not judge: a departed scorer judged them before
    # the item was handed on, so they have their k judgements already.
    skipped = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "item"], name="item_allocation_unique")
        ]
        indexes = [models.Index(fields=["allocation", "item"])]

    def __str__(self) -> str:
        return f"{self.assignment_id}: item {self.item_id}"


class ResponseComment(CommentBase):
    """A comment on one response, for those who may see which model wrote it: the members who
    have revealed the experiment (or are not blind to it at all). Anyone else gets a 404 from
    every URL that serves or lists it (see docs/discussion.md)."""

    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="comments")
    experiment = models.ForeignKey(
        Experiment, on_delete=models.CASCADE, related_name="response_comments"
    )

    class Meta(CommentBase.Meta):
        verbose_name = _("response comment")
        verbose_name_plural = _("response comments")
        indexes = [models.Index(fields=["response", "created"], name="response_comment_thread")]

    def __str__(self) -> str:
        return f"comment {self.pk} on response {self.response_id}"
