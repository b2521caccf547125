"""Celery tasks: grade a job (a slice at a time, as collection's collect_run, through the same
slice: probe.services.collection.slices), and the sweep that queues again a job nothing works
on (a killed worker, a broker restart)."""

from celery import shared_task

from probe.services.collection.slices import slice_run, task_limits

from . import engine
from .dispatch import send_job


@shared_task(bind=True, acks_late=False, max_retries=None, **task_limits())
def grade_job(self, *, job_pk: int) -> str:
    """Grade one job for up to a slice; hand what is left to a fresh task."""
    return slice_run(
        self,
        work=lambda deadline: engine.job_grade(job_pk=job_pk, deadline=deadline),
        holder_live=lambda: engine.lease_holder_live(job_pk),
        fail=lambda error: engine.fail_job(job_pk, f"{type(error).__name__}: {error}"),
        resend=lambda: send_job(job_pk),
    )


@shared_task(ignore_result=True)
def sweep_grading() -> dict:
    return engine.sweep_stale_jobs()
