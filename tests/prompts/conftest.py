"""Fixtures for the prompt version and model configuration tests: logged-in clients, a simulator."""

import pytest

from tests.replay import CountingSimulator

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


@pytest.fixture
def simulator():
    """The real simulator over HTTP, counting the requests it receives."""
    sim = CountingSimulator(KNOWLEDGE)
    yield sim
    sim.stop()
