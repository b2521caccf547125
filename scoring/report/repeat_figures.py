"""A configuration's figures over its repeats: one formula per figure, whatever is shown.

A figure that is a ratio of counts (knowledge, both hallucination rates, AA-Omniscience's shares)
is, over a configuration's repeats, the ratio of the means over the repeats: the numerators'
sum over the denominators' sum. It is the figure the summary shows, the one its interval is
about (scoring.report.stats.wilson_items over the same counts), the one the definitions table, every
export and the API give. The mean of the repeats' own ratios is another figure (it weighs a
repeat that attempted 3 items like one that attempted 30) and is shown nowhere. Any other figure
(net usable, the index) is linear in the counts, so its mean over repeats is the figure of the
mean counts. docs/figures.md ("Over repeats").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from scoring.metrics import RepeatSummary, repeat_summary

__all__ = ["pooled_summary", "ratio_terms"]


def ratio_terms(figures) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """The figures of this kind that are ratios of counts: name -> (numerator, denominator),
    as the figures' class declares them (``RATIOS``; none when it declares nothing)."""
    return getattr(type(figures), "RATIOS", {})


def pooled_summary(figures_list: Sequence, name: str, values: Iterable[float | None]):
    """A figure over repeats (a RepeatSummary): for a ratio of counts, ``mean`` is the ratio of
    the means over the repeats, in whole counts (exact), with the repeats' own minimum and
    maximum; for any other figure, metrics.repeat_summary. The ratio of the sums lies between
    the least and the greatest of the repeats' ratios, so the range always holds it."""
    summary = repeat_summary(values)
    terms = ratio_terms(figures_list[0]).get(name) if figures_list else None
    if terms is None or summary.mean is None:
        return summary
    numerator, denominator = (
        sum(getattr(f, field) for f in figures_list for field in fields) for fields in terms
    )
    if not denominator:
        return summary
    pooled = min(max(numerator / denominator, summary.min), summary.max)
    return RepeatSummary(pooled, summary.min, summary.max, summary.spread)
