"""Where a report's buckets come from: one scorer's judgements or the team's final buckets.

A *bucket source* is any queryset whose rows carry a ``response`` foreign key and a ``bucket``
field, one row per response. scoring.report.build builds the report from one; ``without_dropped``
leaves the items the key review judged ambiguous out of every figure, N included.

In a routed experiment (grading's routing: scoring.queue.decided) the scorers' and the final
sources are **human-only**: the answers a grader decided (verdict ``graded``) count nowhere, so
no figure of these sources is a raw grader count; the corrected figures are grading's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from django.db.models import QuerySet

from probe.models import Experiment
from scoring.models import Assignment, FinalBucket, Judgement
from scoring.queue.decided import routed
from scoring.review.selectors import dropped_items

__all__ = ["BucketSource", "final_source", "grader_decided", "judgement_source", "without_dropped"]


@dataclass(frozen=True)
class BucketSource:
    """Where the buckets come from.

    ``rows``: a queryset with one row per response, each with a ``response`` foreign key and a
    ``bucket`` field (a scorer's Judgement, later a reconciled final bucket).
    ``unblinded_field``: the boolean field that marks a bucket changed after the reveal, or None
    when the source has no such notion.
    ``scorer``: who the buckets are by (a username), for headings and exports.
    ``excluded_items``: ExperimentItems left out of every figure (their responses count nowhere
    and N shrinks), or None.
    """

    experiment: Experiment
    rows: QuerySet
    scorer: str = ""
    unblinded_field: str | None = None
    revealed_at: datetime | None = None
    excluded_items: QuerySet | None = None
    human_only: bool = False  # the answers a grader decided left out (a routed experiment)

    def has_field(self, name: str) -> bool:
        return any(f.name == name for f in self.rows.model._meta.get_fields())

    def scoped(self) -> QuerySet:
        # Never count a row of another experiment, whatever queryset the caller passed.
        rows = self.rows.filter(response__run__experiment_id=self.experiment.pk).order_by()
        if self.excluded_items is not None:
            rows = rows.exclude(response__item__in=self.excluded_items)
        if self.human_only:
            rows = rows.exclude(response__in=grader_decided(self.experiment))
        return rows


def grader_decided(experiment: Experiment) -> QuerySet:
    """The ids of the responses a grader decided in a routed experiment (a subquery)."""
    return (
        Judgement.objects.filter(
            assignment__experiment_id=experiment.pk, verdict=Judgement.Verdict.GRADED
        )
        .values("response_id")
        .distinct()
    )


def judgement_source(assignment: Assignment) -> BucketSource:
    """One scorer's judgements as a bucket source."""
    return BucketSource(
        experiment=assignment.experiment,
        # Human-only: an answer a grader decided (routing) is no judgement of this scorer's.
        rows=Judgement.objects.filter(assignment=assignment).exclude(
            verdict=Judgement.Verdict.GRADED
        ),
        scorer=assignment.user.get_username(),
        unblinded_field="unblinded",
        revealed_at=assignment.revealed_at,
    )


def final_source(experiment: Experiment) -> BucketSource:
    """The team's reconciled final buckets as a bucket source (no scorer, no unblinded marks)."""
    return BucketSource(
        experiment=experiment, rows=FinalBucket.objects.all(), human_only=routed(experiment)
    )


def without_dropped(source: BucketSource) -> BucketSource:
    """The same source with the items whose key was judged ambiguous left out: N shrinks."""
    return replace(source, excluded_items=dropped_items(source.experiment))
