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


def _masked_flip_sums(hypotheses: list[Hypothesis], vectors_of, swaps: int, seed: int):
    """(plain, centred), each (assignments, hypotheses x components), hypothesis by hypothesis:
    the swapped sums of each component vector ``vectors_of(h)`` gives, over the hypothesis's
    items only, plain and centred on its mean over them.

    A swap's sum is linear in the values, so it is not taken once per hypothesis: the
    hypotheses over the same two sides (a configuration pair over all its items and over each
    block) cut the items into parts (the blocks), each part's sums are taken once, and a
    hypothesis adds up its parts; a centred sum is the plain one less the mean times the swapped
    sum of its part's indicator. At 50 configurations and 5 blocks that is 255 columns through
    the matrix product instead of 600."""
    groups: dict[tuple[int, int], list[int]] = {}
    for k, h in enumerate(hypotheses):
        groups.setdefault((id(h.baseline), id(h.candidate)), []).append(k)
    basis: list[np.ndarray] = []
    indicators: list[np.ndarray] = []
    indicator_of: dict[bytes, int] = {}
    plans: dict[int, tuple[list[np.ndarray], list[list[int]], list[int]]] = {}
    for members in groups.values():
        vectors = vectors_of(hypotheses[members[0]])
        signature = np.stack([hypotheses[k].mask for k in members], axis=1)
        keys, inverse = np.unique(signature, axis=0, return_inverse=True)
        inverse = np.asarray(inverse).reshape(-1)
        parts = []  # (row of keys, basis column per component, indicator column)
        for a, key in enumerate(keys):
            if not key.any():
                continue  # items in none of these hypotheses
            part = inverse == a
            columns = []
            for vector in vectors:
                columns.append(len(basis))
                basis.append(np.where(part, vector, 0.0))
            found = part.tobytes()
            if found not in indicator_of:
                indicator_of[found] = len(indicators)
                indicators.append(part.astype(np.float64))
            parts.append((key, columns, indicator_of[found]))
        for j, k in enumerate(members):
            mine = [(columns, indicator) for key, columns, indicator in parts if key[j]]
            plans[k] = (
                vectors,
                [[columns[c] for columns, _i in mine] for c in range(len(vectors))],
                [indicator for _c, indicator in mine],
            )
    sums = stats_pairs.flip_sums(np.column_stack(basis + indicators), swaps=swaps, seed=seed)
    base_sums, indicator_sums = sums[:, : len(basis)], sums[:, len(basis) :]
    plain, centred = [], []
    for k, h in enumerate(hypotheses):
        vectors, columns, parts = plans[k]
        items = int(h.mask.sum())
        counted = indicator_sums[:, parts].sum(axis=1)
        for vector, cols in zip(vectors, columns, strict=True):
            total = base_sums[:, cols].sum(axis=1)
            mean = vector[h.mask].sum() / items if items else 0.0
            plain.append(total)
            centred.append(total - mean * counted)
    return np.column_stack(plain), np.column_stack(centred)


def _nulls(hypotheses: list[Hypothesis], metric: str, w: float, swaps: int, seed: int):
    """(null, spread, squares, spread_squares). ``null``: candidate minus baseline under every
    swap (assignments, hypotheses), row 0 observed; NaN where the figure is undefined (nothing
    attempted on a side). ``spread``: the same from the differences centred on their mean (0 on row
    0), the deviations the bounds are drawn from (stats_pairs.gap_bounds explains why). For net usable
    (a sum of item differences) each hypothesis's sum of squared differences, plain and
    centred, else None."""
    if metric == NET_USABLE:

        def usable(h: Hypothesis) -> list[np.ndarray]:
            return [
                (h.candidate[:, 0] - w * h.candidate[:, 1])
                - (h.baseline[:, 0] - w * h.baseline[:, 1])
            ]

        plain, centred = _masked_flip_sums(hypotheses, usable, swaps, seed)
        squares, spread_squares = [], []
        for h in hypotheses:
            (difference,) = usable(h)
            on = difference[h.mask]
            squares.append((on**2).sum())
            spread_squares.append(((on - on.mean()) ** 2).sum() if on.size else 0.0)
        return plain, centred, np.array(squares), np.array(spread_squares)
    totals = []
    for h in hypotheses:
        base, cand = h.baseline[h.mask], h.candidate[h.mask]
        totals.append(
            ((cand[:, 1].sum() + base[:, 1].sum()) / 2, (cand[:, 2] + base[:, 2]).sum() / 2)
        )

    def moved(h: Hypothesis) -> list[np.ndarray]:
        return [h.candidate[:, 1] - h.baseline[:, 1], h.candidate[:, 2] - h.baseline[:, 2]]

    plain, centred = _masked_flip_sums(hypotheses, moved, swaps, seed)
    plain, centred = plain / 2, centred / 2
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
    # Net usable is defined under every assignment; only a rate can be undefined (NaN).
    null_gaps, spread_gaps = bool(np.isnan(null).any()), bool(np.isnan(spread).any())
    for way in (worse_way, better_way):
        # An assignment whose figure is undefined counts as extreme: it can only raise p.
        extreme = -np.inf if way == LESS else np.inf
        filled = np.where(np.isnan(null), extreme, null) if null_gaps else null
        results[way] = stats_pairs.flip_tests(
            filled,
            way,
            alpha=alpha,
            exact=exact,
            squares=squares,
            spread=np.where(np.isnan(spread), extreme, spread) if spread_gaps else spread,
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
