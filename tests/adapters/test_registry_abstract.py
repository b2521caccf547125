"""Every provider in the registry is a complete adapter; the manual one says it has no API."""

import httpx
import pytest

from adapters.base import Adapter, CompletionRequest
from adapters.manual import ManualRunError
from adapters.registry import PROVIDERS, get_adapter


def test_an_adapter_missing_a_hook_cannot_be_made():
    class Half(Adapter):
        name = "half"

        def endpoint(self, request):
            return "http://127.0.0.1:9/"

    with pytest.raises(TypeError):
        Half()


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_every_registered_provider_instantiates(name):
    assert get_adapter(name).name == name


def test_the_manual_adapter_explains_itself_at_every_step():
    adapter = get_adapter("manual")
    request = CompletionRequest(model="chat window", prompt="x")
    for step in (adapter.endpoint, adapter.headers, adapter.payload):
        with pytest.raises(ManualRunError, match="pasted by a person"):
            step(request)
    with pytest.raises(ManualRunError, match="pasted by a person"):
        adapter.complete(request, client=httpx.Client())
