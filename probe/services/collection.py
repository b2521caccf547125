"""Collection: a run's units sent concurrently, leases and the sweep, pasted replies, parsing,
and the status roll-up.

A unit is what one request carries: the whole sheet of a run (sheet mode) or one item of a run
(per-item mode). `run_collect` collects a whole run: it takes the run's lease, sends the units
from an asyncio loop in a thread of its own (at most the configuration's limit at once, each
holding a slot of the provider's shared limit), and writes attempts and responses in batches
from the calling thread. The Celery task (probe/tasks.py) and the `collect` command both call
it, so a terminal collection is the same code as a worker's. `sweep_stale_runs` queues again
what nothing works on; `run_health` says what a run is doing, for the pages.

Idempotent: a unit that has its responses is done; a unit whose provider call already
succeeded is parsed from the stored attempt and never asked again; responses are written under
the (run, item) unique constraint; one task at a time holds a run. Every HTTP attempt is an
Attempt row with its raw body. Parsing is a view over the stored text and can be redone
(`run_reparse`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import queue
import random
import secrets
import threading
import time
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.db.models import Case, F, Q, Value, When
from django.db.models.functions import Coalesce, Now
from django.utils import timezone
from django.utils.translation import gettext as _

from adapters import (
    AdapterError,
    Completion,
    CompletionRequest,
    ConfigurationError,
    api_key_from_env,
    get_adapter,
    new_async_client,
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
from .configs import provider_host_problem

logger = logging.getLogger("probe.collection")

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


# Settings --------------------------------------------------------------------------------------


def setting(name: str) -> float:
    """A collection timing from settings (config/settings.py documents each), with its default."""
    return float(getattr(settings, name, COLLECTION_DEFAULTS[name]))


COLLECTION_DEFAULTS = {
    # A worker renews its lease on a run every third of this; a dead worker's lease runs out.
    "PROBE_RUN_LEASE_SECONDS": 30.0,
    # A run nobody holds, with no task sent and no attempt for this long, is queued again.
    "PROBE_REQUEUE_AFTER_SECONDS": 60.0,
    # A run that has made no progress for this long shows as stalled, with Retry.
    "PROBE_STALL_SECONDS": 120.0,
    # One task works on a run at most this long, then hands it on to a fresh task.
    "PROBE_RUN_SLICE_SECONDS": 600.0,
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
    answered = Response.objects.filter(run=run).count()
    return [None] if answered < run.experiment.items.count() else []


def _send_run(run_pk: int) -> bool:
    """Send one collection task for the run. A broker that cannot be reached is not an error
    here: the run stays queued, and the periodic sweep sends it again."""
    from ..tasks import collect_run  # the tasks module imports this one

    Run.objects.filter(pk=run_pk).update(enqueued_at=timezone.now())
    try:
        collect_run.apply_async(
            kwargs={"run_pk": run_pk},
            retry=True,
            retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5},
            **_queue_options(),
        )
    except Exception as error:  # kombu raises OperationalError and friends
        logger.warning(
            "run %s: could not reach the broker (%s); the sweep will resend", run_pk, error
        )
        return False
    return True


def queue_run(run: Run) -> None:
    """Send the run's collection task once the current transaction commits."""
    transaction.on_commit(partial(_send_run, run.pk))


# Leases on runs -----------------------------------------------------------------------------
#
# One worker at a time collects a run: it holds the run's lease (a token and an expiry, by the
# database's clock) and renews it while it works. A redelivered or duplicate task finds the lease
# held and leaves; a worker that dies stops renewing, and the sweep queues the run again.


def _lease_expiry():
    return Now() + timedelta(seconds=setting("PROBE_RUN_LEASE_SECONDS"))


def lease_take(run_pk: int) -> str | None:
    """Take the run's lease if nobody holds it and the run is active; the token, or None."""
    token = secrets.token_hex(16)
    taken = (
        Run.objects.filter(pk=run_pk, status__in=ACTIVE)
        .filter(Q(lease_expires__isnull=True) | Q(lease_expires__lt=Now()))
        .update(
            lease_token=token,
            lease_expires=_lease_expiry(),
            status=Case(
                When(status=Run.Status.QUEUED, then=Value(Run.Status.RUNNING)),
                default=F("status"),
            ),
            started_at=Coalesce(F("started_at"), Now()),
        )
    )
    return token if taken else None


def lease_renew(run_pk: int, token: str, activity: dict) -> bool:
    """Renew a held lease and say what the collector is doing; False: stop (cancelled, failed,
    or the lease was lost)."""
    return (
        Run.objects.filter(pk=run_pk, lease_token=token, status__in=ACTIVE).update(
            lease_expires=_lease_expiry(), activity=activity
        )
        > 0
    )


def lease_release(run_pk: int, token: str) -> None:
    Run.objects.filter(pk=run_pk, lease_token=token).update(
        lease_token="", lease_expires=None, activity={}
    )


# The sweep -----------------------------------------------------------------------------------


def sweep_stale_runs() -> dict:
    """Queue again every run that should be collecting but that nothing works on.

    A run is stale when it is queued or running, is not manual, has units without a response,
    no live lease, no task sent and no attempt for PROBE_REQUEUE_AFTER_SECONDS. Sending it again
    is safe: the lease lets one task work on it, and a unit with a stored reply is parsed from it,
    never asked again. Runs whose units are all answered but were never rolled up (a worker died
    in between) are rolled up. Returns what it did, for the log.
    """
    cutoff = timezone.now() - timedelta(seconds=setting("PROBE_REQUEUE_AFTER_SECONDS"))
    stale = (
        Run.objects.filter(status__in=ACTIVE, experiment__status=Experiment.Status.COLLECTING)
        .exclude(config_snapshot__provider="manual")
        .filter(Q(lease_expires__isnull=True) | Q(lease_expires__lt=Now()))
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=cutoff))
        .filter(Q(progress_at__isnull=True) | Q(progress_at__lt=cutoff))
        .select_related("experiment")
    )
    requeued, rolled_up = [], []
    for run in stale:
        if run_units(run):
            if _send_run(run.pk):
                requeued.append(run.pk)
        else:
            run_rollup(run_pk=run.pk)
            rolled_up.append(run.pk)
    # An experiment whose runs all finished while the roll-up was lost.
    for pk in (
        Experiment.objects.filter(status=Experiment.Status.COLLECTING)
        .exclude(runs__status__in=[s for s in Run.Status.values if s not in Run.FINISHED])
        .values_list("pk", flat=True)
    ):
        experiment_rollup(experiment_pk=pk)
    if requeued or rolled_up:
        logger.warning("sweep: queued runs %s again, rolled up %s", requeued, rolled_up)
    return {"requeued": requeued, "rolled_up": rolled_up}


# What the page says about a run ----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RunHealth:
    """Whether anything works on an active run: `state` is collecting, waiting or stalled."""

    state: str
    since: datetime | None = None
    reason: str = ""


def run_health(run: Run, now: datetime | None = None) -> RunHealth | None:
    """None for a run that is not queued or running (its status says it all), or a manual run."""
    if run.status not in ACTIVE or run.is_manual:
        return None
    now = now or timezone.now()
    stall = timedelta(seconds=setting("PROBE_STALL_SECONDS"))
    held = run.lease_expires is not None and run.lease_expires > now
    activity = run.activity or {}
    last = max(
        (t for t in (run.progress_at, run.queued_at) if t is not None),
        default=None,
    )
    if held:
        if activity.get("in_flight") or last is None or now - last < stall:
            return RunHealth("collecting")
        if activity.get("waiting_slot"):
            reason = _("every slot of the provider's concurrency limit is taken (by other runs)")
        elif activity.get("last_error"):
            reason = _("the provider keeps failing; retrying after: %(error)s") % {
                "error": activity["last_error"]
            }
        elif activity.get("store_error"):
            reason = _("the lease store (Redis) cannot be reached: %(error)s") % {
                "error": activity["store_error"]
            }
        else:
            reason = _("a worker holds the run but nothing arrives")
        return RunHealth("stalled", since=last, reason=reason)
    if last is None or now - last < stall:
        return RunHealth("waiting")
    return RunHealth(
        "stalled",
        since=last,
        reason=_(
            "no worker is working on it; is a worker running? It is queued again automatically "
            "when one is."
        ),
    )


# The collector -------------------------------------------------------------------------------


@dataclasses.dataclass
class _Unit:
    item_pk: int | None
    request: CompletionRequest
    retried: int = 0  # retried attempts since the run was (re)queued


@dataclasses.dataclass
class _Result:
    unit: _Unit
    completion: Completion | None = None
    error: AdapterError | None = None
    final: bool = False  # the error ends the run
    delay: float | None = None  # the retry delay asked for a retryable error


class _Sender:
    """Sends a run's requests concurrently from an asyncio loop in a thread of its own.

    At most `limit` requests of this run are in flight, each holding a slot of the provider's
    shared limit (limits.py). A unit that failed with a retryable error comes back after its
    delay, without any message to the broker. Results go to `results`, which the collector's
    own thread writes to the database in batches.
    """

    def __init__(self, *, units, adapter, limiter, limit_key, limit, wait=None, slot_seconds=None):
        self.units = units
        # A slot lapses this long after its holder stopped renewing it (a killed worker).
        self.slot_seconds = slot_seconds or limits.LEASE_SECONDS
        self.adapter = adapter
        self.limiter = limiter
        self.limit_key = limit_key
        self.limit = max(1, int(limit))
        self.wait = wait  # tests: a recorder of the delays instead of sleeping
        self.results: queue.Queue[_Result | None] = queue.Queue()
        self.stop = threading.Event()
        self.activity = {"in_flight": 0, "waiting_slot": 0, "retry_wait": 0}
        self._held: set = set()
        self._thread = threading.Thread(target=self._run, daemon=True, name="collector-sender")

    def start(self) -> None:
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as error:  # never leave the collector waiting for the end marker
            logger.exception("collector sender crashed")
            self.crash = error
        finally:
            self.results.put(None)

    crash: BaseException | None = None

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.pending = asyncio.Queue()
        for unit in self.units:
            self.pending.put_nowait(unit)
        self.open = len(self.units)
        self.done = asyncio.Event()
        if not self.open:
            return
        renewer = asyncio.create_task(self._renew_slots())
        # A client (and one kept-alive connection) per sending task: httpcore's pool scans
        # every connection for every request, which with one shared pool of 50 costs more CPU
        # than the request itself.
        clients = [new_async_client(connections=1) for _ in range(min(self.limit, self.open))]
        workers = [asyncio.create_task(self._worker(client)) for client in clients]
        watcher = asyncio.create_task(self._watch_stop())
        try:
            await self.done.wait()
            for _ in workers:
                self.pending.put_nowait(None)
            await asyncio.gather(*workers, return_exceptions=True)
        finally:
            watcher.cancel()
            renewer.cancel()
            for client in clients:
                await client.aclose()

    async def _watch_stop(self) -> None:
        while not self.stop.is_set():
            await asyncio.sleep(0.05)
        self.done.set()  # queued units and units waiting to retry are left for a later task

    def _finish_unit(self) -> None:
        self.open -= 1
        if self.open <= 0:
            self.done.set()

    async def _worker(self, client) -> None:
        while True:
            unit = await self.pending.get()
            if unit is None or self.stop.is_set():
                return
            lease = await self._slot()
            if lease is None:
                return  # stopping
            self.activity["in_flight"] += 1
            result = _Result(unit)
            try:
                result.completion = await self.adapter.acomplete(unit.request, client=client)
            except AdapterError as error:
                result.error = error
            finally:
                self.activity["in_flight"] -= 1
                self._held.discard(lease)
                self._release(lease)
            if result.error is not None:
                self._decide(result)
            self.results.put(result)
            if result.completion is not None or result.final:
                self._finish_unit()
            else:
                self._come_back(unit, result.delay)

    def _decide(self, result: _Result) -> None:
        error = result.error
        if isinstance(error, ConfigurationError):
            result.final = True
            return
        result.delay = retry_delay(error, result.unit.retried)
        result.final = result.delay is None
        if not result.final:
            self.activity["last_error"] = (error.message or error.kind)[:300]
            result.unit.retried += 1

    def _come_back(self, unit: _Unit, delay: float) -> None:
        if self.wait is not None:
            self.wait(delay)
            self.pending.put_nowait(unit)
            return
        self.activity["retry_wait"] += 1

        def back() -> None:
            self.activity["retry_wait"] -= 1
            self.pending.put_nowait(unit)

        self.loop.call_later(delay, back)

    async def _slot(self):
        """A slot of the provider's limit: wait (without holding anything) until one is free."""
        backoff = STORE_BACKOFF[0]
        waiting = False
        try:
            while not self.stop.is_set():
                try:
                    lease = self.limiter.try_acquire(self.limit_key, self.limit, self.slot_seconds)
                except Exception as error:  # Redis down or restarting: wait it out
                    self.activity["store_error"] = f"{type(error).__name__}: {error}"[:300]
                    logger.warning("lease store unreachable (%s); again in %.1f s", error, backoff)
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, STORE_BACKOFF[1])
                    continue
                self.activity.pop("store_error", None)
                if lease is not None:
                    self._held.add(lease)
                    return lease
                if not waiting:
                    waiting = True
                    self.activity["waiting_slot"] += 1
                await asyncio.sleep(SLOT_POLL * (0.5 + random.random()))
            return None
        finally:
            if waiting:
                self.activity["waiting_slot"] -= 1

    def _release(self, lease) -> None:
        try:
            lease.release()
        except Exception:  # the lease runs out by itself
            pass

    async def _renew_slots(self) -> None:
        while True:
            await asyncio.sleep(self.slot_seconds / 3)
            for lease in list(self._held):
                try:
                    self.limiter.renew(lease.key, lease.token, lease.seconds)
                except Exception:
                    pass


class RunCollector:
    """Collects one run in this thread: takes its lease, sends its units through a `_Sender`,
    writes the attempts and responses in batches, renews the lease, and rolls up at the end.

    Every database call happens in the calling thread, on its one connection.
    """

    def __init__(self, run_pk: int, *, only=None, wait=None, deadline: float | None = None):
        self.run_pk = run_pk
        self.only = only  # item pks (or [None]) to collect; None: every unit without responses
        self.wait = wait
        self.deadline = deadline  # time.monotonic() after which no new request is started
        self.on_result = None  # a callback (result) for progress bars

    # -- the one call ---------------------------------------------------------------------

    def collect(self) -> str:
        """'done', 'busy' (another worker holds the run), 'inactive', 'stopped' or 'sliced'."""
        token = lease_take(self.run_pk)
        if token is None:
            return (
                "busy"
                if Run.objects.filter(pk=self.run_pk, status__in=ACTIVE).exists()
                else ("inactive")
            )
        self.token = token
        try:
            return self._collect()
        finally:
            try:
                lease_release(self.run_pk, token)
            except DatabaseError:
                pass  # it runs out by itself

    def _collect(self) -> str:
        run = Run.objects.select_related("experiment__prompt_version").get(pk=self.run_pk)
        if run.is_manual:
            return "inactive"
        self.run = run
        experiment = run.experiment
        self.items = list(experiment.items.order_by("position"))
        self.by_pk = {item.pk: item for item in self.items}
        self.answered = set(Response.objects.filter(run=run).values_list("item_id", flat=True))
        self.n_clean = sum(
            1
            for issues in Response.objects.filter(run=run).values_list("issues", flat=True)
            if not issues
        )
        per_item = experiment.mode == Experiment.Mode.ITEM
        if per_item:
            todo = [i.pk for i in self.items if i.pk not in self.answered]
        else:
            todo = [] if len(self.answered) >= len(self.items) else [None]
        if self.only is not None:
            todo = [pk for pk in todo if pk in set(self.only)]
        # The attempts so far, per unit: their numbers go on, and retries count since queued.
        since = run.queued_at or experiment.collection_started
        self.numbers: dict = {}
        retried: dict = {}
        successes: dict = {}
        for item_id, number, outcome, created, pk in Attempt.objects.filter(run=run).values_list(
            "item_id", "number", "outcome", "created", "pk"
        ):
            self.numbers[item_id] = max(self.numbers.get(item_id, 0), number)
            if outcome == Attempt.Outcome.RETRYABLE and (since is None or created >= since):
                retried[item_id] = retried.get(item_id, 0) + 1
            if outcome in Attempt.SUCCESS and pk > successes.get(item_id, 0):
                successes[item_id] = pk
        # A unit whose provider call already succeeded (a redelivery after the reply but before
        # the responses) is parsed from the stored reply and never asked again.
        stored = [pk for pk in todo if pk in successes]
        if stored:
            with transaction.atomic():
                for attempt in Attempt.objects.filter(pk__in=[successes[pk] for pk in stored]):
                    self._store_responses(attempt)
                self._write_progress()
        todo = [pk for pk in todo if pk not in successes]
        if not todo:
            return self._end()

        snapshot = run.config_snapshot
        try:
            adapter = get_adapter(snapshot.get("provider") or "")
        except KeyError as exc:
            _fail_run(run.pk, str(exc.args[0]) if exc.args else _("Unknown provider."))
            return "stopped"
        units = []
        api_key = None
        simulation_key = _simulation_key(run, snapshot)  # read once for the whole run
        for pk in todo:
            item = self.by_pk[pk] if pk is not None else None
            request = _request_for(run, item, self.items, simulation_key=simulation_key)
            if not units:
                # The allowed hosts may have narrowed since the configuration was saved.
                host_problem = provider_host_problem(
                    request.base_url or adapter.default_base_url or ""
                )
                if host_problem:
                    _fail_run(run.pk, host_problem)
                    return "stopped"
                try:
                    api_key = _api_key(adapter, request, snapshot)
                except ConfigurationError as exc:  # a missing key variable, a bad base URL
                    _fail_run(run.pk, exc.message)
                    return "stopped"
            if api_key:
                request = dataclasses.replace(request, api_key=api_key)
            units.append(_Unit(pk, request, retried.get(pk, 0)))
        del api_key
        sender = _Sender(
            units=units,
            adapter=adapter,
            limiter=limits.get_limiter(),
            limit_key=limits.limit_key(snapshot, adapter.default_base_url),
            limit=int(snapshot.get("concurrency_limit") or 1),
            wait=self.wait,
            slot_seconds=setting("PROBE_RUN_LEASE_SECONDS"),
        )
        outcome = self._drive(sender)
        del units
        if outcome == "done":
            return self._end()
        return outcome

    # -- the write loop ---------------------------------------------------------------------

    def _drive(self, sender: _Sender) -> str:
        sender.start()
        # The renewal is also how a cancel is noticed: often enough that few requests start after.
        renew_every = min(setting("PROBE_RUN_LEASE_SECONDS") / 3, RENEW_AT_MOST_EVERY)
        next_renew = time.monotonic() + renew_every
        outcome = "done"
        batch: list[_Result] = []
        finished = False
        last_flush = time.monotonic()
        while not finished:
            # Gather what arrives for a tick (or a full batch), then write it at once.
            flush_at = last_flush + FLUSH_SECONDS
            while len(batch) < FLUSH_BATCH:
                remaining = flush_at - time.monotonic()
                if remaining <= 0:
                    break
                try:
                    item = sender.results.get(timeout=remaining)
                except queue.Empty:
                    break
                if item is None:
                    finished = True
                    break
                batch.append(item)
            last_flush = time.monotonic()
            if batch:
                if self._flush(batch):
                    outcome = "stopped"
                    sender.stop.set()
                batch = []
            now = time.monotonic()
            if self.deadline is not None and now > self.deadline and not sender.stop.is_set():
                outcome = "sliced"
                sender.stop.set()
            if now >= next_renew:
                next_renew = now + renew_every
                if not self._renew(sender):
                    outcome = "stopped"
                    sender.stop.set()
        sender.join()
        if sender.crash is not None:
            raise sender.crash
        if outcome == "done" and sender.open > 0:
            outcome = "stopped"
        return outcome

    def _renew(self, sender: _Sender) -> bool:
        try:
            return lease_renew(self.run_pk, self.token, dict(sender.activity))
        except DatabaseError as error:
            logger.warning("run %s: could not renew its lease (%s)", self.run_pk, error)
            _reconnect()
            return True  # the lease may still hold; the next renewal tells

    def _flush(self, batch: list[_Result]) -> bool:
        """Write a batch in one transaction; True if a final error ended the run. A database
        outage is waited out (the batch is kept in memory and written when it is back)."""
        backoff = STORE_BACKOFF[0]
        while True:
            try:
                return self._write(batch)
            except DatabaseError as error:
                logger.warning(
                    "run %s: database error (%s); again in %.1f s", self.run_pk, error, backoff
                )
                _reconnect()
                time.sleep(backoff)
                backoff = min(backoff * 2, STORE_BACKOFF[1])

    def _write(self, batch: list[_Result]) -> bool:
        attempts = []
        # Numbered in the batch's order: a batch may hold several attempts of one unit (retries
        # that came back within one tick), and each gets its own number.
        numbers = dict(self.numbers)
        for result in batch:
            item_pk = result.unit.item_pk
            numbers[item_pk] = numbers.get(item_pk, 0) + 1
            attempts.append(_attempt_row(self.run, item_pk, numbers[item_pk], result))
        failure = None
        answered, n_clean = set(self.answered), self.n_clean
        try:
            with transaction.atomic():
                Attempt.objects.bulk_create(attempts)
                rows = []
                for result, attempt in zip(batch, attempts, strict=True):
                    if result.completion is not None:
                        rows += self._response_rows(attempt)
                    elif result.final and failure is None:
                        failure = result
                Response.objects.bulk_create(rows, ignore_conflicts=True)
                self._write_progress()
        except BaseException:
            self.answered, self.n_clean = answered, n_clean  # nothing of the batch was written
            raise
        for result, attempt in zip(batch, attempts, strict=True):
            self.numbers[result.unit.item_pk] = attempt.number
        for result in batch:
            if self.on_result is not None:
                self.on_result(result)
            if result.error is not None and not result.final:
                logger.info(
                    "run %s unit %s: %s; retry %s in %.1f s (request id %s)",
                    self.run_pk,
                    result.unit.item_pk or "sheet",
                    result.error.kind,
                    result.unit.retried,
                    result.delay,
                    result.error.request_id,
                )
        if failure is not None:
            message = _final_message(failure)
            if failure.unit.item_pk is not None:
                position = self.by_pk[failure.unit.item_pk].position
                message = _("Item %(n)s: %(message)s") % {"n": position, "message": message}
            _fail_run(self.run_pk, storable(message), failure.error.request_id)
            return True
        return False

    def _store_responses(self, attempt: Attempt) -> None:
        Response.objects.bulk_create(self._response_rows(attempt), ignore_conflicts=True)

    def _response_rows(self, attempt: Attempt) -> list[Response]:
        """The responses parsed from `attempt` for its items still unanswered (counted in)."""
        items = [self.by_pk[attempt.item_id]] if attempt.item_id is not None else self.items
        items = [item for item in items if item.pk not in self.answered]
        if not items or self.run.status == Run.Status.CLOSED:
            return []
        pairs, _sheet_issues = parse_attempt(attempt, items, self.run.experiment.mode)
        for item, parsed in pairs:
            self.answered.add(item.pk)
            self.n_clean += not parsed.issues
        return [_response_row(self.run, item, attempt, parsed) for item, parsed in pairs]

    def _write_progress(self) -> None:
        n = len(self.answered)
        Run.objects.filter(pk=self.run_pk).update(
            progress_at=Now(), compliance=(self.n_clean / n) if n else None
        )

    def _end(self) -> str:
        if len(self.answered) >= len(self.items):
            updated = Run.objects.filter(pk=self.run_pk, status__in=ACTIVE).update(
                status=Run.Status.COLLECTED, finished_at=timezone.now()
            )
            if updated:
                experiment_rollup(experiment_pk=self.run.experiment_id)
        return "done"


def _reconnect() -> None:
    from django.db import connection

    try:
        connection.close()
    except Exception:
        pass


def _attempt_row(run: Run, item_pk, number: int, result: _Result) -> Attempt:
    completion, error = result.completion, result.error
    if completion is not None:
        return Attempt(
            run=run,
            item_id=item_pk,
            number=number,
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
    return Attempt(
        run=run,
        item_id=item_pk,
        number=number,
        outcome=Attempt.Outcome.FATAL if result.final else Attempt.Outcome.RETRYABLE,
        http_status=error.status,
        latency_ms=getattr(error, "latency_ms", None),
        request_id=(error.request_id or "")[:200],
        error_kind=(error.kind or "")[:60],
        error_message=storable(error.message),
        retry_after=error.retry_after,
        raw_body=storable(error.body),
    )


def _response_row(run: Run, item: ExperimentItem, attempt: Attempt, parsed) -> Response:
    return Response(
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


def _final_message(result: _Result) -> str:
    error = result.error
    message = error.message
    if isinstance(error, ConfigurationError):
        return message
    if error.retryable and error.retry_after is not None and error.retry_after > RETRY_DELAY_CAP:
        message += " " + _(
            "(The server asked to wait %(wait)d s, longer than the %(cap)d s this collector "
            "waits; retry the run later.)"
        ) % {"wait": error.retry_after, "cap": RETRY_DELAY_CAP}
    elif error.retryable:
        message += " " + _("(Gave up after %(n)d attempts.)") % {"n": result.unit.retried + 1}
    return message


def run_collect(
    *, run_pk: int, wait=None, deadline: float | None = None, only=None, on_result=None
) -> str:
    """Collect a run in this process until it is done, stopped, or the deadline (monotonic) is
    passed. What the Celery task and the `collect` command call. `on_result(result)` hears of
    every attempt written (result.completion, result.error, result.final)."""
    collector = RunCollector(run_pk, only=only, wait=wait, deadline=deadline)
    collector.on_result = on_result
    return collector.collect()


def collect_unit_sync(*, run_pk: int, item_pk: int | None = None, sleep=None) -> None:
    """Collect one unit (per item), or the whole run (sheet mode, or item_pk None), in this
    process. `sleep` receives the retry delays instead of waiting them (tests, scripts)."""
    run = Run.objects.select_related("experiment").filter(pk=run_pk).first()
    if run is None:
        return
    only = (
        [item_pk] if item_pk is not None and run.experiment.mode == Experiment.Mode.ITEM else None
    )
    run_collect(run_pk=run_pk, wait=sleep, only=only)


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
        seed=_seed_for(run, snap),
        simulation_key=_simulation_key(run, snap) if simulation_key is None else simulation_key,
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
    if (
        experiment.status == Experiment.Status.READY
        and not experiment.runs.exclude(config_snapshot__provider="manual").exists()
    ):
        # Only people collect this experiment: the first paste starts it, so that it does not
        # sit at "Ready to collect" with every reply in; an editor finishes it.
        Experiment.objects.filter(pk=experiment.pk, status=Experiment.Status.READY).update(
            status=Experiment.Status.COLLECTING, collection_started=now
        )
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
    """The experiment is collected (and its key unsealed) when every run is collected or closed.

    Not with a manual run: a person may still see that a paste was wrong and replace it, so an
    editor ends that collection (`experiment_finish`) once every run is in.
    """
    runs = Run.objects.filter(experiment_id=experiment_pk)
    if runs.exclude(status__in=Run.FINISHED).exists():
        return False
    if runs.filter(config_snapshot__provider="manual").exists():
        return False
    return (
        Experiment.objects.filter(pk=experiment_pk, status=Experiment.Status.COLLECTING).update(
            status=Experiment.Status.COLLECTED, collection_finished=timezone.now()
        )
        > 0
    )
