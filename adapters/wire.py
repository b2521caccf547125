"""Small pieces of the one HTTP request: URLs, the reading of counts, and the record of what was sent.

`sent_request` is how a request is kept with its attempt: method, URL, headers and JSON body as
they left, with every credential taken out (the key headers dropped, a key query parameter
removed, and the key's text replaced wherever else it might appear).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

# Headers that carry a credential: never recorded.
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "x-goog-api-key", "api-key"})
# Query parameters that carry a credential (Gemini accepts `?key=`; this package never sends it).
SECRET_PARAMS = frozenset({"key", "api_key", "apikey", "access_token", "token"})
MASK = "***"


def sent_request(
    method: str, url: str, headers: dict[str, str], payload: Any, secret: str | None
) -> dict[str, Any]:
    """The request as sent, without any credential: {"method", "url", "headers", "body"}."""
    parts = urlsplit(url)
    query = urlencode(
        [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if k.lower() not in SECRET_PARAMS
        ]
    )
    record = {
        "method": method,
        "url": urlunsplit(parts._replace(query=query, netloc=parts.netloc.rpartition("@")[2])),
        "headers": {k: v for k, v in headers.items() if k.lower() not in SECRET_HEADERS},
        "body": payload,
    }
    secret = (secret or "").strip()
    if len(secret) >= 4:
        text = json.dumps(record, ensure_ascii=False)
        escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
        if escaped in text:
            record = json.loads(text.replace(escaped, MASK))
    return record


def join_url(base: str, path: str, *, version: str = "v1") -> str:
    """`base` + `path`, adding `/{version}` unless the base already ends in a version segment.

    Users paste base URLs both ways ("https://api.openai.com", "http://localhost:11434/v1",
    "https://openrouter.ai/api/v1"); both must reach the same endpoint.
    """
    base = base.rstrip("/")
    if base.endswith(path):
        return base
    last = base.rsplit("/", 1)[-1]
    if _is_version_segment(last):
        return f"{base}{path}"
    return f"{base}/{version}{path}"


def _is_version_segment(segment: str) -> bool:
    return (
        len(segment) >= 2
        and segment[0] == "v"
        and segment[1].isdigit()
        and segment[1:].replace("beta", "").replace("alpha", "").isdigit()
    )


def is_reasoning_model(model: str) -> bool:
    """OpenAI reasoning models (o-series, gpt-5 except the chat variants) reject `temperature`."""
    name = model.rsplit("/", 1)[-1].lower()
    if name.startswith("gpt-5"):
        return "chat" not in name
    return len(name) >= 2 and name[0] == "o" and name[1].isdigit()


def as_int(value) -> int | None:
    """`value` if it is a real integer (token counts), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
