"""The status roll-up: a run is collected when every item has a response; then maybe the
experiment is too."""

from __future__ import annotations

import logging

from django.db.models import Count
from django.utils import timezone

from ...events import experiment_collected
from ...models import (
    Experiment,
    ExperimentItem,
    Response,
    Run,
)
from ...sheetparser import is_compliant
from .units import ACTIVE

logger = logging.getLogger("probe.collection")


# Roll-up -------------------------------------------------------------------------------------


def _compliance(issue_lists) -> float | None:
    issue_lists = list(issue_lists)
    if not issue_lists:
        return None
    return sum(1 for issues in issue_lists if is_compliant(issues)) / len(issue_lists)


def run_rollup(*, run_pk: int) -> None:
    """A run is collected when every item has a response; then maybe the experiment is too.

    Called after the responses are committed, so of two units finishing together the later
    one always sees both.
    """
    run = Run.objects.filter(pk=run_pk).only("pk", "experiment_id").first()
    if run is None:
        return
    n_items = ExperimentItem.objects.filter(experiment_id=run.experiment_id).count()
    issues = list(Response.objects.filter(run_id=run_pk).values_list("issues", flat=True))
    fields = {"compliance": _compliance(issues)}
    Run.objects.filter(pk=run_pk).update(**fields)
    if len(issues) >= n_items:
        Run.objects.filter(pk=run_pk, status__in=(Run.Status.PENDING, *ACTIVE)).update(
            status=Run.Status.COLLECTED, finished_at=timezone.now()
        )
    experiment_rollup(experiment_pk=run.experiment_id)


def runs_with_failed_units(experiment_pk: int):
    """The collected runs some of whose units failed after their retry window: fewer responses
    than items (a run collected in full has a response for every item, even a missing one)."""
    n_items = ExperimentItem.objects.filter(experiment_id=experiment_pk).count()
    return (
        Run.objects.filter(experiment_id=experiment_pk, status=Run.Status.COLLECTED)
        .annotate(n_responses=Count("responses"))
        .filter(n_responses__lt=n_items)
    )


def experiment_rollup(*, experiment_pk: int) -> bool:
    """The experiment is collected (and its key unsealed) when every run is collected or closed.

    Not with a manual run: a person may still see that a paste was wrong and replace it, so an
    editor ends that collection (`experiment_finish`) once every run is in. Nor with a run some
    of whose units failed: Retry may still bring their answers, which must come before anyone
    sees the key; an editor finishes without them otherwise.
    """
    runs = Run.objects.filter(experiment_id=experiment_pk)
    if runs.exclude(status__in=Run.FINISHED).exists():
        return False
    if runs.filter(config_snapshot__provider="manual").exists():
        return False
    if runs_with_failed_units(experiment_pk).exists():
        return False
    finished = (
        Experiment.objects.filter(pk=experiment_pk, status=Experiment.Status.COLLECTING).update(
            status=Experiment.Status.COLLECTED, collection_finished=timezone.now()
        )
        > 0
    )
    if finished:
        experiment_collected.send(sender=Experiment, experiment_pk=experiment_pk)
    return finished
