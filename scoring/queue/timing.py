"""Each scorer's time: per item, in all and per decision, read from when their decisions were made.

A decision's time runs from the scorer's previous decision, or from when its item was put before
them if that came later, to the decision (the browser's clock, sent with each decision from the
page's queue; the server's clock for decisions made without it). A gap over IDLE_SECONDS is
time away from the page, not scoring: it is left out and counted apart. Nothing here names a
sheet: the times are per item and per scorer.
"""

import statistics
from dataclasses import dataclass, field

from django.db.models import Min

from scoring.models import Assignment, JudgementChange

IDLE_SECONDS = 120


@dataclass
class ScorerTime:
    assignment: Assignment
    per_item: dict[int, float] = field(default_factory=dict)  # position -> seconds
    per_item_decisions: dict[int, int] = field(default_factory=dict)  # position -> decisions timed
    gaps: list[float] = field(default_factory=list)  # seconds per decision
    idle: int = 0  # gaps left out

    @property
    def active(self) -> float:
        return sum(self.per_item.values())

    @property
    def decisions(self) -> int:
        return len(self.gaps)

    @property
    def per_minute(self) -> float | None:
        return 60 * self.decisions / self.active if self.active else None

    @property
    def median_decision(self) -> float | None:
        return statistics.median(self.gaps) if self.gaps else None

    @property
    def p90_decision(self) -> float | None:
        if len(self.gaps) < 2:
            return self.median_decision
        return statistics.quantiles(self.gaps, n=10, method="inclusive")[-1]

    def item_rate(self, position: int) -> float | None:
        """Decisions per minute on one item (None when no time was counted on it)."""
        seconds = self.per_item.get(position)
        return 60 * self.per_item_decisions.get(position, 0) / seconds if seconds else None

    @property
    def median_item(self) -> float | None:
        return statistics.median(self.per_item.values()) if self.per_item else None

    @property
    def items(self) -> list[tuple[int, float]]:
        return sorted(self.per_item.items())


def scorer_time(assignment: Assignment) -> ScorerTime:
    """One scorer's time on one experiment (one query)."""
    decisions = (
        JudgementChange.objects.filter(assignment=assignment)
        .values("batch")
        .annotate(
            decided=Min("decided_at"),
            created=Min("created"),
            shown=Min("shown_at"),
            position=Min("judgement__response__item__position"),
        )
    )
    rows = sorted(
        ((d["decided"] or d["created"], d["shown"], d["position"]) for d in decisions),
        key=lambda row: row[0],
    )
    result = ScorerTime(assignment=assignment)
    previous = None
    for decided, shown, position in rows:
        start = previous
        if shown is not None and (start is None or shown > start):
            start = shown
        previous = decided
        if start is None:
            continue  # the first decision without a display time: no start to count from
        seconds = max((decided - start).total_seconds(), 0.0)
        if seconds > IDLE_SECONDS:
            result.idle += 1
            continue
        result.gaps.append(seconds)
        result.per_item[position] = result.per_item.get(position, 0.0) + seconds
        result.per_item_decisions[position] = result.per_item_decisions.get(position, 0) + 1
    return result


def experiment_times(experiment, *, visible_to=None) -> list[ScorerTime]:
    """Every scorer's time on the experiment who has revealed; with ``visible_to``, a user who
    scores the experiment and is not yet revealed sees only their own (no scorer sees another's
    before reconciliation)."""
    assignments = experiment.assignments.select_related("user").order_by("user__username")
    if visible_to is not None and not hasattr(experiment, "reconciliation"):
        own = [a for a in assignments if a.user_id == visible_to.pk]
        if own:
            assignments = own
    return [scorer_time(a) for a in assignments if a.revealed]
