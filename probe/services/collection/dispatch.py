"""Queueing a run's collection task. The task is sent by name through the Celery app, so this
module needs nothing of probe.tasks (which imports the collection services)."""

from __future__ import annotations

import logging
from functools import partial

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ...models import Run

logger = logging.getLogger("probe.collection")

# The name of the task that collects a run (probe.tasks.collect_run).
COLLECT_RUN_TASK = "probe.tasks.collect_run"


def _queue_options() -> dict:
    # Tests (and a deployment that wants a separate collection queue) name it in settings.
    queue = getattr(settings, "PROBE_COLLECTION_QUEUE", None)
    return {"queue": queue} if queue else {}


def send_run(run_pk: int) -> bool:
    """Send one collection task for the run. A broker that cannot be reached is not an error
    here: the run stays queued, marked as never sent, and the next sweep sends it again."""
    Run.objects.filter(pk=run_pk).update(enqueued_at=timezone.now())
    try:
        current_app.send_task(
            COLLECT_RUN_TASK,
            kwargs={"run_pk": run_pk},
            retry=True,
            retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5},
            **_queue_options(),
        )
    except Exception as error:  # kombu raises OperationalError and friends
        logger.warning(
            "run %s: could not reach the broker (%s); the sweep will resend", run_pk, error
        )
        Run.objects.filter(pk=run_pk).update(enqueued_at=None)
        return False
    return True


def queue_run(run: Run) -> None:
    """Send the run's collection task once the current transaction commits.

    The run is marked as sent (`enqueued_at`) in the transaction that makes it queued, so the
    sweep, which sends again only runs not sent lately, never sees it queued and unsent and
    sends it a second time between the commit and the send."""
    run.enqueued_at = timezone.now()
    Run.objects.filter(pk=run.pk).update(enqueued_at=run.enqueued_at)
    transaction.on_commit(partial(send_run, run.pk))
