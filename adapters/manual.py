"""The manual provider: a person pastes a model's reply from a chat window; nothing is sent."""

from __future__ import annotations

from typing import Any

import httpx

from adapters.base import Adapter, Completion, CompletionRequest, ParsedAnswer
from adapters.errors import ConfigurationError
from adapters.i18n import gettext_noop
from adapters.options import max_output_tokens, reasoning_effort, seed, temperature

# A person collects the replies: the settings are kept with the configuration, never sent.
NOT_SENT = gettext_noop("Not sent: a person sets the chat window; kept with the configuration.")


class ManualRunError(ConfigurationError):
    """A manual run was handed to the collector, which cannot answer for a person."""

    kind = "manual"


class ManualAdapter(Adapter):
    name = "manual"
    label = gettext_noop("Manual (a person pastes the reply)")
    needs_api_key = False
    default_base_url = None
    options = (
        temperature(2, wire=None, help=NOT_SENT),
        max_output_tokens(wire=None, help=NOT_SENT),
        reasoning_effort(wire=None, help=NOT_SENT),
        seed(wire=None, help=NOT_SENT),
    )

    def complete(self, request: CompletionRequest, *, client: httpx.Client) -> Completion:
        raise self._no_api()

    async def acomplete(self, request: CompletionRequest, *, client) -> Completion:
        raise self._no_api()

    # There is no HTTP request to build or read: every part of one says so.
    def endpoint(self, request: CompletionRequest) -> str:
        raise self._no_api()

    def headers(self, request: CompletionRequest) -> dict[str, str]:
        raise self._no_api()

    def payload(self, request: CompletionRequest) -> dict[str, Any]:
        raise self._no_api()

    def parse(self, data: dict[str, Any]) -> ParsedAnswer:
        raise self._no_api()

    def _no_api(self) -> ManualRunError:
        return ManualRunError(
            "manual: a manual run has no API to call; its replies are pasted by a person "
            "from a chat window, on the run's page",
            provider=self.name,
        )
