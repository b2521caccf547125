"""The four-bucket scheme: correct, confidently wrong, hedged wrong, abstained; net usable."""

from __future__ import annotations

from django.utils.translation import gettext_lazy, gettext_noop

from .. import metrics
from .base import CORRECT_STYLE, Bucket, BucketStyle, Column, Scheme, register

__all__ = ["WRONG_CONFIDENT", "FourBucketScheme"]

# A wrong answer at these confidence levels is confidently wrong (four buckets).
WRONG_CONFIDENT = {"HIGH", "MEDIUM"}


@register
class FourBucketScheme(Scheme):
    """Correct, confidently wrong, hedged wrong, abstained; net usable with a weight w."""

    key = "four"
    order = 1
    label = gettext_lazy("Four buckets")
    help = gettext_lazy("Four buckets: Correct, Confidently wrong, Hedged wrong, Abstained.")
    buckets = (Bucket.CORRECT, Bucket.CONFIDENT_WRONG, Bucket.HEDGED_WRONG, Bucket.ABSTAINED)
    bucket_styles = {
        Bucket.CORRECT: CORRECT_STYLE,
        Bucket.CONFIDENT_WRONG: BucketStyle(
            Bucket.CONFIDENT_WRONG.label, "var(--danger-weak)", "var(--danger)", "#c4321f"
        ),
        Bucket.HEDGED_WRONG: BucketStyle(
            Bucket.HEDGED_WRONG.label, "var(--warn-weak)", "var(--warn)", "#e0a030"
        ),
        Bucket.ABSTAINED: BucketStyle(Bucket.ABSTAINED.label, "#eef1f6", "var(--muted)", "#aab2c2"),
    }
    penalised = Bucket.CONFIDENT_WRONG
    abstain = Bucket.ABSTAINED
    figure_names = ("knowledge", "hallucination_rate", "net_usable")
    compared_figure = "net_usable"
    uses_weight = True
    defines_probe_figures = True
    hallucination_column = "hallucination_rate_probe"
    headlines = (
        ("knowledge", gettext_lazy("Knowledge"), "pct"),
        ("hallucination_rate", gettext_lazy("Hallucination rate (probe)"), "pct"),
        ("net_usable", gettext_lazy("Net usable"), "items"),
    )
    summary_columns = (
        Column("knowledge", gettext_lazy("Knowledge"), "pct", ci="knowledge"),
        Column(
            "hallucination_rate",
            gettext_lazy("Hallucination rate (probe)"),
            "pct",
            ci="hallucination_rate",
        ),
        Column("net_usable", gettext_lazy("Net usable"), "num", ci="net", ci_fmt="num:1", net=True),
    )
    slice_columns = (
        Column("correct", gettext_lazy("Correct"), "num:1"),
        Column("knowledge", gettext_lazy("Knowledge"), "pct:0", ci="knowledge"),
        Column("net_usable", gettext_lazy("Net usable"), "num:1", ci="net_usable", net=True),
    )
    texts = {
        "lead": gettext_noop("scheme: four buckets."),
        "summary_help": gettext_noop(
            "Knowledge = correct / N. Hallucination rate (probe) = confidently wrong / attempted "
            "(N − abstained: abstaining is not counted against a model twice); a dash when "
            "nothing was attempted. Net usable = correct − w × confidently wrong, in items."
        ),
        "net_heading": gettext_noop("Net usable: which configurations the data separate"),
        "net_help": gettext_noop(
            "Each configuration's mean net usable over its repeats, with its 95 %% interval as a "
            "whisker; the circles are the repeats."
        ),
        "chart_net_title": gettext_noop(
            "Net usable per configuration, with its 95 %% interval and each repeat"
        ),
        "chart_net_caption": gettext_noop("Net usable, in items."),
        "repeat_gap_heading": gettext_noop("Largest net usable gap between two repeats"),
        "risk_help": gettext_noop(
            "What the model would have scored had it answered only at HIGH, at HIGH and MEDIUM, "
            "or always (its answers below the threshold counted as abstentions). Coverage = "
            "answered / N; risk = wrong / answered; score = correct − w × confidently wrong with "
            "w = %(w)s, in items: the last row is net usable. Means over repeats."
        ),
        "definitions_help": gettext_noop(
            "The same answers under the figures of this probe, of AA-Omniscience and of "
            "SimpleQA, each under its own name: the two hallucination rates are different "
            "formulas and must not be compared with each other. For AA-Omniscience and SimpleQA, "
            "incorrect = confidently wrong + hedged wrong, partial = 0 and not attempted = "
            "abstained."
        ),
        "blocks_help": gettext_noop(
            "Knowledge and net usable over each block's items, mean across repeats, each with "
            "its 95 %% interval (Wilson; an item bootstrap within the block). Few items say "
            "little: the intervals show how little."
        ),
        "facets_help": gettext_noop(
            "Knowledge and net usable over the items of each slice, mean across repeats; the "
            "noise floor shrinks with the slice."
        ),
    }

    def wrong_bucket(self, response) -> str | None:
        if response.hedged:
            return None
        if response.confidence in WRONG_CONFIDENT:
            return Bucket.CONFIDENT_WRONG
        if response.confidence == "LOW":
            return Bucket.HEDGED_WRONG
        return None

    def wrong_bucket_unsettled(self, response) -> str:
        return Bucket.HEDGED_WRONG if response.hedged else Bucket.CONFIDENT_WRONG

    def figures(self, bucket_counts, n_items, w):
        counts = metrics.BucketCounts.from_mapping(bucket_counts)
        return counts, metrics.four_bucket_figures(counts, n_items=max(n_items, counts.n), w=w)

    def run_proportions(self, figures):
        return {
            "knowledge": (figures.correct, figures.n),
            "hallucination_rate": (figures.confident_wrong, figures.attempted),
        }

    def config_proportions(self, summary, c, pen, att, n):
        return {"knowledge": (c, n), "hallucination_rate": (pen, att)}
