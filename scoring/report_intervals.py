"""The report's intervals, paired comparisons, repeat noise, risk-coverage, sweep and definitions.

``report_intervals(source, report)`` adds to a built Report what says how sure each figure is.
Proportions get Wilson intervals from the counts the database already grouped; everything that
needs the items themselves (the paired bootstrap, McNemar, how often two repeats agree) reads one
row per bucket, (run, item, bucket, confidence), in a single query, and hands numpy arrays to
the pure functions of scoring.stats. Definitions are in docs/figures.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from django.utils.translation import gettext_lazy as _

from . import stats
from .stats import Interval, PairTest, RiskCoveragePoint

# The probe's rule of thumb for a gap, kept beside the tests: 3 items in 30.
RULE_OF_THUMB = (3, 30)
# The sweep chart draws this many configurations (the best at the report's w); the export has all.
SWEEP_LINES = 8
HIGH, MEDIUM, LOW = range(3)
NO_CONFIDENCE = 3


@dataclass(frozen=True)
class RepeatNoise:
    """Run-to-run variation of one configuration, from its repeats."""

    same: int  # item-repeat pairs given the same bucket
    compared: int
    agreement: float | None  # same / compared
    agreement_ci: Interval | None
    gap: float  # the largest gap in the figure between two repeats
    gap_ci: Interval | None  # paired bootstrap interval of that repeat-vs-repeat gap


@dataclass(frozen=True)
class RiskRow:
    point: RiskCoveragePoint
    coverage_ci: Interval | None
    risk_ci: Interval | None
    score_ci: Interval | None


@dataclass(frozen=True)
class DefinitionValue:
    key: str
    value: float | None
    ci: Interval | None


@dataclass(frozen=True)
class Definition:
    key: str
    name: str
    formula: str
    source: str
    kind: str  # "pct", "num" (items) or "points"


@dataclass
class Sweep:
    weights: list[float]
    thresholds: list[float]  # t = w / (1 + w) at each w
    lines: dict[int, list[tuple[float, float]]]  # config key -> [(w, net usable)]
    crossovers: list[stats.Crossover]
    shown: list[int] = field(default_factory=list)  # config keys drawn on the chart


@dataclass
class Inference:
    resamples: int
    seed: int
    clustered: bool  # blocks resampled as clusters
    n_blocks: int
    min_repeats: int  # repeats every configuration has (McNemar matches repeats up to this)
    sweep: Sweep | None


def _definitions() -> list[Definition]:
    probe, aa, sqa = _("this probe"), _("AA-Omniscience"), _("SimpleQA")
    return [
        Definition("knowledge", _("Knowledge"), _("correct / N"), probe, "pct"),
        Definition(
            "hallucination_rate_probe",
            _("Hallucination rate (probe)"),
            _("confidently wrong / attempted, attempted = N − abstained"),
            probe,
            "pct",
        ),
        Definition(
            "net_usable", _("Net usable"), _("correct − w × confidently wrong"), probe, "num"
        ),
        Definition(
            "aa_index", _("Omniscience index"), _("100 × (correct − incorrect) / N"), aa, "points"
        ),
        Definition("aa_accuracy", _("Accuracy"), _("correct / N"), aa, "pct"),
        Definition(
            "aa_attempt_rate",
            _("Attempt rate"),
            _("(correct + incorrect + partial) / N"),
            aa,
            "pct",
        ),
        Definition(
            "aa_hallucination_rate",
            _("Hallucination rate (AA-Omniscience)"),
            _("incorrect / (incorrect + partial + not attempted)"),
            aa,
            "pct",
        ),
        Definition(
            "sqa_correct_given_attempted",
            _("Correct given attempted"),
            _("correct / (correct + incorrect)"),
            sqa,
            "pct",
        ),
        Definition(
            "sqa_f_score",
            _("F-score"),
            _("2 × overall correct × correct given attempted / (their sum)"),
            sqa,
            "pct",
        ),
    ]


def _load(source, report):
    """Per-run (n_items,) arrays of bucket codes and confidence codes, and each item's block.

    One query: the bucket rows with their run, item and block. An item no run has a bucket for
    appears in no row; the report's block sizes say how many such items each block has, and they
    are added as items with no bucket (they count nowhere, as in the figures, but they are drawn
    in the bootstrap like any other item). Items are ordered by block, then primary key, so the
    same data always give the same resamples.
    """
    rows = list(
        source.scoped().values_list(
            "response__run_id",
            "response__item_id",
            "response__item__block_code",
            "bucket",
            "response__confidence",
        )
    )
    item_blocks = {item: block for _run, item, block, _bucket, _level in rows}
    seen_per_block: dict[str, int] = {}
    for block in item_blocks.values():
        seen_per_block[block] = seen_per_block.get(block, 0) + 1
    order = sorted(item_blocks, key=lambda item: (item_blocks[item], item))
    item_index = {item: i for i, item in enumerate(order)}
    blocks = [item_blocks[item] for item in order]
    for block in report.blocks:
        blocks.extend([block.code] * max(block.n_items - seen_per_block.get(block.code, 0), 0))
    runs = report.runs
    run_index = {run.pk: r for r, run in enumerate(runs)}
    n = len(blocks)
    buckets = np.full((len(runs), n), -1, dtype=np.int8)
    confidence = np.full((len(runs), n), NO_CONFIDENCE, dtype=np.int8)
    bucket_code = {name: i for i, name in enumerate(report.bucket_names)}
    level_code = {"HIGH": HIGH, "MEDIUM": MEDIUM, "LOW": LOW}
    for run_pk, item_pk, _block, bucket, level in rows:
        r = run_index.get(run_pk)
        if r is None:
            continue
        i = item_index[item_pk]
        buckets[r, i] = bucket_code.get(bucket, -1)
        if level:
            confidence[r, i] = level_code.get(level.strip().upper(), NO_CONFIDENCE)
    return blocks, buckets, confidence, run_index


def _figures_from_sums(report, c, pen, att, n):
    """Net usable (AA: index), the Omniscience index and the SimpleQA F-score from sums (arrays
    or floats): c correct, pen confidently wrong (AA: incorrect), att attempted, over n items."""
    incorrect_all = pen if report.is_aa else att - c  # AA's "incorrect": every wrong attempt
    with np.errstate(divide="ignore", invalid="ignore"):
        index = 100 * (c - incorrect_all) / n if n else np.full_like(c, np.nan)
        net = index if report.is_aa else c - report.w * pen
        overall = c / n if n else np.full_like(c, np.nan)
        given = np.where(att > 0, c / np.where(att > 0, att, 1), np.nan)
        total = overall + given
        f = np.where(total > 0, 2 * overall * given / np.where(total > 0, total, 1), 0.0)
        f = np.where(np.isnan(given) | np.isnan(overall), np.nan, f)
    return net, index, f


def _none_if_nan(value) -> float | None:
    value = float(value)
    return None if np.isnan(value) else value


def _ci(samples: np.ndarray) -> Interval | None:
    samples = samples[~np.isnan(samples)]
    if samples.size == 0:
        return None
    return stats.percentile_interval(samples[:, None])[0]


def report_intervals(source, report) -> None:
    """Fill in the report's intervals, tests, repeat noise, risk-coverage, sweep, definitions."""
    blocks, buckets, confidence, run_index = _load(source, report)
    n = len(blocks)
    weights = stats.bootstrap_weights(n, blocks)
    configs = report.configs
    correct_b, pen_b = 0, 1
    attempted_mask = (buckets >= 0) & (buckets != 3)
    is_correct = (buckets == correct_b).astype(float)
    is_pen = (buckets == pen_b).astype(float)
    attempted = attempted_mask.astype(float)
    high = (confidence == HIGH) & attempted_mask
    high_medium = ((confidence == HIGH) | (confidence == MEDIUM)) & attempted_mask

    # Columns: per configuration (means over its repeats) correct, penalised, attempted, and the
    # same at HIGH only and at HIGH + MEDIUM; per run, correct and penalised.
    columns, per_config = [], []
    for config in configs:
        rows = [run_index[run.pk] for run in config.runs]
        start = len(columns)
        for values in (
            is_correct[rows],
            is_pen[rows],
            attempted[rows],
            is_correct[rows] * high[rows],
            is_pen[rows] * high[rows],
            is_correct[rows] * high_medium[rows],
            is_pen[rows] * high_medium[rows],
        ):
            columns.append(values.mean(axis=0) if len(rows) else np.zeros(n))
        for r in rows:
            columns.append(is_correct[r])
            columns.append(is_pen[r])
        per_config.append((start, rows))
    matrix = np.column_stack(columns) if columns else np.zeros((n, 0))
    point = matrix.sum(axis=0)
    boot = stats.bootstrap_sums(weights, matrix) if n else np.zeros((weights.shape[0], 0))

    def net_of(c, p):
        return c - report.w * p if not report.is_aa else (100 * (c - p) / n if n else c * np.nan)

    estimates, samples = [], []
    definitions = _definitions()
    for config, (start, rows) in zip(configs, per_config, strict=True):
        c, p, a = (point[start + k] for k in range(3))
        bc, bp, ba = (boot[:, start + k] for k in range(3))
        net, index, f = _figures_from_sums(report, bc, bp, ba, n)
        config.ci["net"] = _ci(net)
        estimates.append(float(net_of(c, p)))
        samples.append(net)
        _proportion_intervals(report, config, c, p, a, n)
        boot_ci = {
            "net_usable": None if report.is_aa else config.ci["net"],
            "aa_index": _ci(index),
            "sqa_f_score": _ci(f),
        }
        config.definitions = _definition_values(report, definitions, config, (c, p, a), n, boot_ci)
        run_nets = []
        for k, run in enumerate(config.runs):
            rc, rp = boot[:, start + 7 + 2 * k], boot[:, start + 8 + 2 * k]
            run_nets.append(net_of(rc, rp))
            run.ci["net"] = _ci(run_nets[-1])
        config.repeat_noise = _repeat_noise(config, buckets[rows], run_nets)
        config.risk_coverage = _risk_rows(report, config, point, boot, start, n)
    # McNemar pairs (item, repeat) over the repeats every configuration has.
    min_repeats = min((len(c.runs) for c in configs), default=0)
    correct_matrix = (
        np.column_stack(
            [is_correct[[run_index[r.pk] for r in c.runs[:min_repeats]]].ravel() for c in configs]
        )
        if configs and min_repeats
        else np.zeros((0, len(configs)))
    )
    tests = stats.pair_tests(
        [c.key for c in configs],
        estimates,
        np.column_stack(samples) if samples else np.zeros((weights.shape[0], 0)),
        correct_matrix,
    )
    by_pair = {(t.a, t.b): t for t in tests}
    by_key = {c.key: c for c in configs}
    for gap in report.gaps:
        test = by_pair.get((gap.a.key, gap.b.key))
        if test is None:  # a tie, turned the other way round by the tests
            test = by_pair.get((gap.b.key, gap.a.key))
        gap.test = test
        noises = [c.repeat_noise for c in (gap.a, gap.b)]
        if any(x is None for x in noises):
            gap.within_repeat_noise = None
        else:
            gap.within_repeat_noise = gap.gap <= max(x.gap for x in noises) + 1e-9
    _block_intervals(report, blocks, is_correct, is_pen, attempted, run_index)
    report.inference = Inference(
        resamples=weights.shape[0],
        seed=stats.SEED,
        clustered=len(set(blocks)) >= 2,
        n_blocks=len(set(blocks)),
        min_repeats=min_repeats,
        sweep=None if report.is_aa else _sweep(report, configs, point, per_config, by_key),
    )


def _proportion_intervals(report, config, c, p, a, n) -> None:
    """Wilson intervals of the configuration's proportions (means over its repeats, over its N
    items: repeats of one item are not independent draws) and of each run's."""
    for run in config.runs:
        f = run.figures
        if report.is_aa:
            for name, count in (
                ("accuracy", f.correct),
                ("attempt_rate", f.correct + f.incorrect + f.partial),
                ("partial_rate", f.partial),
                ("abstention_rate", f.not_attempted),
            ):
                run.ci[name] = stats.wilson(count, f.n)
            run.ci["hallucination_rate"] = stats.wilson(
                f.incorrect, f.incorrect + f.partial + f.not_attempted
            )
        else:
            run.ci["knowledge"] = stats.wilson(f.correct, f.n)
            run.ci["hallucination_rate"] = stats.wilson(f.confident_wrong, f.attempted)
        for level in run.calibration.levels:
            run.ci[f"accuracy_{level.level}"] = stats.wilson(level.correct, level.count)
    s = config.summary
    if report.is_aa:
        not_att = s["not_attempted"].mean or 0.0
        partial = s["partial"].mean or 0.0
        incorrect = s["incorrect"].mean or 0.0
        config.ci["accuracy"] = stats.wilson(c, n)
        config.ci["attempt_rate"] = stats.wilson(a, n)
        config.ci["partial_rate"] = stats.wilson(partial, n)
        config.ci["abstention_rate"] = stats.wilson(not_att, n)
        config.ci["hallucination_rate"] = stats.wilson(incorrect, incorrect + partial + not_att)
    else:
        config.ci["knowledge"] = stats.wilson(c, n)
        config.ci["hallucination_rate"] = stats.wilson(p, a)
    repeats = max(len(config.runs), 1)
    for level in config.calibration.levels:
        config.ci[f"accuracy_{level.level}"] = stats.wilson(
            level.correct / repeats, level.count / repeats
        )


def _definition_values(report, definitions, config, sums, n, boot_ci) -> list[DefinitionValue]:
    """Every definition's value for one configuration (means over repeats), with its interval:
    Wilson for a proportion, the bootstrap (``boot_ci``) for the others."""
    c, p, a = sums
    s = config.summary
    if report.is_aa:
        incorrect, partial = p, s["partial"].mean or 0.0
        not_attempted = s["not_attempted"].mean or 0.0
    else:
        incorrect, partial = a - c, 0.0
        not_attempted = n - a
    net, index, f = _figures_from_sums(report, np.array(c), np.array(p), np.array(a), n)
    values = {
        "knowledge": (c / n if n else None, stats.wilson(c, n)),
        "hallucination_rate_probe": (None, None)
        if report.is_aa
        else (p / a if a else None, stats.wilson(p, a)),
        "net_usable": (None, None) if report.is_aa else (float(net), None),
        "aa_index": (_none_if_nan(index), None),
        "aa_accuracy": (c / n if n else None, stats.wilson(c, n)),
        "aa_attempt_rate": (a / n if n else None, stats.wilson(a, n)),
        "aa_hallucination_rate": (
            incorrect / (incorrect + partial + not_attempted)
            if incorrect + partial + not_attempted
            else None,
            stats.wilson(incorrect, incorrect + partial + not_attempted),
        ),
        "sqa_correct_given_attempted": (c / a if a else None, stats.wilson(c, a)),
        "sqa_f_score": (_none_if_nan(f), None),
    }
    out = []
    for d in definitions:
        value, ci = values[d.key]
        out.append(DefinitionValue(d.key, value, ci if d.key not in boot_ci else boot_ci[d.key]))
    return out


def _repeat_noise(config, buckets: np.ndarray, run_nets: list) -> RepeatNoise | None:
    agreement = stats.repeat_agreement(buckets)
    if agreement is None:
        return None
    same, compared = agreement
    nets = [run.net for run in config.runs]
    widest, gap_ci = -1.0, None
    for r, s in combinations(range(len(nets)), 2):
        if nets[r] is None or nets[s] is None:
            continue
        gap = abs(nets[r] - nets[s])
        if gap > widest:
            hi, lo = (r, s) if nets[r] >= nets[s] else (s, r)
            widest, gap_ci = gap, _ci(run_nets[hi] - run_nets[lo])
    return RepeatNoise(
        same,
        compared,
        same / compared if compared else None,
        stats.wilson(same, compared),
        max(widest, 0.0),
        gap_ci,
    )


def _risk_rows(report, config, point, boot, start, n) -> list[RiskRow]:
    cells: dict = {}
    repeats = max(len(config.runs), 1)
    pooled = {level.level: level for level in config.calibration.levels}
    for level_name in ("HIGH", "MEDIUM", "LOW"):
        level = pooled[level_name]
        cells[level_name] = (level.count / repeats, level.correct / repeats, 0.0)
    cells[None] = (
        config.calibration.unrated / repeats,
        config.calibration.unrated_correct / repeats,
        0.0,
    )
    # Penalised answers per threshold, from the item columns (confidently wrong sit at HIGH and
    # MEDIUM only; AA's incorrect may sit at any level).
    pen_high, pen_hm, pen_all = point[start + 4], point[start + 6], point[start + 1]
    cells["HIGH"] = (*cells["HIGH"][:2], pen_high)
    cells["MEDIUM"] = (*cells["MEDIUM"][:2], pen_hm - pen_high)
    cells["LOW"] = (*cells["LOW"][:2], pen_all - pen_hm)
    w = 1.0 if report.is_aa else report.w
    points = stats.risk_coverage(cells, n, w)
    score_samples = [
        boot[:, start + 3] - w * boot[:, start + 4],
        boot[:, start + 5] - w * boot[:, start + 6],
        boot[:, start] - w * boot[:, start + 1],
    ]
    return [
        RiskRow(
            pt,
            stats.wilson(pt.answered, n) if n else None,
            stats.wilson(pt.wrong, pt.answered) if pt.answered else None,
            _ci(samples),
        )
        for pt, samples in zip(points, score_samples, strict=True)
    ]


def _block_intervals(report, blocks, is_correct, is_pen, attempted, run_index) -> None:
    """Per block: Wilson on knowledge (AA: accuracy), an item bootstrap of net usable (AA:
    index) within the block's items."""
    codes = np.array(blocks, dtype=object)
    for block in report.blocks:
        members = np.flatnonzero(codes == block.code)
        m = len(members)
        weights = stats.bootstrap_weights(m)
        for cell in block.cells:
            rows = [run_index[run.pk] for run in cell.config.runs]
            c_items = is_correct[np.ix_(rows, members)].mean(axis=0) if rows else np.zeros(m)
            p_items = is_pen[np.ix_(rows, members)].mean(axis=0) if rows else np.zeros(m)
            cell.ci["knowledge"] = stats.wilson(float(c_items.sum()), m)
            cell.ci["accuracy"] = cell.ci["knowledge"]
            sums = stats.bootstrap_sums(weights, np.column_stack([c_items, p_items]))
            if report.is_aa:
                net = 100 * (sums[:, 0] - sums[:, 1]) / m if m else sums[:, 0] * np.nan
                cell.ci["index"] = _ci(net)
            else:
                cell.ci["net_usable"] = _ci(sums[:, 0] - report.w * sums[:, 1])


def _sweep(report, configs, point, per_config, by_key) -> Sweep:
    lines = {
        config.key: (float(point[start]), float(point[start + 1]))
        for config, (start, _rows) in zip(configs, per_config, strict=True)
    }
    weights = stats.sweep_weights()
    ranked = sorted(lines, key=lambda k: -(lines[k][0] - report.w * lines[k][1]))
    shown = ranked[:SWEEP_LINES]
    return Sweep(
        weights=weights,
        thresholds=[stats.threshold_for_weight(w) for w in weights],
        lines=stats.penalty_sweep(lines, weights),
        crossovers=stats.crossovers(lines),
        shown=shown,
    )


def crossovers_shown(sweep: Sweep) -> list[stats.Crossover]:
    shown = set(sweep.shown)
    return [x for x in sweep.crossovers if x.a in shown and x.b in shown]


__all__ = [
    "Definition",
    "DefinitionValue",
    "Inference",
    "PairTest",
    "RepeatNoise",
    "RiskRow",
    "Sweep",
    "crossovers_shown",
    "report_intervals",
]
