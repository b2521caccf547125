"""How far a grader version agrees with the people: percent agreement, Cohen's kappa, Gwet's
AC1, a confusion matrix per bucket and the recall of "not correct", each with a 95 % interval,
on the whole experiment, per block and per answer format, against the final buckets and against
each scorer, beside the scorers' agreement with each other; and the team's trust threshold.

The coefficients are scoring.agreement's (figures.py, chance.py), the intervals its and the
report's (Wilson for shares, the report's bootstrap for the coefficients). A scorer's bucket is
the one they gave BEFORE any second opinion was shown to them (SecondOpinion.first_bucket),
else their judgement. Units are the answers someone judged: UNKNOWN and missing answers
(preset, and carried buckets) are left out, as on the scorers' agreement page."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from django.utils.translation import gettext as _

from scoring.agreement import figures
from scoring.agreement.chance import agreement_intervals, gwet_ac1
from scoring.models import Bucket, FinalBucket, Judgement
from scoring.reconciliation.selectors import participants, scorer_labels
from scoring.report.stats import RESAMPLES, SEED, percentile_interval
from scoring.report.stats_wilson import Interval, wilson

from .models import Grade, GradingJob, SecondOpinion, TrustThreshold
from .ppi import lowest_cut

NOT_JUDGED = (Judgement.Verdict.PRESET, Judgement.Verdict.CARRIED, Judgement.Verdict.GRADED)


@dataclass(frozen=True)
class Figure:
    value: float | None
    interval: Interval | None

    @property
    def low(self) -> float | None:
        return self.interval.low if self.interval is not None else None


@dataclass(frozen=True)
class Comparison:
    """One rater (a) against another (b) over the units both rated."""

    n: int
    percent: Figure
    kappa: Figure
    ac1: Figure
    recall_not_correct: Figure  # of b's "not correct", the share a also calls not correct
    confusion: figures.ConfusionRows | None


def kappa_interval(a: Sequence, b: Sequence, labels: Sequence) -> Interval | None:
    """The report's bootstrap over units (its resamples, seed and percentile interval) for
    Cohen's kappa: a resample is drawn as counts over the (a, b) patterns."""
    pairs = Counter((x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None)
    if not pairs or figures.cohen_kappa(a, b) is None:
        return None
    index = {label: k for k, label in enumerate(labels)}
    q = len(labels)
    kinds = list(pairs)
    weights = np.array([pairs[k] for k in kinds], dtype=float)
    draws = np.random.default_rng(SEED).multinomial(
        int(weights.sum()), weights / weights.sum(), size=RESAMPLES
    )
    cells = np.zeros((len(kinds), q * q))
    for row, (x, y) in enumerate(kinds):
        cells[row, index[x] * q + index[y]] = 1
    tables = (draws @ cells).reshape(-1, q, q)
    n = tables.sum(axis=(1, 2))
    observed = np.trace(tables, axis1=1, axis2=2) / n
    expected = (tables.sum(axis=2) * tables.sum(axis=1)).sum(axis=1) / (n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(expected < 1, (observed - expected) / (1 - expected), np.nan)
    kappa = kappa[~np.isnan(kappa)]
    return percentile_interval(kappa[:, None])[0] if kappa.size else None


def compare(a: Sequence, b: Sequence, labels: Sequence[str]) -> Comparison:
    """Rater a (the grader, or a scorer) against rater b, unit by unit (None: not rated)."""
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    n = len(pairs)
    # The scheme's buckets, as on the scorers' agreement page: AC1's chance agreement depends
    # on how many there were to choose from, not only on those someone used.
    order = list(labels)
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    same = sum(1 for x, y in pairs if x == y)
    wrong_b = [(x, y) for x, y in pairs if y != Bucket.CORRECT]
    caught = sum(1 for x, _y in wrong_b if x != Bucket.CORRECT)
    units = [(x, y) for x, y in pairs]
    ac1 = gwet_ac1(units, order) if units else None
    return Comparison(
        n=n,
        percent=Figure(same / n if n else None, wilson(same, n)),
        kappa=Figure(figures.cohen_kappa(xs, ys) if n else None, kappa_interval(xs, ys, order)),
        ac1=Figure(ac1, agreement_intervals(units, order).gwet_ac1 if units else None),
        recall_not_correct=Figure(
            caught / len(wrong_b) if wrong_b else None, wilson(caught, len(wrong_b))
        ),
        confusion=figures.confusion_rows(xs, ys, order) if n else None,
    )


@dataclass
class GraderAgreement:
    job: GradingJob
    labels: list[str]
    bucket_labels: dict[str, str]
    overall: dict
    blocks: list[dict] = field(default_factory=list)
    formats: list[dict] = field(default_factory=list)
    decided: int = 0  # answers the grader put in a bucket, among those judged
    judged: int = 0
    verdict: str = ""
    meets: bool = False


def _first_buckets(assignment_ids: list[int]) -> dict[tuple[int, int], str]:
    """(assignment, response) -> the bucket before the first second opinion shown."""
    first: dict[tuple[int, int], str] = {}
    for a, r, bucket in (
        SecondOpinion.objects.filter(assignment_id__in=assignment_ids)
        .order_by("shown_at", "pk")
        .values_list("assignment_id", "response_id", "first_bucket")
    ):
        first.setdefault((a, r), bucket)
    return first


def _pooled(grader: dict, scorers: dict[int, dict], units: list[int], labels) -> Comparison:
    a, b = [], []
    for buckets in scorers.values():
        for unit in units:
            a.append(grader.get(unit))
            b.append(buckets.get(unit))
    return compare(a, b, labels)


def _humans_pooled(scorers: dict[int, dict], units: list[int], labels) -> Comparison | None:
    if len(scorers) < 2:
        return None
    a, b = [], []
    for one, two in combinations(list(scorers), 2):
        for unit in units:
            a.append(scorers[one].get(unit))
            b.append(scorers[two].get(unit))
    return compare(a, b, labels)


def _slice(title, units, grader, finals, scorers, names, labels) -> dict:
    return {
        "title": title,
        "n_units": len(units),
        "n_graded": sum(1 for u in units if u in grader),
        "against_final": compare(
            [grader.get(u) for u in units], [finals.get(u) for u in units], labels
        )
        if finals
        else None,
        "against_scorers": [
            (names[a], compare([grader.get(u) for u in units], [s.get(u) for u in units], labels))
            for a, s in scorers.items()
        ],
        "grader_pooled": _pooled(grader, scorers, units, labels) if scorers else None,
        "humans_pooled": _humans_pooled(scorers, units, labels),
        "humans": [
            (
                names[one],
                names[two],
                compare(
                    [scorers[one].get(u) for u in units],
                    [scorers[two].get(u) for u in units],
                    labels,
                ),
            )
            for one, two in combinations(list(scorers), 2)
        ],
    }


def threshold_of(team) -> TrustThreshold:
    found = TrustThreshold.objects.filter(team=team).first()
    return found or TrustThreshold(team=team)


def trust_verdict(overall: dict, threshold: TrustThreshold) -> tuple[bool, str]:
    """Whether the version meets the team's threshold, and one sentence saying why (not)."""
    metric = threshold.metric
    name = dict(TrustThreshold.Metric.choices)[metric]
    grader = overall["against_final"] or overall["grader_pooled"]
    humans = overall["humans_pooled"]
    if grader is None or grader.n == 0:
        return False, _(
            "Not met: no answer was both judged by people and put in a bucket by this grader."
        )
    answers = overall["n_graded"]
    if answers < threshold.min_answers:
        return False, _(
            "Not met: only %(n)d judged answers have this grader's verdict; the threshold needs "
            "at least %(min)d."
        ) % {"n": answers, "min": threshold.min_answers}
    if humans is None or getattr(humans, metric).value is None:
        return False, _(
            "Not met: the scorers' agreement with each other is not known yet (it needs two "
            "scorers who judged every answer)."
        )
    low = getattr(grader, metric).low
    agreement = getattr(humans, metric).value
    target = agreement - threshold.margin
    if low is None:
        return False, _("Not met: the %(name)s of this grader has no interval.") % {"name": name}
    values = {
        "name": name,
        "low": low,
        "target": target,
        "humans": agreement,
        "margin": f"{threshold.margin:g}",
        "n": answers,
    }
    met = low >= target
    if met and threshold.margin:
        sentence = _(
            "Met: the lower end of this grader's %(name)s (%(low).3f, over %(n)d answers) is no "
            "worse than the scorers' agreement with each other, %(humans).3f, less the allowed "
            "shortfall %(margin)s: %(target).3f."
        )
    elif met:
        sentence = _(
            "Met: the lower end of this grader's %(name)s (%(low).3f, over %(n)d answers) is no "
            "worse than the scorers' agreement with each other, %(humans).3f."
        )
    elif threshold.margin:
        sentence = _(
            "Not met: the lower end of this grader's %(name)s (%(low).3f, over %(n)d answers) is "
            "below the scorers' agreement with each other, %(humans).3f, less the allowed "
            "shortfall %(margin)s: %(target).3f."
        )
    else:
        sentence = _(
            "Not met: the lower end of this grader's %(name)s (%(low).3f, over %(n)d answers) is "
            "below the scorers' agreement with each other, %(humans).3f."
        )
    return met, sentence % values


@dataclass
class People:
    """The people's buckets on an experiment's judged answers: each scorer's (before any
    second opinion), the final ones, and each answer's block and format."""

    labels: list[str]
    names: dict
    scorers: dict[int, dict[int, str]]
    meta: dict[int, tuple[str, str, str]]
    finals: dict[int, str]


def people_buckets(experiment) -> People:
    labels = list(experiment.scheme_obj.buckets)
    parts = participants(experiment)
    names = scorer_labels(parts, named=False)
    ids = [a.pk for a in parts]
    first = _first_buckets(ids)
    scorers: dict[int, dict[int, str]] = {a: {} for a in ids}
    meta: dict[int, tuple[str, str, str]] = {}
    for a, r, bucket, verdict, code, title, fmt in Judgement.objects.filter(
        assignment_id__in=ids
    ).values_list(
        "assignment_id",
        "response_id",
        "bucket",
        "verdict",
        "response__item__block_code",
        "response__item__block_title",
        "response__item__answer_format",
    ):
        if verdict in NOT_JUDGED:
            continue
        scorers[a][r] = first.get((a, r), bucket)
        meta[r] = (code, title, fmt)
    finals = {
        r: b
        for r, b in FinalBucket.objects.filter(response__run__experiment=experiment).values_list(
            "response_id", "bucket"
        )
        if r in meta
    }
    return People(labels, names, scorers, meta, finals)


def calibrated_cut(job: GradingJob, threshold: TrustThreshold) -> tuple[float | None, str]:
    """The lowest confidence cut at which the job's grades (those at or above it) meet the
    trust threshold on the judged answers, and the trust sentence there (or at the highest
    cut tried). A grade's confidence: 1 for a rule, the reply's CONFIDENCE line for a model;
    a model grade that stated none is never above a cut."""
    people = people_buckets(job.experiment)
    units = sorted(people.meta)
    rows = [
        (r, b, c)
        for r, b, c in Grade.objects.filter(job=job, state=Grade.State.DECIDED).values_list(
            "response_id", "bucket", "confidence"
        )
        if r in people.meta
    ]
    confidences = np.array([np.nan if c is None else c for _r, _b, c in rows], dtype=float)
    humans = _humans_pooled(people.scorers, units, people.labels)
    said = {"sentence": ""}

    def meets(mask) -> bool:
        grades = {rows[i][0]: rows[i][1] for i in np.flatnonzero(mask)}
        grader = [grades.get(u) for u in units]
        overall = {
            "against_final": compare(grader, [people.finals.get(u) for u in units], people.labels)
            if people.finals
            else None,
            "grader_pooled": _pooled(grades, people.scorers, units, people.labels)
            if people.scorers
            else None,
            "humans_pooled": humans,
            "n_graded": sum(1 for u in units if u in grades),
        }
        ok, said["sentence"] = trust_verdict(overall, threshold)
        return ok

    return lowest_cut(confidences, meets), said["sentence"]


def grader_agreement(job: GradingJob, threshold: TrustThreshold | None = None) -> GraderAgreement:
    experiment = job.experiment
    people = people_buckets(experiment)
    labels, names, scorers, meta, finals = (
        people.labels,
        people.names,
        people.scorers,
        people.meta,
        people.finals,
    )
    grades = dict(
        Grade.objects.filter(job=job, state=Grade.State.DECIDED).values_list(
            "response_id", "bucket"
        )
    )
    units = sorted(meta)
    result = GraderAgreement(
        job=job,
        labels=labels,
        bucket_labels=dict(Bucket.choices),
        overall=_slice(_("The whole experiment"), units, grades, finals, scorers, names, labels),
        decided=sum(1 for u in units if u in grades),
        judged=len(units),
    )
    by_block, by_format = defaultdict(list), defaultdict(list)
    for unit in units:
        code, title, fmt = meta[unit]
        by_block[(code, title)].append(unit)
        by_format[fmt].append(unit)
    result.blocks = [
        _slice(f"{code} · {title}", us, grades, finals, scorers, names, labels)
        for (code, title), us in sorted(by_block.items())
    ]
    result.formats = [
        _slice(fmt or _("(no answer format)"), us, grades, finals, scorers, names, labels)
        for fmt, us in sorted(by_format.items())
    ]
    result.meets, result.verdict = trust_verdict(
        result.overall, threshold or threshold_of(experiment.team)
    )
    return result
