"""Provider clients: put one prompt to a language model over HTTP and classify what comes back.

Plain Python (httpx, no Django). The task layer calls `get_adapter(name).complete(request, client=...)`
and decides on retries with `retry_delay(error, attempt)`; adapters themselves never loop or sleep.
"""

from adapters.base import (
    Adapter,
    Completion,
    CompletionRequest,
    check_connection,
    new_async_client,
    new_client,
)
from adapters.errors import (
    AdapterError,
    BadResponseError,
    ConfigurationError,
    ConflictError,
    MissingAPIKeyError,
    QuotaExceededError,
    RateLimitError,
    RequestRejected,
    RequestTimeoutError,
    ServerError,
    TransportError,
    api_key_from_env,
    retry_delay,
)
from adapters.options import Option, Problem
from adapters.registry import PROVIDERS, get_adapter, is_simulated, provider_choices

__all__ = [
    "PROVIDERS",
    "Adapter",
    "AdapterError",
    "BadResponseError",
    "Completion",
    "CompletionRequest",
    "ConfigurationError",
    "ConflictError",
    "MissingAPIKeyError",
    "Option",
    "Problem",
    "QuotaExceededError",
    "RateLimitError",
    "RequestRejected",
    "RequestTimeoutError",
    "ServerError",
    "TransportError",
    "api_key_from_env",
    "check_connection",
    "get_adapter",
    "is_simulated",
    "new_async_client",
    "new_client",
    "provider_choices",
    "retry_delay",
]
