"""Celery tasks: grade a job (a slice at a time, as collection's collect_run), and the sweep
that queues again a job nothing works on (a killed worker, a broker restart)."""

import time

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError

from probe.services.collection import setting

from . import engine
from .dispatch import send_job

DB_RETRY_SECONDS = 5
DB_RETRIES = 12
LEASE_WAIT_STEP = 1.0


@shared_task(
    bind=True,
    acks_late=False,
    max_retries=None,
    soft_time_limit=int(getattr(settings, "PROBE_RUN_SLICE_SECONDS", 600)) + 600 + 60,
    time_limit=int(getattr(settings, "PROBE_RUN_SLICE_SECONDS", 600)) + 600 + 120,
)
def grade_job(self, *, job_pk: int) -> str:
    """Grade one job for up to a slice; hand what is left to a fresh task."""
    deadline = time.monotonic() + setting("PROBE_RUN_SLICE_SECONDS")
    try:
        outcome = engine.job_grade(job_pk=job_pk, deadline=deadline)
        wait_until = time.monotonic() + setting("PROBE_RUN_LEASE_SECONDS") + 1
        while (
            outcome == "busy"
            and time.monotonic() < wait_until
            and not engine.lease_holder_live(job_pk)
        ):
            time.sleep(LEASE_WAIT_STEP)
            outcome = engine.job_grade(job_pk=job_pk, deadline=deadline)
    except DatabaseError as error:
        if self.request.retries < DB_RETRIES and not self.request.called_directly:
            raise self.retry(countdown=DB_RETRY_SECONDS) from error
        engine.fail_job(job_pk, f"{type(error).__name__}: {error}")
        raise
    except Exception as error:
        engine.fail_job(job_pk, f"{type(error).__name__}: {error}")
        raise
    if outcome == "sliced":
        send_job(job_pk)
    return outcome


@shared_task(ignore_result=True)
def sweep_grading() -> dict:
    return engine.sweep_stale_jobs()
