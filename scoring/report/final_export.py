"""The final report's exports: every response with its final bucket, the figures (the final
ones and each scorer's) with the agreement and the key changes, and the moves; behind the final
report's gate (scoring.report.final), which the view checks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from probe.csvfile import csv_chunks, csv_text
from probe.models import Experiment, ExperimentItem
from scoring.report import exports
from scoring.report.build import final_source, without_dropped
from scoring.report.export_format import json_chunks, jsonl_chunks
from scoring.report.export_labels import csv_labels
from scoring.report.final import FinalReport
from scoring.review.selectors import keys_in_force

EXPORTS = {"responses", "figures", "moves"}
FORMATS = {
    "responses": {"csv", "json", "jsonl"},
    "figures": {"csv", "json"},
    "moves": {"csv", "json"},
}

MOVE_COLUMNS = [
    "experiment",
    "scheme",
    "w",
    "configuration",
    "provider",
    "model",
    "simulated",
    "figure",
    "final",
    "scorer",
    "value",
    "move",
    "mean_abs_move",
]


def _final_responses(experiment: Experiment, show_keys: bool) -> Iterator[dict]:
    """Every response with its final bucket (empty for a dropped item), the key in force;
    streamed from the database, row by row."""
    keys = keys_in_force(experiment)
    positions = dict(
        ExperimentItem.objects.filter(experiment=experiment).values_list("position", "pk")
    )
    for row in exports.response_rows(without_dropped(final_source(experiment))):
        row["key"] = keys.get(positions.get(row["item"])) if show_keys else None
        yield row


def _move_rows(data: FinalReport) -> list[dict]:
    report = data.report
    rows = []
    for entry in data.moves:
        config = entry.config
        for figure in entry.figures:
            for cell in figure.scorers:
                rows.append(
                    {
                        "experiment": report.experiment.name,
                        "scheme": report.scheme,
                        "w": report.weight,
                        "configuration": config.label,
                        "provider": config.provider,
                        "model": config.model_name,
                        "simulated": config.simulated,
                        "figure": figure.name,
                        "final": figure.final,
                        "scorer": cell.label,
                        "value": cell.value,
                        "move": cell.move,
                        "mean_abs_move": figure.mean_abs_move,
                    }
                )
    return rows


def _key_change_dicts(data: FinalReport, show_keys: bool) -> list[dict]:
    out = []
    for change in data.key_changes:
        d = change.decision
        out.append(
            {
                "item": d.item.position,
                "outcome": d.outcome,
                "old_key": d.previous_answer if show_keys else None,
                "new_key": (d.new_answer if change.amended else None) if show_keys else None,
                "source": d.source,
                "note": d.note,
                "decided_by": d.decided_by.get_username() if d.decided_by else None,
                "decided_at": d.created.isoformat(),
                "carried_to_bank": d.carried_to_bank,
                "rechecked": change.sent_back,
                "changed_bucket": change.changed,
                "awaiting_recheck": change.awaiting,
            }
        )
    return out


def _agreement_dict(data: FinalReport) -> dict | None:
    if data.agreement is None:
        return None
    overall = data.agreement.overall
    return {
        "scorers": data.agreement.labels,
        "units": overall.units,
        "percent_agreement": overall.percent,
        "cohen_kappa": overall.cohen_kappa,
        "fleiss_kappa": overall.fleiss_kappa,
        "krippendorff_alpha": overall.krippendorff_alpha,
        "krippendorff_alpha_ci": _pair(overall.krippendorff_alpha_ci),
        "gwet_ac1": overall.gwet_ac1,
        "gwet_ac1_ci": _pair(overall.gwet_ac1_ci),
    }


def _pair(interval) -> list[float] | None:
    return None if interval is None else [interval.low, interval.high]


def responses_body(
    experiment: Experiment, fmt: str, *, show_keys: bool, named: bool = False
) -> Iterator[str]:
    """Every response with its final bucket, as csv, json or jsonl chunks (streamed); a CSV
    named as scoring.report.export_labels says when ``named``."""
    rows = _final_responses(experiment, show_keys)
    if fmt == "csv":
        columns = exports.RESPONSE_COLUMNS
        return csv_chunks(rows, columns, csv_labels(columns, named))
    if fmt == "jsonl":
        return jsonl_chunks(rows)
    return json_chunks(rows, exports.RESPONSE_COLUMNS)


def figures_body(data: FinalReport, fmt: str, *, show_keys: bool, named: bool = False) -> str:
    """The final figures and each scorer's: as CSV rows, or as JSON with the agreement and the
    key changes."""
    if fmt == "csv":
        rows = exports.figure_rows(data.report)
        for report in data.scorers:
            rows += exports.figure_rows(report)
        columns = exports.figure_columns(data.report)
        return csv_text(rows, columns, csv_labels(columns, named))
    return json.dumps(
        {
            "final": exports.report_dict(data.report),
            "dropped_items": data.report.dropped,
            "scorers": [exports.report_dict(r) for r in data.scorers],
            "agreement": _agreement_dict(data),
            "key_changes": _key_change_dicts(data, show_keys),
        },
        ensure_ascii=False,
        indent=1,
    )


def moves_body(data: FinalReport, fmt: str, *, named: bool = False) -> str:
    if fmt == "csv":
        return csv_text(_move_rows(data), MOVE_COLUMNS, csv_labels(MOVE_COLUMNS, named))
    return json.dumps(
        {"columns": MOVE_COLUMNS, "moves": _move_rows(data)}, ensure_ascii=False, indent=1
    )
