"""How a simulated model answers an item, and how it writes its sheet."""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adapters.simulator.knowledge import Knowledge, KnowledgeItem, PromptItem, normalize
from adapters.simulator.profiles import Profile

ABSTAIN_ANSWER = "UNKNOWN"
# Share of items whose difficulty is common to every simulated model (the rest is the model's
# own): hard items are hard for all of them, so several models miss the same items, as real
# models do, and then often give the same wrong answer.
SHARED_DIFFICULTY = 0.6
# Weights for picking among an item's plausible wrong answers; skewed so models agree on errors.
WRONG_ANSWER_WEIGHTS = (0.6, 0.25, 0.15)


def digest(*parts: Any) -> int:
    joined = "\x1f".join(str(p) for p in parts).encode("utf-8")
    return int.from_bytes(hashlib.sha256(joined).digest()[:8], "big")


def unit_draw(*parts: Any) -> float:
    """A uniform number in [0, 1) fixed by `parts`."""
    return digest(*parts) / 2**64


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_VOWELS = "aeiou"


def wrong_answers(item: KnowledgeItem, knowledge: Knowledge) -> list[str]:
    """Plausible wrong answers to `item`, the same for every model: off by one, another item's
    answer of the same kind, a near-miss spelling. Ordered by how likely a model is to give them."""
    answer = item.answer
    is_numeric = bool(_NUMBER.search(answer))
    others = [
        other.answer
        for other in knowledge.items
        if normalize(other.answer) != normalize(answer)
        and bool(_NUMBER.search(other.answer)) == is_numeric
    ]
    if is_numeric:
        # A number of the same magnitude is a plausible slip (1648 -> 1519, not 1648 -> 4).
        own = _magnitude(answer)
        others.sort(
            key=lambda other: (abs(_magnitude(other) - own), digest("other", item.key, other))
        )
    else:
        # A name for a name, a word for a word.
        words = len(answer.split())
        others.sort(
            key=lambda other: (abs(len(other.split()) - words), digest("other", item.key, other))
        )
    candidates: list[str] = []
    if is_numeric:
        numbers = list(_NUMBER.finditer(answer))
        target = numbers[digest("which-number", item.key) % len(numbers)]
        step = 1 if digest("direction", item.key) % 2 else -1
        for delta in (step, -step):
            candidates.append(_shift_number(answer, target, delta))
        candidates.insert(1, others[0] if others else _shift_number(answer, target, 2 * step))
    else:
        candidates.append(others[0] if others else _near_miss(answer, item.key))
        candidates.append(_near_miss(answer, item.key))
        if len(others) > 1:
            candidates.append(others[1])
    unique: list[str] = []
    for candidate in candidates:
        folded = normalize(candidate)
        if folded and folded != normalize(answer) and folded not in map(normalize, unique):
            unique.append(candidate)
    return unique or [f"not {answer}"]


def _magnitude(text: str) -> float:
    value = float(_NUMBER.search(text).group(0))
    return math.log10(value + 1)


def _shift_number(answer: str, match: re.Match, delta: int) -> str:
    text = match.group(0)
    if "." in text:
        decimals = len(text.split(".")[1])
        value = f"{float(text) + delta * 10**-decimals:.{decimals}f}"
    else:
        value = str(max(int(text) + delta, 0))
    return answer[: match.start()] + value + answer[match.end() :]


def _near_miss(answer: str, key: str) -> str:
    words = answer.split()
    if len(words) > 1:
        # Drop one word: "Johannes Kepler" -> "Kepler", "Treaty of Paris" -> "Treaty Paris"
        drop = digest("drop", key) % len(words)
        return " ".join(w for i, w in enumerate(words) if i != drop)
    vowels = [i for i, ch in enumerate(answer) if ch.lower() in _VOWELS]
    if not vowels:
        return answer + "s"
    at = vowels[digest("vowel", key) % len(vowels)]
    old = answer[at].lower()
    new = _VOWELS[(_VOWELS.index(old) + 1 + digest("to", key) % 4) % 5]
    new = new.upper() if answer[at].isupper() else new
    return answer[:at] + new + answer[at + 1 :]


@dataclass
class ItemAnswer:
    number: int
    answer: str
    confidence: str
    correct: bool  # for tests and demos; never sent


def answer_item(
    profile: Profile, model: str, seed: int, item: PromptItem, knowledge: Knowledge
) -> ItemAnswer:
    """How `model` (of character `profile`) answers one item in the repeat fixed by `seed`."""
    known = item.known
    key = known.key if known else normalize(item.text)
    rng = random.Random(digest("item", model, seed, item.number, key))
    if unit_draw("consistency", model, seed, key) < profile.consistency:
        if unit_draw("shared", model, key) < SHARED_DIFFICULTY:
            draw = unit_draw("difficulty", key)
        else:
            draw = unit_draw("own", model, key)
    else:
        draw = unit_draw("repeat", model, seed, key)
    knows = known is not None and draw < profile.knowledge
    abstain_draw, confidence_draw, wrong_draw = rng.random(), rng.random(), rng.random()

    if knows:
        level = _weighted(profile.confidence_when_right, confidence_draw)
        return ItemAnswer(item.number, known.answer, level, True)
    if abstain_draw < profile.abstain_when_unsure or (known is None and not knowledge.items):
        return ItemAnswer(item.number, ABSTAIN_ANSWER, "LOW", False)
    if known is not None:
        candidates = wrong_answers(known, knowledge)
    else:
        # Not in the knowledge file: a guess from another item, the same for every model.
        candidates = [knowledge.items[digest("guess", key) % len(knowledge.items)].answer]
    weights = WRONG_ANSWER_WEIGHTS[: len(candidates)]
    guess = candidates[_weighted(dict(enumerate(weights)), wrong_draw)]
    level = _weighted(profile.confidence_when_wrong, confidence_draw)
    return ItemAnswer(item.number, guess, level, False)


def _weighted(weights: Mapping[Any, float], draw: float):
    total = sum(weights.values())
    running = 0.0
    for choice, weight in weights.items():
        running += weight / total
        if draw < running:
            return choice
    return next(choice for choice, weight in reversed(list(weights.items())) if weight > 0)


_PREAMBLES = (
    "Sure! Here are my answers:",
    "Great questions! Here is my answer sheet.",
    "Happy to help. Answers below, with my confidence for each:",
)
_CLOSINGS = (
    "Let me know if you would like sources for any of these.",
    "I hope this helps! Some of these I am less sure about, as marked.",
    "Feel free to ask if anything needs a longer explanation.",
)


def render_sheet(
    answers: list[ItemAnswer], profile: Profile, model: str, seed: int, prompt: str
) -> str:
    """The reply text: `N. ANSWER: ...` and `CONFIDENCE: ...` per item, then the profile's slips."""
    noise = profile.format
    lines: list[str] = []
    for a in answers:
        rng = random.Random(digest("format", model, seed, a.number, a.answer))
        paren, lower, markdown, variant, missing = (rng.random() for _ in range(5))
        number = f"{a.number})" if paren < noise.paren_numbering else f"{a.number}."
        answer_label, confidence_label = "ANSWER:", "CONFIDENCE:"
        confidence = a.confidence
        if lower < noise.lowercase_labels:
            answer_label, confidence_label = "answer:", "confidence:"
            confidence = confidence.lower() if variant < 0.5 else confidence
        if markdown < noise.markdown:
            if variant < 0.5:
                lines.append(f"**{number} {answer_label}** {a.answer}")
                confidence_line = f"**{confidence_label}** {confidence}"
            else:
                lines.append(f"{number} {answer_label} **{a.answer}**")
                confidence_line = f"{confidence_label} {confidence}"
        else:
            lines.append(f"{number} {answer_label} {a.answer}")
            confidence_line = f"{confidence_label} {confidence}"
        if missing >= noise.missing_confidence:
            lines.append(confidence_line)
    text = "\n".join(lines)
    rng = random.Random(digest("chatty", model, seed, prompt))
    if rng.random() < noise.chatty:
        text = f"{rng.choice(_PREAMBLES)}\n\n{text}\n\n{rng.choice(_CLOSINGS)}"
    return text
