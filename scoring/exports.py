"""Result exports: every response with its bucket, and the report's figures, as CSV or JSON.

The columns are documented in docs/export-columns.md (a test holds the two together). Both
exports read from a bucket source (scoring.report.BucketSource), like the report itself.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict

from probe.models import Response

from . import metrics, report_export, selectors
from .models import CarriedBucket
from .report import BucketSource, ConfigReport, Report, RunReport

RESPONSE_COLUMNS = [
    "experiment",
    "scheme",
    "item",
    "block",
    "block_title",
    "question",
    "key",
    "key_flagged",
    "key_snapshot",
    "key_judged_against",
    "run_label",
    "provider",
    "model",
    "simulated",
    "repeat",
    "answer",
    "confidence",
    "abstained",
    "hedged",
    "issues",
    "bucket",
    "verdict",
    "unblinded",
    "needs_recheck",
    "scorer",
    "carried_from",
]

FIGURE_COLUMNS = [
    "experiment",
    "scheme",
    "scorer",
    "w",
    "noise_floor",
    "row",
    "configuration",
    "provider",
    "model",
    "simulated",
    "repeat",
    "block",
    "n",
    "correct",
    "confident_wrong",
    "hedged_wrong",
    "abstained",
    "incorrect",
    "partial",
    "not_attempted",
    "unscored",
    "knowledge",
    "hallucination_rate_probe",
    "hallucination_rate_aa",
    "net_usable",
    "net_usable_min",
    "net_usable_max",
    "index",
    "index_min",
    "index_max",
    "accuracy",
    "attempt_rate",
    "partial_rate",
    "abstention_rate",
    "high_count",
    "high_accuracy",
    "medium_count",
    "medium_accuracy",
    "low_count",
    "low_accuracy",
    "calibration_single_level",
    "compliance",
    "unblinded",
    "other_configuration",
    "gap",
    "gap_is_noise",
    *report_export.EXTRA_FIGURE_COLUMNS,
]


# ------------------------------------------------------------------------------------------------
# Responses
# ------------------------------------------------------------------------------------------------


def response_rows(source: BucketSource) -> Iterator[dict]:
    """One row per response of the experiment, with this source's bucket (blank if none).

    Two queries: the responses with their item and run, and the source's buckets.
    """
    experiment = source.experiment
    optional = [
        f
        for f in ("verdict", "unblinded", "needs_recheck", "key_decision_id")
        if source.has_field(f.removesuffix("_id"))
    ]
    keys = selectors.keys_in_force(experiment)
    judged_against = selectors.key_texts_judged_against(experiment)
    buckets = {
        row["response_id"]: row
        for row in source.scoped().values("response_id", "bucket", *optional)
    }
    responses = list(
        Response.objects.filter(run__experiment=experiment)
        .order_by()
        .values(
            "pk",
            "answer",
            "confidence",
            "abstained",
            "hedged",
            "issues",
            "item__position",
            "item__block_code",
            "item__block_title",
            "item__question",
            "item_id",
            "item__key_answer",
            "item__key_flagged",
            "run__repeat",
            "run__config_snapshot",
        )
    )

    def order(r: dict):
        label = (r["run__config_snapshot"] or {}).get("label", "")
        return (r["item__position"], label.casefold(), r["run__repeat"], r["pk"])

    responses.sort(key=order)
    carried = dict(
        CarriedBucket.objects.filter(response__run__experiment=experiment).values_list(
            "response_id", "from_experiment_name"
        )
    )
    for r in responses:
        snapshot = r["run__config_snapshot"] or {}
        judged = buckets.get(r["pk"], {})
        yield {
            "experiment": experiment.name,
            "scheme": experiment.scheme,
            "item": r["item__position"],
            "block": r["item__block_code"],
            "block_title": r["item__block_title"],
            "question": r["item__question"],
            "key": keys[r["item_id"]].answer,
            "key_flagged": keys[r["item_id"]].flagged,
            "key_snapshot": r["item__key_answer"],
            "key_judged_against": _judged_against(judged, r["item__key_answer"], judged_against),
            "run_label": snapshot.get("label", ""),
            "provider": snapshot.get("provider", ""),
            "model": snapshot.get("model_name", ""),
            "simulated": snapshot.get("provider") == "simulator",
            "repeat": r["run__repeat"],
            "answer": r["answer"],
            "confidence": r["confidence"] or None,
            "abstained": r["abstained"],
            "hedged": r["hedged"],
            "issues": list(r["issues"] or []),
            "bucket": judged.get("bucket"),
            "verdict": judged.get("verdict"),
            "unblinded": judged.get("unblinded"),
            "needs_recheck": judged.get("needs_recheck"),
            "scorer": source.scorer or None,
            "carried_from": carried.get(r["pk"]),
        }


def _judged_against(judged: dict, snapshot: str, texts: dict[int, str]) -> str | None:
    """The key text a judgement was made against (the snapshot's before any decision)."""
    if "key_decision_id" not in judged or judged.get("verdict") in (None, "preset"):
        return None
    decision = judged["key_decision_id"]
    return snapshot if decision is None else texts.get(decision, snapshot)


# ------------------------------------------------------------------------------------------------
# Figures
# ------------------------------------------------------------------------------------------------


def _config_columns(report: Report, config: ConfigReport) -> dict:
    return {
        "experiment": report.experiment.name,
        "scheme": report.scheme,
        "scorer": report.scorer or None,
        "w": None if report.is_aa else report.w,
        "noise_floor": report.noise_floor_items,
        "configuration": config.label,
        "provider": config.provider,
        "model": config.model_name,
        "simulated": config.simulated,
    }


def _calibration_columns(calibration: metrics.Calibration) -> dict:
    out = {"calibration_single_level": calibration.single_level}
    for level in calibration.levels:
        out[f"{level.level.lower()}_count"] = level.count
        out[f"{level.level.lower()}_accuracy"] = level.accuracy
    return out


def _figure_columns(figures) -> dict:
    data = asdict(figures)
    data.pop("w", None)
    data.pop("attempted", None)
    return data


def _run_row(report: Report, config: ConfigReport, run: RunReport) -> dict:
    return {
        **_config_columns(report, config),
        "row": "run",
        "repeat": run.repeat,
        **_figure_columns(run.figures),
        **_calibration_columns(run.calibration),
        "compliance": run.compliance.share,
        "unblinded": run.unblinded if report.has_unblinded_field else None,
        **report_export.run_columns(report, run),
    }


def _summary_columns(report: Report, summary: dict) -> dict:
    out = {name: s.mean for name, s in summary.items() if name != "net"}
    key = "index" if report.is_aa else "net_usable"
    out[f"{key}_min"] = summary[key].min
    out[f"{key}_max"] = summary[key].max
    return out


def figure_rows(report: Report) -> list[dict]:
    """The figures as flat rows: runs, configurations (means over repeats), blocks, gaps."""
    rows: list[dict] = []
    for config in report.configs:
        for run in config.runs:
            rows.append(_run_row(report, config, run))
        rows.append(
            {
                **_config_columns(report, config),
                "row": "configuration",
                "n": report.n_items,
                **_summary_columns(report, config.summary),
                **_calibration_columns(config.calibration),
                "compliance": config.compliance.share,
                "unblinded": config.unblinded if report.has_unblinded_field else None,
                **report_export.config_columns(report, config),
            }
        )
    for block in report.blocks:
        for cell in block.cells:
            rows.append(
                {
                    **_config_columns(report, cell.config),
                    "row": "block",
                    "block": block.code,
                    "n": block.n_items,
                    **_summary_columns(report, cell.summary),
                    **report_export.block_columns(report, cell),
                }
            )
    for gap in report.gaps:
        rows.append(
            {
                **_config_columns(report, gap.a),
                "row": "gap",
                "other_configuration": gap.b.label,
                "gap": gap.gap,
                "gap_is_noise": gap.is_noise,
                **report_export.gap_columns(report, gap),
            }
        )
    rows.extend(report_export.extra_rows(report, lambda config: _config_columns(report, config)))
    rows = [report_export.split_hallucination_rate(report, row) for row in rows]
    return [{column: row.get(column) for column in FIGURE_COLUMNS} for row in rows]


def _summary_dict(summary: dict) -> dict:
    return {name: s._asdict() for name, s in summary.items()}


def _calibration_dict(calibration: metrics.Calibration) -> dict:
    return {
        "levels": {
            level.level: {
                "count": level.count,
                "correct": level.correct,
                "accuracy": level.accuracy,
            }
            for level in calibration.levels
        },
        "attempted": calibration.attempted,
        "unrated": calibration.unrated,
        "single_level": calibration.single_level,
        "single_level_name": calibration.single_level_name,
    }


def _compliance_dict(compliance) -> dict:
    return {
        "responses": compliance.responses,
        "clean": compliance.clean,
        "share": compliance.share,
        "top_issues": [
            {"code": code, "label": label, "responses": n}
            for code, label, n in compliance.top_issues
        ],
    }


def report_dict(report: Report) -> dict:
    """The report as nested JSON-ready data (the same numbers as the page)."""
    experiment = report.experiment
    return {
        "experiment": {
            "id": experiment.pk,
            "name": experiment.name,
            "scheme": report.scheme,
            "items": report.n_items,
            "repeats": report.repeats,
        },
        "scorer": report.scorer or None,
        "revealed_at": report.revealed_at.isoformat() if report.revealed_at else None,
        "w": None if report.is_aa else report.w,
        "noise_floor": {
            "items": report.noise_floor_items,
            "default": report.noise_floor_default,
            "compared_in": "index points" if report.is_aa else "items",
            "value": report.noise_floor,
        },
        "responses": report.responses,
        "scored": report.scored,
        "unblinded": report.unblinded if report.has_unblinded_field else None,
        "configurations": [
            {
                "label": config.label,
                "provider": config.provider,
                "model": config.model_name,
                "simulated": config.simulated,
                "runs": [
                    {
                        "repeat": run.repeat,
                        "status": run.status,
                        "figures": report_export.split_hallucination_rate(
                            report, _figure_columns(run.figures)
                        ),
                        "calibration": _calibration_dict(run.calibration),
                        "compliance": _compliance_dict(run.compliance),
                        "unblinded": run.unblinded if report.has_unblinded_field else None,
                        "blocks": {
                            code: report_export.split_hallucination_rate(report, _figure_columns(f))
                            for code, f in run.blocks.items()
                        },
                        **report_export.json_run(run),
                    }
                    for run in config.runs
                ],
                "summary": report_export.split_hallucination_rate(
                    report, _summary_dict(config.summary)
                ),
                **report_export.json_config(report, config),
                "calibration": _calibration_dict(config.calibration),
                "compliance": _compliance_dict(config.compliance),
            }
            for config in report.configs
        ],
        "gaps": [
            {"a": gap.a.label, "b": gap.b.label, "gap": gap.gap, "is_noise": gap.is_noise}
            | report_export.json_gap(gap)
            for gap in report.gaps
        ],
        "blocks": [
            {
                "code": block.code,
                "title": block.title,
                "items": block.n_items,
                "configurations": {
                    cell.config.label: report_export.split_hallucination_rate(
                        report, _summary_dict(cell.summary)
                    )
                    | {"intervals": {k: v and [v.low, v.high] for k, v in cell.ci.items()}}
                    for cell in block.cells
                },
            }
            for block in report.blocks
        ],
        **report_export.json_report(report),
    }


# ------------------------------------------------------------------------------------------------
# Writing
# ------------------------------------------------------------------------------------------------


def _csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ";".join(str(v) for v in value)
    if isinstance(value, float):
        # 12.0 -> "12"; fractions to 6 decimals, no float noise such as 0.30000000000000004
        value = round(value, 6)
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def write_csv(rows: Iterable[dict], columns: list[str], stream) -> None:
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_value(row.get(column)) for column in columns])


def csv_text(rows: Iterable[dict], columns: list[str]) -> str:
    buffer = io.StringIO()
    write_csv(rows, columns, buffer)
    return buffer.getvalue()


def responses_json(sources: list[BucketSource]) -> str:
    rows = [row for source in sources for row in response_rows(source)]
    return json.dumps(
        {"columns": RESPONSE_COLUMNS, "responses": rows}, ensure_ascii=False, indent=1
    )


def figures_json(report: Report | list[Report]) -> str:
    """One report as one object; a list of reports (one per scorer) as a list of objects."""
    if isinstance(report, list):
        data = [report_dict(r) for r in report]
    else:
        data = report_dict(report)
    return json.dumps(data, ensure_ascii=False, indent=1)
