"""Collection: one unit of a run at a time, pasted replies, parsing, and the status roll-up.

A unit is what one request carries: the whole sheet of a run (sheet mode) or one item of a run
(per-item mode). `collect_unit_once` does one step of a unit and says whether to come back
later; the Celery task (probe/tasks.py) and the `collect` command both drive it, so a terminal
collection is the same code as a worker's.

Idempotent: a unit that has its responses is done; a unit whose provider call already
succeeded is parsed from the stored attempt and never asked again; responses are written under
the (run, item) unique constraint. Every HTTP attempt is an Attempt row with its raw body.
Parsing is a view over the stored text and can be redone (`run_reparse`).
"""

from __future__ import annotations

import dataclasses
import logging
import random
import threading
import time
from functools import partial

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from adapters import (
    AdapterError,
    Completion,
    CompletionRequest,
    ConfigurationError,
    MissingAPIKeyError,
    api_key_from_env,
    get_adapter,
    new_client,
    retry_delay,
)
from adapters.errors import RETRY_DELAY_CAP

from .. import limits, prompts, sheetparser
from ..models import (
    Attempt,
    AuditEvent,
    Experiment,
    ExperimentItem,
    Response,
    Run,
)
from .audit import audit_record

logger = logging.getLogger("probe.collection")

# When the provider's concurrency limit is full, come back after about this long (seconds).
# Not a provider attempt, so it is not counted against the retries.
SLOT_WAIT = 1.0
MAX_PASTE_CHARS = 1_000_000

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
        return prompts.build_item_prompt(instructions, _prompt_item(item))
    if items is None:
        items = experiment.items.order_by("position")
    return prompts.build_sheet_prompt(instructions, [_prompt_item(i) for i in items])


def experiment_prompts(experiment: Experiment) -> list[tuple[ExperimentItem | None, str]]:
    """Every text the experiment sends: [(None, sheet)] in sheet mode, [(item, text), ...] per item."""
    items = list(experiment.items.order_by("position"))
    if experiment.mode == Experiment.Mode.ITEM:
        return [(item, unit_prompt(experiment, item)) for item in items]
    return [(None, unit_prompt(experiment, items=items))]


# Queueing ------------------------------------------------------------------------------------


def _queue_options() -> dict:
    # Tests (and a deployment that wants a separate collection queue) name it in settings.
    queue = getattr(settings, "PROBE_COLLECTION_QUEUE", None)
    return {"queue": queue} if queue else {}


def run_units(run: Run) -> list[int | None]:
    """The units of `run` still without their responses: [None] for the sheet, else item pks."""
    if run.experiment.mode == Experiment.Mode.ITEM:
        answered = Response.objects.filter(run=run).values("item_id")
        return list(
            run.experiment.items.exclude(pk__in=answered)
            .order_by("position")
            .values_list("pk", flat=True)
        )
    return [None]


def _send_units(run_pk: int, units: list[int | None]) -> None:
    from ..tasks import collect_unit  # the tasks module imports this one

    options = _queue_options()
    for item_pk in units:
        collect_unit.apply_async(kwargs={"run_pk": run_pk, "item_pk": item_pk}, **options)


def queue_run(run: Run) -> None:
    """Send a task per unit of `run` once the current transaction commits."""
    units = run_units(run)
    if units:
        transaction.on_commit(partial(_send_units, run.pk, units))
    else:  # every unit was answered before a cancel: only the roll-up is left
        transaction.on_commit(partial(run_rollup, run_pk=run.pk))


# One unit ------------------------------------------------------------------------------------

_client = None
_client_lock = threading.Lock()


def http_client():
    """One httpx client per process, shared by the worker's threads (it is thread-safe)."""
    global _client
    with _client_lock:
        if _client is None:
            _client = new_client()
        return _client


def _unit_items(run: Run, item_pk: int | None) -> list[ExperimentItem]:
    items = run.experiment.items.order_by("position")
    if item_pk is not None:
        items = items.filter(pk=item_pk)
    return list(items)


def _latest_success(run: Run, item_pk: int | None) -> Attempt | None:
    return (
        Attempt.objects.filter(run=run, item_id=item_pk, outcome__in=Attempt.SUCCESS)
        .order_by("-number", "-pk")
        .first()
    )


def _fail_run(run_pk: int, message: str, request_id: str | None = "") -> None:
    updated = Run.objects.filter(pk=run_pk, status__in=ACTIVE).update(
        status=Run.Status.FAILED,
        error_message=message[:5000],
        error_request_id=(request_id or "")[:200],
        finished_at=timezone.now(),
    )
    if updated:
        logger.warning("run %s failed: %s", run_pk, message[:500])


def _request_for(
    run: Run, item: ExperimentItem | None, items: list[ExperimentItem]
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
        seed=_seed_for(run, snap),
        simulation_key=_simulation_key(run, snap),
    )


def _simulation_key(run: Run, snap: dict) -> tuple[tuple[str, str], ...]:
    """For a simulated configuration, the experiment's whole key (its snapshot, in order): what
    its models may know. Whole, in per-item mode too: wrong answers are drawn from it."""
    if snap.get("provider") != "simulator":
        return ()
    rows = (
        ExperimentItem.objects.filter(experiment_id=run.experiment_id)
        .exclude(key_answer="")
        .order_by("position")
        .values_list("question", "key_answer")
    )
    return tuple((question, answer) for question, answer in rows if answer.strip())


def _seed_for(run: Run, snap: dict) -> int | None:
    """The configuration's seed; a simulated run without one draws by its repeat number.

    The simulator is deterministic for a seed, so without this every repeat of a simulated
    configuration would be the same sheet and the demo would show no run-to-run variation.
    """
    seed = snap.get("seed")
    if seed is None and snap.get("provider") == "simulator":
        return run.repeat
    return seed


def _api_key(adapter, request: CompletionRequest, snapshot: dict) -> str | None:
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


def _attempt_number(run: Run, item_pk: int | None) -> int:
    return Attempt.objects.filter(run=run, item_id=item_pk).count() + 1


def _record_success(run: Run, item_pk: int | None, items, completion: Completion) -> Attempt:
    with transaction.atomic():
        attempt = Attempt.objects.create(
            run=run,
            item_id=item_pk,
            number=_attempt_number(run, item_pk),
            outcome=completion.outcome,
            http_status=completion.http_status,
            latency_ms=completion.latency_ms,
            request_id=(completion.request_id or "")[:200],
            finish_reason=(completion.finish_reason or "")[:60],
            input_tokens=completion.input_tokens,
            output_tokens=completion.output_tokens,
            reasoning_tokens=completion.reasoning_tokens,
            text=storable(completion.text),
            raw_body=storable(completion.raw_body),
        )
        _store_from_attempt(run, items, attempt)
    return attempt


def _record_error(run: Run, item_pk: int | None, error: AdapterError, *, final: bool) -> Attempt:
    return Attempt.objects.create(
        run=run,
        item_id=item_pk,
        number=_attempt_number(run, item_pk),
        outcome=Attempt.Outcome.FATAL if final else Attempt.Outcome.RETRYABLE,
        http_status=error.status,
        latency_ms=getattr(error, "latency_ms", None),
        request_id=(error.request_id or "")[:200],
        error_kind=(error.kind or "")[:60],
        error_message=storable(error.message),
        retry_after=error.retry_after,
        raw_body=storable(error.body),
    )


def collect_unit_once(*, run_pk: int, item_pk: int | None = None) -> float | None:
    """One step of one unit. None: the unit is done (collected, failed or skipped); a number:
    call again after that many seconds (a provider retry, or waiting for a free slot)."""
    run = Run.objects.select_related("experiment__prompt_version").filter(pk=run_pk).first()
    if run is None or run.status not in ACTIVE or run.is_manual:
        return None  # deleted, cancelled, failed by another unit, or pasted by a person
    items = _unit_items(run, item_pk)
    if not items:
        return None
    if Response.objects.filter(run=run, item__in=items).count() >= len(items):
        run_rollup(run_pk=run.pk)  # a redelivery after the responses were written
        return None
    success = _latest_success(run, item_pk)
    if success is not None:
        # A redelivery after the provider answered: parse the stored reply, never ask again.
        _store_from_attempt(run, items, success)
        run_rollup(run_pk=run.pk)
        return None

    Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(status=Run.Status.RUNNING)
    Run.objects.filter(pk=run.pk, started_at__isnull=True).update(started_at=timezone.now())

    snapshot = run.config_snapshot
    try:
        adapter = get_adapter(snapshot.get("provider") or "")
    except KeyError as exc:
        _fail_run(run.pk, str(exc.args[0]) if exc.args else _("Unknown provider."))
        return None
    item = items[0] if item_pk is not None else None
    request = _request_for(run, item, items)
    try:
        api_key = _api_key(adapter, request, snapshot)
    except MissingAPIKeyError as exc:
        _fail_run(run.pk, exc.message)
        return None
    if api_key:
        request = dataclasses.replace(request, api_key=api_key)

    limiter = limits.get_limiter()
    key = limits.limit_key(snapshot, adapter.default_base_url)
    lease = limiter.try_acquire(key, int(snapshot.get("concurrency_limit") or 1))
    if lease is None:
        return SLOT_WAIT * (0.5 + random.random())  # spread the returns out
    completion = error = None
    try:
        lease.keep_alive()
        completion = adapter.complete(request, client=http_client())
    except ConfigurationError as exc:
        # Refused before any request (a bad base URL, a manual run): nothing was sent.
        _fail_run(run.pk, exc.message)
        return None
    except AdapterError as exc:
        error = exc
    finally:
        lease.release()
    del request, api_key  # the key lives no longer than the request

    if completion is not None:
        _record_success(run, item_pk, items, completion)
        run_rollup(run_pk=run.pk)
        return None

    since = run.queued_at or run.experiment.collection_started
    retried = Attempt.objects.filter(
        run=run,
        item_id=item_pk,
        outcome=Attempt.Outcome.RETRYABLE,
        **({"created__gte": since} if since else {}),
    ).count()
    delay = retry_delay(error, retried)
    if delay is not None:
        _record_error(run, item_pk, error, final=False)
        logger.info(
            "run %s unit %s: %s; retry %s in %.1f s (request id %s)",
            run.pk,
            item_pk or "sheet",
            error.kind,
            retried + 1,
            delay,
            error.request_id,
        )
        return delay
    _record_error(run, item_pk, error, final=True)
    message = error.message
    if error.retryable and error.retry_after is not None and error.retry_after > RETRY_DELAY_CAP:
        message += " " + _(
            "(The server asked to wait %(wait)d s, longer than the %(cap)d s this collector "
            "waits; retry the run later.)"
        ) % {"wait": error.retry_after, "cap": RETRY_DELAY_CAP}
    elif error.retryable:
        message += " " + _("(Gave up after %(n)d attempts.)") % {"n": retried + 1}
    if item is not None:
        message = _("Item %(n)s: %(message)s") % {"n": item.position, "message": message}
    _fail_run(run.pk, storable(message), error.request_id)
    run_rollup(run_pk=run.pk)
    return None


def collect_unit_sync(*, run_pk: int, item_pk: int | None = None, sleep=time.sleep) -> None:
    """Drive one unit to its end in this process, sleeping between retries (the `collect` command)."""
    while True:
        delay = collect_unit_once(run_pk=run_pk, item_pk=item_pk)
        if delay is None:
            return
        sleep(delay)


def fail_run_unexpectedly(*, run_pk: int, error: BaseException) -> None:
    """A bug or an outage below the provider call: say so on the run rather than stay 'collecting'."""
    _fail_run(
        run_pk,
        _("Internal error while collecting: %(kind)s: %(error)s")
        % {
            "kind": type(error).__name__,
            "error": str(error)[:500],
        },
    )


# Parsing -------------------------------------------------------------------------------------


def parse_attempt(attempt: Attempt, items: list[ExperimentItem], mode: str):
    """[(item, ParsedAnswer)] for the items of the attempt's unit, and the sheet's own issues."""
    if attempt.item_id is not None or mode == Experiment.Mode.ITEM:
        pairs = []
        for item in items:
            pairs.append((item, sheetparser.parse_single(attempt.text, item.position)))
        return pairs, []
    sheet = sheetparser.parse_sheet(attempt.text, len(items))
    by_number = {answer.number: answer for answer in sheet.answers}
    return [(item, by_number[item.position]) for item in items], list(sheet.sheet_issues)


def _store_from_attempt(run: Run, items, attempt: Attempt, *, replace: bool = False) -> int:
    """Write the responses parsed from `attempt`: new ones only, or (replace) update in place."""
    if run.status == Run.Status.CLOSED:
        return 0  # closed runs are final: scoring may have opened without them
    pairs, _sheet_issues = parse_attempt(attempt, items, run.experiment.mode)
    rows = [
        Response(
            run=run,
            item=item,
            attempt=attempt,
            answer=parsed.answer,
            confidence=parsed.confidence or "",
            abstained=parsed.abstained,
            hedged=parsed.hedged,
            issues=list(parsed.issues),
            parser_version=sheetparser.PARSER_VERSION,
        )
        for item, parsed in pairs
    ]
    if replace:
        Response.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["run", "item"],
            update_fields=[
                "attempt",
                "answer",
                "confidence",
                "abstained",
                "hedged",
                "issues",
                "parser_version",
            ],
        )
    else:
        Response.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


@transaction.atomic
def run_reparse(*, run: Run) -> int:
    """Parse every unit of the run again from its stored reply, updating the responses in place.

    Returns the number of responses written. The raw text is never touched.
    """
    run = Run.objects.select_related("experiment").get(pk=run.pk)
    items = list(run.experiment.items.order_by("position"))
    written = 0
    if run.experiment.mode == Experiment.Mode.ITEM:
        for item in items:
            attempt = _latest_success(run, item.pk)
            if attempt is not None:
                written += _store_from_attempt(run, [item], attempt, replace=True)
    else:
        attempt = _latest_success(run, None)
        if attempt is not None:
            written += _store_from_attempt(run, items, attempt, replace=True)
    run_rollup(run_pk=run.pk)
    return written


# Manual runs ---------------------------------------------------------------------------------


@transaction.atomic
def run_paste(*, run: Run, user, text: str, item: ExperimentItem | None = None) -> Attempt:
    """Record a reply a person pasted from a chat window, and parse it like any other.

    Sheet mode takes the whole sheet; per-item mode one item's reply (`item`). Pasting again
    replaces the parsed answers (the earlier paste stays as an attempt). Refused once
    collection is complete, when the key may have been seen.
    """
    run = Run.objects.select_for_update().select_related("experiment").get(pk=run.pk)
    experiment = run.experiment
    if not run.is_manual:
        raise ValidationError(
            _("Only a manual run takes a pasted reply; this run is collected from its provider.")
        )
    if experiment.status == Experiment.Status.CANCELLED:
        raise ValidationError(_("The experiment was cancelled."))
    if experiment.status == Experiment.Status.COLLECTED:
        raise ValidationError(
            _(
                "Collection is complete and the key is open: a reply can no longer be pasted or replaced."
            )
        )
    if run.status in (Run.Status.CANCELLED, Run.Status.CLOSED):
        raise ValidationError(
            _("This run is %(status)s: retry it before pasting.")
            % {"status": run.get_status_display().lower()}
        )
    if not (text or "").strip():
        raise ValidationError({"text": _("Paste the model's whole reply.")})
    if len(text) > MAX_PASTE_CHARS:
        raise ValidationError(
            {"text": _("The reply is longer than %(n)s characters.") % {"n": MAX_PASTE_CHARS}}
        )
    if experiment.mode == Experiment.Mode.ITEM:
        if item is None or item.experiment_id != experiment.pk:
            raise ValidationError({"item": _("Say which item this reply answers.")})
        items = [item]
    else:
        if item is not None:
            raise ValidationError(
                {"item": _("This experiment sends the whole sheet at once: paste the whole reply.")}
            )
        items = list(experiment.items.order_by("position"))
    # One line ending style: a reply copied from a browser on Windows must parse the same.
    text = storable(text.replace("\r\n", "\n").replace("\r", "\n"))
    item_pk = item.pk if item is not None else None
    attempt = Attempt.objects.create(
        run=run,
        item_id=item_pk,
        number=_attempt_number(run, item_pk),
        outcome=Attempt.Outcome.COMPLETE,
        text=text,
        raw_body=text,
        pasted_by=user,
    )
    _store_from_attempt(run, items, attempt, replace=True)
    now = timezone.now()
    if run.started_at is None:
        Run.objects.filter(pk=run.pk).update(started_at=now)
    if Response.objects.filter(run=run).count() < experiment.items.count():
        Run.objects.filter(pk=run.pk, status=Run.Status.PENDING).update(status=Run.Status.RUNNING)
    run_rollup(run_pk=run.pk)
    audit_record(
        team=experiment.team,
        user=user,
        bank=experiment.bank,
        action=AuditEvent.Action.UPDATE,
        subject="run",
        summary=_("pasted a reply into run %(run)s of %(name)s")
        % {"run": run, "name": experiment.name},
        details={
            "attempt": attempt.pk,
            "item": item.position if item else None,
            "chars": len(text),
        },
    )
    return attempt


# Roll-up -------------------------------------------------------------------------------------


def _compliance(issue_lists) -> float | None:
    issue_lists = list(issue_lists)
    if not issue_lists:
        return None
    return sum(1 for issues in issue_lists if not issues) / len(issue_lists)


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


def experiment_rollup(*, experiment_pk: int) -> bool:
    """The experiment is collected (and its key unsealed) when every run is collected or closed."""
    if Run.objects.filter(experiment_id=experiment_pk).exclude(status__in=Run.FINISHED).exists():
        return False
    return (
        Experiment.objects.filter(pk=experiment_pk, status=Experiment.Status.COLLECTING).update(
            status=Experiment.Status.COLLECTED, collection_finished=timezone.now()
        )
        > 0
    )
