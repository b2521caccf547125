"""Requests in Japanese leave Japanese active in the test's thread (LocaleMiddleware activates a
language and nothing deactivates it): put the default back, so later tests that call services
directly still read English messages."""

import pytest
from django.utils import translation


@pytest.fixture(autouse=True)
def _default_language_afterwards():
    yield
    translation.deactivate()
