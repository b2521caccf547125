"""Each adapter declares the settings it takes; the declaration is what validates them and what
goes on the wire."""

from __future__ import annotations

import pytest

from adapters import CompletionRequest, get_adapter, is_simulated
from adapters.options import OPTION_NAMES, Option
from adapters.registry import PROVIDERS

REAL = ["openai_chat", "openai_responses", "anthropic", "gemini", "simulator"]


def _option(provider: str, name: str) -> Option | None:
    return next((o for o in get_adapter(provider).options if o.name == name), None)


def _problems(provider: str, **values) -> dict:
    _cleaned, problems = get_adapter(provider).validate_options(values)
    return {name: [p.text() for p in found] for name, found in problems.items()}


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_every_declaration_has_a_known_name_a_kind_and_a_help_text(provider):
    options = get_adapter(provider).options
    assert options, "every provider declares its settings"
    assert len({o.name for o in options}) == len(options)
    for option in options:
        assert option.name in OPTION_NAMES
        assert option.kind in ("float", "int", "choice")
        assert option.help.strip()


@pytest.mark.parametrize(
    "provider,maximum",
    [("anthropic", 1), ("openai_chat", 2), ("openai_responses", 2), ("gemini", 2)],
)
def test_temperature_ranges_are_the_providers_own(provider, maximum):
    option = _option(provider, "temperature")
    assert (option.minimum, option.maximum) == (0, maximum)


def test_anthropic_refuses_a_temperature_above_1_that_openai_and_gemini_take():
    assert _problems("anthropic", temperature=1.5) == {
        "temperature": ["This provider takes a value from 0 to 1."]
    }
    assert _problems("openai_chat", temperature=1.5) == {}
    assert _problems("gemini", temperature=1.5) == {}
    assert _problems("anthropic", temperature=1) == {}


def test_a_setting_the_provider_does_not_take_is_refused_with_the_reason():
    assert "thinking_budget" in _problems("openai_chat", thinking_budget=2048)
    assert (
        "reasoning effort, not a thinking budget"
        in (_problems("simulator", thinking_budget=2048)["thinking_budget"][0])
    )
    assert "thinking_budget" in _problems("manual", thinking_budget=2048)


def test_anthropics_thinking_budget_rules():
    assert "thinking_budget" in _problems("anthropic", thinking_budget=512)
    below_limit = _problems("anthropic", thinking_budget=4096)["thinking_budget"][0]
    assert "4096" in below_limit
    assert _problems("anthropic", thinking_budget=4096, max_output_tokens=8000) == {}
    assert (
        "not both"
        in _problems("anthropic", thinking_budget=2048, reasoning_effort="high")["thinking_budget"][
            0
        ]
    )


def test_cleaning_empties_and_choices():
    cleaned, problems = get_adapter("gemini").validate_options(
        {"temperature": None, "reasoning_effort": " ", "thinking_budget": 0, "seed": ""}
    )
    assert problems == {}
    assert cleaned == {
        "temperature": None,
        "max_output_tokens": None,
        "reasoning_effort": "",
        "thinking_budget": 0,
        "seed": None,
    }
    assert "reasoning_effort" in _problems("gemini", reasoning_effort="extreme")
    assert "max_output_tokens" in _problems("openai_chat", max_output_tokens=0)
    assert "temperature" in _problems("openai_chat", temperature="warm")


def _has_path(body: dict, path: str) -> bool:
    node = body
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _sample(option: Option):
    if option.kind == "choice":
        return option.choices[-1]
    if option.name == "thinking_budget":
        return max(int(option.minimum or 0), 1024) + 1
    if option.name == "max_output_tokens":
        return 8192
    return option.maximum if option.kind == "float" else 7


@pytest.mark.parametrize("provider", REAL)
def test_each_option_goes_where_its_declaration_says_or_nowhere(provider):
    adapter = get_adapter(provider)
    for option in adapter.options:
        request = CompletionRequest(
            model="gpt-4.1", prompt="1. Q?", **{option.name: _sample(option)}
        )
        body = adapter.payload(request)
        if option.sent:
            assert _has_path(body, option.wire), (provider, option.name, body)
        else:
            assert str(_sample(option)) not in str(body), (provider, option.name, body)


def test_the_manual_provider_sends_nothing_it_declares():
    assert all(not option.sent for option in get_adapter("manual").options)


def test_only_the_simulator_is_simulated():
    assert [name for name in PROVIDERS if is_simulated(name)] == ["simulator"]
    assert is_simulated("no such provider") is False
    assert is_simulated(None) is False
