""" "Reconciliation waits for a lead": told once to the team's owners and editors when the
experiment becomes reconcilable, whatever the scorers' reveals.

Reconcilable: at least two scorers have finished what they judge (reconciliation needs them,
``reconciliation_start``) and every response has the judgements it needs: with the items
shared out, one from each of the k scorers of its item (fewer where the pool had nobody left
to hand a departed scorer's item on to); with everyone scoring everything, two finished
scorers have judged every response.

Asked after every decision that completes a scorer's judging, at a reveal and after a hand-on;
the checks are counts only, and it stops at the first once the leads have been told.
"""

from django.db.models import Count, Q
from django.urls import reverse

from probe.models import Experiment, Notification, Response
from probe.services import notifications
from scoring.allocation.selectors import allocation_of, item_counts
from scoring.models import Reconciliation
from scoring.reconciliation.selectors import scorer_progress


def _key(experiment: Experiment) -> str:
    return f"reconcile:{experiment.pk}"


def reconcilable(experiment: Experiment) -> bool:
    """Every response has its required judgements, and two scorers have finished."""
    if sum(1 for p in scorer_progress(experiment) if p.finished) < 2:
        return False
    allocation = allocation_of(experiment)
    if allocation is None:
        return True
    holders = item_counts(experiment)
    settled = (
        Response.objects.filter(run__experiment=experiment)
        .annotate(n=Count("judgements", filter=Q(judgements__needs_recheck=False)))
        .values_list("item_id", "n")
    )
    return all(n >= min(allocation.per_item, holders.get(item, 0)) for item, n in settled)


def reconciliation_waits(experiment: Experiment) -> bool:
    """Tell the leads once that reconciliation waits, if it does now; True when told now."""
    if Notification.objects.filter(key=_key(experiment)).exists():
        return False
    if Reconciliation.objects.filter(experiment=experiment).exists():
        return False
    if not reconcilable(experiment):
        return False
    notifications.notify(
        users=notifications.leads_of(experiment),
        kind=Notification.Kind.RECONCILE,
        experiment=experiment,
        url=reverse("scoring:scorers", kwargs={"experiment_pk": experiment.pk}),
        key=_key(experiment),
    )
    return True
