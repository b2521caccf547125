"""One task's slice of leased work (a run's collection, a grading job), as both Celery tasks
run it: work up to a slice, wait out a lease whose holder died a moment ago, wait out a short
database outage, mark the work failed on anything else, and hand what is left to a fresh task.

Messages are acknowledged when a worker process starts the task (``acks_late=False``): what a
killed worker held is recovered by the sweep once its lease runs out, never by redelivery.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError

from .units import setting

# A database outage at the start of a task is worth waiting out before the work is marked failed.
DB_RETRY_SECONDS = 5
DB_RETRIES = 12
# A task that finds the lease held by a holder that stopped renewing it (killed a moment ago)
# looks again this often until the lease runs out; a live holder's duplicate leaves at once.
LEASE_WAIT_STEP = 1.0


def task_limits() -> dict:
    """The Celery limits of a slice's task: the hard limit fits a whole slice plus the longest
    provider call that may still be in flight when the slice ends (adapters' read timeout),
    plus a margin."""
    slice_seconds = int(getattr(settings, "PROBE_RUN_SLICE_SECONDS", 600))
    return {"soft_time_limit": slice_seconds + 600 + 60, "time_limit": slice_seconds + 600 + 120}


def slice_run(
    task,
    *,
    work: Callable[[float], str],
    holder_live: Callable[[], bool],
    fail: Callable[[BaseException], None],
    resend: Callable[[], object],
) -> str:
    """Run one slice of ``work(deadline)`` (an outcome: "done", "sliced", "busy", ...) in the
    bound Celery ``task``. "busy": another task holds the lease; a live holder's duplicate
    leaves, one that stopped renewing died a moment ago and its lease runs out within a term.
    A database error is retried ``DB_RETRIES`` times, then fails the work, as anything else
    does (``fail(error)``, then raised). "sliced": ``resend()`` queues the rest."""
    deadline = time.monotonic() + setting("PROBE_RUN_SLICE_SECONDS")
    try:
        outcome = work(deadline)
        wait_until = time.monotonic() + setting("PROBE_RUN_LEASE_SECONDS") + 1
        while outcome == "busy" and time.monotonic() < wait_until and not holder_live():
            time.sleep(LEASE_WAIT_STEP)
            outcome = work(deadline)
    except DatabaseError as error:
        if task.request.retries < DB_RETRIES and not task.request.called_directly:
            raise task.retry(countdown=DB_RETRY_SECONDS) from error
        fail(error)
        raise
    except Exception as error:
        fail(error)
        raise
    if outcome == "sliced":
        resend()
    return outcome
