"""The sweep that queues again what nothing works on, and what the page says about a run."""

from __future__ import annotations

import dataclasses
import logging
from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.translation import gettext as _

from ...models import (
    Experiment,
    Run,
)
from . import dispatch
from .lease import RUN_LEASES, renew_every
from .rollup import experiment_rollup, run_rollup
from .units import ACTIVE, run_units, setting

logger = logging.getLogger("probe.collection")


# The sweep -----------------------------------------------------------------------------------


def sweep_stale_runs() -> dict:
    """Queue again every run that should be collecting but that nothing works on.

    A run is stale when it is queued or running, is not manual, has units without a response,
    no live lease, and either its last task was taken by a worker that has since died (its
    lease ran out after the task was sent: sent again at once), or no task was sent for
    PROBE_REQUEUE_AFTER_SECONDS (never sent, the send failed, or the message was lost with the
    broker). A run sent lately and not yet taken waits in the broker's queue for a free worker:
    sending it again would only lengthen the queue. Sending a run twice is safe anyway: the lease
    lets one task work on it, and a unit with a stored reply is parsed from it, never asked again.
    Runs whose units are all answered but were never rolled up (a worker died in between) are
    rolled up. Returns what it did, for the log.
    """
    stale = (
        Run.objects.filter(RUN_LEASES.unattended(), experiment__status=Experiment.Status.COLLECTING)
        .exclude(config_snapshot__provider="manual")
        .select_related("experiment")
    )
    requeued, rolled_up = [], []
    for run in stale:
        if run_units(run):
            if dispatch.send_run(run.pk):
                requeued.append(run.pk)
        else:
            run_rollup(run_pk=run.pk)
            rolled_up.append(run.pk)
    # An experiment whose runs all finished while the roll-up was lost.
    for pk in (
        Experiment.objects.filter(status=Experiment.Status.COLLECTING)
        .exclude(runs__status__in=[s for s in Run.Status.values if s not in Run.FINISHED])
        .values_list("pk", flat=True)
    ):
        experiment_rollup(experiment_pk=pk)
    if requeued or rolled_up:
        logger.warning("sweep: queued runs %s again, rolled up %s", requeued, rolled_up)
    return {"requeued": requeued, "rolled_up": rolled_up}


# What the page says about a run ----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RunHealth:
    """What an active run is doing, for the pages (docs/collection.md, "What the experiment page
    says"): `state` is one of

    - collecting: a live worker holds it and has requests in flight (or is between them);
    - waiting_slot, retrying, waiting_store: a live worker holds it but sends nothing now:
      every slot of the provider's limit is taken, its units wait out a retry delay, or the
      lease store (Redis) cannot be reached;
    - waiting: no live worker holds it (just queued, or its worker stopped renewing the lease:
      killed, lost, or cut off): it waits for a worker, and the sweep sends it again;
    - stalled: nothing stored for PROBE_STALL_SECONDS, with the reason.
    """

    state: str
    since: datetime | None = None
    reason: str = ""


def _holder_live(run: Run, now: datetime) -> bool:
    """The lease was renewed within a term, and within one sweep interval whatever the term
    (but never less than two renewal periods: a live holder's renewal may come a little late)."""
    if run.lease_expires is None:
        return False
    term = setting("PROBE_RUN_LEASE_SECONDS")
    renewed = run.lease_expires - timedelta(seconds=term)
    within = max(min(term, setting("PROBE_SWEEP_SECONDS")), 2 * renew_every())
    return now - renewed < timedelta(seconds=within)


def _held_reason(activity: dict) -> str:
    if activity.get("waiting_slot"):
        return _("every slot of the provider's concurrency limit is taken (by other runs)")
    if activity.get("last_error"):
        return _("the provider keeps failing; retrying after: %(error)s") % {
            "error": activity["last_error"]
        }
    if activity.get("store_error"):
        return _("the lease store (Redis) cannot be reached: %(error)s") % {
            "error": activity["store_error"]
        }
    return _("a worker holds the run but nothing arrives")


def run_health(run: Run, now: datetime | None = None) -> RunHealth | None:
    """None for a run that is not queued or running (its status says it all), or a manual run."""
    if run.status not in ACTIVE or run.is_manual:
        return None
    now = now or timezone.now()
    stall = timedelta(seconds=setting("PROBE_STALL_SECONDS"))
    activity = run.activity or {}
    last = max(
        (t for t in (run.progress_at, run.queued_at) if t is not None),
        default=None,
    )
    quiet = last is not None and now - last >= stall
    if _holder_live(run, now):
        if activity.get("in_flight"):
            return RunHealth("collecting")
        if quiet:
            return RunHealth("stalled", since=last, reason=_held_reason(activity))
        if activity.get("store_error"):
            return RunHealth("waiting_store")
        if activity.get("waiting_slot"):
            return RunHealth("waiting_slot")
        if activity.get("retry_wait"):
            return RunHealth("retrying")
        return RunHealth("collecting")
    if not quiet:
        return RunHealth("waiting")
    return RunHealth(
        "stalled",
        since=last,
        reason=_(
            "no worker is working on it; is a worker running? It is queued again automatically "
            "when one is."
        ),
    )
