"""The sweep that queues again what nothing works on, and what the page says about a run."""

from __future__ import annotations

import dataclasses
import logging
from datetime import datetime, timedelta

from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.translation import gettext as _

from ...models import (
    Experiment,
    Run,
)
from . import dispatch
from .rollup import experiment_rollup, run_rollup
from .units import ACTIVE, run_units, setting

logger = logging.getLogger("probe.collection")


# The sweep -----------------------------------------------------------------------------------


def sweep_stale_runs() -> dict:
    """Queue again every run that should be collecting but that nothing works on.

    A run is stale when it is queued or running, is not manual, has units without a response,
    no live lease, no task sent and no attempt for PROBE_REQUEUE_AFTER_SECONDS. Sending it again
    is safe: the lease lets one task work on it, and a unit with a stored reply is parsed from it,
    never asked again. Runs whose units are all answered but were never rolled up (a worker died
    in between) are rolled up. Returns what it did, for the log.
    """
    cutoff = timezone.now() - timedelta(seconds=setting("PROBE_REQUEUE_AFTER_SECONDS"))
    stale = (
        Run.objects.filter(status__in=ACTIVE, experiment__status=Experiment.Status.COLLECTING)
        .exclude(config_snapshot__provider="manual")
        .filter(Q(lease_expires__isnull=True) | Q(lease_expires__lt=Now()))
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=cutoff))
        .filter(Q(progress_at__isnull=True) | Q(progress_at__lt=cutoff))
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
    """Whether anything works on an active run: `state` is collecting, waiting or stalled."""

    state: str
    since: datetime | None = None
    reason: str = ""


def run_health(run: Run, now: datetime | None = None) -> RunHealth | None:
    """None for a run that is not queued or running (its status says it all), or a manual run."""
    if run.status not in ACTIVE or run.is_manual:
        return None
    now = now or timezone.now()
    stall = timedelta(seconds=setting("PROBE_STALL_SECONDS"))
    held = run.lease_expires is not None and run.lease_expires > now
    activity = run.activity or {}
    last = max(
        (t for t in (run.progress_at, run.queued_at) if t is not None),
        default=None,
    )
    if held:
        if activity.get("in_flight") or last is None or now - last < stall:
            return RunHealth("collecting")
        if activity.get("waiting_slot"):
            reason = _("every slot of the provider's concurrency limit is taken (by other runs)")
        elif activity.get("last_error"):
            reason = _("the provider keeps failing; retrying after: %(error)s") % {
                "error": activity["last_error"]
            }
        elif activity.get("store_error"):
            reason = _("the lease store (Redis) cannot be reached: %(error)s") % {
                "error": activity["store_error"]
            }
        else:
            reason = _("a worker holds the run but nothing arrives")
        return RunHealth("stalled", since=last, reason=reason)
    if last is None or now - last < stall:
        return RunHealth("waiting")
    return RunHealth(
        "stalled",
        since=last,
        reason=_(
            "no worker is working on it; is a worker running? It is queued again automatically "
            "when one is."
        ),
    )
