"""Simulated models for demos and tests: profiles, the answers they give, and the adapter that asks them.

The simulator (served by `adapters.simulator_server`) answers a probe prompt as a model of a
given character would: it knows some share of the items (it can only "know" them because it is
handed the questions and answers: with the request, as the experiment's own key, or else in a
knowledge file), rates its confidence well or badly, abstains or guesses when it does not know,
and formats its sheet tidily or sloppily. Nothing here is a
real model; every reply is labelled as simulated.

Everything is deterministic for a (model, prompt, seed) request, except injected errors, which
follow one random sequence per server so that a retried request can succeed.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any
from urllib.parse import urlsplit

from adapters.base import CompletionRequest
from adapters.openai_chat import OpenAIChatAdapter

DEFAULT_PORT = 8765
SIMULATOR_DEFAULT_BASE_URL = f"http://127.0.0.1:{DEFAULT_PORT}/v1"
DEFAULT_SEED = 0
CONFIDENCE_LEVELS = ("HIGH", "MEDIUM", "LOW")
ABSTAIN_ANSWER = "UNKNOWN"
OWNER = "simulator"
SYSTEM_FINGERPRINT = "fp_simulated"

# Share of items whose difficulty is common to every simulated model (the rest is the model's
# own): hard items are hard for all of them, so several models miss the same items, as real
# models do, and then often give the same wrong answer.
SHARED_DIFFICULTY = 0.6
# Weights for picking among an item's plausible wrong answers; skewed so models agree on errors.
WRONG_ANSWER_WEIGHTS = (0.6, 0.25, 0.15)


# The request's extension field that carries the experiment's key to the simulator:
# {"simulation": {"key": [{"question": ..., "answer": ...}, ...]}}.
SIMULATION_FIELD = "simulation"
# Hosts besides the loopback ones that may receive the key (a simulator in another container).
KEY_HOSTS_ENV = "SIMULATOR_KEY_HOSTS"
_LOOPBACK_HOSTS = {"127.0.0.1", "::1", "localhost"}


def may_receive_key(base_url: str) -> bool:
    """Only a simulator on this machine (or on a host named in SIMULATOR_KEY_HOSTS) is sent the
    key: a configuration of provider "simulator" pointed at some other server must not leak it."""
    host = (urlsplit(base_url).hostname or "").lower()
    allowed = {h.strip().lower() for h in os.environ.get(KEY_HOSTS_ENV, "").split(",") if h.strip()}
    return host in _LOOPBACK_HOSTS or host.startswith("127.") or host in allowed


class SimulatorAdapter(OpenAIChatAdapter):
    """The OpenAI chat adapter pointed at the local simulator; no key, nothing leaves the machine.

    With the request it sends the experiment's own key (question and answer of each keyed item)
    in the extension field ``simulation``, so that each simulated model knows a share of the bank
    it is asked about; only to a local simulator (see ``may_receive_key``)."""

    name = "simulator"
    label = "Simulated models (local simulator, not a real model)"
    needs_api_key = False
    default_base_url = SIMULATOR_DEFAULT_BASE_URL
    api_key_env_hint = None

    def payload(self, request: CompletionRequest) -> dict[str, Any]:
        body = super().payload(request)
        if request.simulation_key and may_receive_key(self.base_url(request)):
            body[SIMULATION_FIELD] = {
                "key": [
                    {"question": question, "answer": answer}
                    for question, answer in request.simulation_key
                ]
            }
        return body


# --- profiles ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FormatNoise:
    """Per-item probabilities of the format slips real models make (chatty is per reply)."""

    markdown: float = 0.0  # **bold** label or answer
    paren_numbering: float = 0.0  # "1)" instead of "1."
    lowercase_labels: float = 0.0  # "answer:" / "confidence:"
    chatty: float = 0.0  # a preamble and a closing remark around the sheet
    missing_confidence: float = 0.0  # the CONFIDENCE line left out


@dataclass(frozen=True)
class Profile:
    """A simulated model's character. Probabilities are in [0, 1]."""

    name: str
    description: str = ""
    knowledge: float = 0.7  # chance of answering an item correctly
    # Confidence the model states when it is right, and when it answers wrongly.
    confidence_when_right: Mapping[str, float] = field(
        default_factory=lambda: {"HIGH": 0.75, "MEDIUM": 0.2, "LOW": 0.05}
    )
    confidence_when_wrong: Mapping[str, float] = field(
        default_factory=lambda: {"HIGH": 0.2, "MEDIUM": 0.4, "LOW": 0.4}
    )
    abstain_when_unsure: float = 0.3  # chance of UNKNOWN when it does not know an item
    consistency: float = 0.85  # share of items known or not known the same way in every repeat
    format: FormatNoise = field(default_factory=FormatNoise)
    latency_ms: int = 0
    latency_jitter_ms: int = 0
    error_rate: float = 0.0  # share of requests answered with an injected error
    rate_limit_share: float = 0.5  # of those, the share that are 429 (the rest are 500)
    retry_after: float = 1.0  # seconds, sent in the 429's retry-after header


BUILTIN_PROFILES: dict[str, Profile] = {
    p.name: p
    for p in [
        Profile(
            name="sim-expert",
            description="Knows most items, rates its confidence honestly, tidy format.",
            knowledge=0.85,
            confidence_when_right={"HIGH": 0.8, "MEDIUM": 0.15, "LOW": 0.05},
            confidence_when_wrong={"HIGH": 0.1, "MEDIUM": 0.35, "LOW": 0.55},
            abstain_when_unsure=0.5,
            latency_ms=400,
            latency_jitter_ms=200,
        ),
        Profile(
            name="sim-overconfident",
            description="Knows a little over half, says HIGH to nearly everything, never abstains.",
            knowledge=0.6,
            confidence_when_right={"HIGH": 0.97, "MEDIUM": 0.03, "LOW": 0.0},
            confidence_when_wrong={"HIGH": 0.93, "MEDIUM": 0.07, "LOW": 0.0},
            abstain_when_unsure=0.0,
            latency_ms=250,
            latency_jitter_ms=100,
        ),
        Profile(
            name="sim-cautious",
            description="Knows about half, abstains when unsure, LOW or MEDIUM when it guesses.",
            knowledge=0.55,
            confidence_when_right={"HIGH": 0.55, "MEDIUM": 0.35, "LOW": 0.1},
            confidence_when_wrong={"HIGH": 0.0, "MEDIUM": 0.3, "LOW": 0.7},
            abstain_when_unsure=0.8,
            latency_ms=600,
            latency_jitter_ms=300,
        ),
        Profile(
            name="sim-sloppy",
            description="Knows 70%, but bold labels, '1)' numbering, chatter and missing lines.",
            knowledge=0.7,
            confidence_when_right={"HIGH": 0.7, "MEDIUM": 0.25, "LOW": 0.05},
            confidence_when_wrong={"HIGH": 0.35, "MEDIUM": 0.4, "LOW": 0.25},
            abstain_when_unsure=0.25,
            format=FormatNoise(
                markdown=0.45,
                paren_numbering=0.4,
                lowercase_labels=0.35,
                chatty=0.8,
                missing_confidence=0.15,
            ),
            latency_ms=500,
            latency_jitter_ms=400,
        ),
        Profile(
            name="sim-flaky",
            description="Answers like sim-expert, but about 30% of requests get a 429 or a 500.",
            knowledge=0.85,
            confidence_when_right={"HIGH": 0.8, "MEDIUM": 0.15, "LOW": 0.05},
            confidence_when_wrong={"HIGH": 0.1, "MEDIUM": 0.35, "LOW": 0.55},
            abstain_when_unsure=0.5,
            latency_ms=400,
            latency_jitter_ms=200,
            error_rate=0.3,
            rate_limit_share=0.6,
            retry_after=1.0,
        ),
    ]
}

_PROBABILITIES = (
    "knowledge",
    "abstain_when_unsure",
    "consistency",
    "error_rate",
    "rate_limit_share",
)


def profile_from_dict(name: str, data: Mapping[str, Any], base: Profile | None = None) -> Profile:
    """A profile from JSON fields, starting from `base` (fields not given are inherited).

    Raises ValueError with a message naming the profile and the field that is wrong.
    """
    if not isinstance(data, Mapping):
        raise ValueError(
            f"profile {name!r}: expected an object of fields, got {type(data).__name__}"
        )
    known = {f.name for f in fields(Profile)} - {"name"}
    unknown = set(data) - known - {"base"}
    if unknown:
        raise ValueError(
            f"profile {name!r}: unknown field(s) {', '.join(sorted(unknown))}; "
            f"known fields: {', '.join(sorted(known | {'base'}))}"
        )
    profile = replace(base, name=name) if base is not None else Profile(name=name)
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key == "base":
            continue
        if key == "format":
            if not isinstance(value, Mapping):
                raise ValueError(f"profile {name!r}: format must be an object")
            format_fields = {f.name for f in fields(FormatNoise)}
            bad = set(value) - format_fields
            if bad:
                raise ValueError(
                    f"profile {name!r}: unknown format field(s) {', '.join(sorted(bad))}; "
                    f"known: {', '.join(sorted(format_fields))}"
                )
            for fkey, fvalue in value.items():
                _check_probability(name, f"format.{fkey}", fvalue)
            changes["format"] = replace(profile.format, **value)
        elif key in ("confidence_when_right", "confidence_when_wrong"):
            changes[key] = _check_confidence(name, key, value)
        elif key in _PROBABILITIES:
            changes[key] = _check_probability(name, key, value)
        elif key in ("latency_ms", "latency_jitter_ms", "retry_after"):
            if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                raise ValueError(f"profile {name!r}: {key} must be a number >= 0")
            changes[key] = int(value) if key != "retry_after" else float(value)
        elif key == "description":
            changes[key] = str(value)
    return replace(profile, **changes)


def _check_probability(name: str, key: str, value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
        raise ValueError(f"profile {name!r}: {key} must be a number between 0 and 1, got {value!r}")
    return float(value)


def _check_confidence(name: str, key: str, value: Any) -> dict[str, float]:
    if not isinstance(value, Mapping) or not value:
        raise ValueError(f'profile {name!r}: {key} must be an object like {{"HIGH": 0.8, ...}}')
    weights: dict[str, float] = {}
    for level, weight in value.items():
        if level.upper() not in CONFIDENCE_LEVELS:
            raise ValueError(f"profile {name!r}: {key} has {level!r}; use HIGH, MEDIUM, LOW")
        if not isinstance(weight, int | float) or isinstance(weight, bool) or weight < 0:
            raise ValueError(f"profile {name!r}: {key}.{level} must be a number >= 0")
        weights[level.upper()] = float(weight)
    if sum(weights.values()) <= 0:
        raise ValueError(f"profile {name!r}: {key} weights must not all be zero")
    return weights


def load_profiles(overrides: Mapping[str, Any] | None = None) -> dict[str, Profile]:
    """The built-in profiles, plus or overridden by `overrides`.

    `overrides` is a profiles file's JSON: `{"profiles": {name: fields}}` or `{name: fields}`.
    A new profile may name `"base": "sim-expert"` to start from another profile; a profile with a
    built-in name changes only the fields it gives. `Profile` objects are accepted as values.
    """
    profiles = dict(BUILTIN_PROFILES)
    if not overrides:
        return profiles
    if not isinstance(overrides, Mapping):
        raise ValueError("a profiles file must hold a JSON object")
    if "profiles" in overrides and isinstance(overrides["profiles"], Mapping):
        overrides = overrides["profiles"]
    for name, data in overrides.items():
        if isinstance(data, Profile):
            profiles[name] = replace(data, name=name)
            continue
        base_name = data.get("base") if isinstance(data, Mapping) else None
        if base_name is not None and base_name not in profiles:
            raise ValueError(
                f"profile {name!r}: base {base_name!r} is not a profile defined before it "
                f"(known: {', '.join(profiles)})"
            )
        base = profiles.get(base_name) if base_name else profiles.get(name)
        profiles[name] = profile_from_dict(name, data, base)
    return profiles


# --- knowledge and prompts --------------------------------------------------------------------


def normalize(text: str) -> str:
    """Case and whitespace folded, for matching a prompt's item to a knowledge question."""
    return " ".join(text.casefold().split())


@dataclass(frozen=True)
class KnowledgeItem:
    question: str
    answer: str
    key: str  # the normalised question


class Knowledge:
    """The items and answers the simulator may know, from `{"items": [{question, answer}]}`."""

    def __init__(self, items: list[KnowledgeItem]) -> None:
        self.items = items
        self._by_key = {item.key: item for item in items}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Knowledge:
        if not isinstance(data, Mapping) or not isinstance(data.get("items"), list):
            raise ValueError(
                'a knowledge file must be {"items": [{"question": ..., "answer": ...}]}'
            )
        items = []
        for number, entry in enumerate(data["items"], start=1):
            if not isinstance(entry, Mapping):
                raise ValueError(f"knowledge item {number} must be an object")
            question, answer = entry.get("question"), entry.get("answer")
            if not isinstance(question, str) or not question.strip():
                raise ValueError(f"knowledge item {number} has no question")
            if not isinstance(answer, str | int | float) or not str(answer).strip():
                raise ValueError(f"knowledge item {number} has no answer")
            items.append(KnowledgeItem(question.strip(), str(answer).strip(), normalize(question)))
        return cls(items)

    def lookup(self, text: str) -> KnowledgeItem | None:
        """The item whose question `text` is, after folding case and whitespace."""
        key = normalize(text)
        if key in self._by_key:
            return self._by_key[key]
        first_line = normalize(text.strip().split("\n", 1)[0]) if text.strip() else ""
        if first_line in self._by_key:
            return self._by_key[first_line]
        # A question followed by a note or a flag on the same item: the longest contained question.
        contained = [item for item in self.items if len(item.key) >= 12 and item.key in key]
        return max(contained, key=lambda item: len(item.key)) if contained else None

    def found_in(self, prompt: str) -> list[KnowledgeItem]:
        """Knowledge questions that appear in `prompt`, in order (for prompts without numbers)."""
        text = normalize(prompt)
        hits = [(text.find(item.key), item) for item in self.items if item.key and item.key in text]
        return [item for _, item in sorted(hits, key=lambda hit: hit[0])]


@dataclass
class PromptItem:
    number: int
    text: str
    known: KnowledgeItem | None = None


_NUMBERED_LINE = re.compile(r"^\s*(?:\*\*)?(\d{1,4})\s*[.)](?:\*\*)?\s+(\S.*?)\s*$")
_BLOCK_HEADING = re.compile(r"^\s*(?:#+\s*)?(?:\*\*)?block\s+\w+\b", re.IGNORECASE)
_FORMAT_EXAMPLE = re.compile(r"^(?:\*\*)?(answer|confidence)\s*:", re.IGNORECASE)


def parse_prompt_items(prompt: str, knowledge: Knowledge) -> list[PromptItem]:
    """The numbered items of a probe prompt (instruction text, then `1. question` ... `N. question`).

    Block headings between items are skipped; a line right under an item continues its question.
    When the instruction itself has a numbered list, the items are the last run of increasing
    numbers. A prompt with one unnumbered question (per-item mode) is matched to the knowledge.
    """
    entries: list[PromptItem] = []
    current: PromptItem | None = None
    for line in prompt.splitlines():
        match = _NUMBERED_LINE.match(line)
        if match and not _FORMAT_EXAMPLE.match(match.group(2)):
            current = PromptItem(int(match.group(1)), match.group(2))
            entries.append(current)
        elif not line.strip() or _BLOCK_HEADING.match(line):
            current = None
        elif current is not None:
            current.text += "\n" + line.strip()
    for entry in entries:
        entry.known = knowledge.lookup(entry.text)

    runs: list[list[PromptItem]] = []
    for entry in entries:
        previous = runs[-1][-1] if runs else None
        jumps_into_items = (
            previous is not None
            and entry.number != previous.number + 1
            and entry.known is not None
            and previous.known is None
        )
        if previous is not None and entry.number > previous.number and not jumps_into_items:
            runs[-1].append(entry)
        else:
            runs.append([entry])
    if runs:
        return runs[-1]
    return [
        PromptItem(n, item.question, item) for n, item in enumerate(knowledge.found_in(prompt), 1)
    ]


# --- answering --------------------------------------------------------------------------------


def _digest(*parts: Any) -> int:
    joined = "\x1f".join(str(p) for p in parts).encode("utf-8")
    return int.from_bytes(hashlib.sha256(joined).digest()[:8], "big")


def _unit(*parts: Any) -> float:
    """A uniform number in [0, 1) fixed by `parts`."""
    return _digest(*parts) / 2**64


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
            key=lambda other: (abs(_magnitude(other) - own), _digest("other", item.key, other))
        )
    else:
        # A name for a name, a word for a word.
        words = len(answer.split())
        others.sort(
            key=lambda other: (abs(len(other.split()) - words), _digest("other", item.key, other))
        )
    candidates: list[str] = []
    if is_numeric:
        numbers = list(_NUMBER.finditer(answer))
        target = numbers[_digest("which-number", item.key) % len(numbers)]
        step = 1 if _digest("direction", item.key) % 2 else -1
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
        drop = _digest("drop", key) % len(words)
        return " ".join(w for i, w in enumerate(words) if i != drop)
    vowels = [i for i, ch in enumerate(answer) if ch.lower() in _VOWELS]
    if not vowels:
        return answer + "s"
    at = vowels[_digest("vowel", key) % len(vowels)]
    old = answer[at].lower()
    new = _VOWELS[(_VOWELS.index(old) + 1 + _digest("to", key) % 4) % 5]
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
    rng = random.Random(_digest("item", model, seed, item.number, key))
    if _unit("consistency", model, seed, key) < profile.consistency:
        if _unit("shared", model, key) < SHARED_DIFFICULTY:
            draw = _unit("difficulty", key)
        else:
            draw = _unit("own", model, key)
    else:
        draw = _unit("repeat", model, seed, key)
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
        candidates = [knowledge.items[_digest("guess", key) % len(knowledge.items)].answer]
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
        rng = random.Random(_digest("format", model, seed, a.number, a.answer))
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
    rng = random.Random(_digest("chatty", model, seed, prompt))
    if rng.random() < noise.chatty:
        text = f"{rng.choice(_PREAMBLES)}\n\n{text}\n\n{rng.choice(_CLOSINGS)}"
    return text


# --- the OpenAI-compatible endpoint, without HTTP ---------------------------------------------


_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """A rough token count (words and punctuation marks); good enough for usage figures."""
    return len(_TOKEN.findall(text))


def truncate_to_tokens(text: str, limit: int) -> str:
    for index, match in enumerate(_TOKEN.finditer(text), start=1):
        if index == limit:
            return text[: match.end()]
    return text


@dataclass
class SimulatedReply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0

    def body_bytes(self) -> bytes:
        return json.dumps(self.body, ensure_ascii=False).encode("utf-8")


def openai_error(
    status: int,
    message: str,
    *,
    type_: str,
    code: str | None = None,
    param=None,
    headers: dict[str, str] | None = None,
) -> SimulatedReply:
    body = {"error": {"message": message, "type": type_, "param": param, "code": code}}
    return SimulatedReply(status, body, dict(headers or {}))


class Simulator:
    """The simulated models behind the server: answers chat completion payloads.

    Thread-safe: the only shared state is the injected-error random sequence, under a lock.
    """

    def __init__(
        self,
        knowledge: Knowledge | Mapping[str, Any],
        profiles: Mapping[str, Any] | None = None,
        *,
        seed: int = DEFAULT_SEED,
        latency_scale: float = 1.0,
    ) -> None:
        self.knowledge = (
            knowledge if isinstance(knowledge, Knowledge) else Knowledge.from_dict(knowledge)
        )
        self.profiles = load_profiles(profiles)
        self.latency_scale = latency_scale
        self._faults = random.Random(_digest("faults", seed))
        self._lock = threading.Lock()

    def list_models(self) -> SimulatedReply:
        data = [
            {
                "id": name,
                "object": "model",
                "created": 0,
                "owned_by": OWNER,
                "description": f"Simulated model: {profile.description}".strip(),
            }
            for name, profile in self.profiles.items()
        ]
        return SimulatedReply(200, {"object": "list", "data": data})

    def chat_completion(self, payload: Any) -> SimulatedReply:
        if not isinstance(payload, dict):
            return openai_error(
                400, "The request body must be a JSON object.", type_="invalid_request_error"
            )
        model = payload.get("model")
        if not isinstance(model, str) or not model:
            return openai_error(
                400,
                "You must provide a model parameter.",
                type_="invalid_request_error",
                param="model",
            )
        profile = self.profiles.get(model)
        if profile is None:
            return openai_error(
                404,
                f"The model `{model}` does not exist or you do not have access to it. "
                f"Simulated models: {', '.join(self.profiles)}.",
                type_="invalid_request_error",
                param="model",
                code="model_not_found",
            )
        if "tools" in payload or "tool_choice" in payload:
            # As vLLM does: a tool_choice without tools is a 400. The probe never uses tools.
            return openai_error(
                400,
                "The simulator does not support tools or tool_choice.",
                type_="invalid_request_error",
                param="tool_choice",
            )
        if payload.get("stream"):
            return openai_error(
                400,
                "The simulator does not stream; send stream: false.",
                type_="invalid_request_error",
                param="stream",
            )
        messages = payload.get("messages")
        if not isinstance(messages, list) or not messages:
            return openai_error(
                400,
                "messages must be a non-empty array.",
                type_="invalid_request_error",
                param="messages",
            )
        limit = payload.get("max_completion_tokens", payload.get("max_tokens"))
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or limit < 1
        ):
            return openai_error(
                400,
                "max_tokens must be a positive integer.",
                type_="invalid_request_error",
                param="max_tokens",
            )
        seed = payload.get("seed")
        seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else DEFAULT_SEED

        injected = self._injected_error(profile)
        if injected is not None:
            return injected

        knowledge = self._knowledge_for(payload)
        if isinstance(knowledge, SimulatedReply):
            return knowledge
        prompt = "\n\n".join(
            _message_text(m) for m in messages if isinstance(m, dict) and m.get("role") == "user"
        )
        items = parse_prompt_items(prompt, knowledge)
        if items:
            answers = [answer_item(profile, model, seed, item, knowledge) for item in items]
            content = render_sheet(answers, profile, model, seed, prompt)
        else:
            content = "OK."  # no items: a connection check ("Reply with OK.")
        finish_reason = "stop"
        completion_tokens = count_tokens(content)
        if limit is not None and completion_tokens > limit:
            content, completion_tokens, finish_reason = (
                truncate_to_tokens(content, limit),
                limit,
                "length",
            )
        prompt_tokens = sum(
            count_tokens(_message_text(m)) + 4 for m in messages if isinstance(m, dict)
        )
        digest = _digest("response", model, seed, prompt, limit)
        body = {
            "id": f"chatcmpl-sim{digest:016x}",
            "object": "chat.completion",
            "created": 1_735_689_600 + digest % 31_536_000,
            "model": model,
            "system_fingerprint": SYSTEM_FINGERPRINT,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "logprobs": None,
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
        }
        jitter = random.Random(digest).random() * profile.latency_jitter_ms
        delay = (profile.latency_ms + jitter) / 1000.0 * self.latency_scale
        return SimulatedReply(200, body, {"openai-processing-ms": str(int(delay * 1000))}, delay)

    def _knowledge_for(self, payload: dict) -> Knowledge | SimulatedReply:
        """The key sent with the request (the experiment's own bank), else the knowledge file."""
        extension = payload.get(SIMULATION_FIELD)
        if extension is None:
            return self.knowledge
        key = extension.get("key") if isinstance(extension, dict) else None
        try:
            return Knowledge.from_dict({"items": key})
        except ValueError as error:
            return openai_error(
                400,
                f"{SIMULATION_FIELD}.key: {error}",
                type_="invalid_request_error",
                param=SIMULATION_FIELD,
            )

    def _injected_error(self, profile: Profile) -> SimulatedReply | None:
        if profile.error_rate <= 0:
            return None
        with self._lock:
            hit, kind = self._faults.random(), self._faults.random()
        if hit >= profile.error_rate:
            return None
        if kind < profile.rate_limit_share:
            retry_after = profile.retry_after
            shown = f"{retry_after:g}"
            return openai_error(
                429,
                f"Rate limit reached for {profile.name} (simulated). Please try again in {shown}s.",
                type_="requests",
                code="rate_limit_exceeded",
                headers={
                    "retry-after": shown,
                    "x-ratelimit-remaining-requests": "0",
                    "x-ratelimit-reset-requests": f"{shown}s",
                },
            )
        return openai_error(
            500,
            "The server had an error while processing your request (simulated). Sorry about that!",
            type_="server_error",
        )


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""
