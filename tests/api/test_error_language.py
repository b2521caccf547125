"""The API's refusals speak the request's language (Accept-Language): `detail` and each problem's
message in Japanese for a Japanese client, in English otherwise, the field and the status the
same in both."""

import pytest
from django.utils import translation


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    translation.deactivate()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "detail", "message"),
    [
        ("ja", "リクエストは拒否されました。何も保存されていません。", "この項目は必須です。"),
        ("en", "The request was refused; nothing was saved.", "This field is required."),
    ],
)
def test_a_422_is_in_the_requests_language(world, api_for, language, detail, message):
    client = api_for("editor")
    client.headers["Accept-Language"] = language
    response = client.post("/teams/acme/configs", {})
    assert response.status_code == 422
    body = response.json()
    assert body["detail"] == detail
    assert body["problems"], body
    assert {p["message"] for p in body["problems"]} == {message}
    assert "label" in {p["field"] for p in body["problems"]}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "detail"),
    [
        ("ja", "このエンドポイントは DELETE を受け付けません。GET を使ってください。"),
        ("en", "This endpoint does not take DELETE: use GET."),
    ],
)
def test_a_405_is_json_in_the_requests_language(client, world, language, detail):
    response = client.delete("/api/me", headers={"Accept-Language": language})
    assert response.status_code == 405
    assert response["Content-Type"].startswith("application/json")
    assert response["Allow"] == "GET"
    assert response.json() == {"detail": detail, "problems": []}


@pytest.mark.django_db
def test_a_get_on_a_post_only_endpoint_is_a_json_405(client, world):
    response = client.get(
        f"/api/experiments/{world.scored.pk}/start", headers={"Accept-Language": "ja"}
    )
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert response.json()["detail"] == (
        "このエンドポイントは GET を受け付けません。POST を使ってください。"
    )
