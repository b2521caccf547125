"""The settings a provider takes, declared once: their kind, bounds, default, help and wire field.

An adapter lists its `Option`s; `validate` checks a configuration's settings against them and
returns the cleaned settings and the problems found, each a message marked for translation
(`gettext_noop`) with its parameters, so the app shows it in the user's language. The form of
a model configuration is built from these declarations and the same check runs when it is
saved and again before a run sends anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.i18n import gettext_noop

FLOAT = "float"
INT = "int"
CHOICE = "choice"

# The names of the settings a configuration may hold, in the order a form shows them.
OPTION_NAMES = ("temperature", "max_output_tokens", "reasoning_effort", "thinking_budget", "seed")
EFFORT_LEVELS = ("minimal", "low", "medium", "high")
SEED_BOUNDS = (-(2**63), 2**63 - 1)

# What a provider that does not take a setting says when it is given one anyway.
NOT_TAKEN = gettext_noop("This provider does not take this setting: leave it empty.")
NOT_TAKEN_BY_NAME = {
    "thinking_budget": gettext_noop(
        "This provider takes a reasoning effort, not a thinking budget: leave it empty."
    ),
}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a setting: `message` is marked for translation, `params` fill it."""

    message: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def text(self, translate=lambda message: message) -> str:
        """The message in the language `translate` (such as Django's gettext) gives."""
        message = translate(self.message)
        return message % dict(self.params) if self.params else message


@dataclass(frozen=True)
class Option:
    """A setting a provider takes.

    `kind` is "float", "int" or "choice"; `minimum`/`maximum` bound a number (inclusive);
    `choices` are the values of a choice ("" always means: not sent). `default` None leaves the
    value to the provider. `help` is marked for translation. `wire` says where the value goes in
    the request body (a dotted path), or is None when the provider takes the setting but the
    request does not carry it (it is kept with the configuration only).
    """

    name: str
    kind: str
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    default: Any = None
    wire: str | None = None

    @property
    def sent(self) -> bool:
        return self.wire is not None

    def check(self, value: Any) -> Problem | None:
        """What is wrong with `value` (not None), or None."""
        if self.kind == CHOICE:
            if value not in self.choices:
                return Problem(gettext_noop("Choose one of the values offered."))
            return None
        number_types = (int, float) if self.kind == FLOAT else (int,)
        if isinstance(value, bool) or not isinstance(value, number_types):
            return Problem(
                gettext_noop("Enter a number.")
                if self.kind == FLOAT
                else gettext_noop("Enter a whole number.")
            )
        low, high = self.minimum, self.maximum
        if low is not None and high is not None and not low <= value <= high:
            return Problem(
                gettext_noop("This provider takes a value from %(min)s to %(max)s."),
                {"min": _shown(low), "max": _shown(high)},
            )
        if low is not None and value < low:
            return Problem(
                gettext_noop("This provider takes a value of at least %(min)s."),
                {"min": _shown(low)},
            )
        if high is not None and value > high:
            return Problem(
                gettext_noop("This provider takes a value of at most %(max)s."),
                {"max": _shown(high)},
            )
        return None


def _shown(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def is_empty(value: Any) -> bool:
    return value is None or value == ""


def validate(
    options: tuple[Option, ...], values: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, list[Problem]]]:
    """(cleaned, problems) of `values` against `options`: every name in OPTION_NAMES is in
    `cleaned`, an empty one as None ("" for a choice); `problems` maps a name to its problems."""
    declared = {option.name: option for option in options}
    cleaned: dict[str, Any] = {}
    problems: dict[str, list[Problem]] = {}
    for name in OPTION_NAMES:
        option = declared.get(name)
        value = values.get(name)
        if isinstance(value, str):
            value = value.strip()
        empty = is_empty(value)
        is_choice = option.kind == CHOICE if option else name == "reasoning_effort"
        cleaned[name] = ("" if is_choice else None) if empty else value
        if empty:
            continue
        if option is None:
            problems.setdefault(name, []).append(Problem(NOT_TAKEN_BY_NAME.get(name, NOT_TAKEN)))
            continue
        problem = option.check(value)
        if problem is not None:
            problems.setdefault(name, []).append(problem)
    return cleaned, problems


# Declarations shared by several providers ---------------------------------------------------


def temperature(maximum: float, *, wire: str | None = "temperature", help: str = "") -> Option:
    helps = {
        1: gettext_noop("0 to 1; empty: the provider's default."),
        2: gettext_noop("0 to 2; empty: the provider's default."),
    }
    return Option("temperature", FLOAT, help or helps[int(maximum)], 0, maximum, wire=wire)


def max_output_tokens(
    *,
    wire: str | None = "max_tokens",
    help: str = gettext_noop("Empty: the provider's default."),
    default: int | None = None,
) -> Option:
    return Option("max_output_tokens", INT, help, minimum=1, default=default, wire=wire)


def reasoning_effort(*, wire: str | None = "reasoning_effort", help: str = "") -> Option:
    help = help or gettext_noop("For reasoning models; empty: not sent.")
    return Option("reasoning_effort", CHOICE, help, choices=("", *EFFORT_LEVELS), wire=wire)


def seed(*, wire: str | None = "seed", help: str = "") -> Option:
    help = help or gettext_noop("Sent with every request, for repeatable sampling where it works.")
    return Option("seed", INT, help, *SEED_BOUNDS, wire=wire)


SEED_NOT_SENT = gettext_noop("This API has no seed: kept with the configuration, not sent.")
