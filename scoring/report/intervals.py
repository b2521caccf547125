"""The report's intervals, paired comparisons, repeat noise, risk-coverage, sweep and definitions.

``intervals_build(report, rows)`` finds, from the rows the report was counted from
(scoring.report.rows), what says how sure each figure is, as frozen results
(scoring.report.interval_results), by pure functions over numpy arrays: a run's shares get
Wilson intervals; a configuration's shares (ratios of means over its repeats) Wilson intervals
at the effective number of items; sums (net usable, the index, scores, gaps) the paired
bootstrap's expanded percentile interval, items resampled within their blocks, its columns
named by ``BootColumns``. ``report_intervals`` builds them and hands them to the report once
(``intervals_attach``). Every interval holds its own point; docs/figures.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from types import MappingProxyType

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
from scoring.report.interval_arrays import HIGH, MEDIUM, load_arrays
from scoring.report.interval_results import (
    BOOTSTRAP,
    CONFIG_COLUMNS,
    WILSON,
    BootColumns,
    BootRequest,
    ConfigIntervals,
    FigureInterval,
    RepeatNoise,
    RiskRow,
    SliceIntervals,
    bootstrap_intervals,
    figure_map,
)
from scoring.report.repeat_figures import ratio_terms
from scoring.report.resampling import resampling_weights
from scoring.report.rows import BucketRows, bucket_rows
from scoring.report.shares import ItemShares, ShareLayout, slice_intervals
from scoring.report.stats import Interval

# The sweep chart draws this many configurations (the best at the report's w); the export has all.
SWEEP_LINES = 8
SWEEP_TABLE = (0.0, 0.5, 1.0, 2.0, 4.0)


@dataclass(frozen=True)
class Sweep:
    weights: list[float]
    thresholds: list[float]  # t = w / (1 + w) at each w
    lines: dict[int, list[tuple[float, float]]]  # config key -> [(w, net usable)]
    crossovers: list[stats.Crossover]
    shown: list[int]  # config keys drawn on the chart
    # The table: net usable at a few w, with its bootstrap interval: {config key: {w: Interval}}
    table: Mapping[int, Mapping[float, Interval | None]]
    counts: dict[int, tuple[float, float]]  # config key -> (correct, penalised), mean counts
    table_weights: tuple[float, ...] = SWEEP_TABLE

    def value(self, key: int, w: float) -> float:
        correct, penalised = self.counts[key]
        return correct - w * penalised


@dataclass(frozen=True)
class Inference:
    resamples: int
    seed: int
    target: str  # stats.ITEMS: these blocks, items resampled within each (strata)
    n_blocks: int
    percentile_level: float | None  # the level the percentiles are read at (stats.percentile_level)
    min_repeats: int  # repeats every configuration has
    sweep: Sweep | None


@dataclass(frozen=True)
class ReportIntervals:
    """Everything report_intervals finds, in the report's order of configurations and slices."""

    configs: tuple[ConfigIntervals, ...]
    slices: tuple[tuple[SliceIntervals, ...], ...]  # per slice (blocks, then facet rows), per cell
    inference: Inference


class _Asks:
    """The bootstrap intervals a computation needs, each under a name; ``read`` gives them all
    (scoring.report.interval_results.bootstrap_intervals: one numpy call per level)."""

    def __init__(self) -> None:
        self.names: list[tuple] = []
        self.requests: list[BootRequest] = []

    def ask(self, name: tuple, samples: np.ndarray, *, level: float | None, point) -> None:
        self.names.append(name)
        self.requests.append(BootRequest(samples, point, level))

    def read(self) -> dict[tuple, Interval | None]:
        return dict(zip(self.names, bootstrap_intervals(self.requests), strict=True))


def _columns(cols: BootColumns, configs, run_index, n, arrays) -> np.ndarray:
    """The bootstrap matrix (n items, len(cols)), each column where ``cols`` names it."""
    is_correct, is_pen, attempted, high, high_medium = arrays
    matrix = np.zeros((n, len(cols)))
    for config in configs:
        rows = [run_index[run.pk] for run in config.runs]
        if rows:
            values = {
                "correct": is_correct[rows],
                "penalised": is_pen[rows],
                "attempted": attempted[rows],
                "correct_high": is_correct[rows] * high[rows],
                "penalised_high": is_pen[rows] * high[rows],
                "correct_high_medium": is_correct[rows] * high_medium[rows],
                "penalised_high_medium": is_pen[rows] * high_medium[rows],
            }
            for name in CONFIG_COLUMNS:
                matrix[:, cols.index(config.key, name)] = values[name].mean(axis=0)
        for k, r in enumerate(rows):
            matrix[:, cols.index(config.key, "correct", k)] = is_correct[r]
            matrix[:, cols.index(config.key, "penalised", k)] = is_pen[r]
    return matrix


def report_intervals(source, report, rows: BucketRows | None = None) -> ReportIntervals:
    """The report's intervals, tests, repeat noise, risk-coverage, sweep, definitions, built
    by intervals_build and handed to the report's configurations, runs and slice cells
    (intervals_attach), where the pages and exports read them.

    ``rows``: the source's rows when the caller has read them already."""
    rows = rows if rows is not None else bucket_rows(source)
    loaded = load_arrays(report, rows)
    found = _build(report, rows, loaded)
    intervals_attach(report, found)
    is_correct, is_pen = loaded[-1][:2]
    gaps_judge(report, is_correct, is_pen, loaded[3])
    return found


def intervals_build(report, rows: BucketRows) -> ReportIntervals:
    """Every interval of the report, from its bucket rows: pure (the report is read, not
    changed)."""
    return _build(report, rows, load_arrays(report, rows))


def _build(report, rows: BucketRows, loaded) -> ReportIntervals:
    blocks, buckets, confidence, run_index, item_index, arrays = loaded
    n = len(blocks)
    weights = resampling_weights(n, blocks)
    strata = stats.strata_matrix(np.array(blocks, dtype=object))
    n_blocks = len(set(blocks))
    level = stats.percentile_level(n, n_blocks)
    configs = report.configs
    scheme = report.scheme_obj
    cols = BootColumns.build(configs)
    matrix = _columns(cols, configs, run_index, n, arrays)
    point = matrix.sum(axis=0)
    # No item left (every one dropped): nothing to resample, and no interval (level None).
    boot = stats.bootstrap_sums(weights, matrix) if n else np.zeros((len(weights), len(point)))

    asks = _Asks()
    items_of, sums_of, layout = [], [], ShareLayout(report)
    for config in configs:
        key = config.key
        c, p, a = (cols.of(point, key, name) for name in ("correct", "penalised", "attempted"))
        bc, bp, ba = (cols.of(boot, key, name) for name in ("correct", "penalised", "attempted"))
        net, index, f = figures_from_sums(report, bc, bp, ba, n)
        _net, point_index, point_f = figures_from_sums(
            report, *(np.float64(x) for x in (c, p, a)), n
        )
        asks.ask(("net", key), net, level=level, point=config.net.mean)
        asks.ask(("aa_index", key), index, level=level, point=point_index)
        asks.ask(("sqa_f_score", key), f, level=level, point=point_f)
        run_nets = []
        for k, run in enumerate(config.runs):
            rc, rp = cols.of(boot, key, "correct", k), cols.of(boot, key, "penalised", k)
            run_nets.append(scheme.net_from_sums(rc, rp, n, report.w))
            asks.ask(("run_net", key, k), run_nets[-1], level=level, point=run.net)
        gap = _repeat_gap(config, run_nets)
        if gap is not None:
            asks.ask(("gap", key), gap[1], level=level, point=gap[0])
        for k, (samples, score) in enumerate(_risk_scores(report, config, cols, point, boot, n)):
            asks.ask(("risk", key, k), samples, level=level, point=score)
        if scheme.uses_weight:
            bc, bp = cols.of(boot, key, "correct"), cols.of(boot, key, "penalised")
            for w in SWEEP_TABLE:
                asks.ask(("sweep", key, w), bc - w * bp, level=level, point=c - w * p)
        items = ItemShares(
            report, buckets, confidence, strata, [run_index[r.pk] for r in config.runs], layout
        )
        items.prefetch(_share_specs(report, config, items))
        items_of.append(items)
        sums_of.append((c, p, a))
    slice_asks = slice_intervals(report, blocks, item_index, rows, buckets, run_index)
    for s, cells in enumerate(slice_asks):
        for k, cell in enumerate(cells):
            if cell.boot is not None:
                asks.ask(
                    ("slice", s, k), cell.boot.samples, level=cell.boot.level, point=cell.boot.point
                )
    got = asks.read()
    all_definitions = definitions()
    results = tuple(
        _config_intervals(
            report,
            config,
            items_of[k],
            sums_of[k],
            n,
            got,
            all_definitions,
            buckets[[run_index[run.pk] for run in config.runs]],
            cols,
            point,
        )
        for k, config in enumerate(configs)
    )
    slices = tuple(
        tuple(
            SliceIntervals(cell.figures(got.get(("slice", s, k)))) for k, cell in enumerate(cells)
        )
        for s, cells in enumerate(slice_asks)
    )
    inference = Inference(
        resamples=weights.shape[0],
        seed=stats.SEED,
        target=stats.ITEMS,
        n_blocks=n_blocks,
        percentile_level=level,
        # The repeats every configuration has (the exports say so beside the paired figures).
        min_repeats=min((len(c.runs) for c in configs), default=0),
        sweep=_sweep(report, cols, point, results) if scheme.uses_weight else None,
    )
    return ReportIntervals(results, slices, inference)


def intervals_attach(report, found: ReportIntervals) -> None:
    """Hand each configuration, run and slice cell its intervals, where the pages and exports
    read them (``ci``, ``definitions``, ``repeat_noise``, ``risk_coverage``), and the report its
    inference: the one place the built results meet the report."""
    for config, result in zip(report.configs, found.configs, strict=True):
        config.ci = figure_map(result.figures)
        config.definitions = list(result.definitions)
        config.repeat_noise = result.repeat_noise
        config.risk_coverage = list(result.risk_coverage)
        for run, figures in zip(config.runs, result.runs, strict=True):
            run.ci = figure_map(figures)
    parts = [*report.blocks, *(row for facet in report.facets for row in facet.rows)]
    for part, cells in zip(parts, found.slices, strict=True):
        for cell, result in zip(part.cells, cells, strict=True):
            cell.ci = figure_map(result.figures)
    report.inference = found.inference


def _config_intervals(
    report, config, items, sums, n, got, all_definitions, config_buckets, cols, point
) -> ConfigIntervals:
    scheme = report.scheme_obj
    key = config.key
    figures = [*_proportion_intervals(report, config, items, sums, n)]
    figures.append(FigureInterval("net", config.net.mean, got[("net", key)], BOOTSTRAP))
    boot_ci = {name: got[(name, key)] for name in ("aa_index", "sqa_f_score")}
    boot_ci["net_usable"] = got[("net", key)] if scheme.defines_probe_figures else None
    runs = tuple(
        (
            *_run_proportions(report, run),
            FigureInterval("net", run.net, got[("run_net", key, k)], BOOTSTRAP),
        )
        for k, run in enumerate(config.runs)
    )
    gap = _repeat_gap(config, [None] * len(config.runs))
    return ConfigIntervals(
        key=key,
        figures=tuple(figures),
        runs=runs,
        definitions=tuple(definition_values(report, all_definitions, config, items, boot_ci)),
        repeat_noise=_repeat_noise(config_buckets, gap, got.get(("gap", key))),
        risk_coverage=_risk_rows(report, config, cols, point, n, items, key, got),
        sweep=MappingProxyType(
            {w: got[("sweep", key, w)] for w in SWEEP_TABLE} if scheme.uses_weight else {}
        ),
    )


# The risk-coverage thresholds: the confidence levels kept (None: every answer).
RISK_LEVELS = ((HIGH,), (HIGH, MEDIUM), None)
# Each threshold's correct and penalised columns of the bootstrap matrix.
RISK_COLUMNS = (
    ("correct_high", "penalised_high"),
    ("correct_high_medium", "penalised_high_medium"),
    ("correct", "penalised"),
)


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


def _share(count, total) -> float | None:
    return count / total if total else None


def _run_proportions(report, run) -> tuple[FigureInterval, ...]:
    """Wilson intervals of a run's shares (whole counts)."""
    scheme = report.scheme_obj
    out = [
        FigureInterval(name, _share(count, total), stats.wilson(count, total), WILSON)
        for name, (count, total) in scheme.run_proportions(run.figures).items()
    ]
    out += [
        FigureInterval(
            f"accuracy_{level.level}",
            level.accuracy,
            stats.wilson(level.correct, level.count),
            WILSON,
        )
        for level in run.calibration.levels
    ]
    return tuple(out)


def _proportion_intervals(report, config, items: ItemShares, sums, n) -> list[FigureInterval]:
    """Wilson intervals of the configuration's shares (ratios of the means over its repeats,
    its repeats kept with each item: stats.wilson_items)."""
    if not config.runs:
        return []
    scheme = report.scheme_obj
    out = {
        name: FigureInterval(
            name,
            getattr(config.summary.get(name), "mean", None),
            items.wilson(numerator, denominator),
            WILSON,
        )
        for name, (numerator, denominator) in ratio_terms(config.runs[0].figures).items()
    }
    # A scheme's own shares that scoring.report.repeat_figures does not know: Wilson at its mean counts.
    for name, (count, total) in scheme.config_proportions(config.summary, *sums, n).items():
        if name not in out:
            out[name] = FigureInterval(
                name, _share(count, total), stats.wilson(count, total), WILSON
            )
    pooled = {entry.level: entry for entry in config.calibration.levels}
    for code, level_name in enumerate(CONFIDENCE_LEVELS):
        name = f"accuracy_{level_name}"
        entry = pooled.get(level_name)
        out[name] = FigureInterval(
            name,
            entry.accuracy if entry is not None else None,
            items.wilson((scheme.correct,), ("attempted",), level_name, (code,)),
            WILSON,
        )
    return list(out.values())


def _repeat_gap(config, run_nets: list):
    """The largest gap in the figure between two repeats, and its resamples (from the runs'
    resampled figures ``run_nets``; None where not given): the run-to-run variation."""
    nets = [run.net for run in config.runs]
    widest, out = None, None
    for r, s in combinations(range(len(nets)), 2):
        if nets[r] is None or nets[s] is None:
            continue
        gap = abs(nets[r] - nets[s])
        if widest is None or gap > widest:
            hi, lo = (r, s) if nets[r] >= nets[s] else (s, r)
            widest = gap
            out = run_nets[hi] - run_nets[lo] if run_nets[hi] is not None else None
    if widest is None:
        return None
    return widest, out


def _repeat_noise(buckets: np.ndarray, gap, gap_ci) -> RepeatNoise | None:
    agreement = stats.repeat_agreement(buckets)
    if agreement is None or gap is None:
        return None
    same, compared = agreement
    return RepeatNoise(
        same,
        compared,
        same / compared if compared else None,
        stats.wilson(same, compared),
        gap[0],
        gap_ci,
    )


def _risk_points(report, config, cols: BootColumns, point, n):
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
    key = config.key
    pen_high = cols.of(point, key, "penalised_high")
    pen_hm = cols.of(point, key, "penalised_high_medium")
    pen_all = cols.of(point, key, "penalised")
    cells["HIGH"] = (*cells["HIGH"][:2], pen_high)
    cells["MEDIUM"] = (*cells["MEDIUM"][:2], max(pen_hm - pen_high, 0.0))
    cells["LOW"] = (*cells["LOW"][:2], max(pen_all - pen_hm, 0.0))
    w = report.scheme_obj.risk_weight(report.w)
    return stats.risk_coverage(cells, n, w), w


def _risk_scores(report, config, cols: BootColumns, point, boot, n):
    """Each threshold's resampled score and its score."""
    points, w = _risk_points(report, config, cols, point, n)
    key = config.key
    return [
        (cols.of(boot, key, c) - w * cols.of(boot, key, p), pt.score)
        for pt, (c, p) in zip(points, RISK_COLUMNS, strict=True)
    ]


def _risk_rows(report, config, cols, point, n, items, key, got) -> tuple[RiskRow, ...]:
    points, _w = _risk_points(report, config, cols, point, n)
    correct = (report.scheme_obj.correct,)
    answered = ("attempted",)
    wrong = tuple(b for b in items.attempted_buckets if b not in correct)
    out = []
    for k, (pt, kept) in enumerate(zip(points, RISK_LEVELS, strict=True)):
        mask = kept
        level_key = "all" if kept is None else kept
        out.append(
            RiskRow(
                pt,
                items.wilson(answered, ("n",), level_key, mask) if n else None,
                items.wilson(wrong, answered, level_key, mask) if pt.answered else None,
                got[("risk", key, k)],
            )
        )
    return tuple(out)


def _sweep(report, cols: BootColumns, point, results) -> Sweep:
    lines = {
        config.key: (
            float(cols.of(point, config.key, "correct")),
            float(cols.of(point, config.key, "penalised")),
        )
        for config in report.configs
    }
    weights = stats.sweep_weights()
    ranked = sorted(lines, key=lambda k: -(lines[k][0] - report.w * lines[k][1]))
    return Sweep(
        weights=weights,
        thresholds=[stats.threshold_for_weight(w) for w in weights],
        lines=stats.penalty_sweep(lines, weights),
        crossovers=stats.crossovers(lines),
        shown=ranked[:SWEEP_LINES],
        table={result.key: dict(result.sweep) for result in results},
        counts=lines,
    )


__all__ = [
    "Inference",
    "PairTest",
    "ReportIntervals",
    "RepeatNoise",
    "RiskRow",
    "Sweep",
    "intervals_attach",
    "intervals_build",
    "report_intervals",
]
