"""Small pieces of wording every part shares: a list written in the reader's language.

Never join translated words with ", " in code: English writes "a, b", Japanese 「a、b」.
"""

import re
from collections.abc import Iterable

from django.utils.translation import pgettext

# A sentence that ends with one of these is followed by the next with no space between.
FULL_WIDTH_ENDS = ("。", "！", "？", "）", "」", "：")


def word_list(items: Iterable) -> str:
    """Items as a list in running text: "a, b, c" in English, 「a、b、c」 in Japanese."""
    return pgettext("list separator", ", ").join(str(item) for item in items)


def number_range(low, high) -> str:
    """Two numbers as a range, the report's way (scoring.report.numbers): "1–3" in English,
    「1〜3」 in Japanese."""
    return pgettext("range of numbers", "%(low)s–%(high)s") % {"low": low, "high": high}


def number_ranges(numbers: Iterable[int]) -> str:
    """Whole numbers as a list of their runs: "1–3, 5, 7–8" in English, 「1〜3、5、7〜8」 in
    Japanese."""
    runs: list[str] = []
    start = prev = None
    for n in [*sorted(set(numbers)), None]:
        if start is not None and (n is None or n != prev + 1):
            runs.append(str(start) if start == prev else number_range(start, prev))
            start = None
        if n is not None and start is None:
            start = n
        prev = n
    return word_list(runs)


def sentences(parts: Iterable) -> str:
    """Sentences one after another: a space after one that ends in a half-width mark (English),
    none after one that ends in a full-width mark (Japanese: 「。」 and the next follows at once)."""
    text = ""
    for part in (str(p).strip() for p in parts):
        if part:
            text += part if not text or text.endswith(FULL_WIDTH_ENDS) else " " + part
    return text


JAPANESE_IN_BRACKETS = re.compile(r"\s?\(([^()]*[\u3040-\u30ff\u3400-\u9fff][^()]*)\)")


def full_width_brackets(text) -> str:
    """Text translated elsewhere (Django's own names of languages, 「英語(英国)」) with the
    brackets around Japanese words full-width, as Japanese text writes them: 「英語（英国）」."""
    return JAPANESE_IN_BRACKETS.sub(lambda m: f"（{m.group(1)}）", str(text))
