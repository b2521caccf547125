"""Queueing a grading job's task, by name through the Celery app (as collection's dispatch)."""

from __future__ import annotations

import logging

from celery import current_app
from django.conf import settings
from django.utils import timezone

from .models import GradingJob

logger = logging.getLogger("grading")

GRADE_JOB_TASK = "grading.tasks.grade_job"


def send_job(job_pk: int) -> bool:
    """Send one grading task for the job; a broker out of reach leaves it for the sweep."""
    GradingJob.objects.filter(pk=job_pk).update(enqueued_at=timezone.now())
    queue = getattr(settings, "PROBE_COLLECTION_QUEUE", None)
    try:
        current_app.send_task(
            GRADE_JOB_TASK,
            kwargs={"job_pk": job_pk},
            retry=True,
            retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5},
            **({"queue": queue} if queue else {}),
        )
    except Exception as error:  # kombu raises OperationalError and friends
        logger.warning("grading job %s: broker unreachable (%s); the sweep resends", job_pk, error)
        GradingJob.objects.filter(pk=job_pk).update(enqueued_at=None)
        return False
    return True
