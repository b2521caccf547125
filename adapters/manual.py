"""The manual provider: a person pastes a model's reply from a chat window; nothing is sent."""

from __future__ import annotations

import httpx

from adapters.base import Adapter, Completion, CompletionRequest
from adapters.errors import ConfigurationError


class ManualRunError(ConfigurationError):
    """A manual run was handed to the collector, which cannot answer for a person."""

    kind = "manual"


class ManualAdapter(Adapter):
    name = "manual"
    label = "Manual (a person pastes the reply)"
    needs_api_key = False
    default_base_url = None

    def complete(self, request: CompletionRequest, *, client: httpx.Client) -> Completion:
        raise ManualRunError(
            "manual: a manual run has no API to call; its replies are pasted by a person "
            "from a chat window, on the run's page",
            provider=self.name,
        )
