"""The report's intervals, tests and side-by-side definitions as export columns and rows.

scoring.report.exports builds the figure rows (run, configuration, block, gap); the functions here add
what scoring.report.intervals computed: ``*_low`` / ``*_high`` columns for every figure's 95 %
interval, the paired tests on gap rows, the repeats' variation and every definition on
configuration rows, and rows of their own for risk-coverage, the penalty sweep and the
crossovers. Kept apart from the writing (CSV, JSON) so that either can change alone. Every
column is documented in docs/export-columns.md.
"""

from __future__ import annotations

from collections.abc import Callable

from scoring.report.intervals import SWEEP_TABLE

__all__ = [
    "EXTRA_FIGURE_COLUMNS",
    "block_columns",
    "config_columns",
    "extra_rows",
    "facet_name",
    "gap_columns",
    "json_facets",
    "json_intervals",
    "run_columns",
    "split_hallucination_rate",
]

DEFINITION_COLUMNS = {
    "knowledge": "knowledge",
    "hallucination_rate_probe": "hallucination_rate_probe",
    "net_usable": "net_usable",
    "aa_index": "index",
    "aa_accuracy": "accuracy",
    "aa_attempt_rate": "attempt_rate",
    "aa_hallucination_rate": "hallucination_rate_aa",
    "sqa_correct_given_attempted": "correct_given_attempted",
    "sqa_f_score": "f_score",
}
WITH_INTERVALS = (
    "knowledge",
    "hallucination_rate_probe",
    "hallucination_rate_aa",
    "net_usable",
    "index",
    "accuracy",
    "attempt_rate",
    "partial_rate",
    "abstention_rate",
    "correct_given_attempted",
    "f_score",
    "high_accuracy",
    "medium_accuracy",
    "low_accuracy",
)
EXTRA_FIGURE_COLUMNS = [
    "correct_given_attempted",
    "f_score",
    *(f"{name}_{end}" for name in WITH_INTERVALS for end in ("low", "high")),
    "repeat_same_bucket",
    "repeat_same_bucket_low",
    "repeat_same_bucket_high",
    "repeat_gap",
    "repeat_gap_low",
    "repeat_gap_high",
    "gap_low",
    "gap_high",
    "gap_level",
    "p_permutation",
    "p_permutation_holm",
    "separable",
    "repeat_noise_floor",
    "within_repeat_variation",
    "answer_at",
    "answered",
    "coverage",
    "coverage_low",
    "coverage_high",
    "risk",
    "risk_low",
    "risk_high",
    "score",
    "score_low",
    "score_high",
    "sweep_w",
    "sweep_t",
]


# A facet as the exports name it (the report's own name for the answer format is answer_kind).
FACET_NAMES = {"topic": "topic", "answer_kind": "answer_format"}


def facet_name(facet: str) -> str:
    return FACET_NAMES.get(facet, facet)


def _ends(name: str, interval) -> dict:
    if interval is None:
        return {f"{name}_low": None, f"{name}_high": None}
    return {f"{name}_low": interval.low, f"{name}_high": interval.high}


def split_hallucination_rate(report, row: dict) -> dict:
    """The scheme's hallucination rate under its own name: ``hallucination_rate_probe``
    (confidently wrong / attempted) or ``hallucination_rate_aa`` (incorrect / not correct)."""
    if "hallucination_rate" in row:
        value = row.pop("hallucination_rate")
        row[report.scheme_obj.hallucination_column] = value
    return row


def _scheme_intervals(report, ci: dict) -> dict:
    out = {}
    for column, key in report.scheme_obj.export_intervals:
        out.update(_ends(column, ci.get(key)))
    for level in ("HIGH", "MEDIUM", "LOW"):
        out.update(_ends(f"{level.lower()}_accuracy", ci.get(f"accuracy_{level}")))
    return out


def run_columns(report, run) -> dict:
    """A run row's intervals."""
    return _scheme_intervals(report, run.ci)


def config_columns(report, config) -> dict:
    """A configuration row: its intervals, every definition (with its interval), the repeats'
    own variation (empty with one repeat)."""
    out = _scheme_intervals(report, config.ci)
    for value in config.definitions:
        column = DEFINITION_COLUMNS[value.key]
        out[column] = value.value
        out.update(_ends(column, value.ci))
    noise = config.repeat_noise
    out["repeat_same_bucket"] = None if noise is None else noise.agreement
    out.update(_ends("repeat_same_bucket", None if noise is None else noise.agreement_ci))
    out["repeat_gap"] = None if noise is None else noise.gap
    out.update(_ends("repeat_gap", None if noise is None else noise.gap_ci))
    return out


def block_columns(report, cell) -> dict:
    out = {}
    for key in report.scheme_obj.export_slice_intervals:
        out.update(_ends(key, cell.ci.get(key)))
    return out


def gap_columns(report, gap) -> dict:
    """A gap row's test (scoring.report.gaps): the interval at Holm's level for the pair, which
    excludes 0 exactly when the pair is separable, and the repeats' noise floor."""
    test = gap.test
    if test is None:
        return {}
    return {
        **_ends("gap", test.interval),
        "gap_level": test.level,
        "p_permutation": test.p,
        "p_permutation_holm": test.p_holm,
        "separable": test.separable,
        "repeat_noise_floor": gap.repeat_floor,
        "within_repeat_variation": gap.within_repeat_noise,
    }


def extra_rows(report, base: Callable) -> list[dict]:
    """Rows of their own: ``risk_coverage`` (three per configuration), ``sweep`` (net usable at
    w = 0, 0.5, 1, 2, 4, four-bucket scheme), ``crossover`` (where two sweep lines cross).
    ``base(config)`` gives the columns every row of a configuration starts with."""
    rows: list[dict] = []
    answer_at = ("HIGH", "HIGH+MEDIUM", "all")
    for config in report.configs:
        for name, entry in zip(answer_at, config.risk_coverage, strict=True):
            point = entry.point
            rows.append(
                {
                    **base(config),
                    "row": "risk_coverage",
                    "n": report.n_items,
                    "answer_at": name,
                    "answered": point.answered,
                    "correct": point.correct,
                    "coverage": point.coverage,
                    **_ends("coverage", entry.coverage_ci),
                    "risk": point.risk,
                    **_ends("risk", entry.risk_ci),
                    "score": point.score,
                    **_ends("score", entry.score_ci),
                }
            )
    sweep = report.inference.sweep if report.inference else None
    if sweep is None:
        return rows
    by_key = {c.key: c for c in report.configs}
    for config in report.configs:
        for w in SWEEP_TABLE:
            rows.append(
                {
                    **base(config),
                    "row": "sweep",
                    "n": report.n_items,
                    "sweep_w": w,
                    "sweep_t": w / (1 + w),
                    "net_usable": sweep.value(config.key, w),
                    **_ends("net_usable", sweep.table.get(config.key, {}).get(w)),
                }
            )
    for crossing in sweep.crossovers:
        rows.append(
            {
                **base(by_key[crossing.a]),
                "row": "crossover",
                "other_configuration": by_key[crossing.b].label,
                "sweep_w": crossing.w,
                "sweep_t": crossing.t,
                "net_usable": crossing.net,
            }
        )
    return rows


# --- JSON: the same figures, nested ---


def _pair(interval) -> list[float] | None:
    return None if interval is None else [interval.low, interval.high]


def json_intervals(ci: dict) -> dict:
    """A ci dict as JSON: name -> [low, high], or None."""
    return {name: _pair(interval) for name, interval in ci.items()}


def json_run(run) -> dict:
    return {"intervals": json_intervals(run.ci)}


def json_config(report, config) -> dict:
    noise = config.repeat_noise
    return {
        "intervals": json_intervals(config.ci),
        "definitions": {
            DEFINITION_COLUMNS[v.key]: {"value": v.value, "interval": _pair(v.ci)}
            for v in config.definitions
        },
        "repeat_variation": None
        if noise is None
        else {
            "same_bucket": noise.same,
            "compared": noise.compared,
            "share": noise.agreement,
            "share_interval": _pair(noise.agreement_ci),
            "largest_gap": noise.gap,
            "largest_gap_interval": _pair(noise.gap_ci),
        },
        "risk_coverage": [
            {
                "answer_at": list(entry.point.levels),
                "answered": entry.point.answered,
                "coverage": entry.point.coverage,
                "coverage_interval": _pair(entry.coverage_ci),
                "risk": entry.point.risk,
                "risk_interval": _pair(entry.risk_ci),
                "score": entry.point.score,
                "score_interval": _pair(entry.score_ci),
            }
            for entry in config.risk_coverage
        ],
    }


def json_facets(report, summary_dict) -> list[dict]:
    """The slices by topic and answer format, as the JSON's blocks: per value its items and,
    per configuration, the summary over repeats (``summary_dict``) with its intervals."""
    return [
        {
            "facet": facet_name(facet.name),
            "values": [
                {
                    "value": row.value,
                    "items": row.n_items,
                    "configurations": {
                        cell.config.label: split_hallucination_rate(
                            report, summary_dict(cell.summary)
                        )
                        | {"intervals": json_intervals(cell.ci)}
                        for cell in row.cells
                    },
                }
                for row in facet.rows
            ],
        }
        for facet in report.facets
    ]


def json_gap(gap) -> dict:
    return {
        key.replace("gap_", "interval_") if key.startswith("gap_") else key: value
        for key, value in gap_columns(None, gap).items()
    }


def json_report(report) -> dict:
    inference = report.inference
    if inference is None:
        return {}
    by_key = {c.key: c.label for c in report.configs}
    sweep = inference.sweep
    return {
        "intervals": {
            "level": 0.95,
            "target": "these blocks",
            "proportions": "wilson",
            "proportions_over_repeats": "wilson at the effective number of items",
            "bootstrap": "expanded percentile",
            "bootstrap_resamples": inference.resamples,
            "bootstrap_seed": inference.seed,
            "bootstrap_percentile_level": inference.percentile_level,
            "blocks": "strata" if inference.n_blocks > 1 else "one",
        },
        "sweep": None
        if sweep is None
        else {
            "net_usable": {
                by_key[key]: [
                    {"w": w, "t": w / (1 + w), "net_usable": sweep.value(key, w)}
                    | {"interval": _pair(sweep.table.get(key, {}).get(w))}
                    for w in SWEEP_TABLE
                ]
                for key in sweep.counts
            },
            "crossovers": [
                {"ahead_below": by_key[x.a], "ahead_above": by_key[x.b], "w": x.w, "t": x.t}
                | {"net_usable": x.net}
                for x in sweep.crossovers
            ],
        },
    }
