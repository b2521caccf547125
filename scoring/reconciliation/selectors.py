"""Several scorers on one experiment, the reads: progress as counts, labels, tokens, standings.

Each scorer scores blind and alone. Nobody sees a scorer's buckets beside another's before
reconciliation has begun, which needs two scorers who have judged every response; a lead who is
also a scorer must have finished too. Once it has begun, the *participants* are the scorers who
have judged every response (a scorer who undoes a decision drops out until it is judged again).
A response whose participants agree gets a unanimous final bucket without a step; a disagreement
waits for an owner or editor to set its final bucket with a note; a response with a judgement
sent back for a re-check (the key was amended) waits for the re-check.

Here: who scores and how far (counts only), how a lead sees them, where every response stands,
the overview's summary, and the two bucket sources for the report. One item's page is in
scoring.reconciliation.page, the agreement in scoring.agreement.report; the writes are in
scoring.reconciliation.services (invitations, the start) and scoring.reconciliation.finals (final buckets).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext as _

from probe.models import ROLE_RANK, Experiment, ExperimentItem, Membership, Response, Role
from scoring.allocation.selectors import departed, scorer_totals
from scoring.models import Assignment, FinalBucket, Judgement, KeyDecision, Reconciliation
from scoring.report.db_arrays import grouped_int_rows, int_rows
from scoring.review.selectors import dropped_items
from scoring.visibility import sees_others_judgements

SCORER_ROLES = [r for r in Role.values if ROLE_RANK[Role(r)] >= ROLE_RANK[Role.SCORER]]


# --------------------------------------------------------------------------------------------
# Scorers and their progress (counts only)
# --------------------------------------------------------------------------------------------


@dataclass
class ScorerProgress:
    """How far one scorer is: counts, never buckets."""

    assignment: Assignment
    judgements: int  # every judgement, including those sent back for a re-check
    recheck: int
    total: int
    departed: bool = False  # left: their open items were handed on to other scorers

    @property
    def judged(self) -> int:
        """Judged and settled: a judgement awaiting a re-check counts as open."""
        return self.judgements - self.recheck

    @property
    def complete(self) -> bool:
        """Has judged every response (some may await a re-check)."""
        return self.total > 0 and self.judgements >= self.total

    @property
    def finished(self) -> bool:
        """Judged all theirs: a scorer who left before finishing never has."""
        return self.complete and self.recheck == 0 and not self.departed

    @property
    def revealed(self) -> bool:
        return self.assignment.revealed

    @property
    def percent(self) -> int:
        return round(100 * self.judged / self.total) if self.total else 0


def scorer_progress(experiment: Experiment) -> list[ScorerProgress]:
    """Every scorer of the experiment with their counts, in the order they joined (three
    queries). The judgements are counted by assignment in a query of their own, an aggregate
    over the judgements alone: grouped together with the assignments' and users' columns, the
    count took half a second at 10 scorers of 100,000 responses."""
    total = Response.objects.filter(run__experiment=experiment).count()
    assignments = list(
        Assignment.objects.filter(experiment=experiment)
        .select_related("user", "invited_by")
        .order_by("created", "pk")
    )
    counted = {
        row["assignment_id"]: (row["n"], row["rechecks"])
        for row in Judgement.objects.filter(assignment__in=[a.pk for a in assignments])
        .values("assignment_id")
        .annotate(n=Count("pk"), rechecks=Count("pk", filter=Q(needs_recheck=True)))
        .order_by()
    }
    for a in assignments:
        a.n_judgements, a.n_recheck = counted.get(a.pk, (0, 0))
    # With the items shared out, each scorer's total is their share (scoring/allocation/).
    shares = scorer_totals(experiment)
    if shares is None:
        return [ScorerProgress(a, a.n_judgements, a.n_recheck, total) for a in assignments]
    left = departed(experiment)
    return [
        ScorerProgress(a, a.n_judgements, a.n_recheck, shares.get(a.pk, 0), a.pk in left)
        for a in assignments
    ]


def participants(experiment: Experiment) -> list[Assignment]:
    """The scorers who have judged every response, in the order they joined."""
    return [p.assignment for p in scorer_progress(experiment) if p.complete]


def scorer_pool(experiment: Experiment) -> QuerySet[Membership]:
    """Team members who may score the experiment (role scorer or above), scoring it or not."""
    return (
        Membership.objects.filter(team_id=experiment.team_id, role__in=SCORER_ROLES)
        .select_related("user")
        .order_by("user__username")
    )


def scorer_candidates(experiment: Experiment) -> QuerySet[Membership]:
    """Team members who may score (role scorer or above) and are not yet scoring it."""
    assigned = Assignment.objects.filter(experiment=experiment).values("user_id")
    return (
        Membership.objects.filter(team_id=experiment.team_id, role__in=SCORER_ROLES)
        .exclude(user_id__in=assigned)
        .select_related("user")
        .order_by("user__username")
    )


def reconciliation_of(experiment: Experiment) -> Reconciliation | None:
    return Reconciliation.objects.filter(experiment=experiment).first()


def decisions_visible(experiment: Experiment, user) -> bool:
    """Whether this user may open the reconciliation and agreement pages: reconciliation has
    begun, and the one rule of who sees other scorers' judgements (scoring.visibility) lets
    them (never a scorer of the experiment whose own judging is not complete)."""
    return reconciliation_of(experiment) is not None and sees_others_judgements(experiment, user)


# --------------------------------------------------------------------------------------------
# Scorer labels and opaque answer tokens
# --------------------------------------------------------------------------------------------


def scorer_labels(assignments: list[Assignment], *, named: bool) -> dict[int, str]:
    """Assignment id -> how the lead sees the scorer: their name, or "Scorer A", "Scorer B"."""
    labels = {}
    for index, assignment in enumerate(assignments):
        if named:
            labels[assignment.pk] = assignment.user.get_username()
        else:
            labels[assignment.pk] = _("Scorer %(letter)s") % {"letter": chr(ord("A") + index % 26)}
    return labels


def response_token(user, response_pk: int) -> str:
    """An opaque name for a response on the reconciliation pages, different for every user."""
    message = f"reconcile:{user.pk}:{response_pk}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:20]


# --------------------------------------------------------------------------------------------
# Where every response stands
# --------------------------------------------------------------------------------------------


UNANIMOUS, DISAGREEMENT, AWAITING = "unanimous", "disagreement", "awaiting"


@dataclass
class Standing:
    """One response's judgements by the participants, and its final bucket if any."""

    response_id: int
    item_id: int
    buckets: dict[int, str]  # assignment id -> bucket
    recheck: set[int]  # assignment ids whose judgement awaits a re-check
    final: FinalBucket | None = None
    notes: dict[int, str] = field(default_factory=dict)  # assignment id -> the scorer's note

    def state(self, n_participants: int) -> str:
        if len(self.buckets) < n_participants or self.recheck:
            return AWAITING
        return UNANIMOUS if len(set(self.buckets.values())) == 1 else DISAGREEMENT

    @property
    def decided(self) -> bool:
        """Set by a lead (a unanimous row is not a decision)."""
        return self.final is not None and not self.final.unanimous


def standings(
    experiment: Experiment, assignments: list[Assignment], *, item: ExperimentItem | None = None
) -> dict[int, Standing]:
    """Response id -> Standing, for the whole experiment or one item (three queries)."""
    responses = Response.objects.filter(run__experiment=experiment)
    if item is not None:
        responses = responses.filter(item=item)
    result = {
        pk: Standing(pk, item_id, {}, set())
        for pk, item_id in responses.values_list("pk", "item_id").order_by()
    }
    judgements = Judgement.objects.filter(
        assignment__in=[a.pk for a in assignments], response_id__in=list(result)
    ).values_list("response_id", "assignment_id", "bucket", "needs_recheck", "note")
    for response_id, assignment_id, bucket, recheck, note in judgements.order_by():
        standing = result[response_id]
        standing.buckets[assignment_id] = bucket
        if recheck:
            standing.recheck.add(assignment_id)
        if note:
            standing.notes[assignment_id] = note
    for final in FinalBucket.objects.filter(response_id__in=list(result)).select_related(
        "decided_by"
    ):
        result[final.response_id].final = final
    return result


@dataclass
class ItemSummary:
    position: int
    question: str
    block_code: str
    disagreements: int = 0
    decided: int = 0
    awaiting: int = 0
    dropped: bool = False

    @property
    def open(self) -> int:
        return self.disagreements - self.decided


@dataclass
class ReconcileSummary:
    reconciliation: Reconciliation
    labels: dict[int, str]
    progress: list[ScorerProgress]
    total: int = 0
    unanimous: int = 0
    disagreements: int = 0
    decided: int = 0
    awaiting: int = 0
    items: list[ItemSummary] = field(default_factory=list)  # items with disagreements or waits

    @property
    def open(self) -> int:
        return self.disagreements - self.decided

    @property
    def complete(self) -> bool:
        """Every response has its final bucket."""
        return self.open == 0 and self.awaiting == 0

    @property
    def first_open_position(self) -> int | None:
        for item in self.items:
            if item.open:
                return item.position
        return self.items[0].position if self.items else None


def _states(experiment: Experiment, parts: list[Assignment]):
    """(state, decided by a lead, the item id of each such response), as Standing.state and
    Standing.decided say: per response, how many participants judged it, in how many distinct
    buckets, how many await a re-check, and whether its final bucket is unanimous."""
    if not parts:
        for standing in standings(experiment, parts).values():
            yield standing.state(0), standing.decided, np.array([standing.item_id])
        return
    # Three reads of integer arrays, each by an index and with no join of the judgements to
    # the responses (a join that sorted every judgement of the experiment, seconds at 300,000):
    # the responses and their items, the participants' judgements by bucket and re-check, the
    # final buckets by unanimity. The counting per response is numpy's.
    # Kept small (a few bytes a response): a listing's page asks for this summary too, and its
    # memory must not grow with the experiment.
    rows = int_rows(Response.objects.filter(run__experiment=experiment), ["id", "item_id"])
    if not len(rows):
        return
    order = np.argsort(rows[:, 0])
    ids, item_ids = rows[order, 0], rows[order, 1]
    del rows, order

    def place(response_ids: np.ndarray) -> np.ndarray:
        at = np.searchsorted(ids, response_ids).clip(max=len(ids) - 1)
        return at[ids[at] == response_ids]  # a row of another experiment is not counted

    n = np.zeros(len(ids), dtype=np.int32)
    rechecks = np.zeros(len(ids), dtype=np.int32)
    present: dict[str, np.ndarray] = {}  # bucket -> whether a participant put the response there
    judged = Judgement.objects.filter(assignment__in=[a.pk for a in parts])
    for (bucket, recheck), found in grouped_int_rows(
        judged, ["bucket", "needs_recheck"], ["response_id"]
    ):
        counts = np.bincount(place(found[:, 0]), minlength=len(ids)).astype(np.int32)
        n += counts
        if recheck:
            rechecks += counts
        present[bucket] = present.get(bucket, np.zeros(len(ids), dtype=bool)) | (counts > 0)
        del counts
    kinds = np.zeros(len(ids), dtype=np.int8)
    for seen in present.values():
        kinds += seen
    del present
    settled = np.zeros(len(ids), dtype=bool)  # a final bucket a lead decided (not unanimous)
    finals = FinalBucket.objects.filter(response__run__experiment=experiment)
    for (unanimous,), found in grouped_int_rows(finals, ["unanimous"], ["response_id"]):
        if unanimous is not None and not unanimous:
            settled[place(found[:, 0])] = True
    awaiting = (n < len(parts)) | (rechecks > 0)
    del n, rechecks
    states = np.where(awaiting, 0, np.where(kinds == 1, 1, 2)).astype(np.int8)
    del awaiting, kinds
    for code, state in enumerate((AWAITING, UNANIMOUS, DISAGREEMENT)):
        for decided in (False, True):
            mask = (states == code) & (settled == decided)
            if mask.any():
                yield state, decided, item_ids[mask]


def reconcile_summary(experiment: Experiment) -> ReconcileSummary | None:
    """Where reconciliation stands, item by item; None before it has begun."""
    reconciliation = reconciliation_of(experiment)
    if reconciliation is None:
        return None
    progress = scorer_progress(experiment)
    parts = [p.assignment for p in progress if p.complete]
    summary = ReconcileSummary(
        reconciliation, scorer_labels(parts, named=reconciliation.name_scorers), progress
    )
    items = {
        item.pk: ItemSummary(item.position, item.question, item.block_code)
        for item in ExperimentItem.objects.filter(experiment=experiment).only(
            "pk", "position", "question", "block_code"
        )
    }
    dropped = set(dropped_items(experiment).values_list("pk", flat=True))
    for pk in dropped:
        items[pk].dropped = True
    for state, decided, item_ids in _states(experiment, parts):
        n = len(item_ids)
        summary.total += n
        if state == UNANIMOUS:
            summary.unanimous += n
            continue
        found, counts = np.unique(item_ids, return_counts=True)
        if state == AWAITING:
            summary.awaiting += n
            for item_id, count in zip(found.tolist(), counts.tolist(), strict=True):
                items[item_id].awaiting += count
            continue
        summary.disagreements += n
        summary.decided += n if decided else 0
        for item_id, count in zip(found.tolist(), counts.tolist(), strict=True):
            items[item_id].disagreements += count
            items[item_id].decided += count if decided else 0
    summary.items = sorted(
        (i for i in items.values() if i.disagreements or i.awaiting), key=lambda i: i.position
    )
    return summary


# --------------------------------------------------------------------------------------------
# For the report: bucket sources of the same shape as a scorer's judgements
# --------------------------------------------------------------------------------------------


def final_bucket_rows(experiment: Experiment) -> QuerySet[FinalBucket]:
    """The team's final buckets: one row per settled response (``response`` FK, ``bucket``).

    Dropped (ambiguous) items are left out. Responses still open (a disagreement no lead has
    settled, or a judgement awaiting a re-check) have no row: ``reconcile_summary(e).complete``
    says whether every response has one. Empty before reconciliation begins.
    """
    return FinalBucket.objects.filter(response__run__experiment=experiment).exclude(
        response__item__in=dropped_items(experiment)
    )


def scorer_bucket_rows(assignment: Assignment) -> QuerySet[Judgement]:
    """One scorer's buckets, dropped items left out, in the same shape as final_bucket_rows."""
    return Judgement.objects.filter(assignment=assignment).exclude(
        response__item__in=dropped_items(assignment.experiment)
    )


def key_changes(experiment: Experiment) -> QuerySet[KeyDecision]:
    """The key decisions that changed something (amended or dropped), for the report."""
    return (
        KeyDecision.objects.filter(experiment=experiment)
        .exclude(outcome=KeyDecision.Outcome.CONFIRMED)
        .select_related("item", "decided_by")
        .order_by("item__position", "pk")
    )
