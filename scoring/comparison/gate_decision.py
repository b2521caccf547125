"""The regression gate's decision: one-sided permutation tests of every gap, Holm-corrected over
the configurations and their blocks together, and the bounds that agree with the verdicts.

Each hypothesis is one gap of candidate minus baseline on the shared items: a configuration
pair over all the items, and the same pair over each block's items when there are several. Under
"nothing changed" the baseline's and the candidate's values of an item (each the mean over its
repeats) are exchangeable, so swapping them on any set of items is as likely as what was
observed (scoring.comparison.stats_pairs). The candidate is *worse* on a hypothesis when the one-sided test
towards "worse" rejects after Holm's correction over every hypothesis of the comparison: with
all configurations truly equal the gate fails at most 5 % of the time, whatever N and however
many configurations and blocks. *Better* is the same test the other way, with its own family.

The interval shown has one end from each family, each at the level Holm's correction used for
that hypothesis: its worse-side end is past 0 exactly when the verdict is "worse", and its other
end past 0 exactly when it is "better". docs/gate.md gives the measured error rates and power.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from scoring.comparison import stats_pairs
from scoring.comparison.stats_pairs import GREATER, LESS, SWAPS
from scoring.report.stats import CONFIDENCE, SEED

NET_USABLE, HALLUCINATION_RATE = "net_usable", "hallucination_rate"
METRICS = (NET_USABLE, HALLUCINATION_RATE)
# Fewer shared items than this and the gate does not judge (a setting: --min-items, min_items).
MIN_ITEMS = 30
ALPHA = 1 - CONFIDENCE


@dataclass(frozen=True)
class Hypothesis:
    """One gap to test: per shared item (correct, penalised, attempted), means over repeats, for
    each side; ``mask`` picks the items it is over (all of them, or one block's)."""

    baseline: np.ndarray  # (items, 3)
    candidate: np.ndarray  # (items, 3)
    mask: np.ndarray  # (items,) bool


@dataclass(frozen=True)
class GapTest:
    """The verdict on one hypothesis, and the bounds that agree with it (None: unbounded)."""

    low: float | None
    high: float | None
    low_level: float  # the one-sided confidence of ``low``
    high_level: float
    p_worse: float
    p_worse_holm: float
    p_better: float
    p_better_holm: float
    worse: bool
    better: bool


def higher_is_better(metric: str) -> bool:
    return metric == NET_USABLE


def figure(rows: np.ndarray, metric: str, w: float) -> float | None:
    """Net usable (items) or the hallucination rate over ``rows`` (items, 3)."""
    if metric == NET_USABLE:
        return float(rows[:, 0].sum() - w * rows[:, 1].sum())
    attempted = float(rows[:, 2].sum())
    return float(rows[:, 1].sum()) / attempted if attempted > 0 else None


def _centred(columns: list[np.ndarray], masks: list[np.ndarray]) -> list[np.ndarray]:
    """Each column of item differences less its mean over its hypothesis's items (0 elsewhere):
    flipped, these give the statistic's spread in the world where the gap is what was seen."""
    out = []
    for column, mask in zip(columns, masks, strict=True):
        items = int(mask.sum())
        mean = column[mask].sum() / items if items else 0.0
        out.append(np.where(mask, column - mean, 0.0))
    return out


def _nulls(hypotheses: list[Hypothesis], metric: str, w: float, swaps: int, seed: int):
    """(null, spread, squares, spread_squares). ``null``: candidate minus baseline under every
    swap (assignments, hypotheses), row 0 observed; NaN where the figure is undefined (nothing
    attempted on a side). ``spread``: the same from the differences centred on their mean (0 on row
    0), the deviations the bounds are drawn from (stats_pairs.gap_bounds explains why). For net usable
    (a sum of item differences) each hypothesis's sum of squared differences, plain and
    centred, else None."""
    masks = [h.mask for h in hypotheses]
    if metric == NET_USABLE:
        columns = [
            np.where(h.mask, (h.candidate[:, 0] - w * h.candidate[:, 1]), 0.0)
            - np.where(h.mask, (h.baseline[:, 0] - w * h.baseline[:, 1]), 0.0)
            for h in hypotheses
        ]
        differences = np.column_stack(columns)
        centred = np.column_stack(_centred(columns, masks))
        both = stats_pairs.flip_sums(np.hstack([differences, centred]), swaps=swaps, seed=seed)
        k = len(hypotheses)
        return both[:, :k], both[:, k:], (differences**2).sum(axis=0), (centred**2).sum(axis=0)
    columns, totals = [], []
    for h in hypotheses:
        base, cand = h.baseline[h.mask], h.candidate[h.mask]
        columns.append(np.where(h.mask, h.candidate[:, 1] - h.baseline[:, 1], 0.0))
        columns.append(np.where(h.mask, h.candidate[:, 2] - h.baseline[:, 2], 0.0))
        totals.append(
            ((cand[:, 1].sum() + base[:, 1].sum()) / 2, (cand[:, 2] + base[:, 2]).sum() / 2)
        )
    doubled = [m for m in masks for _ in (0, 1)]
    both = stats_pairs.flip_sums(
        np.column_stack(columns + _centred(columns, doubled)), swaps=swaps, seed=seed
    )
    plain, centred = both[:, : len(columns)] / 2, both[:, len(columns) :] / 2
    wrong_half = np.array([t[0] for t in totals])
    attempted_half = np.array([t[1] for t in totals])

    def rate_gap(sums: np.ndarray) -> np.ndarray:
        moved_wrong, moved_attempted = sums[:, 0::2], sums[:, 1::2]
        with np.errstate(divide="ignore", invalid="ignore"):
            cand_rate = (wrong_half + moved_wrong) / (attempted_half + moved_attempted)
            base_rate = (wrong_half - moved_wrong) / (attempted_half - moved_attempted)
            gap = cand_rate - base_rate
        return np.where(np.isfinite(gap), gap, np.nan)

    # The centred sums move the two sides around their pooled rates, whose gap is 0 on row 0:
    # the spread of the rate gap around its value, as the bounds want it.
    return rate_gap(plain), rate_gap(centred), None, None


def _end(value: float) -> float | None:
    return None if math.isinf(value) or math.isnan(value) else value


def gap_tests(
    hypotheses: list[Hypothesis],
    metric: str,
    w: float,
    *,
    alpha: float = ALPHA,
    swaps: int = SWAPS,
    seed: int = SEED,
) -> list[GapTest]:
    """Every hypothesis tested both ways, each way Holm-corrected over all of them."""
    if not hypotheses:
        return []
    null, spread, squares, spread_squares = _nulls(hypotheses, metric, w, swaps, seed)
    undefined = np.isnan(null[0])
    null[:, undefined] = 0.0  # no figure, no evidence: every assignment ties, p = 1
    spread[:, undefined] = 0.0
    exact = stats_pairs.swap_count(len(hypotheses[0].mask), swaps)[1]
    worse_way, better_way = (LESS, GREATER) if higher_is_better(metric) else (GREATER, LESS)
    results = {}
    for way in (worse_way, better_way):
        # An assignment whose figure is undefined counts as extreme: it can only raise p.
        extreme = -np.inf if way == LESS else np.inf
        filled = np.where(np.isnan(null), extreme, null)
        results[way] = stats_pairs.flip_tests(
            filled,
            way,
            alpha=alpha,
            exact=exact,
            squares=squares,
            spread=np.where(np.isnan(spread), extreme, spread),
            spread_squares=spread_squares,
        )
    worse, better = results[worse_way], results[better_way]
    lower, upper = (better, worse) if higher_is_better(metric) else (worse, better)
    return [
        GapTest(
            low=_end(float(lower.low[k])),
            high=_end(float(upper.high[k])),
            low_level=float(lower.level[k]),
            high_level=float(upper.level[k]),
            p_worse=float(worse.p[k]),
            p_worse_holm=float(worse.p_holm[k]),
            p_better=float(better.p[k]),
            p_better_holm=float(better.p_holm[k]),
            worse=bool(worse.rejected[k]),
            better=bool(better.rejected[k]),
        )
        for k in range(len(hypotheses))
    ]
