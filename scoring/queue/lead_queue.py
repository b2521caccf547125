"""A lead's queue across the team's experiments: keys to review, disputes, items to reconcile."""

from dataclasses import dataclass

from probe.models import Experiment
from scoring.models import KeyDispute
from scoring.reconciliation.selectors import reconcile_summary
from scoring.review.selectors import review_queue


@dataclass
class LeadRow:
    experiment: Experiment
    keys_open: int  # key review entries still to check
    disputes_open: int
    reconcile_open: int | None  # disagreements still to settle; None before reconciliation

    @property
    def anything(self) -> bool:
        return bool(self.keys_open or self.disputes_open or self.reconcile_open)


def lead_queue(team, *, user, membership) -> list[LeadRow]:
    """Each collected experiment of the team with what waits for a lead, as counts read now
    (the key review's own reading, so a scorer-lead's blinding holds as it does there)."""
    experiments = Experiment.objects.filter(team=team, status=Experiment.Status.COLLECTED).order_by(
        "-created"
    )
    disputes = {}
    for experiment_id in KeyDispute.objects.filter(
        experiment__team=team, status=KeyDispute.Status.OPEN
    ).values_list("experiment_id", flat=True):
        disputes[experiment_id] = disputes.get(experiment_id, 0) + 1
    rows = []
    for experiment in experiments:
        entries = review_queue(experiment, user=user, membership=membership)
        summary = reconcile_summary(experiment)
        rows.append(
            LeadRow(
                experiment=experiment,
                keys_open=sum(1 for e in entries if e.is_open),
                disputes_open=disputes.get(experiment.pk, 0),
                reconcile_open=summary.open if summary is not None else None,
            )
        )
    return rows
