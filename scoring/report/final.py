"""The team's final report: the figures from the reconciled final buckets, each scorer's headline
figures beside them, how far reconciliation moved each one, the agreement headline, and the key
changes with their re-checks.

Every member (viewer and above) may open the page, but it shows figures only when
reconciliation has begun, every response has its final bucket, and the user is not blinded
(``is_blinded``: a scorer of the experiment before their own reveal, or a member with the scorer
role who has not scored it). Otherwise it says what is missing, with no figure, label or bucket.
The exports sit behind the same gate (scoring.report.final_export; the pages are in
scoring.report.final_views).

The items the key review judged ambiguous are left out of every figure here, the final ones and
each scorer's alike (N shrinks by them), so that a move compares like with like. A key's text
(old and new, and the key column of the responses export) is shown to owners, editors and the
experiment's own scorers only: like a bank's key entry, it would prime anyone else.

The gate, each scorer beside the final figures and the moves, the key changes, and the whole
report, for the page, its exports and the API.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, F
from django.utils.translation import gettext as _

from probe.access import can, is_blinded
from probe.models import Experiment, Role
from scoring.agreement.report import agreement_report
from scoring.models import Assignment, FinalBucket, Judgement, JudgementChange, KeyDecision
from scoring.reconciliation.selectors import (
    ReconcileSummary,
    key_changes,
    reconcile_summary,
    scorer_progress,
)
from scoring.report.build import (
    BucketSource,
    ConfigReport,
    Report,
    final_source,
    report_build,
    without_dropped,
)
from scoring.review.selectors import KEY_VERDICTS, dropped_items
from scoring.templatetags.report_tags import DASH, num, pct
from scoring.visibility import sees_others_judgements

# --------------------------------------------------------------------------------------------
# The gate
# --------------------------------------------------------------------------------------------

BLINDED, NOT_BEGUN, TOO_FEW, UNSETTLED = "blinded", "not_begun", "too_few", "unsettled"


@dataclass
class Gate:
    """Whether the figures may show, and if not, what is missing (counts only)."""

    missing: str = ""  # "" when the figures show
    summary: ReconcileSummary | None = None
    own: Assignment | None = None  # the user's own assignment, when they score the experiment
    scorers: int = 0
    finished: int = 0

    @property
    def open(self) -> bool:
        return not self.missing

    @property
    def participants(self) -> list[Assignment]:
        """The scorers who have judged every response, in the order they joined."""
        if self.summary is None:
            return []
        return [p.assignment for p in self.summary.progress if p.complete]


def final_gate(request, experiment: Experiment) -> Gate:
    """Blinded first (a blinded user learns nothing of how far the others are), then
    reconciliation begun, two participants, and every response settled."""
    if is_blinded(experiment, request.user, request.membership):
        own = Assignment.objects.filter(experiment=experiment, user=request.user).first()
        return Gate(BLINDED, own=own)
    summary = reconcile_summary(experiment)
    if summary is None:
        progress = scorer_progress(experiment)
        return Gate(
            NOT_BEGUN, scorers=len(progress), finished=sum(1 for p in progress if p.finished)
        )
    gate = Gate("", summary=summary)
    gate.own = next(
        (p.assignment for p in summary.progress if p.assignment.user_id == request.user.pk), None
    )
    if not sees_others_judgements(experiment, request.user):
        # A scorer whose own judging is not complete (one who joined late, or whose
        # judgements a key amendment sent back) sees the team's buckets no more than others'.
        return Gate(BLINDED, own=gate.own)
    if len(gate.participants) < 2:
        # A scorer undid a decision after reconciliation began: one scorer's buckets are not
        # the team's, and the unanimous final buckets no longer follow.
        gate.missing = TOO_FEW
        gate.scorers = len(summary.progress)
        gate.finished = len(gate.participants)
    elif not summary.complete:
        gate.missing = UNSETTLED
    return gate


# --------------------------------------------------------------------------------------------
# Each scorer beside the final figures, and the moves
# --------------------------------------------------------------------------------------------


def figure_text(value: float | None, unit: str) -> str:
    """A figure as the report writes it: a share as a percentage, items to 2 places, points to 1."""
    if unit == "pct":
        return pct(value)
    return num(value, 1 if unit == "points" else 2)


def move_text(value: float | None, unit: str) -> str:
    """A move with its sign ("+3.3 pp", "−1", "0"): a share moves in percentage points."""
    if value is None:
        return DASH
    if unit == "pct":
        value *= 100
    decimals = 2 if unit == "items" else 1
    if round(value, decimals) == 0:
        text, sign = num(0), ""
    else:
        text, sign = num(abs(value), decimals), "+" if value > 0 else "−"
    if unit == "pct":
        return _("%(move)s pp") % {"move": f"{sign}{text}"}  # percentage points
    return f"{sign}{text}"


@dataclass
class ScorerFigure:
    label: str
    value: float | None
    move: float | None  # final minus this scorer's value
    unit: str = "items"

    @property
    def value_text(self) -> str:
        return figure_text(self.value, self.unit)

    @property
    def move_text(self) -> str:
        return move_text(self.move, self.unit)


@dataclass
class FigureMove:
    name: str
    label: str
    unit: str
    final: float | None
    scorers: list[ScorerFigure]

    @property
    def mean_abs_move(self) -> float | None:
        moves = [abs(s.move) for s in self.scorers if s.move is not None]
        return sum(moves) / len(moves) if moves else None

    @property
    def final_text(self) -> str:
        return figure_text(self.final, self.unit)

    @property
    def mean_abs_text(self) -> str:
        value = self.mean_abs_move
        # An absolute move has no sign to show.
        return move_text(value, self.unit).lstrip("+") if value is not None else DASH


@dataclass
class ConfigMoves:
    config: ConfigReport
    figures: list[FigureMove]


def figure_moves(final: Report, scorers: list[Report]) -> list[ConfigMoves]:
    """Per configuration and headline figure (mean over repeats): the final value, each scorer's,
    and the move final - scorer. A figure undefined on either side has no move."""
    by_key = [{c.key: c for c in report.configs} for report in scorers]
    result = []
    for config in final.configs:
        figures = []
        for name, label, unit in final.scheme_obj.headlines:
            final_value = config.summary[name].mean
            cells = []
            for report, configs in zip(scorers, by_key, strict=True):
                other = configs.get(config.key)
                value = other.summary[name].mean if other is not None else None
                move = None if value is None or final_value is None else final_value - value
                cells.append(ScorerFigure(report.scorer, value, move, unit))
            figures.append(FigureMove(name, str(label), unit, final_value, cells))
        result.append(ConfigMoves(config, figures))
    return result


def scorer_source(experiment: Experiment, assignment: Assignment, label: str) -> BucketSource:
    """One participant's judgements, dropped items left out, under the label the team chose."""
    return without_dropped(
        BucketSource(
            experiment=experiment,
            # Human-only: an answer a grader decided (routing) is no judgement of theirs.
            rows=Judgement.objects.filter(assignment=assignment).exclude(
                verdict=Judgement.Verdict.GRADED
            ),
            scorer=label,
            unblinded_field="unblinded",
            revealed_at=assignment.revealed_at,
        )
    )


# --------------------------------------------------------------------------------------------
# Key changes and their re-checks
# --------------------------------------------------------------------------------------------


@dataclass
class KeyChange:
    decision: KeyDecision
    sent_back: int = 0  # judgements sent back for a re-check (kept on the decision)
    changed: int = 0  # of those, judgements whose bucket differs after the re-check
    awaiting: int = 0  # of those, judgements still awaiting their re-check

    @property
    def amended(self) -> bool:
        return self.decision.outcome == KeyDecision.Outcome.AMENDED

    @property
    def dropped(self) -> bool:
        return self.decision.outcome == KeyDecision.Outcome.AMBIGUOUS


def key_change_rows(experiment: Experiment) -> list[KeyChange]:
    """Every amended or dropped item's decision, with the counts of its re-checks (three queries).

    A re-check is counted from the JudgementChange rows (undone ones left out) of the item's
    judgements made after the amendment and before the item's next amendment: a judgement that
    compared an answer with the old key (its verdict before the first such change) "changed" when
    its bucket after the last such change differs from its bucket before the first. A judgement
    re-checked and kept leaves no change row: it counts as re-checked, not changed.
    """
    rows = [KeyChange(d) for d in key_changes(experiment)]
    amended = sorted((r for r in rows if r.amended), key=lambda r: r.decision.pk)
    if not amended:
        return rows
    items = {r.decision.item_id for r in amended}
    changes: dict[int, list[tuple]] = defaultdict(list)
    for row in (
        JudgementChange.objects.filter(
            judgement__response__item_id__in=items,
            undone=False,
            created__gte=min(r.decision.created for r in amended),
        )
        .order_by("pk")
        .values_list(
            "judgement_id",
            "judgement__response__item_id",
            "old_bucket",
            "old_verdict",
            "new_bucket",
            "created",
        )
    ):
        changes[row[1]].append(row)
    awaiting = dict(
        Judgement.objects.filter(response__item_id__in=items, needs_recheck=True)
        .values("response__item_id")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("response__item_id", "n")
    )
    by_item: dict[int, list[KeyChange]] = defaultdict(list)
    for r in amended:
        by_item[r.decision.item_id].append(r)
    for item_id, item_rows in by_item.items():
        for index, r in enumerate(item_rows):
            start = r.decision.created
            end = item_rows[index + 1].decision.created if index + 1 < len(item_rows) else None
            before: dict[int, tuple[str, str]] = {}
            after: dict[int, str] = {}
            for judgement_id, _item, old_bucket, old_verdict, new_bucket, created in changes[
                item_id
            ]:
                if created < start or (end is not None and created >= end):
                    continue
                before.setdefault(judgement_id, (old_bucket, old_verdict))
                after[judgement_id] = new_bucket
            r.sent_back = r.decision.rechecked
            r.changed = sum(
                1
                for j, (bucket, verdict) in before.items()
                if verdict in KEY_VERDICTS and after[j] != bucket
            )
            # What still waits was sent back by the item's newest amendment.
            r.awaiting = awaiting.get(item_id, 0) if end is None else 0
    return rows


def stale_decisions(experiment: Experiment) -> int:
    """Final buckets a lead set before their item's key was last amended (the reconciliation
    page marks them "decided before the key was amended"): counted in the figures as they stand,
    and worth a second look."""
    return (
        FinalBucket.objects.filter(
            response__run__experiment=experiment,
            unanimous=False,
            response__item__key_decisions__outcome=KeyDecision.Outcome.AMENDED,
            response__item__key_decisions__created__gt=F("updated"),
        )
        .exclude(response__item__in=dropped_items(experiment))
        .values("pk")
        .distinct()
        .count()
    )


def may_see_keys(request, gate: Gate) -> bool:
    """Owners and editors, and the experiment's own scorers (they saw every key while scoring)."""
    return can(request.membership, Role.EDITOR) or gate.own is not None


# --------------------------------------------------------------------------------------------
# The whole report
# --------------------------------------------------------------------------------------------


@dataclass
class FinalReport:
    report: Report  # the final buckets
    scorers: list[Report]  # each participant's, under their label, in the order they joined
    moves: list[ConfigMoves]
    key_changes: list[KeyChange]
    agreement: object  # reconcile.AgreementReport | None
    summary: ReconcileSummary
    labels: list[str] = field(default_factory=list)
    stale: int = 0  # lead decisions older than their item's last key amendment


def final_report_build(
    experiment: Experiment,
    gate: Gate,
    *,
    w: float,
    scorer_intervals: bool = False,
    final_only: bool = False,
) -> FinalReport:
    """A fixed number of queries whatever the items: five per report (the final one and one per
    scorer), and a handful for the agreement and the key changes.

    Each scorer's report is built without its intervals and tests unless ``scorer_intervals``
    (the JSON export has them): the page shows each scorer's headline figures and their moves.
    ``final_only``: the final report alone (the API's figures), no scorer, agreement or key
    change."""
    summary = gate.summary
    participants = gate.participants
    labels = [summary.labels[a.pk] for a in participants]
    final = report_build(without_dropped(final_source(experiment)), w=w)
    if final_only:
        return FinalReport(
            report=final,
            scorers=[],
            moves=[],
            key_changes=[],
            agreement=None,
            summary=summary,
            labels=labels,
        )
    scorer_reports = [
        report_build(scorer_source(experiment, a, label), w=w, intervals=scorer_intervals)
        for a, label in zip(participants, labels, strict=True)
    ]
    return FinalReport(
        report=final,
        scorers=scorer_reports,
        moves=figure_moves(final, scorer_reports),
        key_changes=key_change_rows(experiment),
        agreement=agreement_report(experiment, participants),
        summary=summary,
        labels=labels,
        stale=stale_decisions(experiment),
    )
