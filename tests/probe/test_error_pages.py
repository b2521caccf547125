"""Error pages: in the user's language, with the site's navigation and a way back; JSON for the
API; and buttons a role cannot use are not shown to it."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.conftest import login

JA = {"HTTP_ACCEPT_LANGUAGE": "ja"}


def _assert_error_page(response, status, words):
    body = response.content.decode()
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")
    assert 'class="topbar"' in body, "the site's navigation is missing"
    assert f'data-status="{status}"' in body
    for word in words:
        assert word in body, f"{word!r} not on the {status} page"
    return body


@pytest.mark.parametrize(
    "language,words",
    [("en", ["Not found", "Acme probes", "Your teams"]), ("ja", ["見つかりません", "Acme probes"])],
)
def test_a_404_has_the_navigation_in_the_users_language(client, world, language, words):
    login(client, world.users["scorer"])
    response = client.get("/no/such/page/", HTTP_ACCEPT_LANGUAGE=language)
    body = _assert_error_page(response, 404, words)
    assert f'lang="{language}"' in body


def test_another_teams_object_is_the_same_404_page(client, world):
    login(client, world.users["scorer"])
    url = reverse("probe:bank_detail", kwargs={"bank_pk": world.other_bank.pk})
    body = _assert_error_page(client.get(url, **JA), 404, ["見つかりません"])
    assert "Rival" not in body


def test_a_403_explains_the_role_and_offers_a_way_back(client, world):
    login(client, world.users["viewer"])
    experiment = reverse("probe:experiment_detail", kwargs={"experiment_pk": world.experiment.pk})
    url = reverse("scoring:start", kwargs={"experiment_pk": world.experiment.pk})
    response = client.get(url, HTTP_REFERER=f"http://testserver{experiment}", **JA)
    body = _assert_error_page(response, 403, ["許可されていません"])
    assert f'href="http://testserver{experiment}"' in body  # back to where the viewer was


def test_a_way_back_to_another_site_is_never_offered(client, world):
    login(client, world.users["viewer"])
    url = reverse("scoring:start", kwargs={"experiment_pk": world.experiment.pk})
    body = client.get(url, HTTP_REFERER="https://evil.example/phish").content.decode()
    assert "evil.example" not in body


def test_a_405_is_a_page_and_keeps_its_allow_header(client, world):
    login(client, world.users["editor"])
    url = reverse("probe:item_retire", kwargs={"item_pk": world.items[0].pk})
    response = client.get(url, **JA)
    _assert_error_page(response, 405, ["この方法では"])
    assert "POST" in response["Allow"]
    # An htmx request keeps the bare answer (it never swaps an error page into a fragment).
    assert client.get(url, HTTP_HX_REQUEST="true").content == b""


def test_a_400_for_a_host_the_site_does_not_serve(client, world):
    response = client.get("/", HTTP_HOST="evil.example", **JA)
    assert response.status_code == 400
    assert "リクエストを読み取れませんでした" in response.content.decode()


def test_a_csrf_failure_says_the_form_expired_in_the_users_language(world):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(world.users["editor"])
    url = reverse("probe:item_retire", kwargs={"item_pk": world.items[0].pk})
    response = browser.post(url, {"retired": "1"}, **JA)
    _assert_error_page(response, 403, ["フォームの有効期限が切れました"])
    world.items[0].refresh_from_db()
    assert not world.items[0].retired  # nothing was changed


@pytest.mark.urls("tests.probe.error_urls")
def test_a_500_is_a_page_with_the_navigation(world):
    browser = Client(raise_request_exception=False)
    browser.force_login(world.users["scorer"])
    body = _assert_error_page(browser.get("/boom/", **JA), 500, ["問題が発生しました"])
    assert "a bug in a view" not in body  # no traceback, no exception text


def test_api_errors_answer_json(client, world):
    response = client.get("/api/no-such-endpoint", **JA)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["status"] == 404


def test_a_viewer_is_not_offered_score_blind_and_a_scorer_is(client, world):
    url = reverse("probe:experiment_detail", kwargs={"experiment_pk": world.scored.pk})
    start = reverse("scoring:start", kwargs={"experiment_pk": world.scored.pk})
    login(client, world.users["viewer"])
    assert start not in client.get(url).content.decode()
    login(client, world.users["scorer"])
    assert start in client.get(url).content.decode()


@pytest.mark.parametrize("query", ["?q=%00", "?q=a%00b&flagged=1", "?page=%00"])
def test_a_nul_in_a_pages_query_is_a_400_page_not_a_database_error(client, world, query):
    login(client, world.users["editor"])
    url = reverse("probe:bank_detail", kwargs={"bank_pk": world.bank.pk}) + query
    response = client.get(url, **JA)
    assert response.status_code == 400
    assert "リクエストを読み取れませんでした" in response.content.decode()


def test_a_nul_in_a_form_is_refused_by_its_field_keeping_what_was_typed(client, world):
    login(client, world.users["editor"])
    url = reverse("probe:bank_create", kwargs={"team_slug": world.team.slug})
    response = client.post(url, {"name": "Bank\x00 name", "description": "kept text"})
    assert response.status_code in (200, 422)
    assert "kept text" in response.content.decode()
