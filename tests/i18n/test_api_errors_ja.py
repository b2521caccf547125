"""The API's refusals, read by a Japanese client, carry no English: every operation of the OpenAPI
schema is called the ways a client gets it wrong (no token, a read-only token writing, an object
that does not exist, an empty or unreadable body, a wrong query value) with
`Accept-Language: ja`, and every `detail` and problem `message` that comes back is checked the
way the page crawl checks pages (tests/i18n/test_pages_ja.py): only names, tokens and codes may be
Latin. Field names (`field`) are the API's own and stay as they are."""

import json
import re

import pytest
from django.test import Client
from django.utils import translation

from api.models import ApiToken
from api.urls import api
from tests.i18n.test_pages_ja import ALLOWED, IDENTIFIER, WORD

# Latin words an API message may carry beside the page crawl's: the field names and codes it
# quotes (written as they are sent) and the header a client sets.
API_ALLOWED = {"Retry", "After"}


@pytest.fixture(autouse=True)
def _default_language_afterwards():
    yield
    translation.deactivate()


def english_in(text: str, quoted: set[str]) -> list[str]:
    text = text.replace("Authorization: Bearer <token>", " ")  # the header, as it is sent
    for name in sorted(quoted, key=len, reverse=True):
        text = text.replace(name, " ")
    text = IDENTIFIER.sub(" ", text)
    return [w for w in WORD.findall(text) if w not in ALLOWED | API_ALLOWED]


def operations():
    schema = api.get_openapi_schema()
    for path, methods in schema["paths"].items():
        for method in methods:
            if method in {"get", "post", "put", "patch", "delete"}:
                yield method, path


def concrete(path: str, world) -> str:
    """The path with the world's team and an id that does not exist (999999)."""
    path = path.removeprefix("/api")
    path = re.sub(r"\{team_slug\}|\{slug\}", world.team.slug, path)
    return re.sub(r"\{[a-z_]+\}", "999999", path)


def real_path(path: str, world) -> str:
    """The path with the world's own objects, so the body and the query are what is refused."""
    ids = {
        "team_slug": world.team.slug,
        "slug": world.team.slug,
        "bank_id": world.bank.pk,
        "experiment_id": world.scored.pk,
        "config_id": world.config.pk,
        "prompt_id": world.prompt.pk,
    }
    path = path.removeprefix("/api")
    return re.sub(r"\{([a-z_]+)\}", lambda m: str(ids.get(m[1], world.experiment.pk)), path)


def token(world, access: str) -> str:
    _row, text = ApiToken.issue(
        user=world.users["editor"], team=world.team, access=access, name=f"{access} token"
    )
    return text


def messages_of(response) -> list[str]:
    if not response.get("Content-Type", "").startswith("application/json"):
        return []
    try:
        body = json.loads(response.content)
    except ValueError:
        return []
    if not isinstance(body, dict):
        return []
    found = [body["detail"]] if isinstance(body.get("detail"), str) else []
    for problem in body.get("problems") or []:
        if isinstance(problem, dict) and isinstance(problem.get("message"), str):
            found.append(problem["message"])
    return found


def field_names(response) -> set[str]:
    try:
        body = json.loads(response.content)
    except ValueError:
        return set()
    problems = body.get("problems") if isinstance(body, dict) else None
    return {str(p.get("field")) for p in problems or [] if isinstance(p, dict)}


@pytest.mark.django_db
def test_every_api_refusal_is_japanese_for_a_japanese_client(world):
    headers = {"Accept-Language": "ja"}
    clients = {
        "anonymous": Client(headers=headers),
        "read": Client(headers={**headers, "Authorization": f"Bearer {token(world, 'read')}"}),
        "write": Client(headers={**headers, "Authorization": f"Bearer {token(world, 'write')}"}),
    }
    checked, english = 0, []
    for method, path in operations():
        url = "/api" + concrete(path, world)
        real = "/api" + real_path(path, world)
        tries = [(kind, url, None) for kind in clients]
        if method != "get":
            tries += [
                ("write", real, b"{}"),
                ("write", real, b"not json"),
                ("write", real, json.dumps({"name": 5, "w": "many"}).encode()),
                ("read", real, b"{}"),
            ]
        else:
            tries += [("read", real + "?w=many&format=nonsense&limit=-1", None)]
        for kind, target, body in tries:
            send = getattr(clients[kind], method)
            if method == "get":
                response = send(target)
            else:
                response = send(target, body or b"{}", content_type="application/json")
            if response.status_code < 400:
                continue
            for message in messages_of(response):
                checked += 1
                words = english_in(message, field_names(response))
                if words:
                    english.append(f"{method.upper()} {target} {response.status_code}: {message!r}")
    assert checked > 40, checked
    assert not english, "\n".join(sorted(set(english)))
