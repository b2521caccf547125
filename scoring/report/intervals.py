"""The report's intervals, paired comparisons, repeat noise, risk-coverage, sweep and definitions.

``report_intervals(source, report)`` adds to a built Report what says how sure each figure is.
Everything is about these blocks (the items a sample of what such blocks hold: stratified by
block) and comes from the rows the report was counted from (scoring.report.rows: run, item,
bucket, confidence), handed as numpy arrays to the pure functions of scoring.report.stats: a run's
shares get Wilson intervals; a configuration's shares (ratios of means over its repeats) Wilson
intervals at the effective number of items, its repeats kept with each item; sums (net usable,
the index, scores, gaps) the paired bootstrap's expanded percentile interval. Every interval
holds its own point. Definitions and measured coverage are in docs/figures.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from scoring.comparison.stats_pairs import PairTest
from scoring.metrics import CONFIDENCE_LEVELS
from scoring.report import stats
from scoring.report.definitions import (
    definition_values,
    definitions,
    figures_from_sums,
    share_terms,
)
from scoring.report.gaps import gaps_judge
from scoring.report.repeat_figures import ratio_terms
from scoring.report.resampling import resampling_weights
from scoring.report.rows import NO_CONFIDENCE, BucketRows, bucket_rows
from scoring.report.shares import ItemShares, slice_intervals
from scoring.report.stats import Interval, RiskCoveragePoint

# The sweep chart draws this many configurations (the best at the report's w); the export has all.
SWEEP_LINES = 8
SWEEP_TABLE = (0.0, 0.5, 1.0, 2.0, 4.0)
HIGH, MEDIUM, LOW = range(3)


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


@dataclass
class Sweep:
    weights: list[float]
    thresholds: list[float]  # t = w / (1 + w) at each w
    lines: dict[int, list[tuple[float, float]]]  # config key -> [(w, net usable)]
    crossovers: list[stats.Crossover]
    shown: list[int] = field(default_factory=list)  # config keys drawn on the chart
    # The table: net usable at a few w, with its bootstrap interval: {config key: {w: Interval}}
    table_weights: tuple[float, ...] = SWEEP_TABLE
    table: dict[int, dict] = field(default_factory=dict)

    def value(self, key: int, w: float) -> float:
        correct, penalised = self.counts[key]
        return correct - w * penalised

    counts: dict[int, tuple[float, float]] = field(default_factory=dict)


@dataclass
class Inference:
    resamples: int
    seed: int
    target: str  # stats.ITEMS: these blocks, items resampled within each (strata)
    n_blocks: int
    percentile_level: float | None  # the level the percentiles are read at (stats.percentile_level)
    min_repeats: int  # repeats every configuration has
    sweep: Sweep | None


def _load(rows: BucketRows, report):
    """Per-run (n_items,) arrays of bucket codes and confidence codes, and each item's block.

    From the source's rows (scoring.report.rows), with the buckets numbered as the report's
    scheme numbers them. An item no run has a bucket for appears in no row; the report's block
    sizes say how many such items each block has, and they are added as items with no bucket
    (they count nowhere, as in the figures, but are drawn in the bootstrap like any other item).
    Items are ordered by block, then primary key, so the same data always give the same
    resamples.
    """
    block_codes = [block.code for block in report.blocks]
    scheme_buckets = list(report.bucket_names)
    to_scheme = np.array(
        [scheme_buckets.index(b) if b in scheme_buckets else -1 for b in rows.bucket_names] + [-1],
        dtype=np.int8,
    )
    row_blocks = rows.item_codes("block_code", block_codes)
    row_buckets = to_scheme[rows.bucket]  # -1 (no bucket of the source's) reads the last entry
    runs = report.runs
    run_rows = rows.run_codes([run.pk for run in runs])
    run_index = {run.pk: r for r, run in enumerate(runs)}
    # Items: unique (block, item) pairs in that order; index = rank among them (the items are
    # numbered in primary key order).
    span = len(rows.items) + 1
    keys, inverse = np.unique((row_blocks + 1) * span + rows.item, return_inverse=True)
    item_blocks = keys // span - 1
    blocks = [block_codes[k] if k >= 0 else "" for k in item_blocks.tolist()]
    item_index = (keys % span).tolist()  # into rows.items; -1 for an item with no row
    seen = np.bincount(item_blocks[item_blocks >= 0], minlength=len(block_codes))
    for k, block in enumerate(report.blocks):
        padding = max(block.n_items - int(seen[k]), 0)
        blocks.extend([block.code] * padding)
        item_index.extend([-1] * padding)
    n = len(blocks)
    buckets = np.full((len(runs), n), -1, dtype=np.int8)
    confidence = np.full((len(runs), n), NO_CONFIDENCE, dtype=np.int8)
    known = run_rows >= 0
    if known.any():
        r = run_rows[known]
        i = inverse.reshape(-1)[known]
        buckets[r, i] = row_buckets[known]
        confidence[r, i] = rows.level[known]
    return blocks, buckets, confidence, run_index, item_index


def _ci(samples: np.ndarray, level: float) -> Interval | None:
    samples = samples[~np.isnan(samples)]
    if samples.size == 0:
        return None
    return stats.percentile_interval(samples[:, None], level)[0]


class _Pending:
    """Bootstrap intervals asked for one by one and computed in one numpy call per level at the
    end: hundreds of separate percentile calls cost more than the resampling itself."""

    def __init__(self) -> None:
        self.samples: list[np.ndarray] = []
        self.targets: list = []

    def add(self, samples: np.ndarray, target: dict, key, *, level: float | None, point) -> None:
        """target[key] will hold the interval of ``samples`` read at ``level`` (None: no
        interval), widened where needed to hold ``point``, the figure itself."""
        target[key] = None
        if level is None:
            return
        self.samples.append(samples)
        self.targets.append((target, key, level, point))

    def resolve(self) -> None:
        by_level: dict[float, list[int]] = {}
        for k, (_t, _k, level, _p) in enumerate(self.targets):
            by_level.setdefault(level, []).append(k)
        for level, members in by_level.items():
            rows = np.empty((len(members), self.samples[members[0]].shape[0]), dtype=np.float32)
            for r, k in enumerate(members):
                rows[r] = self.samples[k]
            clean = ~np.isnan(rows).any(axis=1)
            intervals = [None] * rows.shape[0]
            if clean.any():
                resolved = stats.row_intervals(
                    np.ascontiguousarray(rows[clean]), level, in_place=True
                )
                for index, interval in zip(np.flatnonzero(clean), resolved, strict=True):
                    intervals[index] = interval
            for index in np.flatnonzero(~clean):  # undefined in some resamples: the defined ones
                intervals[index] = _ci(rows[index].astype(np.float64), level)
            for k, interval in zip(members, intervals, strict=True):
                target, key, _level, point = self.targets[k]
                target[key] = _holding(interval, point)


def _holding(interval: Interval | None, point) -> Interval | None:
    """The interval, stretched to hold its own figure (a percentile interval of a skewed
    resampling distribution can miss it by a hair; a figure outside its interval reads as an
    error)."""
    if interval is None or point is None or np.isnan(point):
        return interval
    point = float(point)
    return Interval(min(interval.low, point), max(interval.high, point))


def report_intervals(source, report, rows: BucketRows | None = None) -> None:
    """Fill in the report's intervals, tests, repeat noise, risk-coverage, sweep, definitions.

    ``rows``: the source's rows when the caller has read them already."""
    rows = rows if rows is not None else bucket_rows(source)
    blocks, buckets, confidence, run_index, item_index = _load(rows, report)
    n = len(blocks)
    weights = resampling_weights(n, blocks)
    strata = stats.strata_matrix(np.array(blocks, dtype=object))
    n_blocks = len(set(blocks))
    level = stats.percentile_level(n, n_blocks)
    configs = report.configs
    scheme = report.scheme_obj
    names = list(report.bucket_names)
    correct_b, pen_b = names.index(scheme.correct), names.index(scheme.penalised)
    abstain_b = names.index(scheme.abstain) if scheme.abstain in names else -1
    attempted_mask = (buckets >= 0) & (buckets != abstain_b)
    is_correct = (buckets == correct_b).astype(float)
    is_pen = (buckets == pen_b).astype(float)
    attempted = attempted_mask.astype(float)
    high = (confidence == HIGH) & attempted_mask
    high_medium = ((confidence == HIGH) | (confidence == MEDIUM)) & attempted_mask

    # Columns: per configuration (means over its repeats) correct, penalised, attempted, and the
    # same at HIGH only and at HIGH + MEDIUM; per run, correct and penalised.
    columns, per_config = [], []
    for config in configs:
        config_rows = [run_index[run.pk] for run in config.runs]
        start = len(columns)
        for values in (
            is_correct[config_rows],
            is_pen[config_rows],
            attempted[config_rows],
            is_correct[config_rows] * high[config_rows],
            is_pen[config_rows] * high[config_rows],
            is_correct[config_rows] * high_medium[config_rows],
            is_pen[config_rows] * high_medium[config_rows],
        ):
            columns.append(values.mean(axis=0) if len(config_rows) else np.zeros(n))
        for r in config_rows:
            columns.append(is_correct[r])
            columns.append(is_pen[r])
        per_config.append((start, config_rows))
    matrix = np.column_stack(columns) if columns else np.zeros((n, 0))
    point = matrix.sum(axis=0)
    # No item left (every one dropped): nothing to resample, and no interval (level None).
    boot = stats.bootstrap_sums(weights, matrix) if n else np.zeros((len(weights), len(point)))

    def net_of(c, p):
        return scheme.net_from_sums(c, p, n, report.w)

    pending = _Pending()
    boot_cis, repeat_gaps, items_of = [], [], []
    sweep_table: dict[int, dict] = {}
    for config, (start, config_rows) in zip(configs, per_config, strict=True):
        c, p, a = (point[start + k] for k in range(3))
        bc, bp, ba = (boot[:, start + k] for k in range(3))
        net, index, f = figures_from_sums(report, bc, bp, ba, n)
        point_net, point_index, point_f = figures_from_sums(
            report, *(np.float64(x) for x in (c, p, a)), n
        )
        pending.add(net, config.ci, "net", level=level, point=config.net.mean)
        items = ItemShares(report, buckets, confidence, strata, config_rows)
        items.prefetch(_share_specs(report, config, items))
        items_of.append(items)
        _proportion_intervals(report, config, items, (c, p, a), n)
        boot_ci: dict = {}
        pending.add(index, boot_ci, "aa_index", level=level, point=point_index)
        pending.add(f, boot_ci, "sqa_f_score", level=level, point=point_f)
        boot_cis.append((config, boot_ci))
        run_nets = []
        for k, run in enumerate(config.runs):
            rc, rp = boot[:, start + 7 + 2 * k], boot[:, start + 8 + 2 * k]
            run_nets.append(net_of(rc, rp))
            pending.add(run_nets[-1], run.ci, "net", level=level, point=run.net)
        repeat_gaps.append(_repeat_gap(config, run_nets, pending, level))
        config.risk_coverage = _risk_rows(
            report, config, point, boot, start, n, pending, level, items
        )
        if scheme.uses_weight:
            sweep_table[config.key] = {}
            for w in SWEEP_TABLE:
                pending.add(
                    boot[:, start] - w * boot[:, start + 1],
                    sweep_table[config.key],
                    w,
                    level=level,
                    point=point[start] - w * point[start + 1],
                )
    slice_intervals(report, blocks, item_index, rows, buckets, run_index, pending)
    pending.resolve()
    all_definitions = definitions()
    for k, (config, boot_ci) in enumerate(boot_cis):
        boot_ci["net_usable"] = config.ci["net"] if scheme.defines_probe_figures else None
        config.definitions = definition_values(
            report, all_definitions, config, items_of[k], boot_ci
        )
        config.repeat_noise = _repeat_noise(config, buckets[per_config[k][1]], repeat_gaps[k])
        config.risk_coverage = [
            RiskRow(row.point, row.coverage_ci, row.risk_ci, row.score_ci.get("score"))
            for row in config.risk_coverage
        ]
    # The repeats every configuration has (the exports say so beside the paired figures).
    min_repeats = min((len(c.runs) for c in configs), default=0)
    gaps_judge(report, is_correct, is_pen, run_index)
    report.inference = Inference(
        resamples=weights.shape[0],
        seed=stats.SEED,
        target=stats.ITEMS,
        n_blocks=n_blocks,
        percentile_level=level,
        min_repeats=min_repeats,
        sweep=_sweep(report, configs, point, per_config, sweep_table)
        if scheme.uses_weight
        else None,
    )


# The risk-coverage thresholds: the confidence levels kept (None: every answer).
RISK_LEVELS = ((HIGH,), (HIGH, MEDIUM), None)


def _share_specs(report, config, items: ItemShares) -> list:
    """Every share of the configuration that has an interval, as ItemShares.wilson takes it:
    its figures', each confidence level's, the definitions', the risk-coverage points'."""
    correct = (report.scheme_obj.correct,)
    specs = [(num, den, None, None) for num, den in share_terms(report.scheme_obj).values()]
    if config.runs:
        specs += [
            (num, den, None, None) for num, den in ratio_terms(config.runs[0].figures).values()
        ]
    for code, level_name in enumerate(CONFIDENCE_LEVELS):
        specs.append((correct, ("attempted",), level_name, (code,)))
    wrong = tuple(b for b in items.attempted_buckets if b not in correct)
    for kept in RISK_LEVELS:
        mask = kept
        key = "all" if kept is None else kept
        specs += [(("attempted",), ("n",), key, mask), (wrong, ("attempted",), key, mask)]
    return specs


def _proportion_intervals(report, config, items: ItemShares, sums, n) -> None:
    """Wilson intervals of a run's shares (whole counts), and of the configuration's (ratios of
    the means over its repeats, its repeats kept with each item: stats.wilson_items)."""
    scheme = report.scheme_obj
    for run in config.runs:
        for name, (count, total) in scheme.run_proportions(run.figures).items():
            run.ci[name] = stats.wilson(count, total)
        for level in run.calibration.levels:
            run.ci[f"accuracy_{level.level}"] = stats.wilson(level.correct, level.count)
    if not config.runs:
        return
    for name, (numerator, denominator) in ratio_terms(config.runs[0].figures).items():
        config.ci[name] = items.wilson(numerator, denominator)
    # A scheme's own shares that scoring.report.repeat_figures does not know: Wilson at its mean counts.
    for name, (count, total) in scheme.config_proportions(config.summary, *sums, n).items():
        if name not in config.ci:
            config.ci[name] = stats.wilson(count, total)
    for code, level_name in enumerate(CONFIDENCE_LEVELS):
        at_level = (code,)
        config.ci[f"accuracy_{level_name}"] = items.wilson(
            (report.scheme_obj.correct,), ("attempted",), level_name, at_level
        )


def _repeat_gap(config, run_nets: list, pending: _Pending, level) -> tuple[float, dict] | None:
    """The largest gap in the figure between two repeats, and (filled in later) its paired
    bootstrap interval: the run-to-run variation of this configuration."""
    nets = [run.net for run in config.runs]
    widest, out = None, None
    for r, s in combinations(range(len(nets)), 2):
        if nets[r] is None or nets[s] is None:
            continue
        gap = abs(nets[r] - nets[s])
        if widest is None or gap > widest:
            hi, lo = (r, s) if nets[r] >= nets[s] else (s, r)
            widest, out = gap, run_nets[hi] - run_nets[lo]
    if widest is None:
        return None
    target: dict = {}
    pending.add(out, target, "gap", level=level, point=widest)
    return widest, target


def _repeat_noise(config, buckets: np.ndarray, gap) -> RepeatNoise | None:
    agreement = stats.repeat_agreement(buckets)
    if agreement is None or gap is None:
        return None
    same, compared = agreement
    widest, target = gap
    return RepeatNoise(
        same,
        compared,
        same / compared if compared else None,
        stats.wilson(same, compared),
        widest,
        target["gap"],
    )


def _risk_rows(report, config, point, boot, start, n, pending, level, items) -> list[RiskRow]:
    cells: dict = {}
    repeats = max(len(config.runs), 1)
    pooled = {entry.level: entry for entry in config.calibration.levels}
    for level_name in CONFIDENCE_LEVELS:
        entry = pooled[level_name]
        cells[level_name] = (entry.count / repeats, entry.correct / repeats, 0.0)
    cells[None] = (
        config.calibration.unrated / repeats,
        config.calibration.unrated_correct / repeats,
        0.0,
    )
    # Penalised answers per threshold, from the item columns (confidently wrong sit at HIGH and
    # MEDIUM only; AA's incorrect may sit at any level).
    pen_high, pen_hm, pen_all = point[start + 4], point[start + 6], point[start + 1]
    cells["HIGH"] = (*cells["HIGH"][:2], pen_high)
    cells["MEDIUM"] = (*cells["MEDIUM"][:2], max(pen_hm - pen_high, 0.0))
    cells["LOW"] = (*cells["LOW"][:2], max(pen_all - pen_hm, 0.0))
    w = report.scheme_obj.risk_weight(report.w)
    points = stats.risk_coverage(cells, n, w)
    score_samples = [
        boot[:, start + 3] - w * boot[:, start + 4],
        boot[:, start + 5] - w * boot[:, start + 6],
        boot[:, start] - w * boot[:, start + 1],
    ]
    correct = (report.scheme_obj.correct,)
    out = []
    for pt, samples, kept in zip(points, score_samples, RISK_LEVELS, strict=True):
        score: dict = {}
        pending.add(samples, score, "score", level=level, point=pt.score)
        mask = kept
        key = "all" if kept is None else kept
        answered = ("attempted",)
        wrong = tuple(b for b in items.attempted_buckets if b not in correct)
        out.append(
            RiskRow(
                pt,
                items.wilson(answered, ("n",), key, mask) if n else None,
                items.wilson(wrong, answered, key, mask) if pt.answered else None,
                score,  # the score's interval, once the pending intervals are resolved
            )
        )
    return out


def _sweep(report, configs, point, per_config, table) -> Sweep:
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
        table=table,
        counts=lines,
    )


__all__ = [
    "Inference",
    "PairTest",
    "RepeatNoise",
    "RiskRow",
    "Sweep",
    "report_intervals",
]
