"""How the report writes its numbers: fractions as percentages, intervals after their figure,
None as a dash, with the decimal mark of the active language, a true minus sign (U+2212) for a
negative number and one way per language to write a range (2–5 in English, 2〜5 in Japanese).

The report writes tens of thousands of numbers, and looking up the language costs as much as
formatting one: ``numbers()`` gives the active language's ``Numbers``, made once per language
(its decimal mark, the intervals' title and words looked up then), and the tables take it once
for all their cells. The template filters of scoring.templatetags.report_tags call the same
methods.
"""

from __future__ import annotations

from html import escape

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.formats import get_format, number_format
from django.utils.safestring import SafeData, mark_safe
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _

__all__ = ["DASH", "MINUS", "Numbers", "minus", "numbers"]

DASH = "–"
MINUS = "\u2212"


def minus(text: str) -> str:
    """A number written with a hyphen-minus ("-3.5"), shown with a true minus sign ("−3.5")."""
    return MINUS + text[1:] if text.startswith("-") else text


def _escape(text: str) -> str:
    """conditional_escape's characters, without its lazy-string wrapper's cost."""
    return text if isinstance(text, SafeData) else escape(text)


def level_places(value: float) -> int:
    """The places a confidence level needs as a percentage not to read 100 below 1: one for
    0.95, two for 0.99983 (a Holm level over 300 hypotheses), at most six."""
    places = 1
    while places < 6 and value < 1 and round(value * 100, places) >= 100:
        places += 1
    return places


class Numbers:
    """The report's number formats in one language."""

    def __init__(self) -> None:
        self.mark = get_format("DECIMAL_SEPARATOR")
        self.title = _escape(_("95 % interval"))
        # Translators: a range of numbers, an interval's ends or the lowest and highest value
        # of the repeats: "0.35–0.70", "−7–1" (the same form for negative ends).
        self.range = pgettext("range of numbers", "%(low)s–%(high)s")
        self.grouping = settings.USE_THOUSAND_SEPARATOR

    def number(self, value: float, decimals: int) -> str:
        value = round(float(value), decimals)
        if self.grouping:  # grouping by locale: Django's own, slower, formatter
            if value.is_integer():
                return minus(number_format(int(value)))
            return minus(number_format(value, decimal_pos=decimals).rstrip("0"))
        # Formatted directly, with the locale's decimal mark (12.50 -> 12.5), as number_format
        # would without grouping.
        if value.is_integer():
            return minus(str(int(value)))
        text = f"{value:.{decimals}f}".rstrip("0")
        return minus(text if self.mark == "." else text.replace(".", self.mark))

    def between(self, low: str, high: str) -> str:
        """Two written numbers as a range in the active language: "0–5", 「0〜5」."""
        return self.range % {"low": low, "high": high}

    def num(self, value, decimals: int = 2) -> str:
        """12.0 -> "12"; 12.333 -> "12.33"; None -> "–"."""
        if value is None or value == "":
            return DASH
        return self.number(value, int(decimals))

    def pct(self, value, decimals: int = 1) -> str:
        """A fraction as a percentage: 0.6667 -> "66.7 %", 0.5 -> "50 %"; None -> "–"."""
        if value is None or value == "":
            return DASH
        return f"{self.number(float(value) * 100, int(decimals))} %"

    def level(self, value) -> str:
        """A confidence level as a percentage with the places it needs not to read as 100 %:
        0.95 -> "95.0 %", 0.99983 -> "99.98 %" (a Holm level over hundreds of tests)."""
        if value is None or value == "":
            return DASH
        return self.pct(float(value), level_places(float(value)))

    def figure(self, value, fmt: str = "num") -> str:
        """A figure written as a scheme's column says: "pct", "pct:0", "num" or "num:1"."""
        kind, _sep, places = str(fmt).partition(":")
        write = self.pct if kind == "pct" else self.num
        return write(value, places) if places else write(value)

    def span(self, summary, kind: str = "num") -> str:
        """A RepeatSummary's range, "min–max" (or the one value when they agree)."""
        if summary is None or summary.min is None:
            return DASH
        write = self.pct if kind == "pct" else self.num
        low, high = write(summary.min), write(summary.max)
        if low == high:
            return low
        return self.between(low, high)

    def ci(self, interval, kind: str = "num") -> str:
        """A 95 % interval written after its figure: " (0.35–0.70)", " (35.1–70.2 %)"; "" when
        the figure has no interval (it is then a dash itself). ``kind``: "num", "num:1" or
        "pct"."""
        if interval is None:
            return ""
        kind, _sep, places = str(kind).partition(":")
        if kind == "pct":
            low = self.number(interval.low * 100, int(places or 1))
            high = self.number(interval.high * 100, int(places or 1))
            unit = " %"
        else:
            low, high = self.num(interval.low, places or 2), self.num(interval.high, places or 2)
            unit = ""
        text = self.between(low, high)
        # format_html's output, written directly: the report has thousands of these.
        return mark_safe(f' <span class="ci" title="{self.title}">({_escape(text)}{unit})</span>')


_NUMBERS: dict[str | None, Numbers] = {}


def numbers() -> Numbers:
    """The active language's number formats."""
    language = get_language()
    found = _NUMBERS.get(language)
    if found is None:
        found = _NUMBERS[language] = Numbers()
    return found


@receiver(setting_changed)
def _reset(**kwargs) -> None:
    """Formats and translations follow the settings (tests override them): start afresh."""
    _NUMBERS.clear()
