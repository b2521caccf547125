"""The settings of a model configuration come from its provider's adapter: the form's fields,
their help and bounds, and the check at save time in the form and the API."""

import html
import re

from django.utils import translation
from django.utils.translation import gettext

from adapters import get_adapter
from api.models import ApiToken
from probe.forms.configs import provider_key_hints
from probe.models import ModelConfig
from probe.services import configs as config_services
from tests.api.conftest import ApiClient
from tests.prompts.test_model_configs import errors_of, form_data, make, url

ANTHROPIC = {
    "label": "Claude warm",
    "provider": "anthropic",
    "model_name": "claude-sonnet-4-5",
    "api_key_env": "ANTHROPIC_API_KEY",
}


def _input(body: str, name: str) -> str:
    match = re.search(rf'<(?:input|select)[^>]*name="{name}"[^>]*>', body)
    assert match, f"no field {name}"
    return match.group(0)


def test_the_form_has_one_field_per_declared_setting_with_its_help_and_bounds(editor, world):
    body = editor.get(url("config_create", team_slug=world.team.slug)).content.decode()
    for name in ("temperature", "max_output_tokens", "reasoning_effort", "thinking_budget", "seed"):
        assert body.count(f'name="{name}"') == 1
    # A new configuration starts as OpenAI chat: its temperature goes to 2.
    assert 'max="2"' in _input(body, "temperature")
    assert "0 to 2; empty: the provider&#x27;s default." in body
    # The bounds of every provider travel with the field, for when another one is chosen.
    assert "&quot;anthropic&quot;: {&quot;help&quot;" in _input(body, "temperature")


def test_an_anthropic_configuration_shows_anthropics_own_range(editor, world):
    config = make(world, **ANTHROPIC)
    body = editor.get(url("config_edit", config_pk=config.pk)).content.decode()
    assert 'max="1"' in _input(body, "temperature")
    assert "0 to 1; empty: the provider&#x27;s default." in body
    assert 'min="1024"' in _input(body, "thinking_budget")


def test_anthropic_temperature_above_1_is_refused_at_save_and_the_typing_is_kept(editor, world):
    response = editor.post(
        url("config_create", team_slug=world.team.slug),
        form_data(**ANTHROPIC, temperature="1.5", seed="42"),
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "This provider takes a value from 0 to 1." in body
    assert 'value="1.5"' in _input(body, "temperature")
    assert 'value="Claude warm"' in _input(body, "label")
    assert 'value="42"' in _input(body, "seed")
    assert not ModelConfig.objects.filter(label="Claude warm").exists()
    assert errors_of(world, **ANTHROPIC, temperature=1.5) == {
        "temperature": "This provider takes a value from 0 to 1."
    }
    assert errors_of(world, **ANTHROPIC, temperature=1.0) == {}


def test_the_same_temperature_is_fine_for_openai(editor, world):
    response = editor.post(
        url("config_create", team_slug=world.team.slug), form_data(temperature="1.5")
    )
    assert response.status_code == 302
    assert ModelConfig.objects.get(label="GPT house").temperature == 1.5


def _api(world) -> ApiClient:
    _row, token = ApiToken.issue(
        user=world.users["editor"], team=world.team, access="write", name="configs"
    )
    return ApiClient(token)


def test_the_api_refuses_it_too_with_the_field_named(world):
    api = _api(world)
    path = f"/teams/{world.team.slug}/configs"
    response = api.post(path, {**ANTHROPIC, "temperature": 1.5})
    assert response.status_code == 422
    assert response.json()["problems"] == [
        {"field": "temperature", "message": "This provider takes a value from 0 to 1."}
    ]
    assert not ModelConfig.objects.filter(label="Claude warm").exists()
    created = api.post(path, {**ANTHROPIC, "temperature": 0.7})
    assert created.status_code == 201
    assert created.json()["provider"] == "anthropic" and created.json()["simulated"] is False
    assert ModelConfig.objects.get(label="Claude warm").temperature == 0.7
    listed = api.get(path).json()["items"]  # a page of the list (docs/api.md, "Lists")
    assert [c["label"] for c in listed] == sorted(c["label"] for c in listed)
    assert "Claude warm" in {c["label"] for c in listed}


def test_the_api_never_echoes_a_pasted_key(world):
    api = _api(world)
    pasted = "sk-proj-Zq8vX3kT9mWb2LpR7nY4cF6hJ1dS5gA0eU"
    response = api.post(f"/teams/{world.team.slug}/configs", {**ANTHROPIC, "api_key_env": pasted})
    assert response.status_code == 422
    assert pasted not in response.content.decode()


def test_a_japanese_user_reads_the_refusal_in_japanese(editor, world):
    try:
        response = editor.post(
            url("config_create", team_slug=world.team.slug),
            form_data(**ANTHROPIC, temperature="1.5"),
            HTTP_ACCEPT_LANGUAGE="ja",
        )
    finally:
        translation.deactivate()
    body = response.content.decode()
    assert response.status_code == 200
    assert "This provider takes a value from 0 to 1." not in body
    with translation.override("ja"):
        expected = gettext("This provider takes a value from %(min)s to %(max)s.") % {
            "min": "0",
            "max": "1",
        }
        help_text = gettext("0 to 1; empty: the provider's default.")
    assert expected != "This provider takes a value from 0 to 1."
    assert expected in body
    assert html.escape(help_text) in body


def test_test_connection_refuses_settings_the_adapter_refuses_before_any_request(world):
    config = make(world, **ANTHROPIC)
    ModelConfig.objects.filter(pk=config.pk).update(temperature=1.5)
    config.refresh_from_db()
    check = config_services.config_test_connection(config=config)
    assert (check.ok, check.sent, check.error_kind) == (False, False, "configuration")
    assert check.error_message == "Temperature: This provider takes a value from 0 to 1."


def test_the_key_hints_come_from_the_adapters(world):
    hints = {label: (hint, need) for label, hint, need in provider_key_hints()}
    assert hints[gettext(get_adapter("openai_chat").label)] == (
        "OPENAI_API_KEY",
        "for api.openai.com and OpenRouter; optional for local servers",
    )
    assert hints[gettext(get_adapter("anthropic").label)] == ("ANTHROPIC_API_KEY", "needed")
    assert hints[gettext(get_adapter("simulator").label)] == ("", "none")
