"""An interval with negative ends reads "−3.25 to −1.75": its "to" is in the catalogue, so a
Japanese report does not show an English word inside its figures."""

from django.utils import translation

from scoring.report.stats import Interval
from scoring.templatetags.report_tags import ci


def test_a_negative_interval_says_to_in_the_reader_s_language():
    interval = Interval(-3.25, -1.75)
    with translation.override("en"):
        english = ci(interval)
    with translation.override("ja"):
        japanese = ci(interval)
    assert "(−3.25 to −1.75)" in english
    assert " to " not in japanese
    assert "(−3.25〜−1.75)" in japanese


def test_an_interval_above_zero_keeps_its_dash():
    with translation.override("ja"):
        assert "(0.35–0.75)" in ci(Interval(0.35, 0.75))
