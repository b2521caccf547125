"""Result exports: every response with its bucket, and the report's figures, as CSV or JSON.

The columns are documented in docs/export-columns.md (a test holds the two together). Both
exports read from a bucket source (scoring.report.build.BucketSource), like the report itself.

The responses export streams: its rows come from the database in chunks and leave as text in
chunks, so 200,000 judgements take the memory of a few thousand. CSV cells that a spreadsheet
would evaluate as a formula are neutralised (probe.csvfile writes the text).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict

from django.db.models import Count, OuterRef, Subquery, Value
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Coalesce, Lower

from adapters.registry import is_simulated
from probe.csvfile import csv_chunks
from probe.models import Response
from scoring import metrics
from scoring.models import CarriedBucket
from scoring.report import export_intervals as report_export
from scoring.report.build import BucketSource, ConfigReport, Report, RunReport
from scoring.report.export_format import json_chunks, jsonl_chunks
from scoring.report.export_labels import csv_labels
from scoring.review.keys import key_texts_judged_against, keys_in_force
from scoring.schemes import buckets_registered

RESPONSE_COLUMNS = [
    "experiment",
    "scheme",
    "item",
    "response_id",
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

# A count per bucket of the registered schemes, in their order (figure_columns: a later one's).
BUCKET_COLUMNS = list(buckets_registered())
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
    "facet",
    "facet_value",
    "n",
    *BUCKET_COLUMNS,
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


# Rows fetched from the database at a time: the export's memory is about this many rows.
CHUNK_ROWS = 2000


def response_count(source: BucketSource) -> int:
    """How many rows ``response_rows`` gives: one per response of the experiment."""
    return Response.objects.filter(run__experiment=source.experiment).count()


def _page_positions(experiment, start: int, stop: int | None) -> tuple[list[int], int]:
    """The item positions whose responses hold rows ``start`` to ``stop`` of the export's
    order, and how many of the first position's rows come before ``start``."""
    counts = (
        Response.objects.filter(run__experiment=experiment)
        .values_list("item__position")
        .annotate(n=Count("pk"))
        .order_by("item__position")
    )
    positions, seen, skip = [], 0, 0
    for position, n in counts:
        if seen + n > start and (stop is None or seen < stop):
            if not positions:
                skip = start - seen
            positions.append(position)
        seen += n
        if stop is not None and seen >= stop:
            break
    return positions, skip


def response_rows(source: BucketSource, start: int = 0, stop: int | None = None) -> Iterator[dict]:
    """One row per response of the experiment, with this source's bucket (blank if none);
    rows ``start`` to ``stop`` of them only, when given (a page of the API).

    One query, streamed in chunks: the bucket (and the source's optional fields) and the
    experiment a bucket was carried from come as subqueries on a unique response key, the order
    is the database's (ending on the response's key, so a page is always the same rows). Beside
    it, the experiment's keys in force (one per item).
    """
    experiment = source.experiment
    optional = [
        f
        for f in ("verdict", "unblinded", "needs_recheck", "key_decision_id")
        if source.has_field(f.removesuffix("_id"))
    ]
    keys = keys_in_force(experiment)
    judged_against = key_texts_judged_against(experiment)
    judged = source.rows.filter(response_id=OuterRef("pk")).order_by()
    carried = CarriedBucket.objects.filter(response_id=OuterRef("pk")).order_by()
    excluded = (
        set(source.excluded_items.values_list("pk", flat=True))
        if source.excluded_items is not None
        else set()
    )
    fields = ("bucket", *optional)
    ordered = (
        Response.objects.filter(run__experiment=experiment)
        .annotate(
            label_order=Lower(
                Coalesce(KeyTextTransform("label", "run__config_snapshot"), Value(""))
            )
        )
        .order_by("item__position", "label_order", "run__repeat", "pk")
    )
    if start or stop is not None:
        # A page: the order starts with the item's position, so the page's rows are those of
        # a few items, found from the count of responses per item (one grouped query over
        # an index); only those items' responses are sorted, and the offset is taken within
        # them. A page of 100,000 rows then costs what one of 10,000 does.
        positions, skip = _page_positions(experiment, start, stop)
        window = ordered.filter(item__position__in=positions)
        take = None if stop is None else stop - start
        keys_page = window.values_list("pk", flat=True)
        keys_page = keys_page[skip:] if take is None else keys_page[skip : skip + take]
        ordered = ordered.filter(pk__in=list(keys_page))
    responses = ordered.annotate(
        carried_from=Subquery(carried.values("from_experiment_name")[:1]),
        **{f"judged_{name}": Subquery(judged.values(name)[:1]) for name in fields},
    ).values(
        "pk",
        "answer",
        "confidence",
        "abstained",
        "hedged",
        "issues",
        "item_id",
        "item__position",
        "item__block_code",
        "item__block_title",
        "item__question",
        "item__key_answer",
        "item__key_flagged",
        "run__repeat",
        "run__config_snapshot",
        "carried_from",
        *(f"judged_{name}" for name in fields),
    )
    for r in responses.iterator(chunk_size=CHUNK_ROWS):
        snapshot = r["run__config_snapshot"] or {}
        # An item left out of the figures (a dropped key) has no bucket in this source.
        judgement = (
            {name: r[f"judged_{name}"] for name in fields}
            if r["item_id"] not in excluded and r["judged_bucket"] is not None
            else {}
        )
        yield {
            "experiment": experiment.name,
            "scheme": experiment.scheme,
            "item": r["item__position"],
            "response_id": r["pk"],
            "block": r["item__block_code"],
            "block_title": r["item__block_title"],
            "question": r["item__question"],
            "key": keys[r["item_id"]].answer,
            "key_flagged": keys[r["item_id"]].flagged,
            "key_snapshot": r["item__key_answer"],
            "key_judged_against": _judged_against(judgement, r["item__key_answer"], judged_against),
            "run_label": snapshot.get("label", ""),
            "provider": snapshot.get("provider", ""),
            "model": snapshot.get("model_name", ""),
            "simulated": is_simulated(snapshot.get("provider")),
            "repeat": r["run__repeat"],
            "answer": r["answer"],
            "confidence": r["confidence"] or None,
            "abstained": r["abstained"],
            "hedged": r["hedged"],
            "issues": list(r["issues"] or []),
            "bucket": judgement.get("bucket"),
            "verdict": judgement.get("verdict"),
            "unblinded": judgement.get("unblinded"),
            "needs_recheck": judgement.get("needs_recheck"),
            "scorer": source.scorer or None,
            "carried_from": r["carried_from"],
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
        "w": report.weight,
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
    key = report.scheme_obj.compared_figure
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
    for facet in report.facets:
        for slice_row in facet.rows:
            for cell in slice_row.cells:
                rows.append(
                    {
                        **_config_columns(report, cell.config),
                        "row": "facet",
                        "facet": report_export.facet_name(facet.name),
                        "facet_value": slice_row.value,
                        "n": slice_row.n_items,
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
    columns = figure_columns(report)
    return [{column: row.get(column) for column in columns} for row in rows]


def figure_columns(report: Report) -> list[str]:
    """The figures export's columns: FIGURE_COLUMNS, with the count of any bucket of the report's
    scheme not among them beside the other buckets' and, at the end, any figure the scheme adds
    (its own figures, Scheme.export_columns)."""
    scheme = report.scheme_obj
    buckets = [str(b) for b in scheme.buckets if str(b) not in FIGURE_COLUMNS]
    extra = [c for c in scheme.export_columns if c not in FIGURE_COLUMNS]
    at = FIGURE_COLUMNS.index("unscored")
    return FIGURE_COLUMNS[:at] + buckets + FIGURE_COLUMNS[at:] + extra


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
        "w": report.weight,
        "noise_floor": {
            "items": report.noise_floor_items,
            "default": report.noise_floor_default,
            "compared_in": report.scheme_obj.compared_in,
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
                    | {"intervals": report_export.json_intervals(cell.ci)}
                    for cell in block.cells
                },
            }
            for block in report.blocks
        ],
        "facets": report_export.json_facets(report, _summary_dict),
        **report_export.json_report(report),
    }


# ------------------------------------------------------------------------------------------------
# Writing
# ------------------------------------------------------------------------------------------------


def responses_chunks(sources: list[BucketSource], fmt: str, *, named=False) -> Iterator[str]:
    """Every response of these sources (one after another) as csv, json or jsonl chunks; a CSV
    with its headings and values by their names when ``named`` (scoring.report.export_labels)."""
    rows = (row for source in sources for row in response_rows(source))
    if fmt == "csv":
        return csv_chunks(rows, RESPONSE_COLUMNS, csv_labels(RESPONSE_COLUMNS, named))
    if fmt == "jsonl":
        return jsonl_chunks(rows)
    return json_chunks(rows, RESPONSE_COLUMNS)


def responses_json(sources: list[BucketSource]) -> str:
    return "".join(responses_chunks(sources, "json"))


def figures_json(report: Report | list[Report]) -> str:
    """One report as one object; a list of reports (one per scorer) as a list of objects."""
    if isinstance(report, list):
        data = [report_dict(r) for r in report]
    else:
        data = report_dict(report)
    return json.dumps(data, ensure_ascii=False, indent=1)
