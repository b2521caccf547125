"""The tests' two-bucket scheme: right or wrong (an UNKNOWN answer is wrong); balance.

It is registered like any scheme, so stored experiments in it keep working, but it is offered
by the experiment form and the API only with the setting SCORING_TEST_SCHEMES on (the test
settings turn it on; production leaves it off). It proves that a scheme is one class: nothing
else in the project names it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_lazy, gettext_noop

from .base import CORRECT_STYLE, Bucket, BucketStyle, Column, Scheme, register

__all__ = ["RightWrongFigures", "RightWrongScheme"]


@dataclass(frozen=True)
class RightWrongFigures:
    n: int
    correct: int
    incorrect: int
    unscored: int
    accuracy: float | None
    balance: float  # correct - w x incorrect, in items


@register
class RightWrongScheme(Scheme):
    """Two buckets, right or wrong; balance = right - w x wrong."""

    key = "rw"
    label = gettext_lazy("Right / Wrong (for tests)")
    help = gettext_lazy("For tests: two buckets, Correct and Incorrect.")
    testing = True
    buckets = (Bucket.CORRECT, Bucket.INCORRECT)
    bucket_styles = {
        Bucket.CORRECT: CORRECT_STYLE,
        Bucket.INCORRECT: BucketStyle(
            Bucket.INCORRECT.label, "var(--danger-weak)", "var(--danger)", "#c4321f"
        ),
    }
    penalised = Bucket.INCORRECT
    figure_names = ("accuracy", "balance")
    compared_figure = "balance"
    uses_weight = True
    headlines = (
        ("accuracy", gettext_lazy("Accuracy"), "pct"),
        ("balance", gettext_lazy("Balance"), "items"),
    )
    summary_columns = (
        Column("accuracy", gettext_lazy("Accuracy"), "pct", ci="accuracy"),
        Column("balance", gettext_lazy("Balance"), "num", ci="net", ci_fmt="num:1", net=True),
    )
    slice_columns = (
        Column("correct", gettext_lazy("Correct"), "num:1"),
        Column("accuracy", gettext_lazy("Accuracy"), "pct:0", ci="accuracy"),
        Column("balance", gettext_lazy("Balance"), "num:1", ci="balance", net=True),
    )
    export_columns = ("balance", "balance_min", "balance_max")
    texts = {
        "lead": gettext_noop("scheme: right or wrong."),
        "net_heading": gettext_noop("Balance: which differ"),
    }

    def figures(self, bucket_counts, n_items, w):
        correct = bucket_counts.get(Bucket.CORRECT, 0)
        incorrect = bucket_counts.get(Bucket.INCORRECT, 0)
        n = max(n_items, correct + incorrect)
        figures = RightWrongFigures(
            n=n,
            correct=correct,
            incorrect=incorrect,
            unscored=n - correct - incorrect,
            accuracy=correct / n if n else None,
            balance=correct - w * incorrect,
        )
        return figures, figures
