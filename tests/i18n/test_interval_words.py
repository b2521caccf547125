"""A range is written one way per language, whatever the sign of its ends: "0.35–0.75" and
"−3.25–−1.75" in English, 「0.35〜0.75」 and 「−3.25〜−1.75」 in Japanese, a negative number
always with a true minus sign (U+2212), never a hyphen-minus."""

import pytest
from django.utils import translation

from scoring.report.numbers import numbers
from scoring.report.stats import Interval
from scoring.templatetags.report_tags import ci, num, num_range


@pytest.mark.parametrize("language,dash", [("en", "–"), ("ja", "〜")])
def test_every_range_takes_the_languages_one_form(language, dash):
    with translation.override(language):
        assert f"(0.35{dash}0.75)" in ci(Interval(0.35, 0.75))
        assert f"(−3.25{dash}−1.75)" in ci(Interval(-3.25, -1.75))
        assert f"(−7{dash}1)" in ci(Interval(-7, 1), "num:0")
        assert f"(35{dash}70 %)" in ci(Interval(0.35, 0.7), "pct:0")
        assert num_range(-0.2, 0.4) == f"−0.2{dash}0.4"
        assert num_range(None, 0.4) == f"−∞{dash}0.4"
    with translation.override("ja"):
        assert " to " not in ci(Interval(-3.25, -1.75))


def test_a_negative_number_takes_the_true_minus_sign():
    with translation.override("ja"):
        assert num(-3) == "−3" and num(-0.125, 2) == "−0.12" and num(0) == "0"
        assert numbers().pct(-0.25) == "−25 %"
        assert "-" not in ci(Interval(-3.25, -1.75))


def test_a_confidence_level_under_1_never_reads_as_100_percent():
    # Holm's levels over 300 hypotheses are 1 - 0.05 / 300 = 99.983 %: at one place that is
    # "100.0 %", which says the bound is certain.
    from scoring.templatetags.report_tags import level

    assert level(0.95) == "95 %" and level(0.975) == "97.5 %"
    assert level(1 - 0.05 / 300) == "99.98 %"
    assert level(1 - 0.05 / 1225) == "99.996 %"
    assert level(1.0) == "100 %" and level(None) == "–"
