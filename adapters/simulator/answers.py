"""How a simulated model answers an item, and how it writes its sheet."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adapters.simulator.knowledge import Knowledge, PromptItem, normalize
from adapters.simulator.mistakes import digest, guess, wrong_answers
from adapters.simulator.profiles import Profile
from adapters.simulator.wording import (
    STYLES,
    abstention,
    carries_key,
    contains_key,
    framings,
    has_content,
    hedged,
    is_key_entry,
    ja_kind,
    one_line,
    question_sentence,
    reshapes,
    sounds_hedged,
)

ABSTAIN_ANSWER = "UNKNOWN"  # in an English bank; a Japanese one gets 「不明」 (wording.ABSTENTIONS)
# Share of items whose difficulty is common to every simulated model (the rest is the model's
# own): hard items are hard for all of them, so several models miss the same items, as real
# models do, and then often give the same wrong answer.
SHARED_DIFFICULTY = 0.6
# Weights for picking among an item's plausible wrong answers; skewed so models agree on errors.
WRONG_ANSWER_WEIGHTS = (0.6, 0.25, 0.15)


def unit_draw(*parts: Any) -> float:
    """A uniform number in [0, 1) fixed by `parts`."""
    return digest(*parts) / 2**64


def model_style(model: str) -> str:
    """How a model words its answers (terse, plain, a sentence): its own, whatever the seed."""
    return STYLES[digest("style", model) % len(STYLES)]


def say_correct(key: str, question: str, language: str, style: str, keys: frozenset[str]) -> str:
    """The key in the model's words: reshaped and framed, every word and number kept, never a
    key entry as written."""
    key = one_line(key)
    shapes = reshapes(key, language)
    # Said in its own words first: a sentence of the question's words, the key reshaped (its
    # unit written out, its reason first); the key in a plain frame only when none of these fits.
    # Each is checked against what it says: the key, or the reshape it is made of (a unit
    # written out keeps the key's number, not its symbol).
    own: list[tuple[str, str]] = []
    for x in [key, *shapes]:
        bare = x.rstrip("。．.!！ ")
        noun = language != "ja" or ja_kind(bare) == "noun"  # not 送信するです
        said = question_sentence(question, bare, language) if has_content(bare) and noun else None
        if said and len(said) <= 220 and not sounds_hedged(said.replace(x, "")):
            own.append((said, x))
    for shape in shapes:
        own += [(option, shape) for option in framings(shape, question, language, style)[:2]]
    start = digest("wording", style, key) % max(1, min(len(own), 3))
    options = own[start:] + own[:start]
    options += [(option, key) for option in framings(key, question, language, style)]
    for option, says in options:
        if (
            not is_key_entry(option, keys)
            and carries_key(option, says)
            and (not sounds_hedged(option) or sounds_hedged(key))
        ):
            return option
    return f"答えは「{key}」です。" if language == "ja" else f"The answer is: {key}"


def say_wrong(
    core: str,
    key: str,
    question: str,
    language: str,
    style: str,
    keys: frozenset[str],
    *,
    hedge: bool,
) -> str:
    """A wrong answer as the model says it: confidently, or with a hedge when it hedges; never
    a key entry, never all its key says, never its key as written inside it."""
    options = (
        hedged(core, language, question) if hedge else framings(core, question, language, style)
    )
    start = digest("wording", style, "hedged" if hedge else "", core) % min(len(options), 3)
    for option in options[start:] + options[:start]:
        if (
            not is_key_entry(option, keys)
            and not (key and (carries_key(option, key) or contains_key(option, key)))
            and sounds_hedged(option) == (hedge or sounds_hedged(core))
        ):
            return option
    return core


@dataclass
class ItemAnswer:
    number: int
    answer: str
    confidence: str
    correct: bool  # for tests and demos; never sent
    hedged: bool = False  # the answer carries a hedge ("probably ...")
    abstained: bool = False  # UNKNOWN, or 「不明」 in a Japanese bank


def answer_item(
    profile: Profile,
    model: str,
    seed: int,
    item: PromptItem,
    knowledge: Knowledge,
    language: str = "en",
) -> ItemAnswer:
    """How `model` (of character `profile`) answers one item in the repeat fixed by `seed`,
    in `language` (that of the prompt's items)."""
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
    hedge_draw = rng.random()
    style = model_style(model)
    keys = knowledge.folded_answers
    question = known.question if known else item.text

    if knows:
        level = _weighted(profile.confidence_when_right, confidence_draw)
        text = say_correct(known.answer, question, language, style, keys)
        return ItemAnswer(item.number, text, level, True)
    if abstain_draw < profile.abstain_when_unsure or (known is None and not knowledge.items):
        said = abstention(language, digest("abstain", model, item.number, key))
        return ItemAnswer(item.number, said, "LOW", False, abstained=True)
    if known is not None:
        candidates = wrong_answers(known, knowledge, language)
    else:
        # Not in the key sent (or the knowledge file): a guess from the question alone.
        candidates = [guess(item.text, knowledge, language)]
    if not candidates and not profile.abstain_when_unsure:
        # A model that never abstains says something anyway: a term of its question's words.
        candidates = [guess(question, knowledge, language, avoid=known.answer if known else "")]
    if not candidates:  # nothing specific to say: a model abstains rather than say "the usual"
        said = abstention(language, digest("abstain", model, item.number, key))
        return ItemAnswer(item.number, said, "LOW", False, abstained=True)
    weights = WRONG_ANSWER_WEIGHTS[: len(candidates)]
    core = candidates[_weighted(dict(enumerate(weights)), wrong_draw)]
    level = _weighted(profile.confidence_when_wrong, confidence_draw)
    # A model that rates its guess HIGH does not say "probably" in the same breath.
    hedge = level != "HIGH" and hedge_draw < profile.hedge_when_unsure
    own_key = known.answer if known else ""
    text = say_wrong(core, own_key, question, language, style, keys, hedge=hedge)
    return ItemAnswer(item.number, text, level, False, hedged=sounds_hedged(text))


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
_JA_PREAMBLES = (
    "承知しました。回答は以下のとおりです。",
    "よい質問ですね。回答を記します。",
    "喜んでお答えします。確信度も添えました。",
)
_JA_CLOSINGS = (
    "出典が必要な項目があればお知らせください。",
    "自信の低い答えには、その旨を記しました。",
    "詳しい説明が必要でしたら、お気軽にどうぞ。",
)


def render_sheet(
    answers: list[ItemAnswer],
    profile: Profile,
    model: str,
    seed: int,
    prompt: str,
    language: str = "en",
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
        ja = language == "ja"  # chatter in the bank's language
        preamble = rng.choice(_JA_PREAMBLES if ja else _PREAMBLES)
        text = f"{preamble}\n\n{text}\n\n{rng.choice(_JA_CLOSINGS if ja else _CLOSINGS)}"
    return text
