"""The API's tests talk to it over Django's test client with a real token per user."""

import json

import pytest
from django.test import Client

from api.models import ApiToken


class ApiClient:
    """A client that sends a bearer token and JSON, and decodes JSON answers."""

    def __init__(self, token: str | None):
        self.client = Client()
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}

    def get(self, path: str, **params):
        return self.client.get(f"/api{path}", params, headers=self.headers)

    def post(self, path: str, body=None, *, raw: bytes | None = None):
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return self.client.post(
            f"/api{path}", data, content_type="application/json", headers=self.headers
        )


@pytest.fixture
def api_for(world):
    """api_for("editor") -> an ApiClient acting as that member of the world's team, with a
    read-and-write token for that team (the outsider's is for their own team)."""
    made = {}

    def make(kind: str) -> ApiClient:
        if kind not in made:
            if kind == "anonymous":
                made[kind] = ApiClient(None)
            else:
                team = world.other_team if kind == "outsider" else world.team
                _row, text = ApiToken.issue(
                    user=world.users[kind], team=team, access="write", name=f"{kind} token"
                )
                made[kind] = ApiClient(text)
        return made[kind]

    return make
