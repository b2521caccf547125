"""Sending a run's requests concurrently, from an asyncio loop in a thread of its own."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import queue
import random
import threading
import time

from adapters import (
    AdapterError,
    Completion,
    CompletionRequest,
    ConfigurationError,
    new_async_client,
)
from adapters.errors import BACKOFF_INITIAL, BACKOFF_JITTER, MAX_RETRIES

from ... import limits
from .units import SLOT_POLL, STORE_BACKOFF, setting

logger = logging.getLogger("probe.collection")


# The collector -------------------------------------------------------------------------------


@dataclasses.dataclass
class Unit:
    item_pk: int | None
    request: CompletionRequest
    retried: int = 0  # retried attempts since the run was (re)queued
    failing_since: float | None = None  # time.monotonic() of its first failure in a row
    waited: float = 0.0  # the retry delays it was given since then


@dataclasses.dataclass
class Result:
    unit: Unit
    completion: Completion | None = None
    error: AdapterError | None = None
    final: bool = False  # no further attempt of this unit
    gave_up: bool = False  # final because its retry window ran out: the unit alone fails
    delay: float | None = None  # the retry delay asked for a retryable error


def unit_retry_delay(error: AdapterError, retried: int, failing_for: float, rng=random.random):
    """Seconds before the next attempt of a unit that failed with a retryable error, or None
    when that attempt would start after the unit's retry window (PROBE_UNIT_RETRY_SECONDS).

    The server's delay when it gave one (past the retry table's first MAX_RETRIES, never less
    than the backoff, so a server answering "retry at once" is not hammered for ten minutes);
    else backoff doubling from 0.5 s up to PROBE_UNIT_BACKOFF_MAX_SECONDS, jittered.
    """
    backoff = min(BACKOFF_INITIAL * 2**retried, setting("PROBE_UNIT_BACKOFF_MAX_SECONDS"))
    backoff *= 1 - BACKOFF_JITTER * rng()
    if error.retry_after is not None and error.retry_after > 0:
        delay = float(error.retry_after)
        if retried >= MAX_RETRIES:
            delay = max(delay, backoff)
    else:
        delay = backoff
    if failing_for + delay > setting("PROBE_UNIT_RETRY_SECONDS"):
        return None
    return delay


class Sender:
    """Sends a run's requests concurrently from an asyncio loop in a thread of its own.

    At most `limit` requests of this run are in flight, each holding a slot of the provider's
    shared limit (limits.py), taken and given back with awaited calls so that the lease store's
    round trips never hold up the other requests. A unit that failed with a retryable error
    comes back after its delay, without any message to the broker, until its retry window runs
    out. Results go to `results`, which the collector's own thread writes to the database in
    batches.
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
        self.results: queue.Queue[Result | None] = queue.Queue()
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
        self.leases = self.limiter.session()
        try:
            await self._send_all()
        finally:
            await self.leases.aclose()

    async def _send_all(self) -> None:
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
            result = Result(unit)
            try:
                result.completion = await self.adapter.acomplete(unit.request, client=client)
            except AdapterError as error:
                result.error = error
            finally:
                self.activity["in_flight"] -= 1
                self._held.discard(lease)
                await self._release(lease)
            if result.error is not None:
                self._decide(result)
            self.results.put(result)
            if result.completion is not None or result.final:
                self._finish_unit()
            else:
                self._come_back(unit, result.delay)

    def _decide(self, result: Result) -> None:
        error, unit = result.error, result.unit
        if isinstance(error, ConfigurationError):
            result.final = True
            return
        # The retry table's word, as the provider's adapter refines it for its own error bodies.
        error.retryable = self.adapter.should_retry(error)
        if not error.retryable:
            result.final = True  # the request itself is refused: the run fails
            return
        now = time.monotonic()
        if unit.failing_since is None:
            unit.failing_since = now
        # Wall time, or the delays given when a test records them instead of sleeping.
        failing_for = max(now - unit.failing_since, unit.waited)
        result.delay = unit_retry_delay(error, unit.retried, failing_for)
        if result.delay is None:
            result.final = result.gave_up = True
            return
        self.activity["last_error"] = (error.message or error.kind)[:300]
        unit.retried += 1
        unit.waited += result.delay

    def _come_back(self, unit: Unit, delay: float) -> None:
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
                    lease = await self.leases.acquire(self.limit_key, self.limit, self.slot_seconds)
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

    async def _release(self, lease) -> None:
        try:
            await self.leases.release(lease)
        except Exception:  # the lease runs out by itself
            pass

    async def _renew_slots(self) -> None:
        while True:
            await asyncio.sleep(self.slot_seconds / 3)
            try:
                await self.leases.renew(list(self._held))
            except Exception:  # a Redis hiccup: a lease may lapse early, which only frees a slot
                pass
