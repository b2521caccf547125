"""The run collector: takes the run's lease, sends its units through a `Sender`, writes the
attempts and responses in batches, and rolls up at the end."""

from __future__ import annotations

import dataclasses
import logging
import queue
import time

from django.db import DatabaseError, connection, transaction
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.translation import gettext as _

from adapters import (
    ConfigurationError,
    get_adapter,
)

from ... import limits
from ...models import (
    Attempt,
    Experiment,
    Response,
    Run,
)
from ...sheetparser import is_compliant
from ..configs import options_refusal
from ..hosts import provider_host_problem
from .attempts import attempt_row, final_message
from .lease import lease_release, lease_renew, lease_take, renew_every
from .parsing import parse_attempt, response_row
from .rollup import experiment_rollup
from .sender import Result, Sender, Unit
from .units import (
    ACTIVE,
    FLUSH_BATCH,
    FLUSH_SECONDS,
    STORE_BACKOFF,
    api_key_for,
    fail_run,
    request_for,
    setting,
    simulation_key_for,
    storable,
)

logger = logging.getLogger("probe.collection")

# A run whose units failed alone keeps this many of their messages (the rest are counted).
MESSAGES_KEPT = 20


class RunCollector:
    """Collects one run in this thread: takes its lease, sends its units through a `Sender`,
    writes the attempts and responses in batches, renews the lease, and rolls up at the end.

    Every database call happens in the calling thread, on its one connection.
    """

    def __init__(self, run_pk: int, *, only=None, wait=None, deadline: float | None = None):
        self.run_pk = run_pk
        self.only = only  # item pks (or [None]) to collect; None: every unit without responses
        self.wait = wait
        self.deadline = deadline  # time.monotonic() after which no new request is started
        self.on_result = None  # a callback (result) for progress bars
        self.gave_up: dict = {}  # unit -> (message, request id): failed alone, the run goes on

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
        self.items = list(run.experiment.items.order_by("position"))
        self.by_pk = {item.pk: item for item in self.items}
        self.answered = set(Response.objects.filter(run=run).values_list("item_id", flat=True))
        self.n_clean = sum(
            1
            for issues in Response.objects.filter(run=run).values_list("issues", flat=True)
            if is_compliant(issues)
        )
        retried, successes = self._attempts_so_far()
        todo = self._todo()
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
            fail_run(run.pk, str(exc.args[0]) if exc.args else _("Unknown provider."))
            return "stopped"
        units = self._units(adapter, todo, retried)
        if units is None:
            return "stopped"
        sender = Sender(
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

    def _unanswered(self) -> list:
        """The units still without their responses (item pks, or [None] for the sheet)."""
        if self.run.experiment.mode == Experiment.Mode.ITEM:
            return [i.pk for i in self.items if i.pk not in self.answered]
        return [] if len(self.answered) >= len(self.items) else [None]

    def _todo(self) -> list:
        """The units to send: unanswered, asked for, and not given up on since queued."""
        todo = [pk for pk in self._unanswered() if pk not in self.gave_up]
        if self.only is not None:
            todo = [pk for pk in todo if pk in set(self.only)]
        return todo

    def _attempts_so_far(self) -> tuple[dict, dict]:
        """(retries since queued, latest successful attempt pk) per unit; sets the numbers so far
        and, per unit, when its failures since it was queued began (its retry window's start)."""
        run = self.run
        since = run.queued_at or run.experiment.collection_started
        self.numbers: dict = {}
        self.failing_since: dict = {}
        retried: dict = {}
        successes: dict = {}
        latest: dict = {}
        for item_id, number, outcome, created, pk, *more in Attempt.objects.filter(
            run=run
        ).values_list(
            "item_id", "number", "outcome", "created", "pk", "error_message", "request_id"
        ):
            self.numbers[item_id] = max(self.numbers.get(item_id, 0), number)
            if outcome == Attempt.Outcome.RETRYABLE and (since is None or created >= since):
                retried[item_id] = retried.get(item_id, 0) + 1
                first, last = self.failing_since.get(item_id, (created, created))
                self.failing_since[item_id] = (min(first, created), max(last, created))
            if outcome in Attempt.SUCCESS and pk > successes.get(item_id, 0):
                successes[item_id] = pk
            if since is None or created >= since:
                latest[item_id] = max(latest.get(item_id, (0, "", "", "")), (pk, outcome, *more))
        # A unit whose last attempt since the run was queued was final, in a run still active,
        # was given up on (a final error of the run would have failed it): not sent again until
        # Retry queues the run afresh.
        for item_id, (_pk, outcome, message, request_id) in latest.items():
            if outcome == Attempt.Outcome.FATAL and item_id not in successes:
                position = self.by_pk[item_id].position if item_id in self.by_pk else None
                if position is not None:
                    message = _("Item %(n)s: %(message)s") % {"n": position, "message": message}
                self.gave_up[item_id] = (message, request_id)
        return retried, successes

    def _units(self, adapter, todo: list, retried: dict) -> list[Unit] | None:
        """The units to send, each with its request (and the key); None when the run cannot be
        sent as configured (the run is failed with the reason, before any request)."""
        run = self.run
        snapshot = run.config_snapshot
        key_pairs = simulation_key_for(run, snapshot)  # read once for the whole run
        requests = [
            request_for(
                run,
                self.by_pk[pk] if pk is not None else None,
                self.items,
                simulation_key=key_pairs,
            )
            for pk in todo
        ]
        problem = self._before_sending(adapter, requests[0])
        if problem:
            fail_run(run.pk, problem)
            return None
        try:
            api_key = api_key_for(adapter, requests[0], snapshot)
        except ConfigurationError as exc:  # a missing key variable, a bad base URL
            fail_run(run.pk, exc.message)
            return None
        if api_key:
            requests = [dataclasses.replace(request, api_key=api_key) for request in requests]
        # A unit's retry window goes on across tasks (a worker killed, a slice handed on): a task
        # that starts again does not grant it a fresh window, but the time its run spent waiting
        # for a worker does not count: only from its first failure to its last one so far.
        clock = time.monotonic()
        spent = {
            pk: (last - first).total_seconds() for pk, (first, last) in self.failing_since.items()
        }
        return [
            Unit(
                pk,
                request,
                retried.get(pk, 0),
                failing_since=clock - spent[pk] if pk in spent else None,
            )
            for pk, request in zip(todo, requests, strict=True)
        ]

    def _before_sending(self, adapter, request) -> str:
        """Why the run may not be sent as configured, or "": the settings, checked by the
        adapter again (the configuration was saved under other rules, or edited in the
        database), and the allowed hosts (they may have narrowed since it was saved)."""
        refused = options_refusal(adapter.name, self.run.config_snapshot)
        if refused:
            return refused
        return provider_host_problem(request.base_url or adapter.default_base_url or "") or ""

    # -- the write loop ---------------------------------------------------------------------

    def _drive(self, sender: Sender) -> str:
        sender.start()
        # The renewal is also how a cancel is noticed: often enough that few requests start after.
        every = renew_every()
        next_renew = time.monotonic() + every
        outcome = "done"
        batch: list[Result] = []
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
                next_renew = now + every
                if not self._renew(sender):
                    outcome = "stopped"
                    sender.stop.set()
        sender.join()
        if sender.crash is not None:
            raise sender.crash
        if outcome == "done" and sender.open > 0:
            outcome = "stopped"
        return outcome

    def _renew(self, sender: Sender) -> bool:
        try:
            return lease_renew(self.run_pk, self.token, dict(sender.activity))
        except DatabaseError as error:
            logger.warning("run %s: could not renew its lease (%s)", self.run_pk, error)
            _reconnect()
            return True  # the lease may still hold; the next renewal tells

    def _flush(self, batch: list[Result]) -> bool:
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

    def _write(self, batch: list[Result]) -> bool:
        attempts = []
        # Numbered in the batch's order: a batch may hold several attempts of one unit (retries
        # that came back within one tick), and each gets its own number.
        numbers = dict(self.numbers)
        for result in batch:
            item_pk = result.unit.item_pk
            numbers[item_pk] = numbers.get(item_pk, 0) + 1
            attempts.append(attempt_row(self.run, item_pk, numbers[item_pk], result))
        failure = None
        answered, n_clean = set(self.answered), self.n_clean
        try:
            with transaction.atomic():
                Attempt.objects.bulk_create(attempts)
                rows = []
                for result, attempt in zip(batch, attempts, strict=True):
                    if result.completion is not None:
                        rows += self._response_rows(attempt)
                    elif result.final and not result.gave_up and failure is None:
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
        for result in batch:
            if result.gave_up:
                self.gave_up[result.unit.item_pk] = (
                    self._unit_message(result),
                    result.error.request_id,
                )
                logger.warning("run %s: %s", self.run_pk, self.gave_up[result.unit.item_pk][0])
        if failure is not None:
            fail_run(self.run_pk, storable(self._unit_message(failure)), failure.error.request_id)
            return True
        return False

    def _unit_message(self, result: Result) -> str:
        message = final_message(result)
        if result.unit.item_pk is not None:
            position = self.by_pk[result.unit.item_pk].position
            message = _("Item %(n)s: %(message)s") % {"n": position, "message": message}
        return message

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
            self.n_clean += parsed.compliant
        return [response_row(self.run, item, attempt, parsed) for item, parsed in pairs]

    def _write_progress(self) -> None:
        n = len(self.answered)
        Run.objects.filter(pk=self.run_pk).update(
            progress_at=Now(), compliance=(self.n_clean / n) if n else None
        )

    def _end(self) -> str:
        """Every unit answered: collected. Every unit answered or given up on: collected too,
        with the units that failed named in its error message; the experiment then waits for
        Retry (which sends them again) or for an editor to finish without them."""
        fields = {"status": Run.Status.COLLECTED, "finished_at": timezone.now()}
        if len(self.answered) < len(self.items):
            if not self.gave_up or [pk for pk in self._unanswered() if pk not in self.gave_up]:
                return "done"  # only some units were asked for (`only`)
            messages = [message for message, _rid in self.gave_up.values()]
            shown = messages[:MESSAGES_KEPT]
            if len(messages) > len(shown):
                shown.append(
                    _("... and %(n)d more items that failed in the same way.")
                    % {"n": len(messages) - len(shown)}
                )
            fields["error_message"] = storable("\n".join(shown))[:5000]
            fields["error_request_id"] = (list(self.gave_up.values())[-1][1] or "")[:200]
        updated = Run.objects.filter(pk=self.run_pk, status__in=ACTIVE).update(**fields)
        if updated:
            experiment_rollup(experiment_pk=self.run.experiment_id)
        return "done"


def _reconnect() -> None:
    try:
        connection.close()
    except Exception:
        pass


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
    fail_run(
        run_pk,
        _("Internal error while collecting: %(kind)s: %(error)s")
        % {
            "kind": type(error).__name__,
            "error": str(error)[:500],
        },
    )
