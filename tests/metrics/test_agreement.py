"""Agreement coefficients (scoring/agreement/figures.py) against published worked examples: pure, no database.

Sources of the data tables and expected values (see docs/figures.md for full references):

- Fleiss' kappa: the worked example of Wikipedia's "Fleiss' kappa" article (10 subjects,
  14 raters, 5 categories, kappa = 0.210); Fleiss (1971) Table 1, the 30 patients x 6 raters
  psychiatric diagnoses, as shipped in R's irr package (``diagnoses``): kappa = 0.430
  (irr: 0.4302445) and the per-category kappas .245 .245 .520 .471 .566.
- Cohen's kappa: Wikipedia's "Cohen's kappa" examples (50 applications: kappa = 0.4; the two
  "same agreement, different kappa" tables: 0.1304 and 0.2593); the SAS FREQ documentation's
  3 x 3 table (kappa 0.4842) and R irr's ``kappa2(anxiety[, 2:3])`` (-0.006289308), both as
  quoted in statsmodels' test suite.
- Krippendorff's alpha: Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability", the
  binary two-coder example (0.095), the two-coder nominal example (0.692) and the 4 coders x
  12 units example with missing values (0.743); Wikipedia's "Krippendorff's alpha" 3 coders x
  15 units example (0.691).
"""

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scoring.agreement.figures import (
    AgreementSummary,
    ConfusionRow,
    agreement_summary,
    cohen_kappa,
    coincidence_matrix,
    confusion_rows,
    confusion_table,
    fleiss_kappa,
    fleiss_kappa_by_category,
    fleiss_kappa_by_category_from_table,
    fleiss_kappa_from_table,
    krippendorff_alpha_nominal,
    pairwise_agreement,
    percent_agreement,
    ratings_table,
)
from scoring.metrics import ABSTAINED, CONFIDENT_WRONG, CORRECT, HEDGED_WRONG
from scoring.schemes import FOUR

FOUR_BUCKETS = FOUR.buckets

PROPERTY = settings(max_examples=200, deadline=None)


def transpose(rows_by_rater):
    """Published reliability data is laid out coders x units; ours is units x raters."""
    return [tuple(unit) for unit in zip(*rows_by_rater, strict=True)]


def from_table(table):
    """Two label lists from a 2-way count table (rows: rater a, columns: rater b)."""
    a, b = [], []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            a += [i] * count
            b += [j] * count
    return a, b


# --------------------------------------------------------------------------------------------
# Fleiss' kappa
# --------------------------------------------------------------------------------------------

# Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories.
WIKIPEDIA_FLEISS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]

# Fleiss (1971), 30 patients x 6 psychiatrists; 1 depression, 2 personality disorder,
# 3 schizophrenia, 4 neurosis, 5 other. R package irr, data set `diagnoses`.
FLEISS_1971 = [
    [4, 4, 4, 4, 4, 4],
    [2, 2, 2, 5, 5, 5],
    [2, 3, 3, 3, 3, 5],
    [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4],
    [1, 1, 3, 3, 3, 3],
    [3, 3, 3, 3, 5, 5],
    [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4],
    [5, 5, 5, 5, 5, 5],
    [1, 4, 4, 4, 4, 4],
    [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3],
    [1, 4, 4, 4, 4, 4],
    [2, 2, 4, 4, 4, 5],
    [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5],
    [1, 1, 1, 1, 1, 2],
    [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5],
    [2, 4, 4, 4, 4, 4],
    [2, 2, 4, 5, 5, 5],
    [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5],
    [2, 2, 2, 2, 2, 4],
    [1, 1, 1, 1, 5, 5],
    [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3],
    [5, 5, 5, 5, 5, 5],
]


def test_fleiss_wikipedia_example():
    kappa = fleiss_kappa_from_table(WIKIPEDIA_FLEISS)
    assert round(kappa, 3) == 0.210
    # the article's intermediate figures: P-bar = 0.378, P-bar_e = 0.213
    p_bar = sum((sum(v * v for v in row) - 14) / (14 * 13) for row in WIKIPEDIA_FLEISS) / 10
    p_e = sum((sum(col) / 140) ** 2 for col in zip(*WIKIPEDIA_FLEISS, strict=True))
    assert round(p_bar, 3) == 0.378
    assert round(p_e, 3) == 0.213
    assert kappa == pytest.approx((p_bar - p_e) / (1 - p_e))


def test_fleiss_wikipedia_example_from_raw_ratings():
    # the same table spelt out as 14 ratings per subject
    units = [
        [category for category, count in enumerate(row) for _ in range(count)]
        for row in WIKIPEDIA_FLEISS
    ]
    assert fleiss_kappa(units) == pytest.approx(fleiss_kappa_from_table(WIKIPEDIA_FLEISS))


def test_fleiss_1971_diagnoses():
    assert sum(Counter(row)[1] for row in FLEISS_1971) == 26  # irr's margins: 26 26 30 55 43
    kappa = fleiss_kappa(FLEISS_1971)
    assert round(kappa, 3) == 0.430
    assert kappa == pytest.approx(0.4302445, abs=5e-8)  # irr::kappam.fleiss(diagnoses)


def test_fleiss_1971_per_category_kappas():
    by_category = fleiss_kappa_by_category(FLEISS_1971)
    assert {label: round(value, 3) for label, value in by_category.items()} == {
        1: 0.245,
        2: 0.245,
        3: 0.520,
        4: 0.471,
        5: 0.566,
    }


def test_fleiss_needs_the_same_number_of_ratings_per_unit():
    with pytest.raises(
        ValueError, match="same number of ratings for every unit: unit 0 has 3, unit 1 has 2"
    ):
        fleiss_kappa([("a", "a", "b"), ("a", None, "b")])
    with pytest.raises(ValueError, match="same number of ratings"):
        fleiss_kappa_from_table([[2, 1], [1, 1]])


def test_fleiss_needs_two_ratings_per_unit_and_some_data():
    with pytest.raises(ValueError, match="at least 2 ratings"):
        fleiss_kappa([("a",), ("b",)])
    with pytest.raises(ValueError):
        fleiss_kappa([])
    with pytest.raises(ValueError):
        fleiss_kappa_from_table([])
    with pytest.raises(ValueError, match="non-negative"):
        fleiss_kappa_from_table([[3, -1], [1, 1]])
    with pytest.raises(ValueError, match="one count per category"):
        fleiss_kappa_from_table([[1, 1], [1, 1, 0]])


def test_fleiss_one_category_for_everyone_is_undefined():
    assert fleiss_kappa([("a", "a", "a")] * 5) is None
    assert fleiss_kappa_from_table([[3, 0]] * 5) is None
    assert fleiss_kappa_by_category_from_table([[3, 0]] * 5) == [None, None]


# --------------------------------------------------------------------------------------------
# Cohen's kappa
# --------------------------------------------------------------------------------------------


def test_cohen_wikipedia_example():
    # 50 applications: both yes 20, A yes / B no 5, A no / B yes 10, both no 15.
    a = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ([[45, 15], [25, 15]], 0.1304),  # p_o = 0.60, p_e = 0.54
        ([[25, 35], [5, 35]], 0.2593),  # p_o = 0.60, p_e = 0.46
    ],
)
def test_cohen_wikipedia_same_agreement_different_kappa(table, expected):
    a, b = from_table(table)
    assert round(cohen_kappa(a, b), 4) == expected


def test_cohen_sas_example():
    # SAS PROC FREQ documentation example, as in statsmodels' tests: simple kappa 0.4842
    a, b = from_table([[0, 4, 1], [0, 8, 0], [0, 1, 5]])
    assert round(cohen_kappa(a, b), 4) == 0.4842


# R irr package, data set `anxiety` (20 subjects x 3 raters, scores 1..6), as quoted in
# statsmodels' tests; one list per rater.
ANXIETY = [
    [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3],
    [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4],
    [2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2],
]


def test_cohen_against_r_irr_kappa2():
    # irr::kappa2(anxiety[, 2:3]) = -0.006289308
    assert cohen_kappa(ANXIETY[1], ANXIETY[2]) == pytest.approx(-0.006289308, abs=5e-10)


def test_cohen_drops_units_either_rater_left_out():
    a = ["yes", "yes", None, "no", "no", "yes"]
    b = ["yes", None, "no", "no", "yes", "yes"]
    assert cohen_kappa(a, b) == cohen_kappa(["yes", "no", "no", "yes"], ["yes", "no", "yes", "yes"])


def test_cohen_degenerate_cases():
    assert cohen_kappa([], []) is None
    assert cohen_kappa([None, "a"], ["a", None]) is None  # no unit rated by both
    assert cohen_kappa(["a"] * 4, ["a"] * 4) is None  # one category for everyone: 0/0
    # one rater constant, the other not: defined (p_e < 1), and 0 here
    assert cohen_kappa(["a"] * 4, ["a", "a", "b", "b"]) == 0
    with pytest.raises(ValueError, match="same units"):
        cohen_kappa(["a"], ["a", "b"])


# --------------------------------------------------------------------------------------------
# Krippendorff's alpha
# --------------------------------------------------------------------------------------------

# Krippendorff (2011), section C: 4 observers x 12 units, nominal, missing values.
KRIPPENDORFF_C = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]

# Krippendorff (2011), section A: binary data, two observers, no missing values.
KRIPPENDORFF_A = [
    [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
    [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
]

# Krippendorff (2011), section B: nominal data, two observers, no missing values.
KRIPPENDORFF_B = [
    list("aabbdcccedda"),
    list("babbbccceddd"),
]

# Wikipedia, "Krippendorff's alpha", computational example: 3 coders x 15 units.
WIKIPEDIA_ALPHA = [
    [None, None, None, None, None, 3, 4, 1, 2, 1, 1, 3, 3, None, 3],
    [1, None, 2, 1, 3, 3, 4, 3, None, None, None, None, None, None, None],
    [None, None, 2, 1, 3, 4, 4, None, 2, 1, 1, 3, 3, None, 4],
]


def test_krippendorff_2011_four_coders_with_missing_values():
    units = transpose(KRIPPENDORFF_C)
    assert round(krippendorff_alpha_nominal(units), 3) == 0.743
    # the paper's coincidence margins: n_1..n_5 = 9, 13, 10, 5, 3; n = 40 pairable values
    margins = Counter()
    for (c, _k), value in coincidence_matrix(units).items():
        margins[c] += value
    assert dict(margins) == {1: 9, 2: 13, 3: 10, 4: 5, 5: 3}
    # exactly: 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k = 1 - 39 * 4 / 608
    assert krippendorff_alpha_nominal(units) == pytest.approx(1 - 39 * 4 / 608)


def test_krippendorff_2011_binary_two_coders():
    units = transpose(KRIPPENDORFF_A)
    # coincidences: o_00 = 10, o_01 = o_10 = 4, o_11 = 2; alpha = 1 - 19 * 4 / (14 * 6)
    assert coincidence_matrix(units) == {(0, 0): 10, (0, 1): 4, (1, 0): 4, (1, 1): 2}
    alpha = krippendorff_alpha_nominal(units)
    assert round(alpha, 3) == 0.095
    assert alpha == pytest.approx(1 - 19 * 4 / 84)


def test_krippendorff_2011_nominal_two_coders():
    assert round(krippendorff_alpha_nominal(transpose(KRIPPENDORFF_B)), 3) == 0.692


def test_krippendorff_wikipedia_example():
    assert krippendorff_alpha_nominal(transpose(WIKIPEDIA_ALPHA)) == pytest.approx(
        0.691358, abs=5e-7
    )


def test_krippendorff_drops_units_with_fewer_than_two_ratings():
    units = transpose(KRIPPENDORFF_C)
    assert units[11] == (None, 3, None, None)  # unit 12: one value, not pairable
    assert krippendorff_alpha_nominal(units[:11]) == krippendorff_alpha_nominal(units)


def test_krippendorff_degenerate_cases():
    assert krippendorff_alpha_nominal([]) is None
    assert krippendorff_alpha_nominal([("a", None), (None, "b")]) is None  # nothing pairable
    assert krippendorff_alpha_nominal([("a", "a"), ("a", "a", "a")]) is None  # no variation


def test_coincidence_matrix_is_symmetric_and_sums_to_the_pairable_values():
    units = transpose(WIKIPEDIA_ALPHA)
    matrix = coincidence_matrix(units)
    for (c, k), value in matrix.items():
        assert matrix[k, c] == value
    pairable = sum(
        len(present) for u in units if len(present := [x for x in u if x is not None]) >= 2
    )
    assert sum(matrix.values()) == pairable


# --------------------------------------------------------------------------------------------
# Percent agreement, confusion table, helpers
# --------------------------------------------------------------------------------------------


def test_percent_agreement_all_present_raters_agree():
    units = transpose(KRIPPENDORFF_C)
    # 11 pairable units; all present ratings equal in units 1, 3, 4, 5, 7, 9, 10, 11
    assert percent_agreement(units) == pytest.approx(8 / 11)


def test_percent_agreement_two_raters_and_degenerate_cases():
    a = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert percent_agreement(list(zip(a, b, strict=True))) == pytest.approx(0.7)
    assert pairwise_agreement(list(zip(a, b, strict=True))) == pytest.approx(0.7)
    assert percent_agreement([]) is None
    assert percent_agreement([("a", None), (None, None)]) is None
    assert percent_agreement([("a", "a")] * 3) == 1.0


def test_pairwise_agreement_three_raters():
    units = [("a", "a", "b"), ("a", "a", "a"), ("b", None, "b")]
    # pairs: (1,2) agree 2/2; (1,3) agree 2/3; (2,3) agree 1/2  -> mean (1 + 2/3 + 1/2) / 3
    assert pairwise_agreement(units) == pytest.approx((1 + 2 / 3 + 1 / 2) / 3)
    assert percent_agreement(units) == pytest.approx(2 / 3)


def test_confusion_table_bucket_by_bucket():
    a = [CORRECT, CONFIDENT_WRONG, CONFIDENT_WRONG, HEDGED_WRONG, ABSTAINED, CORRECT, None]
    b = [CORRECT, HEDGED_WRONG, CONFIDENT_WRONG, HEDGED_WRONG, ABSTAINED, CONFIDENT_WRONG, CORRECT]
    table = confusion_table(a, b, FOUR_BUCKETS)
    assert len(table) == 16
    assert table[CONFIDENT_WRONG, HEDGED_WRONG] == 1
    assert table[CONFIDENT_WRONG, CONFIDENT_WRONG] == 1
    assert table[CORRECT, CONFIDENT_WRONG] == 1
    assert table[HEDGED_WRONG, CONFIDENT_WRONG] == 0
    assert sum(table.values()) == 6  # the unit rater a left out is dropped


def test_confusion_rows_for_a_template():
    a = [CORRECT, CONFIDENT_WRONG, CONFIDENT_WRONG, HEDGED_WRONG, ABSTAINED, CORRECT]
    b = [CORRECT, HEDGED_WRONG, CONFIDENT_WRONG, HEDGED_WRONG, ABSTAINED, CONFIDENT_WRONG]
    rows = confusion_rows(a, b, FOUR_BUCKETS)
    assert rows.labels == FOUR_BUCKETS
    assert rows.rows[0] == ConfusionRow(CORRECT, (1, 1, 0, 0), 2)
    assert rows.rows[1] == ConfusionRow(CONFIDENT_WRONG, (0, 1, 1, 0), 2)
    assert rows.column_totals == (1, 2, 2, 1)
    assert rows.total == 6
    assert rows.agreements == 4


def test_confusion_table_labels():
    assert list(confusion_table(["b", "a"], ["a", "a"])) == [
        ("a", "a"),
        ("a", "b"),
        ("b", "a"),
        ("b", "b"),
    ]
    with pytest.raises(ValueError, match="not in labels"):
        confusion_table(["a", "z"], ["a", "a"], labels=["a", "b"])
    with pytest.raises(ValueError, match="repeat"):
        confusion_table(["a"], ["a"], labels=["a", "a"])


def test_ratings_table_from_judgements():
    triples = [
        (2, "bob", CORRECT),
        (1, "ann", CORRECT),
        (1, "bob", HEDGED_WRONG),
        (3, "ann", ABSTAINED),
    ]
    table = ratings_table(triples, raters=["ann", "bob", "cy"])
    assert table.units == (1, 2, 3)
    assert table.raters == ("ann", "bob", "cy")
    assert table.ratings == (
        (CORRECT, HEDGED_WRONG, None),
        (None, CORRECT, None),
        (ABSTAINED, None, None),
    )
    assert table.rater_column("bob") == [HEDGED_WRONG, CORRECT, None]
    with pytest.raises(ValueError, match="twice"):
        ratings_table([(1, "ann", CORRECT), (1, "ann", ABSTAINED)])
    with pytest.raises(ValueError, match="not in raters"):
        ratings_table([(1, "zed", CORRECT)], raters=["ann"])


def test_agreement_summary_two_raters():
    units = transpose(KRIPPENDORFF_B)
    summary = agreement_summary(units)
    assert isinstance(summary, AgreementSummary)
    assert summary.raters == 2
    assert summary.units == summary.pairable_units == summary.complete_units == 12
    assert summary.percent == pytest.approx(9 / 12)  # units 1, 5 and 12 differ
    assert summary.cohen_kappa == cohen_kappa(*KRIPPENDORFF_B)
    assert summary.fleiss_kappa == fleiss_kappa(units)
    assert round(summary.krippendorff_alpha, 3) == 0.692


def test_agreement_summary_with_missing_ratings():
    units = transpose(KRIPPENDORFF_C)
    summary = agreement_summary(units)
    assert summary.raters == 4
    assert summary.pairable_units == 11
    complete = [u for u in units if None not in u]
    assert summary.complete_units == len(complete) == 8  # units 2 to 9
    assert summary.cohen_kappa is None  # four raters
    assert summary.fleiss_kappa == fleiss_kappa(complete)
    assert round(summary.krippendorff_alpha, 3) == 0.743


def test_agreement_summary_of_nothing():
    summary = agreement_summary([])
    assert summary == AgreementSummary(0, 0, 0, 0, None, None, None, None, None)


def test_shape_errors():
    with pytest.raises(TypeError):
        percent_agreement("ab")
    with pytest.raises(TypeError):
        krippendorff_alpha_nominal(["ab", "cd"])
    with pytest.raises(TypeError):
        cohen_kappa("ab", "ab")


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

labels_st = st.sampled_from(["correct", "confident_wrong", "hedged_wrong", "abstained"])


@st.composite
def complete_ratings(draw, min_raters=2, max_raters=5):
    raters = draw(st.integers(min_value=min_raters, max_value=max_raters))
    return draw(st.lists(st.tuples(*[labels_st] * raters), min_size=1, max_size=40))


@st.composite
def ratings_with_gaps(draw):
    raters = draw(st.integers(min_value=2, max_value=5))
    cell = st.one_of(st.none(), labels_st)
    return draw(st.lists(st.tuples(*[cell] * raters), min_size=0, max_size=40))


@PROPERTY
@given(st.integers(min_value=2, max_value=6), st.lists(labels_st, min_size=2, max_size=40))
def test_perfect_agreement_gives_one_wherever_defined(raters, truth):
    assume(len(set(truth)) >= 2)  # with one category everywhere the coefficients are undefined
    units = [(label,) * raters for label in truth]
    assert percent_agreement(units) == 1.0
    assert pairwise_agreement(units) == 1.0
    assert fleiss_kappa(units) == 1.0
    assert krippendorff_alpha_nominal(units) == 1.0
    if raters == 2:
        assert cohen_kappa([u[0] for u in units], [u[1] for u in units]) == 1.0


@PROPERTY
@given(
    st.lists(
        st.tuples(st.one_of(st.none(), labels_st), st.one_of(st.none(), labels_st)), max_size=40
    )
)
def test_cohen_kappa_is_symmetric_in_the_raters(pairs):
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    assert cohen_kappa(a, b) == cohen_kappa(b, a)
    kappa = cohen_kappa(a, b)
    if kappa is not None:
        assert kappa <= 1


@PROPERTY
@given(ratings_with_gaps())
def test_agreement_shares_lie_in_zero_one(units):
    for value in (percent_agreement(units), pairwise_agreement(units)):
        assert value is None or 0 <= value <= 1
    alpha = krippendorff_alpha_nominal(units)
    assert alpha is None or alpha <= 1


@PROPERTY
@given(complete_ratings())
def test_all_agree_share_never_exceeds_the_pairwise_mean_without_missing_data(units):
    assert percent_agreement(units) <= pairwise_agreement(units) + 1e-12


@PROPERTY
@given(complete_ratings())
def test_fleiss_from_ratings_equals_fleiss_from_its_count_table(units):
    labels = sorted({x for u in units for x in u})
    table = [[Counter(u)[label] for label in labels] for u in units]
    assert fleiss_kappa(units) == fleiss_kappa_from_table(table)
    kappa = fleiss_kappa(units)
    assert kappa is None or kappa <= 1


@PROPERTY
@given(complete_ratings(min_raters=2, max_raters=2))
def test_two_raters_alpha_is_scotts_pi_corrected_for_sample_size(units):
    # With two raters and no missing data Fleiss' kappa is Scott's pi, and Krippendorff's
    # alpha = 1 - (1 - pi) (n - 1) / n with n = 2N pairable values.
    pi = fleiss_kappa(units)
    alpha = krippendorff_alpha_nominal(units)
    assert (pi is None) == (alpha is None)
    if pi is not None:
        n = 2 * len(units)
        assert alpha == pytest.approx(1 - (1 - pi) * (n - 1) / n)


@PROPERTY
@given(
    ratings_with_gaps(),
    st.permutations(["correct", "confident_wrong", "hedged_wrong", "abstained"]),
    st.randoms(),
)
def test_coefficients_ignore_label_names_unit_order_and_rater_order(units, renamed, rnd):
    mapping = dict(
        zip(["correct", "confident_wrong", "hedged_wrong", "abstained"], renamed, strict=True)
    )
    relabelled = [tuple(None if x is None else mapping[x] for x in u) for u in units]
    shuffled = list(units)
    rnd.shuffle(shuffled)
    width = len(units[0]) if units else 0
    order = list(range(width))
    rnd.shuffle(order)
    reordered = [tuple(u[j] for j in order) for u in units]
    for variant in (relabelled, shuffled, reordered):
        assert krippendorff_alpha_nominal(variant) == pytest.approx(
            krippendorff_alpha_nominal(units)
        )
        assert percent_agreement(variant) == pytest.approx(percent_agreement(units))
        assert pairwise_agreement(variant) == pytest.approx(pairwise_agreement(units))
    if width == 2:
        a, b = [u[0] for u in units], [u[1] for u in units]
        assert cohen_kappa(
            [mapping.get(x) for x in a], [mapping.get(x) for x in b]
        ) == pytest.approx(cohen_kappa(a, b))


@PROPERTY
@given(ratings_with_gaps(), st.lists(labels_st, max_size=5))
def test_alpha_ignores_units_with_fewer_than_two_ratings(units, singles):
    width = len(units[0]) if units else 2
    extra = [(label,) + (None,) * (width - 1) for label in singles] + [(None,) * width]
    assert krippendorff_alpha_nominal(units + extra) == krippendorff_alpha_nominal(units)


@PROPERTY
@given(ratings_with_gaps())
def test_alpha_matches_a_pair_by_pair_computation(units):
    # Reference: enumerate every ordered pair of values within a unit, each weighted 1/(m_u - 1);
    # D_o = share of disagreeing pairs, D_e = share of disagreeing pairs among all pairable values.
    values, weighted_disagreement, total = [], Fraction(0), Fraction(0)
    for unit in units:
        present = [x for x in unit if x is not None]
        if len(present) < 2:
            continue
        values += present
        for i, x in enumerate(present):
            for j, y in enumerate(present):
                if i != j:
                    total += Fraction(1, len(present) - 1)
                    weighted_disagreement += Fraction(x != y, len(present) - 1)
    n = len(values)
    expected_pairs = sum(1 for i in range(n) for j in range(n) if i != j and values[i] != values[j])
    alpha = krippendorff_alpha_nominal(units)
    if n < 2 or expected_pairs == 0:
        assert alpha is None
        return
    assert total == n
    d_o = weighted_disagreement / n
    d_e = Fraction(expected_pairs, n * (n - 1))
    assert alpha == pytest.approx(float(1 - d_o / d_e))


@PROPERTY
@given(st.lists(st.tuples(labels_st, labels_st), min_size=1, max_size=40))
def test_confusion_table_adds_up(pairs):
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    rows = confusion_rows(a, b, FOUR_BUCKETS)
    assert rows.total == len(pairs) == sum(r.total for r in rows.rows) == sum(rows.column_totals)
    assert rows.agreements == sum(1 for x, y in pairs if x == y)
    assert percent_agreement(pairs) == pytest.approx(rows.agreements / rows.total)
    table = confusion_table(a, b, FOUR_BUCKETS)
    transposed = confusion_table(b, a, FOUR_BUCKETS)
    assert all(table[x, y] == transposed[y, x] for x, y in table)
