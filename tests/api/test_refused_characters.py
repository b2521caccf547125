"""A NUL, another refused control character or a lone surrogate in any text the API takes is a
422 that names the field, for every request schema and every text parameter; never a 500."""

import json
import re
from urllib.parse import quote

import pytest

from api.schemas import Strict
from api.urls import api

pytestmark = pytest.mark.django_db

REFUSED = ["a\x00b", "\x01", "tab\tis fine but not\x1f", "line\nand\x0bvertical tab"]


def schema():
    return api.get_openapi_schema()


def resolve(document: dict, node: dict) -> dict:
    while "$ref" in node:
        node = document["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def is_text(prop: dict) -> bool:
    kinds = [prop, *prop.get("anyOf", [])]
    return any(k.get("type") == "string" and "enum" not in k for k in kinds) or (
        prop.get("type") == "array" and prop.get("items", {}).get("type") == "string"
    )


def plain_value(prop: dict):
    """A value of the property's type that nothing refuses for its characters."""
    kinds = [prop, *prop.get("anyOf", [])]
    for kind in kinds:
        if "enum" in kind:
            return kind["enum"][0]
        if "const" in kind:
            return kind["const"]
    types = {k.get("type") for k in kinds}
    if "string" in types:
        return "plain"
    if "array" in types:
        return [1]
    if "integer" in types or "number" in types:
        return 1
    if "boolean" in types:
        return False
    return None


def body_operations():
    """(path, schema name, schema) of every operation that takes a JSON body."""
    document = schema()
    for path, operations in document["paths"].items():
        for operation in operations.values():
            body = operation.get("requestBody")
            if body:
                ref = body["content"]["application/json"]["schema"]
                name = ref["$ref"].rsplit("/", 1)[1]
                yield path, name, resolve(document, ref)


def parameter_operations():
    """(method, path, parameter) of every text parameter, in the path or the query."""
    document = schema()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["schema"].get("type") == "string":
                    yield method, path, parameter


def concrete(path: str, world, **override) -> str:
    values = {"slug": world.team.slug, "bank_id": world.bank.pk}
    values |= {"experiment_id": world.experiment.pk, **override}
    return re.sub(r"\{(\w+)\}", lambda m: quote(str(values[m[1]]), safe=""), path)


def assert_refused(response, field: str):
    assert response.status_code == 422, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    problems = response.json()["problems"]
    assert field in [p["field"] for p in problems], problems


def test_every_request_schema_is_walked():
    walked = {name for _path, name, _schema in body_operations()}
    assert walked == {cls.__name__ for cls in Strict.__subclasses__()}


def test_every_text_field_of_every_body_refuses_control_characters(world, api_for):
    owner = api_for("owner")
    fields = 0
    for path, _name, body_schema in body_operations():
        props = body_schema["properties"]
        base = {
            name: plain_value(prop)
            for name, prop in props.items()
            if name in body_schema.get("required", [])
        }
        for name, prop in props.items():
            if not is_text(prop):
                continue
            fields += 1
            for text in REFUSED:
                value = [text] if prop.get("type") == "array" else text
                response = owner.post(
                    concrete(path, world).removeprefix("/api"), base | {name: value}
                )
                assert_refused(response, name)
                assert "U+00" in json.dumps(response.json(), ensure_ascii=False)
    assert fields >= 11  # bank import (3), configuration (6), experiment and follow-up names


def test_a_lone_surrogate_is_refused_naming_the_field(world, api_for):
    owner = api_for("owner")
    raw = b'{"label": "x\\ud800y", "provider": "simulator", "model_name": "m"}'
    response = owner.post(f"/teams/{world.team.slug}/configs", raw=raw)
    assert_refused(response, "label")
    assert "U+D800" in response.json()["problems"][0]["message"]


def test_a_bank_file_with_a_nul_says_where_it_is(world, api_for):
    content = "A. Block\n1. Question one?\nKey: yes\n2. Second\x00question?\n"
    response = api_for("editor").post(
        f"/teams/{world.team.slug}/banks", {"content": content, "filename": "bank.txt"}
    )
    assert_refused(response, "content")
    assert "line 4, column 10" in response.json()["problems"][0]["message"]


def test_tab_newline_and_carriage_return_are_kept(world, api_for):
    body = {"label": "tab\there\r\nand there", "provider": "simulator", "model_name": "sim"}
    response = api_for("owner").post(f"/teams/{world.team.slug}/configs", body)
    assert response.status_code != 422 or all(
        p["field"] != "label" for p in response.json()["problems"]
    )


def test_every_text_parameter_refuses_a_nul(world, api_for):
    owner = api_for("owner")
    walked = set()
    for method, path, parameter in parameter_operations():
        name, where = parameter["name"], parameter["in"]
        walked.add(name)
        if where == "path":
            url = concrete(path, world, **{name: "ac\x00me"})
            query = {}
        else:
            url, query = concrete(path, world), {name: "1\x00"}
        url = url.removeprefix("/api")
        if method == "get":
            required = {"baseline": world.experiment.pk, "candidate": world.experiment.pk}
            extra = required if path.endswith("/compare") else {}
            response = owner.get(url, **{**extra, **query})
        else:
            response = owner.client.post(
                f"/api{url}?{name}=1%00" if query else f"/api{url}",
                "{}",
                content_type="application/json",
                headers=owner.headers,
            )
        assert_refused(response, name)
    assert {"slug", "format", "items", "w", "pair", "metric"} <= walked
