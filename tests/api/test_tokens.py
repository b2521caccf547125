"""API tokens: made on the user's page and shown once, stored as a digest, revoked for good."""

import hashlib

import pytest

from api.models import ApiToken
from tests.api.conftest import ApiClient
from tests.conftest import login

pytestmark = pytest.mark.django_db


def test_a_token_is_shown_once_and_stored_as_a_digest(client, world):
    user = world.users["editor"]
    login(client, user)
    page = client.post(
        "/account/tokens/", {"name": "CI gate", "team": world.team.pk, "access": "read"}
    )
    assert page.status_code == 200
    token = ApiToken.objects.get(user=user)
    text = page.context["new_token"]
    assert text.startswith("bp_") and text in page.content.decode()
    assert token.digest == hashlib.sha256(text.encode()).hexdigest()
    assert text not in {token.digest, token.hint, token.name}
    assert "no-store" in page["Cache-Control"]
    # Seen again, the page lists the token by name and hint, never the token.
    again = client.get("/account/tokens/")
    assert "CI gate" in again.content.decode() and text not in again.content.decode()
    assert token.team == world.team and token.access == "read"
    assert ApiClient(text).get("/me").json()["username"] == user.username


def test_a_revoked_token_no_longer_works(client, world):
    user = world.users["viewer"]
    _row, text = ApiToken.issue(user=user, team=world.team, access="read", name="script")
    assert ApiClient(text).get("/me").status_code == 200
    login(client, user)
    response = client.post(f"/account/tokens/{_row.pk}/revoke/")
    assert response.status_code == 302
    answer = ApiClient(text).get("/me")
    assert answer.status_code == 401
    assert "token" in answer.json()["detail"].lower()


def test_nobody_revokes_another_users_token(client, world):
    row, text = ApiToken.issue(
        user=world.users["owner"], team=world.team, access="write", name="owner's"
    )
    login(client, world.users["editor"])
    assert client.post(f"/account/tokens/{row.pk}/revoke/").status_code == 404
    assert ApiClient(text).get("/me").status_code == 200


def test_the_tokens_page_needs_a_login(client):
    response = client.get("/account/tokens/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_name_is_required_and_nothing_is_made_without_one(client, world):
    login(client, world.users["scorer"])
    page = client.post("/account/tokens/", {"name": "", "team": world.team.pk, "access": "read"})
    assert page.status_code == 200 and page.context["form"].errors["name"]
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize(
    "header", ["", "Bearer", "Bearer nonsense", "Token bp_abc", "Bearer " + "x" * 500]
)
def test_a_missing_or_wrong_token_is_401_with_a_json_reason(world, header):
    client = ApiClient(None)
    if header:
        client.headers = {"Authorization": header}
    response = client.get("/me")
    assert response.status_code == 401
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["detail"]


def test_an_inactive_user_is_refused(world):
    user = world.users["editor"]
    _row, text = ApiToken.issue(user=user, team=world.team, access="read", name="old job")
    user.is_active = False
    user.save()
    assert ApiClient(text).get("/me").status_code == 401
