"""Grading's reads: which grades an experiment's second opinion comes from, and whether a
scorer may see the second opinion on an item (only once they committed every answer of it)."""

from __future__ import annotations

from probe.models import Response
from scoring.models import Assignment, Judgement

from .models import Grade, GradingJob


def opinion_job(experiment) -> GradingJob | None:
    """The newest finished job on the experiment: the grader version whose opinion is shown."""
    return (
        GradingJob.objects.filter(experiment=experiment, status=GradingJob.Status.DONE)
        .order_by("-finished_at", "-pk")
        .first()
    )


def finished_jobs(experiment) -> int:
    return GradingJob.objects.filter(experiment=experiment, status=GradingJob.Status.DONE).count()


def item_committed(assignment: Assignment, position: int) -> bool:
    """Whether the scorer has their own bucket, with nothing to re-check, for every answer of
    the item (answers preset to the abstention bucket count as theirs: nothing was asked)."""
    responses = Response.objects.filter(
        run__experiment_id=assignment.experiment_id, item__position=position
    ).values_list("pk", flat=True)
    total = len(responses)
    judged = Judgement.objects.filter(
        assignment=assignment, response__in=list(responses), needs_recheck=False
    ).count()
    return total > 0 and judged == total


def item_grades(assignment: Assignment, position: int) -> list[Grade]:
    """The grades to show on the item, or [] while the scorer has not committed all of it:
    nothing here, not even whether a grader exists, reaches a scorer before that."""
    if not item_committed(assignment, position):
        return []
    job = opinion_job(assignment.experiment)
    if job is None:
        return []
    return list(
        Grade.objects.filter(job=job, response__item__position=position)
        .select_related("response", "job__grader")
        .order_by("response_id")
    )
