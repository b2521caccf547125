"""The report's intervals, paired comparisons, repeat noise, risk-coverage, sweep and definitions.

``report_intervals(source, report)`` adds to a built Report what says how sure each figure is.
Proportions get Wilson intervals from the counts the database already grouped; everything that
needs the items themselves (the paired bootstrap, McNemar, how often two repeats agree) takes the
rows the report was counted from (scoring.report_rows: run, item, bucket, confidence) and hands
numpy arrays to the pure functions of scoring.stats. Definitions are in docs/figures.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from . import stats
from .report_definitions import definition_values, definitions, figures_from_sums
from .report_gaps import gaps_judge
from .report_rows import NO_CONFIDENCE, BucketRows, bucket_rows
from .stats import Interval, RiskCoveragePoint
from .stats_pairs import PairTest

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
    clustered: bool  # blocks resampled as clusters (else, with several blocks, as strata)
    n_blocks: int
    min_repeats: int  # repeats every configuration has
    sweep: Sweep | None


def _load(rows: BucketRows, report):
    """Per-run (n_items,) arrays of bucket codes and confidence codes, and each item's block.

    From the source's rows (scoring.report_rows), with the buckets numbered as the report's
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
    seen = np.bincount(item_blocks[item_blocks >= 0], minlength=len(block_codes))
    for k, block in enumerate(report.blocks):
        blocks.extend([block.code] * max(block.n_items - int(seen[k]), 0))
    n = len(blocks)
    buckets = np.full((len(runs), n), -1, dtype=np.int8)
    confidence = np.full((len(runs), n), NO_CONFIDENCE, dtype=np.int8)
    known = run_rows >= 0
    if known.any():
        r = run_rows[known]
        i = inverse.reshape(-1)[known]
        buckets[r, i] = row_buckets[known]
        confidence[r, i] = rows.level[known]
    return blocks, buckets, confidence, run_index


def _ci(samples: np.ndarray) -> Interval | None:
    samples = samples[~np.isnan(samples)]
    if samples.size == 0:
        return None
    return stats.percentile_interval(samples[:, None])[0]


class _Pending:
    """Bootstrap intervals asked for one by one and computed in one numpy call at the end:
    hundreds of separate percentile calls cost more than the resampling itself."""

    def __init__(self) -> None:
        self.samples: list[np.ndarray] = []
        self.targets: list = []

    def add(self, samples: np.ndarray, target: dict, key: str) -> None:
        """target[key] will hold the interval of ``samples``."""
        target[key] = None
        self.samples.append(samples)
        self.targets.append((target, key))

    def resolve(self) -> None:
        if not self.samples:
            return
        rows = np.empty((len(self.samples), self.samples[0].shape[0]), dtype=np.float32)
        for k, samples in enumerate(self.samples):
            rows[k] = samples
        clean = ~np.isnan(rows).any(axis=1)
        intervals = [None] * rows.shape[0]
        if clean.any():
            resolved = stats.row_intervals(np.ascontiguousarray(rows[clean]), in_place=True)
            for index, interval in zip(np.flatnonzero(clean), resolved, strict=True):
                intervals[index] = interval
        for index in np.flatnonzero(~clean):  # undefined in some resamples: the defined ones
            intervals[index] = _ci(rows[index].astype(np.float64))
        for (target, key), interval in zip(self.targets, intervals, strict=True):
            target[key] = interval


def report_intervals(source, report, rows: BucketRows | None = None) -> None:
    """Fill in the report's intervals, tests, repeat noise, risk-coverage, sweep, definitions.

    ``rows``: the source's rows when the caller has read them already."""
    blocks, buckets, confidence, run_index = _load(
        rows if rows is not None else bucket_rows(source), report
    )
    n = len(blocks)
    weights = stats.bootstrap_weights(n, blocks)
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
        return scheme.net_from_sums(c, p, n, report.w)

    pending = _Pending()
    boot_cis, repeat_gaps = [], []
    sweep_table: dict[int, dict] = {}
    for config, (start, _rows) in zip(configs, per_config, strict=True):
        c, p, a = (point[start + k] for k in range(3))
        bc, bp, ba = (boot[:, start + k] for k in range(3))
        net, index, f = figures_from_sums(report, bc, bp, ba, n)
        pending.add(net, config.ci, "net")
        _proportion_intervals(report, config, c, p, a, n)
        boot_ci: dict = {}
        pending.add(index, boot_ci, "aa_index")
        pending.add(f, boot_ci, "sqa_f_score")
        boot_cis.append((config, (c, p, a), boot_ci))
        run_nets = []
        for k, run in enumerate(config.runs):
            rc, rp = boot[:, start + 7 + 2 * k], boot[:, start + 8 + 2 * k]
            run_nets.append(net_of(rc, rp))
            pending.add(run_nets[-1], run.ci, "net")
        repeat_gaps.append(_repeat_gap(config, run_nets, pending))
        config.risk_coverage = _risk_rows(report, config, point, boot, start, n, pending)
        if scheme.uses_weight:
            sweep_table[config.key] = {}
            for w in SWEEP_TABLE:
                pending.add(boot[:, start] - w * boot[:, start + 1], sweep_table[config.key], w)
    _block_intervals(report, blocks, is_correct, is_pen, run_index, pending)
    pending.resolve()
    all_definitions = definitions()
    for k, (config, sums, boot_ci) in enumerate(boot_cis):
        boot_ci["net_usable"] = config.ci["net"] if scheme.defines_probe_figures else None
        config.definitions = definition_values(report, all_definitions, config, sums, n, boot_ci)
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
        clustered=stats.clustered(blocks),
        n_blocks=len(set(blocks)),
        min_repeats=min_repeats,
        sweep=_sweep(report, configs, point, per_config, sweep_table)
        if scheme.uses_weight
        else None,
    )


def _proportion_intervals(report, config, c, p, a, n) -> None:
    """Wilson intervals of the configuration's proportions (means over its repeats, over its N
    items: repeats of one item are not independent draws) and of each run's."""
    scheme = report.scheme_obj
    for run in config.runs:
        for name, (count, total) in scheme.run_proportions(run.figures).items():
            run.ci[name] = stats.wilson(count, total)
        for level in run.calibration.levels:
            run.ci[f"accuracy_{level.level}"] = stats.wilson(level.correct, level.count)
    for name, (count, total) in scheme.config_proportions(config.summary, c, p, a, n).items():
        config.ci[name] = stats.wilson(count, total)
    repeats = max(len(config.runs), 1)
    for level in config.calibration.levels:
        config.ci[f"accuracy_{level.level}"] = stats.wilson(
            level.correct / repeats, level.count / repeats
        )


def _repeat_gap(config, run_nets: list, pending: _Pending) -> tuple[float, dict] | None:
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
    pending.add(out, target, "gap")
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


def _risk_rows(report, config, point, boot, start, n, pending: _Pending) -> list[RiskRow]:
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
    w = report.scheme_obj.risk_weight(report.w)
    points = stats.risk_coverage(cells, n, w)
    score_samples = [
        boot[:, start + 3] - w * boot[:, start + 4],
        boot[:, start + 5] - w * boot[:, start + 6],
        boot[:, start] - w * boot[:, start + 1],
    ]
    rows = []
    for pt, samples in zip(points, score_samples, strict=True):
        score: dict = {}
        pending.add(samples, score, "score")
        rows.append(
            RiskRow(
                pt,
                stats.wilson(pt.answered, n) if n else None,
                stats.wilson(pt.wrong, pt.answered) if pt.answered else None,
                score,  # the score's interval, once the pending intervals are resolved
            )
        )
    return rows


def _block_intervals(report, blocks, is_correct, is_pen, run_index, pending: _Pending) -> None:
    """Per block: Wilson on knowledge (AA: accuracy), an item bootstrap of net usable (AA:
    index) within the block's items."""
    codes = np.array(blocks, dtype=object)
    scheme = report.scheme_obj
    for block in report.blocks:
        members = np.flatnonzero(codes == block.code)
        m = len(members)
        columns = []
        for cell in block.cells:
            rows = [run_index[run.pk] for run in cell.config.runs]
            for values in (is_correct, is_pen):
                columns.append(values[np.ix_(rows, members)].mean(axis=0) if rows else np.zeros(m))
        if not columns:
            continue
        matrix = np.column_stack(columns)
        sums = stats.bootstrap_sums(stats.bootstrap_weights(m), matrix)
        for k, cell in enumerate(block.cells):
            c_items = matrix[:, 2 * k]
            cell.ci["knowledge"] = stats.wilson(float(c_items.sum()), m)
            cell.ci["accuracy"] = cell.ci["knowledge"]
            correct, pen = sums[:, 2 * k], sums[:, 2 * k + 1]
            net = scheme.net_from_sums(correct, pen, m, report.w)
            pending.add(net, cell.ci, scheme.compared_figure)


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
