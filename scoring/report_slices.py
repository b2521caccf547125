"""The report's slices by item facts (topic, answer format), built like its block slices.

Each facet is one more grouped query (run, facet value, bucket) over the same bucket source, so
the figures per slice are those of the block slices: the run's figures over the slice's items,
then the mean (and spread) over each configuration's repeats. A facet no item of the experiment
has is left out; items without a value form a slice of their own ("—") beside the others.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from django.db.models import Count
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


def _bucket_counts(source, facet: str) -> dict[tuple[int, str], Counter]:
    grouped = (
        source.scoped()
        .values("response__run_id", f"response__item__{facet}", "bucket")
        .annotate(n=Count("pk"))
        .order_by()
    )
    counts: dict[tuple[int, str], Counter] = defaultdict(Counter)
    for row in grouped:
        counts[(row["response__run_id"], row[f"response__item__{facet}"])][row["bucket"]] += row[
            "n"
        ]
    return counts


def facet_build(
    source, report, facet: str, items: list[dict], *, figures, summaries, cell
) -> Facet | None:
    """One facet's slices; None when no item of the experiment has a value for it.

    ``items``: rows of item counts with the facet's field and ``n`` (items left out of the
    figures not counted), as the report's own block query gives them."""
    n_by_value = _item_counts(items, facet)
    if not any(value for value in n_by_value):
        return None
    counts = _bucket_counts(source, facet)
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
