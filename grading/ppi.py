"""Prediction-powered figures of a routed experiment, and the calibration of a confidence cut.
Pure: numpy arrays in, numbers out; no query.

A routed experiment splits its answers in two strata. People judge the routed ones (every
answer the grader is not certain of, every answer of a (!) item, disputed keys, parse failures,
key suspects): their buckets are known and enter the figure as themselves. The grader decides
the rest; a simple random sample of those, the audit, is judged by people too. For a share
theta (of answers in a bucket) over the N answers of a configuration:

    theta_PPI = ( sum of the human values over the people's stratum
                + sum of the grader's values over the grader's stratum (N_g answers)
                + N_g * mean(human - grader) over the n audit answers ) / N

(Angelopoulos et al. 2023, "Prediction-powered inference", applied to the grader's stratum
only: the people's answers are known exactly). Two intervals at 95 %:

- **these answers** (``low``, ``high``): where the figure people would have given, had they
  judged every answer, lies. Only the audit's mean difference is uncertain; on a share it is
  the difference of two rare shares (people above the grader, people below it), so each gets
  its Wilson interval and the two are combined by square-and-add (Newcombe's MOVER), with the
  finite-population correction of a sample drawn without replacement (1 - n / N_g). A normal
  interval from the audit's variance alone covers far too rarely when the grader and people
  disagree on a few answers in 30 (the test measures it).
- **beyond these answers** (``low_beyond``, ``high_beyond``): the rate of answers of this
  kind, as the report's other intervals read their items; PPI's both terms, the variance of
  the first term over all N answers (the known values and the grader's labels) added to the
  audit's, square and add.

Net usable per answer (correct - w * confidently wrong) combines two shares of the same
answers the same way (``ppi_combine``).

Every interval is clipped to the figure's feasible range: a share's to [0, 1], net usable's to
[-w, 1] (``clip``). The all-human figure always lies there, so clipping never loses coverage;
unclipped, an audit with no disagreement put "0.9, 0.719 - 1.081" and "0, -0.183 - 0.183" on
the page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

Z95 = 1.959963984540054


@dataclass(frozen=True)
class PPIFigure:
    value: float | None
    low: float | None  # these answers: the all-human figure's interval
    high: float | None
    n_total: int  # N: every answer the figure is over
    n_people: int  # answers judged by people outside the audit (known exactly)
    n_grader: int  # answers the grader decided (N_g)
    n_audit: int  # of those, the audit people judged too (n)
    low_beyond: float | None = None  # beyond these answers: PPI's both terms
    high_beyond: float | None = None
    # The audit's mean difference and its interval's arms (for combining figures).
    delta: float = 0.0
    delta_down: float = 0.0
    delta_up: float = 0.0
    first_sd: float = 0.0  # the standard error of the first term (beyond these answers)

    @property
    def interval(self) -> tuple[float, float] | None:
        return None if self.low is None else (self.low, self.high)


SHARE = (0.0, 1.0)


def clip(figure: PPIFigure, feasible: tuple[float, float] = SHARE) -> PPIFigure:
    """The figure with both its intervals inside ``feasible`` (a share: [0, 1]; net usable per
    answer: [-w, 1]); the value and the arms kept for combining figures."""
    lo, hi = feasible

    def inside(x):
        return None if x is None else float(min(hi, max(lo, x)))

    return replace(
        figure,
        low=inside(figure.low),
        high=inside(figure.high),
        low_beyond=inside(figure.low_beyond),
        high_beyond=inside(figure.high_beyond),
    )


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _arms(up: int, down: int, n: int, fpc: float) -> tuple[float, float, float]:
    """The audit's mean difference (people above the grader: +1, below: -1) and how far its
    interval reaches below and above it (MOVER over two Wilson intervals, then the FPC)."""
    p_up, p_down = up / n, down / n
    low_up, high_up = wilson(up, n)
    low_down, high_down = wilson(down, n)
    below = np.sqrt((p_up - low_up) ** 2 + (high_down - p_down) ** 2)
    above = np.sqrt((high_up - p_up) ** 2 + (p_down - low_down) ** 2)
    return p_up - p_down, below * fpc, above * fpc


def ppi_rate(
    people: np.ndarray, grader: np.ndarray, audit_human: np.ndarray, audit_grader: np.ndarray
) -> PPIFigure:
    """The PPI estimate of a share from each answer's value (1: in it, 0: not).

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
    first = np.concatenate([people, grader])
    first_sd = float(first.std(ddof=1) / np.sqrt(total)) if total > 1 else 0.0
    if n_grader == 0:
        value = float(people.mean())
        return clip(
            PPIFigure(
                value,
                value,
                value,
                **counts,
                low_beyond=value - Z95 * first_sd,
                high_beyond=value + Z95 * first_sd,
                first_sd=first_sd,
            )
        )
    if n_audit == 0:
        return PPIFigure(None, None, None, **counts)
    fpc = np.sqrt(max(0.0, 1 - n_audit / n_grader))
    mean, down, up = _arms(int((delta > 0).sum()), int((delta < 0).sum()), n_audit, fpc)
    share = n_grader / total
    value = float((people.sum() + grader.sum() + n_grader * mean) / total)
    # Beyond these answers: the audit's arms without the FPC, and the first term's error.
    _m, down_all, up_all = _arms(int((delta > 0).sum()), int((delta < 0).sum()), n_audit, 1.0)
    spread = Z95 * first_sd
    return clip(
        PPIFigure(
            value,
            value - share * down,
            value + share * up,
            **counts,
            low_beyond=value - np.sqrt(spread**2 + (share * down_all) ** 2),
            high_beyond=value + np.sqrt(spread**2 + (share * up_all) ** 2),
            delta=mean,
            delta_down=share * down,
            delta_up=share * up,
            first_sd=first_sd,
        )
    )


def ppi_combine(a: PPIFigure, b: PPIFigure, w: float) -> PPIFigure:
    """a - w * b for two shares over the same answers (net usable per answer: correct - w *
    confidently wrong), the arms combined by square and add."""
    if a.value is None or b.value is None:
        return PPIFigure(None, None, None, a.n_total, a.n_people, a.n_grader, a.n_audit)
    value = a.value - w * b.value
    down = np.sqrt(a.delta_down**2 + (w * b.delta_up) ** 2)
    up = np.sqrt(a.delta_up**2 + (w * b.delta_down) ** 2)
    first = np.sqrt(a.first_sd**2 + (w * b.first_sd) ** 2)
    figure = PPIFigure(
        value,
        value - down,
        value + up,
        a.n_total,
        a.n_people,
        a.n_grader,
        a.n_audit,
        low_beyond=value - np.sqrt((Z95 * first) ** 2 + down**2),
        high_beyond=value + np.sqrt((Z95 * first) ** 2 + up**2),
        delta_down=down,
        delta_up=up,
        first_sd=float(first),
    )
    return clip(figure, (-w, 1.0))


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
