"""How the tests read a simulated answer against its key, as a person scoring it would.

The simulator words its answers as a model does ("The answer is 429 (Too Many Requests)."), so
no test may compare an answer with the key as written. A person marks an answer correct when it
says what the key says: every number and word of the key is among the answer's numbers and
words, and every run of Japanese of the key is in the answer. Written apart from the
simulator's own check, so that a test does not grade the simulator with its own rule.
"""

from __future__ import annotations

import re
import unicodedata

_JAPANESE_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]+")
_NUMBER_OR_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def parts_of(text: str) -> tuple[set[str], list[str]]:
    text = _fold(text)
    return set(_NUMBER_OR_WORD.findall(_JAPANESE_RUN.sub(" ", text))), _JAPANESE_RUN.findall(text)


def says_the_key(answer: str, key: str) -> bool:
    words, runs = parts_of(key)
    have, _runs = parts_of(answer)
    folded = _fold(answer)
    return bool(words or runs) and words <= have and all(run in folded for run in runs)


def as_written(text: str) -> str:
    """An answer or key with case, width, spaces and punctuation folded away: two texts that
    fold alike are the same entry."""
    return "".join(ch for ch in _fold(text) if ch.isalnum())
