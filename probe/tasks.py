"""Celery tasks: thin wrappers that drive one collection unit (see services/collection.py).

Late acknowledgement with reject-on-worker-lost: a worker killed mid-task leaves the message
to be delivered again, and the unit is idempotent, so the redelivery finishes the job without
a second response or a second successful provider call.
"""

from celery import shared_task
from django.db import DatabaseError

from .services import collection

# A database outage is worth waiting out for a while before the run is marked failed.
DB_RETRY_SECONDS = 5
DB_RETRIES = 12


# max_retries=None: Celery must not stop the retries (its default is 3, and self.retry(
# max_retries=None) falls back to that default); the collector counts provider attempts itself,
# from the Attempt rows, and waits for a free slot are not attempts at all.
@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def collect_unit(self, *, run_pk: int, item_pk: int | None = None) -> None:
    """One unit of a run: its whole sheet (item_pk None) or one item. Retries itself as told."""
    try:
        delay = collection.collect_unit_once(run_pk=run_pk, item_pk=item_pk)
    except DatabaseError as error:
        if self.request.retries < DB_RETRIES and not self.request.called_directly:
            raise self.retry(countdown=DB_RETRY_SECONDS) from error
        collection.fail_run_unexpectedly(run_pk=run_pk, error=error)
        raise
    except Exception as error:
        collection.fail_run_unexpectedly(run_pk=run_pk, error=error)
        raise
    if delay is not None:
        raise self.retry(countdown=delay)
