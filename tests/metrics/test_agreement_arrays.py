"""The agreement figures the reports show (scoring/agreement/arrays.py: numpy over a matrix of
bucket codes) equal the pure functions checked against published examples
(scoring/agreement/figures.py and chance.py, tests/metrics/test_agreement.py), to 1e-12, on
random data: two to ten scorers, missing ratings, one dominant bucket, degenerate tables."""

import numpy as np
import pytest

from scoring.agreement import arrays
from scoring.agreement.figures import (
    agreement_summary,
    cohen_kappa,
    confusion_rows,
    percent_agreement,
)

BUCKETS = ("correct", "confident_wrong", "hedged_wrong", "abstained")
FIELDS = (
    "percent",
    "pairwise",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "gwet_ac1",
)


def ratings_of(codes: np.ndarray) -> list[tuple]:
    return [tuple(None if c < 0 else BUCKETS[c] for c in row) for row in codes.tolist()]


def random_codes(rng, units: int, raters: int, *, missing: float, skew: float) -> np.ndarray:
    weights = np.array([skew, 1, 1, 1]) / (skew + 3)
    truth = rng.choice(4, size=units, p=weights)
    codes = np.repeat(truth[:, None], raters, axis=1)
    differ = rng.random((units, raters)) < 0.2
    codes[differ] = rng.choice(4, size=int(differ.sum()), p=weights)
    codes[rng.random((units, raters)) < missing] = arrays.MISSING
    return codes


def assert_close(new, old, what: str) -> None:
    if old is None or new is None:
        assert new is None and old is None, (what, new, old)
    else:
        assert abs(new - old) <= 1e-12, (what, new, old)


def assert_same_summary(codes: np.ndarray, resamples: int = 200) -> None:
    old = agreement_summary(ratings_of(codes), categories=BUCKETS)
    new = arrays.summary(codes, len(BUCKETS), resamples=resamples)
    # The pure function's intervals, at the same number of resamples and seed.
    from scoring.agreement.chance import agreement_intervals

    old_ci = agreement_intervals(ratings_of(codes), BUCKETS, resamples=resamples)
    for name in ("raters", "units", "pairable_units", "complete_units"):
        assert getattr(new, name) == getattr(old, name), name
    for name in FIELDS:
        assert_close(getattr(new, name), getattr(old, name), name)
    for new_ci, old_ci_value in (
        (new.krippendorff_alpha_ci, old_ci.krippendorff_alpha),
        (new.gwet_ac1_ci, old_ci.gwet_ac1),
    ):
        if old_ci_value is None:
            assert new_ci is None
        else:
            assert_close(new_ci.low, old_ci_value.low, "interval low")
            assert_close(new_ci.high, old_ci_value.high, "interval high")


@pytest.mark.parametrize("raters", [2, 3, 5, 10])
@pytest.mark.parametrize("missing", [0.0, 0.15])
@pytest.mark.parametrize("skew", [1.0, 30.0])
def test_every_figure_equals_the_pure_functions(raters, missing, skew):
    rng = np.random.default_rng(raters * 100 + int(missing * 100) + int(skew))
    for units in (1, 7, 120):
        assert_same_summary(random_codes(rng, units, raters, missing=missing, skew=skew))


def test_the_default_intervals_equal_at_full_size():
    codes = random_codes(np.random.default_rng(3), 400, 3, missing=0.05, skew=5.0)
    old = agreement_summary(ratings_of(codes), categories=BUCKETS)
    new = arrays.summary(codes, len(BUCKETS))
    assert new.krippendorff_alpha_ci is not None
    assert_close(new.krippendorff_alpha_ci.low, old.krippendorff_alpha_ci.low, "alpha low")
    assert_close(new.krippendorff_alpha_ci.high, old.krippendorff_alpha_ci.high, "alpha high")
    assert_close(new.gwet_ac1_ci.low, old.gwet_ac1_ci.low, "AC1 low")
    assert_close(new.gwet_ac1_ci.high, old.gwet_ac1_ci.high, "AC1 high")


@pytest.mark.parametrize(
    "codes",
    [
        np.zeros((5, 3), dtype=np.int64),  # everyone, everything Correct: kappa and alpha 0/0
        np.full((4, 2), arrays.MISSING),  # nothing rated
        np.array([[0, -1], [-1, 1], [2, -1]]),  # no unit rated twice
        np.array([[0, 1], [1, 0]]),  # total disagreement
        np.zeros((0, 3), dtype=np.int64),  # no unit
    ],
)
def test_degenerate_tables_give_what_the_pure_functions_give(codes):
    assert_same_summary(np.asarray(codes, dtype=np.int64))


def test_pair_tables_equal_the_pure_functions():
    rng = np.random.default_rng(11)
    codes = random_codes(rng, 300, 4, missing=0.1, skew=4.0)
    ratings = ratings_of(codes)
    for i in range(4):
        for j in range(i + 1, 4):
            a = [row[i] for row in ratings]
            b = [row[j] for row in ratings]
            pair = arrays.pair_figures(codes, i, j, BUCKETS)
            assert pair.table == confusion_rows(a, b, BUCKETS)
            assert_close(pair.cohen_kappa, cohen_kappa(a, b), "cohen")
            assert_close(pair.percent, percent_agreement(list(zip(a, b, strict=True))), "percent")
