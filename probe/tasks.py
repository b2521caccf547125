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

from celery import shared_task

from .services import collection
from .services.collection.slices import slice_run, task_limits

logger = logging.getLogger("probe.collection")


@shared_task(bind=True, acks_late=False, max_retries=None, **task_limits())
def collect_run(self, *, run_pk: int) -> str:
    """Collect one run for up to a slice; hand what is left to a fresh task (the slice, its
    waits and retries: collection.slices.slice_run, as grading's task)."""
    return slice_run(
        self,
        work=lambda deadline: collection.run_collect(run_pk=run_pk, deadline=deadline),
        holder_live=lambda: collection.lease_holder_live(run_pk),
        fail=lambda error: collection.fail_run_unexpectedly(run_pk=run_pk, error=error),
        resend=lambda: collection.send_run(run_pk),
    )


@shared_task(bind=True, max_retries=None)
def collect_unit(self, *, run_pk: int, item_pk: int | None = None) -> str:
    """Messages queued by earlier versions (one per unit): collect the whole run instead."""
    return collect_run(run_pk=run_pk)


@shared_task(ignore_result=True)
def sweep_collection() -> dict:
    """Queue again every active run nothing works on (see collection.sweep_stale_runs)."""
    return collection.sweep_stale_runs()
