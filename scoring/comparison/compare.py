"""Comparison across experiments, and the regression gate built on it.

Two experiments are compared on the items they share: the same bank item asked with the same
question and judged against the same key in force (an item version). Items whose question or key
differ are left out and listed with the reason; a different prompt version is said plainly and
refused unless the caller accepts it. Each side's buckets are its team's final buckets once
reconciliation is complete, or the judgements of its one scorer when a single scorer has judged
every response and revealed.

Per configuration present on both sides (or one configuration paired with another), each item
contributes its mean over repeats; the gap is candidate minus baseline, judged by the one-sided
permutation tests of scoring.comparison.gate_decision, Holm-corrected over the configurations and their
blocks together. What cannot be judged says why, in three kinds: CannotTellYet (waiting can
change it: collection, scoring or reconciliation unfinished), NotComparable (no waiting will:
different schemes, prompts, too few shared items), Refused (the request itself is wrong: an
unknown experiment, a configuration label that is not there, a w out of range).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.db.models import Count, F, Q
from django.utils.translation import gettext as _

from probe.models import Experiment, ExperimentItem, Response, Run
from scoring.comparison import gate_decision, routed, stats_pairs
from scoring.comparison.gate_decision import (
    HALLUCINATION_RATE,
    METRICS,
    MIN_ITEMS,
    NET_USABLE,
    GapTest,
    Hypothesis,
)
from scoring.comparison.stats_pairs import SWAPS
from scoring.models import Assignment, FinalBucket, Judgement
from scoring.reconciliation.selectors import reconcile_summary
from scoring.report import stats
from scoring.report.db_arrays import grouped_int_rows
from scoring.review.selectors import dropped_items, keys_in_force

__all__ = [
    "HALLUCINATION_RATE",
    "METRICS",
    "MIN_ITEMS",
    "NET_USABLE",
    "CannotTellYet",
    "Comparison",
    "NotComparable",
    "Refused",
    "compare",
]

SEED = stats.SEED
LEVEL = stats.CONFIDENCE


class NotComparable(ValueError):
    """The two experiments cannot be judged against each other, and no waiting will change it;
    the message says why."""


class CannotTellYet(ValueError):
    """A side has no complete buckets yet (collection, scoring or reconciliation unfinished):
    asking again later can give an answer."""


class Refused(ValueError):
    """The request itself is wrong (a mistyped id, label or value); ``field`` names it."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


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


def _bucket_of(rows) -> dict[int, str]:
    """Response id -> bucket of ``rows`` (judgements or final buckets), read as one array of
    ids per bucket rather than a Python tuple per row."""
    found: dict[int, str] = {}
    for (bucket,), ids in grouped_int_rows(rows, ["bucket"], ["response_id"]):
        found.update(dict.fromkeys(ids[:, 0].tolist(), bucket))
    return found


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
        return "final", _bucket_of(rows)
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
        return "scorer", _bucket_of(rows)
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


# ------------------------------------------------------------------------------------------------
# The comparison
# ------------------------------------------------------------------------------------------------


@dataclass
class BlockGap:
    code: str
    items: int
    baseline: float | None
    candidate: float | None
    gap: float | None
    test: GapTest

    @property
    def low(self) -> float | None:
        return self.test.low

    @property
    def high(self) -> float | None:
        return self.test.high

    @property
    def worse(self) -> bool:
        return self.test.worse

    @property
    def better(self) -> bool:
        return self.test.better


@dataclass
class ConfigGap(BlockGap):
    """One configuration pair over every shared item (``code`` empty), with its blocks."""

    baseline_label: str = ""
    candidate_label: str = ""
    blocks: list[BlockGap] = field(default_factory=list)


@dataclass
class Comparison:
    baseline: Experiment
    candidate: Experiment
    metric: str
    w: float
    min_items: int
    items: int
    left_out: list[str]
    prompt_differs: bool
    sources: tuple[str, str]
    rows: list[ConfigGap]
    swaps: int
    exact: bool  # every swap enumerated (few items)

    @property
    def side_sources(self) -> list[tuple[Experiment, str]]:
        """Each side with whose buckets it is counted from ("final" or "scorer")."""
        return [(self.baseline, self.sources[0]), (self.candidate, self.sources[1])]

    @property
    def regression(self) -> bool:
        return any(row.worse or any(b.worse for b in row.blocks) for row in self.rows)


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
        for label, by_label, experiment in (
            (pair[0], by_label_b, baseline),
            (pair[1], by_label_c, candidate),
        ):
            if label not in by_label:
                raise Refused(
                    _("%(name)s has no configuration labelled %(label)s.")
                    % {"name": experiment.name, "label": label},
                    "pair",
                )
        return [(by_label_b[pair[0]], by_label_c[pair[1]])]
    shared = sorted(set(base) & set(cand), key=lambda pk: base[pk])
    if shared:
        return [(pk, pk) for pk in shared]
    if len(base) == 1 and len(cand) == 1:
        return [(next(iter(base)), next(iter(cand)))]
    raise NotComparable(_("No configuration is in both experiments: name the two to compare."))


def check_request(metric: str, w: float, min_items: int) -> None:
    """Refused unless the metric is known, w is a finite number from 0 to 100 (as on the report
    page) and the minimum of shared items is a whole number from 1."""
    if metric not in METRICS:
        raise Refused(_("Choose net_usable or hallucination_rate."), "metric")
    if isinstance(w, bool) or not isinstance(w, int | float) or not (0 <= w <= 100):
        raise Refused(_("w must be a number from 0 to 100."), "w")  # NaN fails the range too
    if isinstance(min_items, bool) or not isinstance(min_items, int) or min_items < 1:
        raise Refused(_("The minimum of shared items must be a whole number from 1."), "min_items")


def side_rows(
    experiment: Experiment,
    buckets: dict[int, str],
    config_ids: list[int],
    items: list[int],
    fix: routed.Corrections | None = None,
    per_answer: bool = False,
) -> dict[int, np.ndarray]:
    """Per configuration, an (items, 3) array: for each of ``items`` (experiment item ids), the
    mean over the configuration's repeats of correct, confidently wrong and attempted, as
    item_values gives them, for every configuration at once (two queries)."""
    scheme = experiment.scheme_obj
    repeats = Counter(
        Run.objects.filter(experiment=experiment).values_list("model_config_id", flat=True)
    )
    # Each response's bucket as three flags (correct, penalised, attempted); no bucket: none.
    ids = np.fromiter(buckets.keys(), dtype=np.int64, count=len(buckets))
    kinds = {b: k for k, b in enumerate(dict.fromkeys(buckets.values()))}
    codes = np.fromiter((kinds[b] for b in buckets.values()), dtype=np.int64, count=len(buckets))
    flags = np.array(
        [(b == scheme.correct, b == scheme.penalised, b != scheme.abstain, 1) for b in kinds],
        dtype=np.int64,
    ).reshape(len(kinds), 4)
    order = np.argsort(ids)
    ids, codes = ids[order], codes[order]
    item_ids = np.asarray(items, dtype=np.int64)
    place = np.argsort(item_ids)
    sorted_items = item_ids[place]
    query = Response.objects.filter(run__experiment=experiment, run__model_config_id__in=config_ids)
    found = dict(
        grouped_int_rows(
            query.annotate(config=F("run__model_config_id")), ["config"], ["id", "item_id"]
        )
    )
    result = {}
    for config in config_ids:
        rows = found.get((config,), np.zeros((0, 2), dtype=np.int64))
        sums = np.zeros((len(items), 4), dtype=np.int64)
        if len(ids) and len(items) and len(rows):
            at = np.searchsorted(ids, rows[:, 0]).clip(max=len(ids) - 1)
            pos = np.searchsorted(sorted_items, rows[:, 1]).clip(max=len(items) - 1)
            keep = (ids[at] == rows[:, 0]) & (sorted_items[pos] == rows[:, 1])
            np.add.at(sums, place[pos[keep]], flags[codes[at[keep]]])
            if fix is not None:  # a routed experiment: the grader's answers corrected
                sums = routed.corrected_sums(sums, rows[keep, 0], place[pos[keep]], fix, config)
        if per_answer:  # the mean over the answers with a bucket; none: no value (NaN)
            with np.errstate(invalid="ignore", divide="ignore"):
                result[config] = sums[:, :3] / sums[:, 3:]
        else:
            result[config] = sums[:, :3] / max(repeats.get(config, 0), 1)
    return result


def compare(
    baseline: Experiment,
    candidate: Experiment,
    *,
    metric: str = NET_USABLE,
    w: float = 1.0,
    pair: tuple[str, str] | None = None,
    allow_prompt_change: bool = False,
    min_items: int = MIN_ITEMS,
    swaps: int = SWAPS,
    seed: int = SEED,
    figures: str = routed.CORRECTED,
) -> Comparison:
    """The comparison, or the reason it cannot be made: Refused first (the request), then
    NotComparable (what no waiting changes), then CannotTellYet (what waiting may change)."""
    check_request(metric, w, min_items)
    items = shared_items(baseline, candidate)
    configs = config_pairs(baseline, candidate, pair)
    if items.prompt_differs and not allow_prompt_change:
        raise NotComparable(
            _(
                "The two experiments use different prompt versions (%(a)s and %(b)s): a gap "
                "would mix the models with the prompt. Accept that explicitly to compare."
            )
            % {"a": baseline.prompt_version, "b": candidate.prompt_version}
        )
    if len(items.pairs) < min_items:
        raise NotComparable(
            _(
                "The two experiments share %(n)s items; the gate judges from %(min)s shared "
                "items on, and more scoring will not add any."
            )
            % {"n": len(items.pairs), "min": min_items}
        )
    base_source, base_buckets = experiment_buckets(baseline)
    cand_source, cand_buckets = experiment_buckets(candidate)
    human = figures == routed.HUMAN
    base_fix = routed.corrections(baseline, base_buckets)
    cand_fix = routed.corrections(candidate, cand_buckets)
    if human:  # a routed side: only the answers people judged, each item over those
        base_buckets, base_fix = routed.human_only(base_buckets, base_fix), None
        cand_buckets, cand_fix = routed.human_only(cand_buckets, cand_fix), None
    base_labels, cand_labels = _labels(baseline), _labels(candidate)
    clusters = np.array([block for _b, _c, block in items.pairs], dtype=object)
    codes = list(dict.fromkeys(clusters.tolist()))
    masks = [np.ones(len(clusters), dtype=bool)]
    if len(codes) > 1:
        masks += [clusters == code for code in codes]
    sides, hypotheses = [], []
    base_values = side_rows(
        baseline,
        base_buckets,
        [b for b, _c in configs],
        [p[0] for p in items.pairs],
        base_fix,
        human,
    )
    cand_values = side_rows(
        candidate,
        cand_buckets,
        [c for _b, c in configs],
        [p[1] for p in items.pairs],
        cand_fix,
        human,
    )
    for base_config, cand_config in configs:
        b_rows, c_rows = base_values[base_config], cand_values[cand_config]
        sides.append((base_config, cand_config, b_rows, c_rows))
        if human:  # an item no person judged on either side counts nowhere
            seen = ~np.isnan(b_rows[:, 0]) & ~np.isnan(c_rows[:, 0])
            b_rows, c_rows = np.nan_to_num(b_rows), np.nan_to_num(c_rows)
            sides[-1] = (base_config, cand_config, b_rows, c_rows, seen)
        else:
            sides[-1] = (*sides[-1], None)
        pair_masks = masks if not human else [mask & seen for mask in masks]
        hypotheses += [Hypothesis(b_rows, c_rows, mask) for mask in pair_masks]
    tests = iter(gate_decision.gap_tests(hypotheses, metric, w, swaps=swaps, seed=seed))
    rows = []
    for base_config, cand_config, b_rows, c_rows, seen in sides:
        judged = []
        for mask in masks if seen is None else [m & seen for m in masks]:
            b_fig = gate_decision.figure(b_rows[mask], metric, w)
            c_fig = gate_decision.figure(c_rows[mask], metric, w)
            gap = None if b_fig is None or c_fig is None else c_fig - b_fig
            judged.append((int(mask.sum()), b_fig, c_fig, gap, next(tests)))
        (n, b_fig, c_fig, gap, test), *blocks = judged
        rows.append(
            ConfigGap(
                "",
                n,
                b_fig,
                c_fig,
                gap,
                test,
                baseline_label=base_labels[base_config],
                candidate_label=cand_labels[cand_config],
                blocks=[BlockGap(code, *entry) for code, entry in zip(codes, blocks, strict=True)]
                if blocks
                else [],
            )
        )
    total, exact = stats_pairs.swap_count(len(items.pairs), swaps)
    return Comparison(
        baseline=baseline,
        candidate=candidate,
        metric=metric,
        w=w,
        min_items=min_items,
        items=len(items.pairs),
        left_out=items.left_out,
        prompt_differs=items.prompt_differs,
        sources=(base_source, cand_source),
        rows=rows,
        swaps=total,
        exact=exact,
    )
