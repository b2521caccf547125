"""The characters of the simulated models, built in or read from a profiles file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

CONFIDENCE_LEVELS = ("HIGH", "MEDIUM", "LOW")


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
    # chance that a guess (an item it does not know and answers anyway, rated MEDIUM or LOW)
    # says it is unsure: "Probably 1649.", "たぶん1649です。"; the parser reads those as hedged
    hedge_when_unsure: float = 0.3
    consistency: float = 0.85  # share of items known or not known the same way in every repeat
    format: FormatNoise = field(default_factory=FormatNoise)
    latency_ms: int = 0
    latency_jitter_ms: int = 0
    error_rate: float = 0.0  # share of requests answered with an injected error
    rate_limit_share: float = 0.5  # of those, the share that are 429 (the rest are 500)
    retry_after: float = 1.0  # seconds, sent in the 429's retry-after header
    # As a grader (adapters.simulator.grading): the chance of the true label, the way it errs
    # ("" both ways, "lenient" passes wrong answers, "strict" fails right ones), and the chance of
    # an unreadable reply.
    grading_accuracy: float = 0.9
    grading_habit: str = ""
    grading_unreadable: float = 0.0


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
            hedge_when_unsure=0.5,
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
            hedge_when_unsure=0.0,
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
            hedge_when_unsure=0.7,
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
            hedge_when_unsure=0.3,
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
            hedge_when_unsure=0.5,
            latency_ms=400,
            latency_jitter_ms=200,
            error_rate=0.3,
            rate_limit_share=0.6,
            retry_after=1.0,
        ),
        Profile(
            name="sim-grader",
            description="A simulated grader: the true label 95% of the time, erring both ways.",
            grading_accuracy=0.95,
            latency_ms=150,
            latency_jitter_ms=100,
        ),
        Profile(
            name="sim-grader-lenient",
            description="A simulated grader that passes a wrong answer 20% of the time.",
            grading_accuracy=0.8,
            grading_habit="lenient",
            latency_ms=150,
            latency_jitter_ms=100,
        ),
        Profile(
            name="sim-grader-strict",
            description="A simulated grader that fails a right answer 20% of the time.",
            grading_accuracy=0.8,
            grading_habit="strict",
            latency_ms=150,
            latency_jitter_ms=100,
        ),
        Profile(
            name="sim-grader-sloppy",
            description="A simulated grader whose reply is unreadable 20% of the time.",
            grading_accuracy=0.9,
            grading_unreadable=0.2,
            latency_ms=150,
            latency_jitter_ms=100,
        ),
    ]
}

_PROBABILITIES = (
    "knowledge",
    "abstain_when_unsure",
    "hedge_when_unsure",
    "consistency",
    "error_rate",
    "rate_limit_share",
    "grading_accuracy",
    "grading_unreadable",
)
GRADING_HABITS = ("", "lenient", "strict")


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
        elif key == "grading_habit":
            changes[key] = _check_habit(name, value)
        elif key == "description":
            changes[key] = str(value)
    return replace(profile, **changes)


def _check_habit(name: str, value: Any) -> str:
    if value not in GRADING_HABITS:
        raise ValueError(
            f"profile {name!r}: grading_habit must be one of "
            f"{', '.join(repr(h) for h in GRADING_HABITS)}, got {value!r}"
        )
    return value


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
