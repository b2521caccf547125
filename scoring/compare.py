"""Comparison across experiments, and the regression gate built on it.

Two experiments are compared on the items they share: the same bank item asked with the same
question and judged against the same key in force (an item version). Items whose question or key
differ are left out and listed with the reason; a different prompt version is said plainly and
refused unless the caller accepts it. Each side's buckets are its team's final buckets once
reconciliation is complete, or the judgements of its one scorer when a single scorer has judged
every response and revealed; anything less is "cannot tell yet".

Per configuration present on both sides (or one configuration paired with another), each item
contributes its mean over repeats; the gap is candidate minus baseline, with a paired bootstrap
interval over items (blocks resampled as clusters when there are several).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Count, Q
from django.utils.translation import gettext as _

from probe.models import Experiment, ExperimentItem, Response, Run

from . import stats
from .models import Assignment, FinalBucket, Judgement
from .reconcile import reconcile_summary
from .review import dropped_items, keys_in_force

NET_USABLE, HALLUCINATION_RATE = "net_usable", "hallucination_rate"
METRICS = (NET_USABLE, HALLUCINATION_RATE)
RESAMPLES = stats.RESAMPLES
SEED = stats.SEED
LEVEL = stats.CONFIDENCE


class NotComparable(ValueError):
    """The two experiments cannot be compared as asked; the message says why."""


class CannotTellYet(ValueError):
    """A side has no complete buckets yet (scoring or reconciliation unfinished)."""


# ------------------------------------------------------------------------------------------------
# Which items, which buckets
# ------------------------------------------------------------------------------------------------


@dataclass
class SharedItems:
    pairs: list[tuple[int, int, str]]  # (baseline item id, candidate item id, block code)
    left_out: list[str] = field(default_factory=list)  # one sentence per item left out
    prompt_differs: bool = False


def _versions(experiment: Experiment) -> dict[tuple, ExperimentItem]:
    keys = keys_in_force(experiment)
    dropped = set(dropped_items(experiment).values_list("pk", flat=True))
    found = {}
    for item in experiment.items.order_by("position"):
        if item.pk in dropped:
            continue
        found[(item.source_item_id or f"snapshot-{item.pk}", item.question)] = (
            item,
            keys.get(item.pk, item.key_answer),
        )
    return found


def shared_items(baseline: Experiment, candidate: Experiment) -> SharedItems:
    if baseline.team_id != candidate.team_id:
        raise NotComparable(_("The two experiments belong to different teams."))
    if baseline.scheme != candidate.scheme:
        raise NotComparable(
            _("The two experiments use different scoring schemes: their buckets do not compare.")
        )
    base, cand = _versions(baseline), _versions(candidate)
    result = SharedItems(
        pairs=[], prompt_differs=baseline.prompt_version_id != candidate.prompt_version_id
    )
    for version, (item, key) in cand.items():
        other = base.get(version)
        if other is None:
            result.left_out.append(
                _("Item %(n)s of %(name)s was not asked in %(other)s (or not in these words).")
                % {"n": item.position, "name": candidate.name, "other": baseline.name}
            )
            continue
        base_item, base_key = other
        if base_key != key:
            result.left_out.append(
                _("Item %(n)s is judged against another key in each experiment.")
                % {"n": item.position}
            )
            continue
        result.pairs.append((base_item.pk, item.pk, item.block_code))
    for version, (item, _key) in base.items():
        if version not in cand:
            result.left_out.append(
                _("Item %(n)s of %(name)s is not in %(other)s.")
                % {"n": item.position, "name": baseline.name, "other": candidate.name}
            )
    if not result.pairs:
        raise NotComparable(_("The two experiments share no item (same question and key)."))
    return result


def experiment_buckets(experiment: Experiment) -> tuple[str, dict[int, str]]:
    """("final" | "scorer", response id -> bucket), or CannotTellYet with the reason."""
    if experiment.status != Experiment.Status.COLLECTED:
        raise CannotTellYet(_("%(name)s is not collected yet.") % {"name": experiment.name})
    summary = reconcile_summary(experiment)
    if summary is not None:
        if not summary.complete:
            raise CannotTellYet(
                _("Reconciliation of %(name)s is not complete.") % {"name": experiment.name}
            )
        rows = FinalBucket.objects.filter(response__run__experiment=experiment)
        return "final", dict(rows.values_list("response_id", "bucket"))
    total = Response.objects.filter(run__experiment=experiment).count()
    finished = [
        a
        for a in Assignment.objects.filter(experiment=experiment, revealed_at__isnull=False)
        .annotate(
            n=Count("judgements"),
            rechecks=Count("judgements", filter=Q(judgements__needs_recheck=True)),
        )
        .order_by("pk")
        if a.n >= total and not a.rechecks
    ]
    if len(finished) == 1:
        rows = Judgement.objects.filter(assignment=finished[0])
        return "scorer", dict(rows.values_list("response_id", "bucket"))
    if len(finished) > 1:
        raise CannotTellYet(
            _("%(name)s has several scorers: reconcile them first.") % {"name": experiment.name}
        )
    raise CannotTellYet(_("Scoring of %(name)s is not finished.") % {"name": experiment.name})


# ------------------------------------------------------------------------------------------------
# Per-item values and the paired interval
# ------------------------------------------------------------------------------------------------


@dataclass
class ItemValues:
    """Per item (by experiment item id): mean over repeats of correct, confidently wrong and
    attempted (a response not abstained)."""

    correct: dict[int, float]
    wrong: dict[int, float]
    attempted: dict[int, float]
    repeats: int


def item_values(experiment: Experiment, buckets: dict[int, str], config_id: int) -> ItemValues:
    runs = list(
        Run.objects.filter(experiment=experiment, model_config_id=config_id).values_list(
            "pk", flat=True
        )
    )
    scheme = experiment.scheme_obj
    sums = {name: defaultdict(float) for name in ("correct", "wrong", "attempted")}
    for pk, item_id in Response.objects.filter(run_id__in=runs).values_list("pk", "item_id"):
        bucket = buckets.get(pk)
        if bucket is None:
            continue
        sums["correct"][item_id] += bucket == scheme.correct
        sums["wrong"][item_id] += bucket == scheme.penalised
        sums["attempted"][item_id] += bucket != scheme.abstain
    n = max(len(runs), 1)
    return ItemValues(
        correct={k: v / n for k, v in sums["correct"].items()},
        wrong={k: v / n for k, v in sums["wrong"].items()},
        attempted={k: v / n for k, v in sums["attempted"].items()},
        repeats=len(runs),
    )


def _statistic(metric: str, w: float):
    """f(rows) -> the figure over `rows`, each (correct, wrong, attempted) of one item."""
    if metric == NET_USABLE:
        return lambda rows: sum(c - w * x for c, x, _a in rows)

    def rate(rows):
        attempted = sum(a for _c, _x, a in rows)
        return sum(x for _c, x, _a in rows) / attempted if attempted else None

    return rate


def paired_interval(
    base_rows: list[tuple],
    cand_rows: list[tuple],
    clusters: list[str],
    metric: str,
    w: float,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> tuple[float | None, float | None]:
    """Percentile interval of the candidate's figure minus the baseline's, over resamples of the
    items: the report's paired bootstrap (scoring.stats), the same resampled items on both
    sides, blocks as clusters or strata as the report resamples them."""
    if not clusters:
        return None, None
    weights = stats.bootstrap_weights(len(clusters), clusters, resamples=resamples, seed=seed)
    # Columns: correct, wrong, attempted of the baseline, then of the candidate.
    values = np.array([(*b, *c) for b, c in zip(base_rows, cand_rows, strict=True)])
    sums = stats.bootstrap_sums(weights, values)
    if metric == NET_USABLE:
        gaps = (sums[:, 3] - w * sums[:, 4]) - (sums[:, 0] - w * sums[:, 1])
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            gaps = sums[:, 4] / sums[:, 5] - sums[:, 1] / sums[:, 2]
        gaps = gaps[np.isfinite(gaps)]
        if len(gaps) < resamples / 2:
            return None, None
    interval = stats.percentile_interval(gaps[:, None], level)[0]
    return interval.low, interval.high


def _gap(b_rows, c_rows, clusters, metric, w, **bootstrap):
    statistic = _statistic(metric, w)
    b_fig, c_fig = statistic(b_rows), statistic(c_rows)
    low, high = paired_interval(b_rows, c_rows, clusters, metric, w, **bootstrap)
    gap = None if b_fig is None or c_fig is None else c_fig - b_fig
    return b_fig, c_fig, gap, low, high


# ------------------------------------------------------------------------------------------------
# The comparison
# ------------------------------------------------------------------------------------------------


@dataclass
class ConfigGap:
    baseline_label: str
    candidate_label: str
    baseline: float | None
    candidate: float | None
    gap: float | None
    low: float | None
    high: float | None
    worse: bool  # the candidate is worse beyond the interval
    better: bool  # ... or better beyond it
    blocks: list[BlockGap] = field(default_factory=list)


@dataclass
class BlockGap:
    code: str
    items: int
    baseline: float | None
    candidate: float | None
    gap: float | None
    low: float | None
    high: float | None


@dataclass
class Comparison:
    baseline: Experiment
    candidate: Experiment
    metric: str
    w: float
    items: int
    left_out: list[str]
    prompt_differs: bool
    sources: tuple[str, str]
    rows: list[ConfigGap]

    @property
    def side_sources(self) -> list[tuple[Experiment, str]]:
        """Each side with whose buckets it is counted from ("final" or "scorer")."""
        return [(self.baseline, self.sources[0]), (self.candidate, self.sources[1])]

    @property
    def regression(self) -> bool:
        return any(row.worse for row in self.rows)


def _labels(experiment: Experiment) -> dict[int, str]:
    return {
        r.model_config_id: r.config_snapshot.get("label") or str(r.model_config_id)
        for r in experiment.runs.all()
    }


def config_pairs(
    baseline: Experiment, candidate: Experiment, pair: tuple[str, str] | None = None
) -> list[tuple[int, int]]:
    base, cand = _labels(baseline), _labels(candidate)
    if pair is not None:
        by_label_b = {v: k for k, v in base.items()}
        by_label_c = {v: k for k, v in cand.items()}
        if pair[0] not in by_label_b:
            raise NotComparable(
                _("%(name)s has no configuration labelled %(label)s.")
                % {"name": baseline.name, "label": pair[0]}
            )
        if pair[1] not in by_label_c:
            raise NotComparable(
                _("%(name)s has no configuration labelled %(label)s.")
                % {"name": candidate.name, "label": pair[1]}
            )
        return [(by_label_b[pair[0]], by_label_c[pair[1]])]
    shared = sorted(set(base) & set(cand), key=lambda pk: base[pk])
    if shared:
        return [(pk, pk) for pk in shared]
    if len(base) == 1 and len(cand) == 1:
        return [(next(iter(base)), next(iter(cand)))]
    raise NotComparable(_("No configuration is in both experiments: name the two to compare."))


def compare(
    baseline: Experiment,
    candidate: Experiment,
    *,
    metric: str = NET_USABLE,
    w: float = 1.0,
    pair: tuple[str, str] | None = None,
    allow_prompt_change: bool = False,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Comparison:
    if metric not in METRICS:
        raise NotComparable(_("Choose net_usable or hallucination_rate."))
    items = shared_items(baseline, candidate)
    if items.prompt_differs and not allow_prompt_change:
        raise NotComparable(
            _(
                "The two experiments use different prompt versions (%(a)s and %(b)s): a gap "
                "would mix the models with the prompt. Accept that explicitly to compare."
            )
            % {"a": baseline.prompt_version, "b": candidate.prompt_version}
        )
    base_source, base_buckets = experiment_buckets(baseline)
    cand_source, cand_buckets = experiment_buckets(candidate)
    base_labels, cand_labels = _labels(baseline), _labels(candidate)
    clusters = [block for _b, _c, block in items.pairs]
    rows = []
    for base_config, cand_config in config_pairs(baseline, candidate, pair):
        b_values = item_values(baseline, base_buckets, base_config)
        c_values = item_values(candidate, cand_buckets, cand_config)

        def rows_of(values: ItemValues, index: int):
            return [
                (
                    values.correct.get(p[index], 0.0),
                    values.wrong.get(p[index], 0.0),
                    values.attempted.get(p[index], 0.0),
                )
                for p in items.pairs
            ]

        b_rows, c_rows = rows_of(b_values, 0), rows_of(c_values, 1)
        b_fig, c_fig, gap, low, high = _gap(
            b_rows, c_rows, clusters, metric, w, resamples=resamples, seed=seed
        )
        higher_is_better = metric == NET_USABLE
        worse = low is not None and (high < 0 if higher_is_better else low > 0)
        better = low is not None and (low > 0 if higher_is_better else high < 0)
        blocks = []
        for code in dict.fromkeys(clusters):
            picked = [i for i, c in enumerate(clusters) if c == code]
            figures = _gap(
                [b_rows[i] for i in picked],
                [c_rows[i] for i in picked],
                [code] * len(picked),
                metric,
                w,
                resamples=resamples,
                seed=seed,
            )
            blocks.append(BlockGap(code, len(picked), *figures))
        rows.append(
            ConfigGap(
                baseline_label=base_labels[base_config],
                candidate_label=cand_labels[cand_config],
                baseline=b_fig,
                candidate=c_fig,
                gap=gap,
                low=low,
                high=high,
                worse=worse,
                better=better,
                blocks=blocks if len(blocks) > 1 else [],
            )
        )
    return Comparison(
        baseline=baseline,
        candidate=candidate,
        metric=metric,
        w=w,
        items=len(items.pairs),
        left_out=items.left_out,
        prompt_differs=items.prompt_differs,
        sources=(base_source, cand_source),
        rows=rows,
    )


def comparison_dict(result: Comparison) -> dict:
    return {
        "baseline": {
            "id": result.baseline.pk,
            "name": result.baseline.name,
            "buckets": result.sources[0],
        },
        "candidate": {
            "id": result.candidate.pk,
            "name": result.candidate.name,
            "buckets": result.sources[1],
        },
        "metric": result.metric,
        "w": result.w if result.metric == NET_USABLE else None,
        "items": result.items,
        "items_left_out": result.left_out,
        "prompt_differs": result.prompt_differs,
        "interval": {
            "level": LEVEL,
            "resamples": RESAMPLES,
            "method": "paired bootstrap over items (blocks as clusters from five blocks, else strata)",
        },
        "configurations": [
            {
                "baseline": row.baseline_label,
                "candidate": row.candidate_label,
                "baseline_value": row.baseline,
                "candidate_value": row.candidate,
                "gap": row.gap,
                "low": row.low,
                "high": row.high,
                "verdict": "worse" if row.worse else "better" if row.better else "not separable",
                "blocks": [
                    {
                        "block": b.code,
                        "items": b.items,
                        "baseline_value": b.baseline,
                        "candidate_value": b.candidate,
                        "gap": b.gap,
                        "low": b.low,
                        "high": b.high,
                    }
                    for b in row.blocks
                ],
            }
            for row in result.rows
        ],
        "regression": result.regression,
    }


def _figure(value: float | None, metric: str) -> str:
    if value is None:
        return "-"
    return f"{value:+.2f}" if metric == NET_USABLE else f"{value:.3f}"


def comparison_text(result: Comparison) -> str:
    """The gate's report for a terminal or a CI log (English: it is read in logs)."""
    unit = "items" if result.metric == NET_USABLE else "(rate)"
    lines = [
        f"Baseline:  {result.baseline.name} (#{result.baseline.pk}, {result.sources[0]} buckets)",
        f"Candidate: {result.candidate.name} (#{result.candidate.pk}, {result.sources[1]} buckets)",
        f"Metric: {result.metric}"
        + (f" (w = {result.w:g})" if result.metric == NET_USABLE else "")
        + f", on {result.items} shared items; {LEVEL:.0%} paired bootstrap interval, "
        f"{RESAMPLES} resamples",
    ]
    if result.prompt_differs:
        lines.append("Note: the prompt versions differ (accepted with --allow-prompt-change).")
    if result.left_out:
        lines.append(f"{len(result.left_out)} items left out:")
        lines += [f"  - {why}" for why in result.left_out[:20]]
    for row in result.rows:
        verdict = "WORSE" if row.worse else "better" if row.better else "not separable"
        lines.append(
            f"{row.baseline_label} -> {row.candidate_label}: "
            f"{_figure(row.baseline, result.metric)} -> {_figure(row.candidate, result.metric)} "
            f"{unit}, gap {_figure(row.gap, result.metric)} "
            f"({_figure(row.low, result.metric)} to {_figure(row.high, result.metric)}): {verdict}"
        )
    lines.append(
        "Regression beyond the interval: the gate fails."
        if result.regression
        else "No regression beyond the interval: the gate passes."
    )
    return "\n".join(lines)
