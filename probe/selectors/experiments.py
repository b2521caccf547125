"""Reads for the experiment and run pages: lists, live progress, a run's attempts and answers."""

from dataclasses import dataclass, field

from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from adapters.registry import is_simulated

from .. import sheetparser
from ..models import Attempt, Experiment, ExperimentItem, ModelConfig, Response, Run, Team
from ..services.collection import parse_attempt, run_health, runs_with_failed_units


def _count(model, link: str = "run", **filters):
    rows = (
        model.objects.filter(**{link: OuterRef("pk")}, **filters)
        .order_by()
        .values(link)
        .annotate(c=Count("pk"))
        .values("c")
    )
    return Coalesce(Subquery(rows, output_field=IntegerField()), Value(0))


def experiments_of_team(team: Team) -> QuerySet[Experiment]:
    # Counted in subqueries: joining items and runs together would multiply the rows.
    return (
        team.experiments.select_related("prompt_version")
        .annotate(
            n_items=_count(ExperimentItem, "experiment"),
            n_runs=_count(Run, "experiment"),
            n_runs_done=_count(Run, "experiment", status__in=Run.FINISHED),
        )
        .order_by("-created", "-pk")
    )


def runs_with_progress(experiment: Experiment) -> list[Run]:
    """Each run with its counts: responses, attempts, retried attempts, and its last error."""
    last_error = (
        Attempt.objects.filter(run=OuterRef("pk"))
        .exclude(error_message="")
        .order_by("-pk")
        .values("error_message")[:1]
    )
    return list(
        experiment.runs.annotate(
            n_responses=_count(Response),
            n_attempts=_count(Attempt),
            n_retried=_count(Attempt, outcome=Attempt.Outcome.RETRYABLE),
            last_error=Subquery(last_error),
        ).order_by("order", "pk")
    )


@dataclass
class Progress:
    experiment: Experiment
    runs: list[Run]
    n_items: int
    polling: bool = False
    n_collected: int = 0
    n_finished: int = 0
    n_failed: int = 0
    n_stalled: int = 0
    n_moving: int = 0  # runs a worker collects or is about to
    n_units_failed: int = 0  # items of collected runs whose requests failed after retrying
    awaits_finish: bool = False
    total: int = 0
    n_responses: int = 0
    percent: int = 0
    counts: dict = field(default_factory=dict)


def experiment_awaits_finish(experiment: Experiment) -> bool:
    """Every run is in but the experiment has manual runs, or runs some of whose units failed:
    an editor finishes the collection."""
    if experiment.status not in (Experiment.Status.READY, Experiment.Status.COLLECTING):
        return False
    runs = list(experiment.runs.values_list("status", "config_snapshot__provider"))
    return (
        bool(runs)
        and all(status in Run.FINISHED for status, _provider in runs)
        and (
            any(provider == "manual" for _status, provider in runs)
            or runs_with_failed_units(experiment.pk).exists()
        )
    )


def experiment_progress(experiment: Experiment) -> Progress:
    n_items = experiment.items.count()
    runs = runs_with_progress(experiment)
    now = timezone.now()
    for run in runs:
        run.percent = int(100 * run.n_responses / n_items) if n_items else 0
        run.is_simulated = is_simulated(run.config_snapshot.get("provider"))
        # Collecting only while something works on it: waiting, or stalled since when and why.
        run.health = run_health(run, now)
        run.is_stalled = run.health is not None and run.health.state == "stalled"
        # Collected with fewer answers than items: those units failed after their retry window.
        run.n_units_failed = n_items - run.n_responses if run.status == Run.Status.COLLECTED else 0
    total = n_items * len(runs)
    n_responses = sum(r.n_responses for r in runs)
    progress = Progress(
        experiment=experiment,
        runs=runs,
        n_items=n_items,
        # Poll only while a worker has something to do: stops when collection ends, and while
        # the page only waits for a person (a failed run, a manual run to paste).
        polling=experiment.status == Experiment.Status.COLLECTING
        and any(r.status in (Run.Status.QUEUED, Run.Status.RUNNING) for r in runs),
        n_collected=sum(1 for r in runs if r.status == Run.Status.COLLECTED),
        n_finished=sum(1 for r in runs if r.status in Run.FINISHED),
        n_failed=sum(1 for r in runs if r.status == Run.Status.FAILED),
        n_stalled=sum(1 for r in runs if r.is_stalled),
        n_moving=sum(1 for r in runs if r.health is not None and not r.is_stalled),
        n_units_failed=sum(r.n_units_failed for r in runs),
        awaits_finish=experiment.status in (Experiment.Status.READY, Experiment.Status.COLLECTING)
        and bool(runs)
        and all(r.status in Run.FINISHED for r in runs)
        and any(r.is_manual or r.n_units_failed for r in runs),
        total=total,
        n_responses=n_responses,
        percent=int(100 * n_responses / total) if total else 0,
    )
    return progress


def configs_for_form(team: Team) -> QuerySet[ModelConfig]:
    return team.model_configs.filter(archived=False).order_by("label", "pk")


@dataclass
class Sheet:
    """What the run page shows of one unit: its latest reply and how it parsed."""

    item: ExperimentItem | None
    attempt: Attempt | None
    sheet_issues: list[str]
    rows: list  # [(experiment item, response or None)]


def run_sheets(run: Run) -> list[Sheet]:
    """The run's answers per unit (one sheet, or one per item), with the sheet-level issues
    read again from the stored reply (they are not stored: parsing is a view over the text)."""
    experiment = run.experiment
    items = list(experiment.items.order_by("position"))
    responses = {r.item_id: r for r in run.responses.all()}
    latest: dict = {}
    for attempt in run.attempts.filter(outcome__in=Attempt.SUCCESS).order_by("number", "pk"):
        latest[attempt.item_id] = attempt
    if experiment.mode == Experiment.Mode.ITEM:
        return [
            Sheet(item, latest.get(item.pk), [], [(item, responses.get(item.pk))]) for item in items
        ]
    attempt = latest.get(None)
    sheet_issues = parse_attempt(attempt, items, experiment.mode)[1] if attempt else []
    return [Sheet(None, attempt, sheet_issues, [(item, responses.get(item.pk)) for item in items])]


def issue_labels(codes) -> list[tuple[str, str]]:
    return [(code, sheetparser.issue_label(code)) for code in codes]
