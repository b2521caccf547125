"""Celery tasks: collect a run, and the periodic sweep that queues again what nothing works on.

One task per run (services/collection/ sends its requests concurrently, within the
configuration's limit). Messages are acknowledged when a worker process starts the task, and a
worker takes a message only when it has a free process (CELERY_WORKER_DISABLE_PREFETCH): a worker
killed mid-run leaves nothing unacknowledged in the broker. What it held is recovered by the
sweep (Celery beat, every PROBE_SWEEP_SECONDS), which queues a run again once its lease has run
out, never by redelivery. The run's lease lets one task at a time work on it, and the units are
idempotent, so a duplicate never stores a second response nor repeats a provider call that
succeeded.
"""

import logging
import time

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError

from .services import collection

logger = logging.getLogger("probe.collection")

# A database outage at the start of a task is worth waiting out before the run is marked failed.
DB_RETRY_SECONDS = 5
DB_RETRIES = 12
# A task that finds the run's lease held by a holder that stopped renewing it (killed a moment
# ago) looks again this often until the lease runs out; a live holder's duplicate leaves at once.
LEASE_WAIT_STEP = 1.0


def _slice_seconds() -> float:
    return collection.setting("PROBE_RUN_SLICE_SECONDS")


# The hard limit fits a whole slice plus the longest provider call that may still be in flight
# when the slice ends (adapters' read timeout), plus a margin.
@shared_task(
    bind=True,
    acks_late=False,
    max_retries=None,
    soft_time_limit=int(getattr(settings, "PROBE_RUN_SLICE_SECONDS", 600)) + 600 + 60,
    time_limit=int(getattr(settings, "PROBE_RUN_SLICE_SECONDS", 600)) + 600 + 120,
)
def collect_run(self, *, run_pk: int) -> str:
    """Collect one run for up to a slice; hand what is left to a fresh task."""
    deadline = time.monotonic() + _slice_seconds()
    try:
        outcome = collection.run_collect(run_pk=run_pk, deadline=deadline)
        # Held by another task: a live one works on it (this is a duplicate: leave); one that
        # stopped renewing died a moment ago, and its lease runs out within a term.
        wait_until = time.monotonic() + collection.setting("PROBE_RUN_LEASE_SECONDS") + 1
        while (
            outcome == "busy"
            and time.monotonic() < wait_until
            and not collection.lease_holder_live(run_pk)
        ):
            time.sleep(LEASE_WAIT_STEP)
            outcome = collection.run_collect(run_pk=run_pk, deadline=deadline)
    except DatabaseError as error:
        if self.request.retries < DB_RETRIES and not self.request.called_directly:
            raise self.retry(countdown=DB_RETRY_SECONDS) from error
        collection.fail_run_unexpectedly(run_pk=run_pk, error=error)
        raise
    except Exception as error:
        collection.fail_run_unexpectedly(run_pk=run_pk, error=error)
        raise
    if outcome == "sliced":
        collection.send_run(run_pk)
    return outcome


@shared_task(bind=True, max_retries=None)
def collect_unit(self, *, run_pk: int, item_pk: int | None = None) -> str:
    """Messages queued by earlier versions (one per unit): collect the whole run instead."""
    return collect_run(run_pk=run_pk)


@shared_task(ignore_result=True)
def sweep_collection() -> dict:
    """Queue again every active run nothing works on (see collection.sweep_stale_runs)."""
    return collection.sweep_stale_runs()
