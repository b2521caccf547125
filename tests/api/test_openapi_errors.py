"""The schema documents every refusal each endpoint can answer, with its body."""

from api.urls import api

ERROR_BODY = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}


def operations():
    for path, methods in api.get_openapi_schema()["paths"].items():
        for method, operation in methods.items():
            yield method, path, operation


def test_every_endpoint_documents_its_refusals_with_their_body():
    seen = 0
    for method, path, operation in operations():
        responses = operation["responses"]
        expected = {401, 429}
        if "{" in path:
            expected |= {404, 422}  # an object not in the token's team; a malformed id
        if method == "post":
            expected |= {403}  # a read token
            if "requestBody" in operation:
                expected |= {400, 413, 422}
        missing = expected - set(responses)
        assert not missing, f"{method} {path} does not document {sorted(missing)}"
        for status, response in responses.items():
            if int(status) >= 400:
                assert response["content"] == ERROR_BODY, (method, path, status)
        assert responses[429]["headers"]["Retry-After"]["required"] is True
        seen += 1
    assert seen >= 17
