"""What a run sends: its units, the exact text of each, the request built from the run's
configuration snapshot, and the collection settings."""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils import timezone

from adapters import (
    CompletionRequest,
    api_key_from_env,
)
from adapters.registry import is_simulated

from ... import prompts
from ...models import (
    Attempt,
    Experiment,
    ExperimentItem,
    Response,
    Run,
)

logger = logging.getLogger("probe.collection")


ACTIVE = (Run.Status.QUEUED, Run.Status.RUNNING)


def storable(text: str | None) -> str:
    """Text as stored. PostgreSQL text cannot hold NUL; a NUL in a reply (never in JSON, which
    escapes it) is kept as the visible symbol U+2400 rather than losing the body."""
    return (text or "").replace("\x00", "\u2400")


# The exact text ------------------------------------------------------------------------------


def _prompt_item(item: ExperimentItem) -> prompts.PromptItem:
    return prompts.PromptItem(
        position=item.position,
        block_code=item.block_code,
        block_title=item.block_title,
        question=item.question,
        answer_format=item.answer_format,
    )


def unit_prompt(experiment: Experiment, item: ExperimentItem | None = None, *, items=None) -> str:
    """The exact text sent for one unit: the whole sheet (item None) or one item.

    The collector calls this to build what it sends and the pages call it (through
    `experiment_prompts`) to show it, so what is shown is what is sent.
    """
    instructions = experiment.prompt_version.text
    if item is not None:
        return prompts.build_item_prompt(
            instructions, _prompt_item(item), experiment.prompt_version.language
        )
    if items is None:
        items = experiment.items.order_by("position")
    return prompts.build_sheet_prompt(
        instructions, [_prompt_item(i) for i in items], experiment.prompt_version.language
    )


def experiment_prompts(experiment: Experiment) -> list[tuple[ExperimentItem | None, str]]:
    """Every text the experiment sends: [(None, sheet)] in sheet mode, [(item, text), ...] per item."""
    items = list(experiment.items.order_by("position"))
    if experiment.mode == Experiment.Mode.ITEM:
        return [(item, unit_prompt(experiment, item)) for item in items]
    return [(None, unit_prompt(experiment, items=items))]


# Settings --------------------------------------------------------------------------------------


def setting(name: str) -> float:
    """A collection timing from settings (config/settings.py documents each), with its default."""
    return float(getattr(settings, name, COLLECTION_DEFAULTS[name]))


COLLECTION_DEFAULTS = {
    # A worker renews its lease on a run every 2 s; a dead worker's lease runs out this long after
    # its last renewal, and the page then says the run waits for a worker. At most the sweep's
    # interval, so that the page is honest within one sweep.
    "PROBE_RUN_LEASE_SECONDS": 10.0,
    # How often beat runs the sweep.
    "PROBE_SWEEP_SECONDS": 15.0,
    # A run sent to the broker but taken by no worker for this long is sent again.
    "PROBE_REQUEUE_AFTER_SECONDS": 60.0,
    # A run that has stored nothing for this long (four sweeps) shows as stalled, with Retry.
    "PROBE_STALL_SECONDS": 60.0,
    # One task works on a run at most this long, then hands it on to a fresh task.
    "PROBE_RUN_SLICE_SECONDS": 600.0,
    # A unit failing with retryable errors (429, 5xx, timeouts) is retried for this long before
    # it fails, alone: the rest of its run goes on.
    "PROBE_UNIT_RETRY_SECONDS": 600.0,
    # The backoff between its attempts doubles from 0.5 s up to this (unless the server asks).
    "PROBE_UNIT_BACKOFF_MAX_SECONDS": 30.0,
}

# How often the collector writes what it collected: a batch per tick, not a write per answer.
FLUSH_SECONDS = 0.1
# The run's lease is renewed (and a cancel noticed) at least this often (seconds).
RENEW_AT_MOST_EVERY = 2.0
FLUSH_BATCH = 200
# How often a unit looks again for a free slot of a full provider limit (seconds, jittered).
SLOT_POLL = 0.05
# The lease store (Redis) unreachable: wait this long, doubling up to the cap, and try again.
STORE_BACKOFF = (0.5, 8.0)


def run_units(run: Run) -> list[int | None]:
    """The units of `run` still without their responses: [None] for the sheet, else item pks."""
    if run.experiment.mode == Experiment.Mode.ITEM:
        answered = Response.objects.filter(run=run).values("item_id")
        return list(
            run.experiment.items.exclude(pk__in=answered)
            .order_by("position")
            .values_list("pk", flat=True)
        )
    answered = Response.objects.filter(run=run).count()
    return [None] if answered < run.experiment.items.count() else []


def latest_success(run: Run, item_pk: int | None) -> Attempt | None:
    return (
        Attempt.objects.filter(run=run, item_id=item_pk, outcome__in=Attempt.SUCCESS)
        .order_by("-number", "-pk")
        .first()
    )


def fail_run(run_pk: int, message: str, request_id: str | None = "") -> None:
    updated = Run.objects.filter(pk=run_pk, status__in=ACTIVE).update(
        status=Run.Status.FAILED,
        error_message=message[:5000],
        error_request_id=(request_id or "")[:200],
        finished_at=timezone.now(),
    )
    if updated:
        logger.warning("run %s failed: %s", run_pk, message[:500])


def request_for(
    run: Run, item: ExperimentItem | None, items: list[ExperimentItem], *, simulation_key=None
) -> CompletionRequest:
    snap = run.config_snapshot
    return CompletionRequest(
        model=snap.get("model_name") or "",
        prompt=unit_prompt(run.experiment, item, items=items),
        base_url=snap.get("base_url") or None,
        temperature=snap.get("temperature"),
        max_output_tokens=snap.get("max_output_tokens"),
        reasoning_effort=snap.get("reasoning_effort") or None,
        thinking_budget=snap.get("thinking_budget"),
        seed=seed_for(run, snap),
        simulation_key=simulation_key_for(run, snap) if simulation_key is None else simulation_key,
    )


def simulation_key_for(run: Run, snap: dict) -> tuple[tuple[str, str], ...]:
    """For a simulated configuration, the experiment's whole key (its snapshot, in order): what
    its models may know. Whole, in per-item mode too: wrong answers are drawn from it."""
    if not is_simulated(snap.get("provider")):
        return ()
    rows = (
        ExperimentItem.objects.filter(experiment_id=run.experiment_id)
        .exclude(key_answer="")
        .order_by("position")
        .values_list("question", "key_answer")
    )
    return tuple((question, answer) for question, answer in rows if answer.strip())


def seed_for(run: Run, snap: dict) -> int | None:
    """The configuration's seed; a simulated run without one draws by its repeat number.

    The simulator is deterministic for a seed, so without this every repeat of a simulated
    configuration would be the same sheet and the demo would show no run-to-run variation.
    """
    seed = snap.get("seed")
    if seed is None and is_simulated(snap.get("provider")):
        return run.repeat
    return seed


def api_key_for(adapter, request: CompletionRequest, snapshot: dict) -> str | None:
    """The key, read from the environment only when this configuration sends one.

    Raises MissingAPIKeyError (naming the variable, never a value) before any request.
    """
    var = (snapshot.get("api_key_env") or "").strip()
    if adapter.requires_api_key(request):
        return api_key_from_env(var)
    if var and type(adapter).needs_api_key:
        # A local OpenAI-compatible server may run without a key; one was named, so send it.
        return api_key_from_env(var)
    return None


def attempt_number(run: Run, item_pk: int | None) -> int:
    return Attempt.objects.filter(run=run, item_id=item_pk).count() + 1
