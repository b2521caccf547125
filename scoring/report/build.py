"""The report of an experiment: counts from the database, figures from scoring.metrics.

A report is built from a *bucket source*: any queryset whose rows carry a ``response`` foreign key
and a ``bucket`` field, one row per response: one scorer's judgements (``judgement_source``) or
the team's reconciled final buckets (``final_source``). ``without_dropped(source)`` leaves the
items the key review judged ambiguous out of every figure, N included.

A report takes a fixed number of queries, whatever the number of items, runs or judgements: the
runs, the items per block, format compliance grouped by run, and the bucket rows themselves, read
once as numpy arrays (scoring.report.rows). Every count (per run, block, confidence level, topic
and answer format) is a bincount of those rows, and the intervals (scoring.report.intervals) take
the same rows; Python folds the counts into the pure figure functions of scoring.metrics.
Definitions and degenerate cases are those of scoring.metrics.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from django.db.models import Count, Min, Q

from adapters.registry import is_simulated
from probe.models import Experiment, ExperimentItem, Response, Run
from probe.sheetparser import is_compliant, issue_label
from scoring import metrics
from scoring.metrics import (
    AACounts,
    AAFigures,
    BucketCounts,
    Calibration,
    FourBucketFigures,
    RepeatSummary,
)
from scoring.models import Assignment
from scoring.report import slices as report_slices
from scoring.report import stats
from scoring.report.intervals import report_intervals
from scoring.report.repeat_figures import pooled_summary
from scoring.report.rows import NO_CONFIDENCE, BucketRows, bucket_rows
from scoring.report.source import BucketSource, final_source, judgement_source, without_dropped
from scoring.schemes import Scheme, as_scheme, scheme_for

__all__ = [
    "BlockRow",
    "BucketSource",
    "Compliance",
    "ConfigReport",
    "GapRow",
    "Report",
    "RunReport",
    "final_source",
    "judgement_source",
    "parse_weight",
    "report_build",
    "scorer_report",
    "without_dropped",
]

# The most common format issues listed per configuration.
TOP_ISSUES = 5

# ------------------------------------------------------------------------------------------------
# The report's shape
# ------------------------------------------------------------------------------------------------


@dataclass
class Compliance:
    """Format compliance: the share of responses the parser read without any issue."""

    responses: int = 0
    clean: int = 0
    issue_counts: Counter = field(default_factory=Counter)

    @property
    def share(self) -> float | None:
        return self.clean / self.responses if self.responses else None

    @property
    def top_issues(self) -> list[tuple[str, str, int]]:
        """(code, translated label, responses with it), most common first."""
        ranked = sorted(self.issue_counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_ISSUES]
        return [(code, issue_label(code), n) for code, n in ranked]

    def add(self, other: Compliance) -> None:
        self.responses += other.responses
        self.clean += other.clean
        self.issue_counts.update(other.issue_counts)


@dataclass
class RunReport:
    """One run (one repeat of one configuration)."""

    pk: int
    repeat: int
    status: str
    counts: BucketCounts | AACounts
    figures: FourBucketFigures | AAFigures
    calibration: Calibration
    unblinded: int
    compliance: Compliance
    # per block code: the figures over that block's items
    blocks: dict[str, FourBucketFigures | AAFigures] = field(default_factory=dict)
    ci: dict = field(default_factory=dict)  # figure name -> Interval or None (report_intervals)
    compared_figure: str = "net_usable"  # the scheme's (Scheme.compared_figure)

    @property
    def net(self) -> float | None:
        """The figure the configurations are compared on: net usable, or the AA index."""
        return getattr(self.figures, self.compared_figure)


@dataclass
class ConfigReport:
    """One model configuration, its runs (repeats) and their summary."""

    key: int  # the model configuration's pk
    label: str
    provider: str
    model_name: str
    runs: list[RunReport]
    summary: dict[str, RepeatSummary]  # figure or bucket name -> mean / min / max over repeats
    calibration: Calibration  # pooled over the repeats
    compliance: Compliance
    # Filled in by scoring.report.intervals: figure name -> Interval (means over repeats), the
    # definitions side by side, the repeats' own variation, the three-point risk-coverage table.
    ci: dict = field(default_factory=dict)
    definitions: list = field(default_factory=list)
    repeat_noise: object = None
    risk_coverage: list = field(default_factory=list)
    compared_figure: str = "net_usable"  # the scheme's (Scheme.compared_figure)

    @property
    def simulated(self) -> bool:
        return is_simulated(self.provider)

    @property
    def unblinded(self) -> int:
        return sum(run.unblinded for run in self.runs)

    @property
    def net(self) -> RepeatSummary:
        return self.summary[self.compared_figure]


@dataclass
class GapRow:
    """A pairwise gap in mean net usable (AA: mean index), larger first."""

    a: ConfigReport
    b: ConfigReport
    gap: float
    is_noise: bool  # under the probe's rule of thumb (3 items in 30): shown, never a verdict
    # Filled in by scoring.report.gaps: the permutation test and its interval (separable), the
    # noise floor of the two configurations' repeats and whether the gap lies under it (None: a
    # configuration has one repeat only).
    test: object = None  # stats_pairs.PairTest
    repeat_floor: float | None = None
    within_repeat_noise: bool | None = None


@dataclass
class BlockCell:
    config: ConfigReport
    summary: dict[str, RepeatSummary]
    ci: dict = field(default_factory=dict)


@dataclass
class BlockRow:
    code: str
    title: str
    n_items: int
    cells: list[BlockCell]
    floor: float  # the noise floor scaled to this block (items, or index points for AA)


@dataclass
class Report:
    experiment: Experiment
    scheme: str
    scorer: str
    revealed_at: datetime | None
    w: float
    n_items: int
    repeats: int
    noise_floor_items: float
    noise_floor_default: bool  # True when the experiment leaves it at 3 items per 30
    configs: list[ConfigReport]
    gaps: list[GapRow]
    blocks: list[BlockRow]
    unblinded: int
    has_unblinded_field: bool
    scored: int  # bucket rows counted
    responses: int  # responses in the experiment (those of excluded items left out)
    dropped: int = 0  # items left out of every figure (the source's excluded items)
    facets: list = field(default_factory=list)  # slices by topic and answer format (report_slices)
    inference: object = None  # report_intervals.Inference: resamples, clusters, the sweep

    @property
    def scheme_obj(self) -> Scheme:
        """The scoring scheme (scoring.schemes): buckets, figures, columns, texts."""
        return scheme_for(self.scheme)

    @property
    def bucket_names(self) -> tuple[str, ...]:
        return tuple(self.scheme_obj.buckets)

    @property
    def weight(self) -> float | None:
        """w, or None under a scheme without one (the exports' "w")."""
        return self.scheme_obj.weight(self.w)

    @property
    def noise_floor(self) -> float:
        """The floor in the unit the configurations are compared in (items; AA: index points)."""
        return self.scheme_obj.noise_floor(self.noise_floor_items, self.n_items)

    def slice_floor(self, n: int) -> float:
        """The floor over a slice of n items (blocks, facets)."""
        return self.scheme_obj.slice_floor(
            self.noise_floor, self.noise_floor_items, n, self.n_items
        )

    @property
    def separable_pairs(self) -> int:
        """Pairs of configurations the paired tests separate at 95 %."""
        return sum(1 for g in self.gaps if g.test is not None and g.test.separable)

    @property
    def unscored(self) -> int:
        return self.responses - self.scored

    @property
    def runs(self) -> list[RunReport]:
        return [run for config in self.configs for run in config.runs]


# ------------------------------------------------------------------------------------------------
# Building it
# ------------------------------------------------------------------------------------------------


def parse_weight(value: str | None, default: float = 1.0) -> float:
    """w from a query string: a finite number from 0 to 100, or ValueError."""
    if value is None or str(value).strip() == "":
        return default
    w = float(str(value).strip().replace(",", "."))
    if not (0 <= w <= 100):  # also rejects NaN and infinities
        raise ValueError("w must be between 0 and 100")
    return w


def scorer_report(assignment: Assignment, *, w: float = 1.0) -> Report:
    """The report of one scorer's judgements (items the key review dropped left out)."""
    return report_build(without_dropped(judgement_source(assignment)), w=w)


def _figures(scheme: Scheme | str, bucket_counts: dict[str, int], n_items: int, w: float):
    return as_scheme(scheme).figures(bucket_counts, n_items, w)


def _summaries(scheme: Scheme | str, runs_figures: list) -> dict[str, RepeatSummary]:
    scheme = as_scheme(scheme)
    values = [scheme.summary_values(f) for f in runs_figures]
    # A ratio over repeats is the ratio of the means (scoring.report.repeat_figures): one formula per name.
    return {
        name: pooled_summary(runs_figures, name, (v[name] for v in values))
        for name in scheme.summary_names
    }


def _counters(rows: BucketRows, counts: np.ndarray) -> list[Counter]:
    """Bucket counts (the last axis of ``counts``, as BucketRows.tally gives them) as Counters by
    bucket name, one per entry of the first axis; buckets with no row are absent."""
    names = rows.bucket_names
    return [
        Counter({names[b]: int(n) for b, n in enumerate(cell) if n})
        for cell in counts.reshape(-1, len(names)).tolist()
    ]


def _calibration(cells: dict[tuple[str | None, str], int], scheme: Scheme | str) -> Calibration:
    return stats.calibration_from_cells(cells, as_scheme(scheme).abstain)


def _compliance(experiment: Experiment, excluded) -> tuple[dict[int, Compliance], int]:
    """Format compliance per run, and the responses counted (those of excluded items left out)."""
    compliance_by_run: dict[int, Compliance] = defaultdict(Compliance)
    responses = 0
    compliance_responses = Response.objects.filter(run__experiment=experiment)
    if excluded is not None:
        compliance_responses = compliance_responses.exclude(item__in=excluded)
    for row in compliance_responses.values("run_id", "issues").annotate(n=Count("pk")).order_by():
        entry = compliance_by_run[row["run_id"]]
        issues = row["issues"] or []
        entry.responses += row["n"]
        responses += row["n"]
        if is_compliant(issues):  # minor deviations (full-width labels) still follow it
            entry.clean += row["n"]
        for code in set(issues):
            entry.issue_counts[code] += row["n"]
    return compliance_by_run, responses


def report_build(source: BucketSource, *, w: float = 1.0, intervals: bool = True) -> Report:
    """The whole report, in the same few queries whatever the size of the experiment: the runs,
    the items per block, the bucket rows and the items' facts (scoring.report.rows), format
    compliance. The slices by topic and answer format (report_slices) and the intervals
    (report_intervals) count the same rows. ``intervals=False``: the figures alone, no interval
    or test (each scorer's figures beside the final ones)."""
    experiment = source.experiment
    scheme = experiment.scheme_obj
    w = float(w)

    # 1. The runs, with what the report says of their configuration (after the reveal only).
    runs = list(
        Run.objects.filter(experiment=experiment)
        .order_by("order", "pk")
        .values("pk", "model_config_id", "repeat", "status", "config_snapshot")
    )
    # 2. The items per block: N, and each block's N (excluded items counted apart).
    excluded = source.excluded_items
    block_counts = {"n": Count("pk")}
    if excluded is not None:
        block_counts = {"n": Count("pk", filter=~Q(pk__in=excluded)), "n_all": Count("pk")}
    blocks = list(
        ExperimentItem.objects.filter(experiment=experiment)
        .values("block_code", "block_title", *report_slices.FACETS)
        .annotate(**block_counts, first=Min("position"))
        # In the bank's order, as the sheet puts the blocks (block 「3」 after A and B there).
        .order_by("first", "block_code")
    )
    facet_items = [dict(b) for b in blocks]  # the same counts, by topic and answer format too
    dropped = sum(b.get("n_all", b["n"]) - b["n"] for b in blocks)
    blocks = [b for b in blocks if b["n"]]  # a block whose every item is left out has no figures
    n_items = sum(b["n"] for b in blocks)

    # 3. Every bucket row at once (scoring.report.rows), counted by run, block, level and bucket.
    rows = bucket_rows(source)
    run_codes = rows.run_codes([run["pk"] for run in runs])
    by_run = _counters(rows, rows.tally((run_codes, len(runs))))
    block_codes = list(dict.fromkeys(b["block_code"] for b in blocks))
    by_block = rows.tally(
        (run_codes, len(runs)), (rows.item_codes("block_code", block_codes), len(block_codes))
    )
    by_level = rows.tally((run_codes, len(runs)), (rows.level, NO_CONFIDENCE + 1))
    unblinded = np.bincount(
        run_codes[run_codes >= 0], weights=rows.unblinded[run_codes >= 0], minlength=len(runs)
    )
    levels = (*metrics.CONFIDENCE_LEVELS, None)  # None: unrated, as metrics.calibration counts ""
    scored = len(rows)

    # 4. Format compliance: responses grouped by run and by their (usually empty) issue list.
    compliance_by_run, responses = _compliance(experiment, excluded)

    # Fold into runs and configurations.
    block_n = {}
    for b in blocks:
        block_n[b["block_code"]] = block_n.get(b["block_code"], 0) + b["n"]
    block_titles: dict[str, str] = {}
    for b in blocks:
        block_titles.setdefault(b["block_code"], b["block_title"])

    config_runs: dict[int, list[RunReport]] = defaultdict(list)
    config_meta: dict[int, dict] = {}
    calib_cells: dict[int, Counter] = {}
    for r, run in enumerate(runs):
        run_blocks = dict(zip(block_codes, _counters(rows, by_block[r]), strict=True))
        calib_cells[run["pk"]] = Counter(
            {
                (levels[k], bucket): n
                for k, cell in enumerate(_counters(rows, by_level[r]))
                for bucket, n in cell.items()
            }
        )
        counts, figs = _figures(scheme, by_run[r], n_items, w)
        run_report = RunReport(
            pk=run["pk"],
            repeat=run["repeat"],
            status=run["status"],
            counts=counts,
            figures=figs,
            calibration=_calibration(calib_cells[run["pk"]], scheme),
            unblinded=int(unblinded[r]),
            compliance=compliance_by_run[run["pk"]],
            blocks={
                code: _figures(scheme, run_blocks[code], n, w)[1] for code, n in block_n.items()
            },
            compared_figure=scheme.compared_figure,
        )
        config_runs[run["model_config_id"]].append(run_report)
        config_meta.setdefault(run["model_config_id"], run["config_snapshot"] or {})

    configs: list[ConfigReport] = []
    for key, run_reports in config_runs.items():
        run_reports.sort(key=lambda r: (r.repeat, r.pk))
        snapshot = config_meta[key]
        pooled_cells: Counter = Counter()
        compliance = Compliance()
        for run_report in run_reports:
            pooled_cells.update(calib_cells[run_report.pk])
            compliance.add(run_report.compliance)
        configs.append(
            ConfigReport(
                key=key,
                label=snapshot.get("label") or f"#{key}",
                provider=snapshot.get("provider", ""),
                model_name=snapshot.get("model_name", ""),
                runs=run_reports,
                summary=_summaries(scheme, [r.figures for r in run_reports]),
                calibration=_calibration(pooled_cells, scheme),
                compliance=compliance,
                compared_figure=scheme.compared_figure,
            )
        )
    configs.sort(key=lambda c: (c.label.casefold(), c.key))

    floor_items = metrics.noise_floor(n_items, experiment.noise_floor)
    report = Report(
        experiment=experiment,
        scheme=scheme.key,
        scorer=source.scorer,
        revealed_at=source.revealed_at,
        w=w,
        n_items=n_items,
        repeats=max((len(c.runs) for c in configs), default=0),
        noise_floor_items=floor_items,
        noise_floor_default=experiment.noise_floor is None,
        configs=configs,
        gaps=[],
        blocks=[],
        unblinded=int(unblinded.sum()),
        has_unblinded_field=bool(source.unblinded_field),
        scored=scored,
        responses=responses,
        dropped=dropped,
    )
    by_key = {c.key: c for c in configs}
    report.gaps = [
        GapRow(by_key[g.a], by_key[g.b], g.gap, g.is_noise)
        for g in metrics.pairwise_gaps({c.key: c.net.mean for c in configs}, report.noise_floor)
    ]
    for code, n in block_n.items():
        cells = [
            BlockCell(c, _summaries(scheme, [r.blocks[code] for r in c.runs])) for c in configs
        ]
        # The floor scales with the items it is over (3 per 30 by default): a block of 6 items
        # has a floor of 0.6 items; an AA index is already per item, so its floor stays put.
        report.blocks.append(BlockRow(code, block_titles[code], n, cells, report.slice_floor(n)))
    for facet in report_slices.FACETS:
        built = report_slices.facet_build(
            source,
            report,
            facet,
            facet_items,
            rows,
            figures=_figures,
            summaries=_summaries,
            cell=BlockCell,
        )
        if built is not None:
            report.facets.append(built)
    if intervals:
        report_intervals(source, report, rows)
    return report
