"""Prediction-powered figures of a routed experiment, and the calibration of a confidence cut.
Pure: numpy arrays in, numbers out; no query.

A routed experiment splits its answers in two strata. People judge the routed ones (every
answer the grader is not certain of, every answer of a (!) item, disputed keys, parse failures,
key suspects): their buckets are known and enter the figure as themselves. The grader decides
the rest; a simple random sample of those, the audit, is judged by people too. For a rate
theta (the share of answers in a bucket, or net usable: correct minus confidently wrong) over
the N answers of a configuration:

    theta_PPI = ( sum of the human values over the people's stratum
                + sum of the grader's values over the grader's stratum (N_g answers)
                + N_g * mean(human - grader) over the n audit answers ) / N

(Angelopoulos et al. 2023, "Prediction-powered inference", applied to the grader's stratum
only). Its variance is that of both terms of the grader's stratum, as PPI gives it:

    var = (N_g / N)^2 * ( var(grader) / N_g + var(human - grader) / n )

The first term is PPI's for a rate meant for answers beyond these; for the figure of these very
answers it only widens the interval, so the interval errs on the safe side. The interval is the
normal one at 95 %.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


@dataclass(frozen=True)
class PPIFigure:
    value: float | None
    low: float | None
    high: float | None
    n_total: int  # N: every answer the figure is over
    n_people: int  # answers judged by people outside the audit (known exactly)
    n_grader: int  # answers the grader decided (N_g)
    n_audit: int  # of those, the audit people judged too (n)

    @property
    def interval(self) -> tuple[float, float] | None:
        return None if self.low is None else (self.low, self.high)


def ppi_rate(
    people: np.ndarray, grader: np.ndarray, audit_human: np.ndarray, audit_grader: np.ndarray
) -> PPIFigure:
    """The PPI estimate of a rate from each answer's value (0/1, or -1/0/1 for net usable).

    ``people``: the human values of the people's stratum (audit answers not included);
    ``grader``: the grader's values over its whole stratum (the audit answers included);
    ``audit_human``, ``audit_grader``: the audit answers' human and grader values, paired."""
    people = np.asarray(people, dtype=float)
    grader = np.asarray(grader, dtype=float)
    delta = np.asarray(audit_human, dtype=float) - np.asarray(audit_grader, dtype=float)
    n_people, n_grader, n_audit = people.size, grader.size, delta.size
    total = n_people + n_grader
    counts = {"n_total": total, "n_people": n_people, "n_grader": n_grader, "n_audit": n_audit}
    if total == 0:
        return PPIFigure(None, None, None, **counts)
    if n_grader == 0:
        value = float(people.mean())
        return PPIFigure(value, value, value, **counts)
    if n_audit == 0:
        return PPIFigure(None, None, None, **counts)
    share = n_grader / total
    grader_sum = grader.sum() + n_grader * delta.mean()
    value = (people.sum() + grader_sum) / total
    var_f = grader.var(ddof=1) if n_grader > 1 else 0.0
    var_d = delta.var(ddof=1) if n_audit > 1 else 0.0
    half = Z95 * share * np.sqrt(var_f / n_grader + var_d / n_audit)
    return PPIFigure(float(value), float(value - half), float(value + half), **counts)


def audit_size(decided: int, share: float, minimum: int) -> int:
    """How many grader-decided answers the audit draws: the share, at least ``minimum``, at
    most all of them."""
    wanted = max(int(np.ceil(share * decided - 1e-9)), minimum)
    return min(decided, wanted)


def audit_draw(candidates: list[int], share: float, minimum: int, seed: int) -> list[int]:
    """A uniform random sample (without replacement) of the grader-decided answers, from a
    recorded seed: the same seed and candidates give the same audit."""
    ordered = sorted(candidates)
    size = audit_size(len(ordered), share, minimum)
    if size == 0:
        return []
    picked = np.random.default_rng(seed).choice(len(ordered), size=size, replace=False)
    return sorted(ordered[i] for i in picked)


def lowest_cut(confidences: np.ndarray, meets: Callable[[np.ndarray], bool]) -> float | None:
    """The lowest confidence cut c such that ``meets(mask)`` holds for the answers whose
    confidence is at least c (``mask``: a boolean array over ``confidences``), or None.

    The candidates are the confidences that occur, rounded to 0.01, lowest first."""
    confidences = np.asarray(confidences, dtype=float)
    known = confidences[~np.isnan(confidences)]
    for cut in np.unique(np.round(known, 2)):
        mask = ~np.isnan(confidences) & (confidences >= cut - 1e-9)
        if meets(mask):
            return float(cut)
    return None
