"""Fixtures for the prompt version and model configuration tests: logged-in clients, a simulator."""

import pytest

from adapters.simulator_server import start_simulator_in_thread

HX = {"HTTP_HX_REQUEST": "true"}

KNOWLEDGE = {
    "items": [
        {"question": "Which status code means Too Many Requests?", "answer": "429"},
        {"question": "Which header says when to retry?", "answer": "Retry-After"},
    ]
}


@pytest.fixture
def editor(client, world):
    client.force_login(world.users["editor"])
    return client


@pytest.fixture
def viewer(client, world):
    client.force_login(world.users["viewer"])
    return client


class CountingSimulator:
    """The simulator in a thread, counting the chat completion requests it receives."""

    def __init__(self) -> None:
        self.server, self.base_url = start_simulator_in_thread(KNOWLEDGE, latency_scale=0)
        self.requests = 0
        original = self.server.simulator.chat_completion

        def counted(payload):
            self.requests += 1
            return original(payload)

        self.server.simulator.chat_completion = counted


@pytest.fixture
def simulator():
    sim = CountingSimulator()
    yield sim
    sim.server.stop()
