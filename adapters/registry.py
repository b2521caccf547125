"""Adapters by provider name, imported only when first used."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from adapters.base import Adapter

# name -> "module:Class". The order is the order a form offers them in.
_PATHS = {
    "openai_chat": "adapters.openai_chat:OpenAIChatAdapter",
    "openai_responses": "adapters.openai_responses:OpenAIResponsesAdapter",
    "anthropic": "adapters.anthropic:AnthropicAdapter",
    "gemini": "adapters.gemini:GeminiAdapter",
    "manual": "adapters.manual:ManualAdapter",
    "simulator": "adapters.simulator.adapter:SimulatorAdapter",
}


class _LazyRegistry(Mapping):
    """A read-only mapping from provider name to adapter class, importing each module on access."""

    def __init__(self, paths: dict[str, str]) -> None:
        self._paths = dict(paths)
        self._loaded: dict[str, type[Adapter]] = {}

    def __getitem__(self, name: str) -> type[Adapter]:
        if name not in self._paths:
            known = ", ".join(self._paths)
            raise KeyError(f"unknown provider {name!r}; known providers: {known}")
        if name not in self._loaded:
            module_name, _, class_name = self._paths[name].partition(":")
            self._loaded[name] = getattr(importlib.import_module(module_name), class_name)
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def __repr__(self) -> str:
        return f"PROVIDERS({', '.join(self._paths)})"


PROVIDERS: Mapping[str, type[Adapter]] = _LazyRegistry(_PATHS)


def get_adapter(name: str) -> Adapter:
    """A new adapter for provider `name`; KeyError naming the known providers if there is none."""
    return PROVIDERS[name]()


def provider_choices() -> list[tuple[str, str]]:
    """(name, label) pairs for a form's provider field."""
    return [(name, PROVIDERS[name].label) for name in PROVIDERS]


def is_simulated(provider: str | None) -> bool:
    """Whether `provider` gives simulated answers, not a real model's (its adapter says so)."""
    if provider not in _PATHS:
        return False
    return PROVIDERS[provider].simulated
