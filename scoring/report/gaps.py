"""The report's gaps judged: which pairs of configurations are separable, and how each gap
compares with the noise the configurations' own repeats show.

Both read the items one by one: each configuration's contribution to its figure from each item
(its mean over repeats), and each repeat's. "Separable" is the sign-flip permutation test of
scoring.comparison.stats_pairs, Holm-corrected over every pair; the interval shown beside it is that test's
at Holm's level for the pair, so the two never disagree. The repeat noise floor of a gap is what
the two configurations' repeats alone would put under it 95 % of the time on these items
(stats_pairs.repeat_floor). The probe's rule of thumb (3 items in 30) stays the report's
``noise_floor``, shown beside them as its author's rule, never as a verdict.
"""

from __future__ import annotations

import numpy as np

from scoring.comparison import stats_pairs

__all__ = ["gaps_judge", "item_contributions"]


def item_contributions(report, is_correct: np.ndarray, is_pen: np.ndarray) -> np.ndarray:
    """(runs, items): each run's contribution to the compared figure from each item (net usable
    in items; AA: index points), so that a run's row sums to its figure."""
    n = is_correct.shape[1]
    scheme = report.scheme_obj
    if n == 0:
        return np.zeros(is_correct.shape)
    return np.asarray(scheme.net_from_sums(is_correct, is_pen, n, report.w), dtype=np.float64)


def gaps_judge(report, is_correct: np.ndarray, is_pen: np.ndarray, run_index: dict) -> None:
    """Fill in each gap's test (stats_pairs.PairTest), its repeat noise floor and whether it lies
    within it. ``is_correct`` and ``is_pen`` are (runs, items) 0/1 arrays in the order of
    ``run_index`` (run pk -> row), every item of the report a column."""
    per_run = item_contributions(report, is_correct, is_pen)
    n = per_run.shape[1]
    configs = report.configs
    values = np.zeros((n, len(configs)))
    variances, repeats = [], []
    for j, config in enumerate(configs):
        rows = [run_index[run.pk] for run in config.runs]
        if rows:
            values[:, j] = per_run[rows].mean(axis=0)
        variances.append(stats_pairs.repeat_variance(per_run[rows]))
        repeats.append(len(rows))
    tests = stats_pairs.pair_tests([c.key for c in configs], values)
    by_pair = {(t.a, t.b): t for t in tests}
    column = {c.key: j for j, c in enumerate(configs)}
    for gap in report.gaps:
        test = by_pair.get((gap.a.key, gap.b.key))
        if test is None:  # a tie, turned the other way round by the tests
            test = by_pair.get((gap.b.key, gap.a.key))
        gap.test = test
        a, b = column[gap.a.key], column[gap.b.key]
        gap.repeat_floor = stats_pairs.repeat_floor(
            variances[a], repeats[a], variances[b], repeats[b]
        )
        gap.within_repeat_noise = None if gap.repeat_floor is None else gap.gap < gap.repeat_floor
