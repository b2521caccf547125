"""AA-Omniscience's scheme: correct, incorrect, partial, not attempted; the index, no weight."""

from __future__ import annotations

import numpy as np
from django.utils.translation import gettext_lazy, gettext_noop

from .. import metrics
from .base import CORRECT_STYLE, Bucket, BucketStyle, Column, Scheme, register

__all__ = ["AAScheme"]


@register
class AAScheme(Scheme):
    """AA-Omniscience's: correct, incorrect, partial, not attempted; the index, no weight."""

    key = "aa"
    order = 2
    label = gettext_lazy("Correct / Incorrect / Partial / Not attempted")
    help = gettext_lazy(
        "The second scheme (AA-Omniscience style): Correct, Incorrect, Partial, Not attempted."
    )
    buckets = (Bucket.CORRECT, Bucket.INCORRECT, Bucket.PARTIAL, Bucket.NOT_ATTEMPTED)
    bucket_styles = {
        Bucket.CORRECT: CORRECT_STYLE,
        Bucket.INCORRECT: BucketStyle(
            Bucket.INCORRECT.label, "var(--danger-weak)", "var(--danger)", "#c4321f"
        ),
        Bucket.PARTIAL: BucketStyle(
            Bucket.PARTIAL.label, "var(--warn-weak)", "var(--warn)", "#e0a030"
        ),
        Bucket.NOT_ATTEMPTED: BucketStyle(
            Bucket.NOT_ATTEMPTED.label, "#eef1f6", "var(--muted)", "#aab2c2"
        ),
    }
    penalised = Bucket.INCORRECT
    abstain = Bucket.NOT_ATTEMPTED
    partial = Bucket.PARTIAL
    grader_names_bucket = True  # CORRECT, INCORRECT, PARTIAL, NOT_ATTEMPTED
    figure_names = (
        "index",
        "accuracy",
        "attempt_rate",
        "partial_rate",
        "abstention_rate",
        "hallucination_rate",
        "net",
    )
    compared_figure = "index"
    compared_in = "index points"
    hallucination_column = "hallucination_rate_aa"
    headlines = (
        ("index", gettext_lazy("Index"), "points"),
        ("accuracy", gettext_lazy("Accuracy"), "pct"),
        ("hallucination_rate", gettext_lazy("Hallucination rate (AA-Omniscience)"), "pct"),
    )
    summary_columns = (
        Column("index", gettext_lazy("Index"), "num:1", ci="net"),
        Column("accuracy", gettext_lazy("Accuracy"), "pct", ci="accuracy"),
        Column("attempt_rate", gettext_lazy("Attempt rate"), "pct", ci="attempt_rate"),
        Column("partial_rate", gettext_lazy("Partial rate"), "pct", ci="partial_rate"),
        Column("abstention_rate", gettext_lazy("Abstention rate"), "pct", ci="abstention_rate"),
        Column(
            "hallucination_rate",
            gettext_lazy("Hallucination rate (AA-Omniscience)"),
            "pct",
            ci="hallucination_rate",
        ),
    )
    slice_columns = (
        Column("correct", gettext_lazy("Correct"), "num:1"),
        Column("accuracy", gettext_lazy("Accuracy"), "pct:0", ci="accuracy"),
        Column("index", gettext_lazy("Index"), "num:1", ci="index"),
    )
    texts = {
        "lead": gettext_noop("scheme: Correct / Incorrect / Partial / Not attempted."),
        "summary_help": gettext_noop(
            "Index = 100 × (correct − incorrect) / N. Hallucination rate (AA-Omniscience) = "
            "incorrect / (incorrect + partial + not attempted): of the answers that were not "
            "correct, the share that were wrong instead of partial or abstained."
        ),
        "floor_note": gettext_noop("That is %(points)s index points."),
        "net_heading": gettext_noop("Index: which configurations the data separate"),
        "net_help": gettext_noop(
            "Each configuration's mean index over its repeats, with its 95 %% interval as a "
            "whisker; the circles are the repeats."
        ),
        "chart_net_title": gettext_noop(
            "Index per configuration, with its 95 %% interval and each repeat"
        ),
        "chart_net_caption": gettext_noop("Index points."),
        "repeat_gap_heading": gettext_noop("Largest index gap between two repeats"),
        "calibration_note": gettext_noop("A partial answer counts as not correct here."),
        "risk_help": gettext_noop(
            "What the model would have scored had it answered only at HIGH, at HIGH and MEDIUM, "
            "or always (its answers below the threshold counted as not attempted). Coverage = "
            "answered / N; risk = not correct / answered; score = correct − incorrect, in items. "
            "Means over repeats."
        ),
        "definitions_help": gettext_noop(
            "The same answers under the figures of this probe, of AA-Omniscience and of "
            "SimpleQA, each under its own name: the two hallucination rates are different "
            "formulas and must not be compared with each other. This experiment's scheme has no "
            "confidently wrong bucket, so the probe's hallucination rate and net usable are not "
            "defined here."
        ),
        "blocks_help": gettext_noop(
            "Accuracy and index over each block's items, mean across repeats, each with its 95 %% "
            "interval (Wilson; an item bootstrap within the block)."
        ),
        "facets_help": gettext_noop(
            "Accuracy and index over the items of each slice, mean across repeats."
        ),
    }

    def figures(self, bucket_counts, n_items, w):
        counts = metrics.AACounts.from_mapping(bucket_counts)
        figures = metrics.aa_figures(
            counts.correct,
            counts.incorrect,
            counts.partial,
            counts.not_attempted,
            n_items=max(n_items, counts.n),
        )
        return counts, figures

    def figure_value(self, figures, name):
        if name == "net":  # correct - incorrect, in items
            return figures.correct - figures.incorrect
        return getattr(figures, name)

    def noise_floor(self, floor_items, n_items):
        return 100 * floor_items / n_items if n_items else 0.0

    def slice_floor(self, report_floor, floor_items, n, n_items):
        return report_floor  # the index is per item: its floor stays put

    def net_from_sums(self, c, pen, n, w):
        return 100 * (c - pen) / n if n else c * np.nan

    def incorrect_from_sums(self, c, pen, att):
        return pen

    def aa_terms(self, c, pen, att, n, summary):
        return pen, summary["partial"].mean or 0.0, summary["not_attempted"].mean or 0.0

    def run_proportions(self, figures):
        not_correct = figures.incorrect + figures.partial + figures.not_attempted
        return {
            "accuracy": (figures.correct, figures.n),
            "attempt_rate": (figures.correct + figures.incorrect + figures.partial, figures.n),
            "partial_rate": (figures.partial, figures.n),
            "abstention_rate": (figures.not_attempted, figures.n),
            "hallucination_rate": (figures.incorrect, not_correct),
        }

    def config_proportions(self, summary, c, pen, att, n):
        not_att = summary["not_attempted"].mean or 0.0
        partial = summary["partial"].mean or 0.0
        incorrect = summary["incorrect"].mean or 0.0
        return {
            "accuracy": (c, n),
            "attempt_rate": (att, n),
            "partial_rate": (partial, n),
            "abstention_rate": (not_att, n),
            "hallucination_rate": (incorrect, incorrect + partial + not_att),
        }
