"""The report's slices by item facts (topic, answer format), built like its block slices.

Each facet counts the report's own bucket rows (scoring.report.rows) by run, facet value and
bucket, so the figures per slice are those of the block slices: the run's figures over the
slice's items, then the mean (and spread) over each configuration's repeats. A facet no item of the experiment
has is left out; items without a value form a slice of their own ("—") beside the others.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.utils.translation import gettext as _

from probe.models import AnswerKind

FACETS = ("topic", "answer_kind")


@dataclass
class SliceRow:
    value: str  # as stored ("" for items without one)
    label: str  # as shown
    n_items: int
    cells: list  # BlockCell-like: .config, .summary
    floor: float


@dataclass
class Facet:
    name: str  # "topic" | "answer_kind"
    heading: str
    rows: list[SliceRow]


def _label(facet: str, value: str) -> str:
    if not value:
        return "—"
    if facet == "answer_kind":
        return str(dict(AnswerKind.choices).get(value, value))
    return value


def _heading(facet: str) -> str:
    return _("Per topic") if facet == "topic" else _("Per answer format")


def _item_counts(items: list[dict], facet: str) -> dict[str, int]:
    """Items per value of the facet, from the report's own item counts (no query)."""
    counts: Counter = Counter()
    for row in items:
        counts[row[facet] or ""] += row["n"]
    return {value: n for value, n in counts.items() if n}


def _bucket_counts(rows, runs, facet: str, values: list[str]) -> dict[tuple[int, str], dict]:
    """Bucket counts per (run pk, facet value), from the report's rows (scoring.report.rows)."""
    counts = rows.tally(
        (rows.run_codes([run.pk for run in runs]), len(runs)),
        (rows.item_codes(facet, values), len(values)),
    )
    names = rows.bucket_names
    return {
        (run.pk, value): {names[b]: n for b, n in enumerate(cell) if n}
        for run, per_value in zip(runs, counts.tolist(), strict=True)
        for value, cell in zip(values, per_value, strict=True)
    }


def facet_build(
    source, report, facet: str, items: list[dict], rows, *, figures, summaries, cell
) -> Facet | None:
    """One facet's slices; None when no item of the experiment has a value for it.

    ``items``: rows of item counts with the facet's field and ``n`` (items left out of the
    figures not counted), as the report's own block query gives them."""
    n_by_value = _item_counts(items, facet)
    if not any(value for value in n_by_value):
        return None
    counts = _bucket_counts(rows, report.runs, facet, [value or "" for value in n_by_value])
    rows = []
    for value, n in sorted(n_by_value.items(), key=lambda kv: (kv[0] == "", kv[0].casefold())):
        cells = [
            cell(
                config,
                summaries(
                    report.scheme_obj,
                    [
                        figures(report.scheme_obj, counts[(run.pk, value)], n, report.w)[1]
                        for run in config.runs
                    ],
                ),
            )
            for config in report.configs
        ]
        rows.append(SliceRow(value, _label(facet, value), n, cells, report.slice_floor(n)))
    return Facet(facet, _heading(facet), rows)
