"""Leases on runs: one worker at a time collects a run."""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta

from django.db.models import Case, F, Q, Value, When
from django.db.models.functions import Coalesce, Now
from django.utils import timezone

from ...models import (
    Run,
)
from .units import ACTIVE, RENEW_AT_MOST_EVERY, setting

logger = logging.getLogger("probe.collection")


# Leases on runs -----------------------------------------------------------------------------
#
# One worker at a time collects a run: it holds the run's lease (a token and an expiry, by the
# database's clock) and renews it every 2 s while it works. A duplicate task finds the lease
# held by a live worker and leaves at once; a worker that dies stops renewing, its lease runs out
# PROBE_RUN_LEASE_SECONDS after its last renewal, and the sweep queues the run again.


def _lease_expiry():
    return Now() + timedelta(seconds=setting("PROBE_RUN_LEASE_SECONDS"))


class Leases:
    """Leases on the rows of a model that is worked on as a run is: its ``lease_token``,
    ``lease_expires``, ``status``, ``started_at`` and ``activity`` fields (a run; a grading job
    uses the same timings)."""

    def __init__(self, model, active, queued, running):
        self.model, self.active, self.queued, self.running = model, tuple(active), queued, running

    def take(self, pk: int) -> str | None:
        """Take the lease if nobody holds it and the row is active; the token, or None."""
        token = secrets.token_hex(16)
        taken = (
            self.model.objects.filter(pk=pk, status__in=self.active)
            .filter(Q(lease_expires__isnull=True) | Q(lease_expires__lt=Now()))
            .update(
                lease_token=token,
                lease_expires=_lease_expiry(),
                status=Case(
                    When(status=self.queued, then=Value(self.running)),
                    default=F("status"),
                ),
                started_at=Coalesce(F("started_at"), Now()),
            )
        )
        return token if taken else None

    def renew(self, pk: int, token: str, activity: dict) -> bool:
        """Renew a held lease and say what the worker is doing; False: stop (cancelled,
        failed, or the lease was lost)."""
        return (
            self.model.objects.filter(pk=pk, lease_token=token, status__in=self.active).update(
                lease_expires=_lease_expiry(), activity=activity
            )
            > 0
        )

    def release(self, pk: int, token: str) -> None:
        self.model.objects.filter(pk=pk, lease_token=token).update(
            lease_token="", lease_expires=None, activity={}
        )

    def unattended(self) -> Q:
        """The rows nobody works on (for the sweep): no live lease, and either the last task
        was taken by a worker that has since died (its lease was renewed after the task was
        sent: the lease's last renewal is its expiry less a term), or no task was sent for
        PROBE_REQUEUE_AFTER_SECONDS (never sent, the send failed, or the message was lost with
        the broker). A row sent lately and not yet taken waits in the broker's queue."""
        cutoff = timezone.now() - timedelta(seconds=setting("PROBE_REQUEUE_AFTER_SECONDS"))
        term = timedelta(seconds=setting("PROBE_RUN_LEASE_SECONDS"))
        holder_died = Q(lease_expires__isnull=False, enqueued_at__lt=F("lease_expires") - term)
        not_sent_lately = Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=cutoff)
        no_lease = Q(lease_expires__isnull=True) | Q(lease_expires__lt=Now())
        return Q(status__in=self.active) & no_lease & (holder_died | not_sent_lately)

    def holder_live(self, pk: int) -> bool:
        """Whether the lease was renewed within the last two renewal periods: its holder is
        working (a duplicate task can leave at once), not a worker that died a moment ago."""
        term = setting("PROBE_RUN_LEASE_SECONDS")
        fresh = Now() + timedelta(seconds=term - 2 * renew_every())
        return self.model.objects.filter(pk=pk, lease_expires__gt=fresh).exists()


RUN_LEASES = Leases(Run, ACTIVE, Run.Status.QUEUED, Run.Status.RUNNING)


def lease_take(run_pk: int) -> str | None:
    """Take the run's lease if nobody holds it and the run is active; the token, or None."""
    return RUN_LEASES.take(run_pk)


def lease_renew(run_pk: int, token: str, activity: dict) -> bool:
    """Renew a held lease and say what the collector is doing; False: stop (cancelled, failed,
    or the lease was lost)."""
    return RUN_LEASES.renew(run_pk, token, activity)


def lease_release(run_pk: int, token: str) -> None:
    RUN_LEASES.release(run_pk, token)


def renew_every() -> float:
    """How often a collector renews its lease (and notices a cancel)."""
    return min(setting("PROBE_RUN_LEASE_SECONDS") / 3, RENEW_AT_MOST_EVERY)


def lease_holder_live(run_pk: int) -> bool:
    """Whether the run's lease was renewed within the last two renewal periods."""
    return RUN_LEASES.holder_live(run_pk)
