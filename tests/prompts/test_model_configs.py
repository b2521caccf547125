"""Model configurations: validation, the key only ever named, and "test connection" over real HTTP."""

import html
import io
import logging

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

from adapters import simulator_server
from probe.models import AuditEvent, ModelConfig
from probe.services import configs as config_services
from tests.prompts.conftest import HX

# A value nobody would type: if it shows up anywhere, the key leaked.
SECRET = "sk-proj-Zq8vX3kT9mWb2LpR7nY4cF6hJ1dS5gA0eU"
KEY_VAR = "PROBE_TEST_SECRET_KEY_VAR"


def url(name, **kwargs):
    return reverse(f"probe:{name}", kwargs=kwargs)


def form_data(**overrides):
    data = {
        "label": "GPT house",
        "provider": "openai_chat",
        "model_name": "gpt-4.1",
        "base_url": "",
        "temperature": "",
        "max_output_tokens": "",
        "reasoning_effort": "",
        "thinking_budget": "",
        "seed": "",
        "api_key_env": "OPENAI_API_KEY",
        "concurrency_limit": "4",
    }
    data.update(overrides)
    return data


def make(world, **fields):
    base = {"label": "Sim", "provider": "simulator", "model_name": "sim-expert"}
    return config_services.config_create(
        team=world.team, user=world.users["editor"], **{**base, **fields}
    )


def errors_of(world, **fields):
    base = {
        "label": "X",
        "provider": "openai_chat",
        "model_name": "m",
        "api_key_env": "OPENAI_API_KEY",
    }
    try:
        config_services.config_validate(team=world.team, data={**base, **fields})
    except ValidationError as error:
        return {
            field: " ".join(e.message for e in errors) for field, errors in error.error_dict.items()
        }
    return {}


# Validation ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["1ABC", "MY-KEY", "MY KEY", "MY.KEY", "$OPENAI_API_KEY", "ÄPI_KEY"]
)
def test_bad_environment_variable_names_are_refused(world, name):
    assert (
        "only letters, digits and underscores" in errors_of(world, api_key_env=name)["api_key_env"]
    )


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "_my_key", "key2", "ANTHROPIC_API_KEY_TEAM_B"])
def test_good_names_pass(world, name):
    assert errors_of(world, api_key_env=name) == {}


@pytest.mark.parametrize(
    "pasted",
    [
        SECRET,
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv",
        "Xk29fLmQ8rT5wZ3vB7nP1sD4gH6jK0aE",  # random-looking: mixed case and digits
        "3f9a1c7e5b2d8f4a6c0e9b7d5f3a1c8e",  # hex
        "Bearer abc",
    ],
)
def test_a_pasted_key_is_refused_with_advice_and_not_echoed(editor, world, pasted):
    assert "looks like an API key" in errors_of(world, api_key_env=pasted)["api_key_env"]
    response = editor.post(
        url("config_create", team_slug=world.team.slug), form_data(api_key_env=pasted)
    )
    body = html.unescape(response.content.decode())
    assert response.status_code == 200
    assert "looks like an API key" in body and "environment variable" in body and "NAME" in body
    assert pasted not in body
    assert not ModelConfig.objects.filter(label="GPT house").exists()


def test_a_key_pasted_into_another_field_is_refused_and_not_echoed(editor, world):
    response = editor.post(
        url("config_create", team_slug=world.team.slug), form_data(model_name=f"gpt-4.1 {SECRET}")
    )
    body = response.content.decode()
    assert "contains an API key" in body and SECRET not in body


@pytest.mark.parametrize(
    "base_url",
    [
        "ftp://example.com/v1",
        "localhost:8000",
        "file:///etc/passwd",
        "http://",
        "https://api.example.com/v1?key=abc",
        "https://user:pw@api.example.com",
    ],
)
def test_base_url_must_be_plain_http_or_https(world, base_url):
    assert "base_url" in errors_of(world, base_url=base_url)


@pytest.mark.parametrize(
    "base_url", ["http://ollama:11434/v1", "http://127.0.0.1:8765", "https://openrouter.ai/api/v1"]
)
def test_base_urls_without_a_dot_or_with_a_port_are_fine(world, settings, base_url):
    # "ollama" is a service name on the server's own network: allowed once the server says so.
    settings.ALLOWED_PROVIDER_HOSTS = [*settings.ALLOWED_PROVIDER_HOSTS, "ollama"]
    assert "base_url" not in errors_of(world, base_url=base_url)


@pytest.mark.parametrize(
    "fields,field",
    [
        ({"temperature": 2.5}, "temperature"),
        ({"temperature": -0.1}, "temperature"),
        ({"max_output_tokens": 0}, "max_output_tokens"),
        ({"reasoning_effort": "extreme"}, "reasoning_effort"),
        ({"concurrency_limit": 0}, "concurrency_limit"),
        (
            {"provider": "anthropic", "api_key_env": "ANTHROPIC_API_KEY", "thinking_budget": 512},
            "thinking_budget",
        ),
        (
            {
                "provider": "anthropic",
                "api_key_env": "ANTHROPIC_API_KEY",
                "thinking_budget": 4096,
                "max_output_tokens": 2000,
            },
            "thinking_budget",
        ),
        (
            {
                "provider": "anthropic",
                "api_key_env": "ANTHROPIC_API_KEY",
                "thinking_budget": 2048,
                "reasoning_effort": "high",
            },
            "thinking_budget",
        ),
        ({"thinking_budget": 2048}, "thinking_budget"),  # openai_chat takes an effort, not a budget
        ({"provider": "nonsense"}, "provider"),
        ({"label": " "}, "label"),
        ({"model_name": ""}, "model_name"),
    ],
)
def test_out_of_range_settings_are_refused(world, fields, field):
    assert field in errors_of(world, **fields)


@pytest.mark.parametrize(
    "fields",
    [
        {"temperature": 0},
        {"temperature": 2},
        {"reasoning_effort": "minimal"},
        {"provider": "anthropic", "api_key_env": "ANTHROPIC_API_KEY", "thinking_budget": 1024},
        {"provider": "gemini", "api_key_env": "GEMINI_API_KEY", "thinking_budget": 0},
    ],
)
def test_settings_in_range_pass(world, fields):
    assert errors_of(world, **fields) == {}


@pytest.mark.parametrize(
    "provider,base_url,needed",
    [
        ("openai_chat", "", True),
        ("openai_chat", "https://api.openai.com/v1", True),
        ("openai_chat", "https://openrouter.ai/api/v1", True),
        ("openai_chat", "http://localhost:8765/v1", False),  # a local vLLM or Ollama
        ("openai_responses", "", True),
        ("anthropic", "", True),
        ("gemini", "", True),
        ("manual", "", False),
        ("simulator", "", False),
    ],
)
def test_a_key_variable_is_required_only_where_the_adapter_needs_one(
    world, provider, base_url, needed
):
    errors = errors_of(world, provider=provider, base_url=base_url, api_key_env="")
    assert ("api_key_env" in errors) == needed
    if needed:
        assert "needs an API key" in errors["api_key_env"]


def test_labels_are_unique_in_a_team_regardless_of_case(world):
    make(world, label="Sim A")
    with pytest.raises(ValidationError, match="already has a configuration"):
        make(world, label="sim a")
    config_services.config_create(
        team=world.other_team,
        user=None,
        label="Sim A",
        provider="simulator",
        model_name="sim-expert",
    )


# Pages ---------------------------------------------------------------------------------------------


def test_create_edit_archive_restore_through_the_pages(editor, world):
    response = editor.post(url("config_create", team_slug=world.team.slug), form_data())
    assert response.status_code == 302
    config = ModelConfig.objects.get(team=world.team, label="GPT house")
    assert config.api_key_env == "OPENAI_API_KEY" and config.created_by == world.users["editor"]
    response = editor.post(url("config_edit", config_pk=config.pk), form_data(temperature="0.3"))
    assert response.status_code == 302
    config.refresh_from_db()
    assert config.temperature == 0.3
    event = AuditEvent.objects.get(subject="model configuration", action="update")
    assert event.details["changes"]["temperature"] == [None, 0.3]
    editor.post(url("config_archive", config_pk=config.pk), {"action": "archive"})
    config.refresh_from_db()
    assert config.archived
    body = editor.get(url("config_list", team_slug=world.team.slug)).content.decode()
    assert "1 archived configuration" in body
    editor.post(url("config_archive", config_pk=config.pk), {"action": "restore"})
    config.refresh_from_db()
    assert not config.archived


def test_editing_a_configuration_used_by_runs_shows_a_note(editor, world):
    body = editor.get(url("config_edit", config_pk=world.config.pk)).content.decode()
    assert "apply to new experiments only" in body


def test_simulated_configurations_carry_a_visible_badge(editor, world, simulator):
    config = make(world, base_url=simulator.base_url)
    pages = [
        editor.get(url("config_list", team_slug=world.team.slug)),
        editor.get(url("config_edit", config_pk=config.pk)),
        editor.post(url("config_test", config_pk=config.pk)),
        editor.post(url("config_test", config_pk=config.pk), **HX),
    ]
    for response in pages:
        assert 'class="tag sim-tag"' in response.content.decode()


def test_viewers_and_scorers_neither_read_nor_write(viewer, world):
    # A scorer who could list the configurations would learn which models are in play.
    assert viewer.get(url("config_list", team_slug=world.team.slug)).status_code == 403
    assert (
        viewer.post(url("config_create", team_slug=world.team.slug), form_data()).status_code == 403
    )
    assert viewer.post(url("config_test", config_pk=world.config.pk)).status_code == 403
    assert (
        viewer.post(
            url("config_archive", config_pk=world.config.pk), {"action": "archive"}
        ).status_code
        == 403
    )


def test_the_list_says_whether_the_variable_is_set_never_its_value(editor, world, monkeypatch):
    monkeypatch.setenv(KEY_VAR, SECRET)
    monkeypatch.delenv("PROBE_UNSET_VARIABLE", raising=False)
    make(world, label="Keyed", provider="openai_chat", model_name="gpt-4.1", api_key_env=KEY_VAR)
    make(
        world,
        label="Unkeyed",
        provider="openai_chat",
        model_name="gpt-4.1",
        api_key_env="PROBE_UNSET_VARIABLE",
    )
    body = editor.get(url("config_list", team_slug=world.team.slug)).content.decode()
    assert KEY_VAR in body and ">set<" in body and ">not set<" in body
    assert SECRET not in body and SECRET[-6:] not in body and f"{len(SECRET)} char" not in body


# The key never appears -------------------------------------------------------------------------------


def test_the_key_value_appears_in_no_page_fragment_database_row_or_log(
    editor, world, simulator, monkeypatch, caplog
):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv(KEY_VAR, SECRET)
    # Record what the server was sent, to prove the key was read and used.
    sent_auth = []
    original = simulator_server._Handler.do_POST

    def recording(handler):
        sent_auth.append(handler.headers.get("authorization"))
        return original(handler)

    monkeypatch.setattr(simulator_server._Handler, "do_POST", recording)
    # An OpenAI-compatible server that is sent the key, as a local vLLM with a key would be.
    response = editor.post(
        url("config_create", team_slug=world.team.slug),
        form_data(
            label="Keyed sim",
            base_url=simulator.base_url,
            model_name="sim-expert",
            api_key_env=KEY_VAR,
        ),
    )
    assert response.status_code == 302
    config = ModelConfig.objects.get(label="Keyed sim")
    bodies = [
        editor.get(url("config_list", team_slug=world.team.slug)),
        editor.get(url("config_edit", config_pk=config.pk)),
        editor.post(url("config_test", config_pk=config.pk)),
        editor.post(url("config_test", config_pk=config.pk), **HX),
        editor.post(
            url("config_edit", config_pk=config.pk),
            form_data(
                label="Keyed sim",
                base_url=simulator.base_url,
                model_name="sim-expert",
                api_key_env=KEY_VAR,
                temperature="9",
            ),
        ),
        editor.get(reverse("probe:audit_log", kwargs={"team_slug": world.team.slug})),
    ]
    assert sent_auth == [f"Bearer {SECRET}"] * 2
    for response in bodies:
        body = response.content.decode()
        assert SECRET not in body
        assert response.status_code in (200, 302, 403)
        for name, value in response.items():
            assert SECRET not in value, name
    assert "Connected" in bodies[2].content.decode()
    rows = [*ModelConfig.objects.values(), *AuditEvent.objects.values()]
    assert SECRET not in repr(rows)
    dump = io.StringIO()
    call_command("dumpdata", stdout=dump)
    assert SECRET not in dump.getvalue()
    assert caplog.records  # the adapter logged the requests ...
    assert all(
        SECRET not in record.getMessage() for record in caplog.records
    )  # ... without the key
    assert SECRET not in caplog.text


# Test connection -----------------------------------------------------------------------------------


def test_test_connection_succeeds_against_the_simulator(editor, world, simulator):
    config = make(world, base_url=simulator.base_url, seed=7, temperature=0.2)
    response = editor.post(url("config_test", config_pk=config.pk), **HX)
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert "Connected" in body and "sim-expert" in body
    assert " ms</dd>" in body and "req_sim_" in body
    assert simulator.requests == 1


def test_test_connection_full_page_without_htmx(editor, world, simulator):
    config = make(world, base_url=simulator.base_url)
    body = editor.post(url("config_test", config_pk=config.pk)).content.decode()
    assert "<html" in body and "Connected" in body and "Test again" in body


def test_test_connection_is_post_only(editor, world):
    assert editor.get(url("config_test", config_pk=world.config.pk)).status_code == 405


def test_a_closed_port_is_a_clear_error(editor, world, closed_port):
    config = make(world, base_url=f"http://127.0.0.1:{closed_port}/v1")
    body = html.unescape(
        editor.post(url("config_test", config_pk=config.pk), **HX).content.decode()
    )
    assert "Could not connect" in body
    assert f"could not reach 127.0.0.1:{closed_port}" in body
    assert "may help" in body  # a transport error is retried by collection


def test_a_missing_variable_is_an_error_before_any_request(editor, world, simulator, monkeypatch):
    monkeypatch.delenv("PROBE_NOT_SET_ANYWHERE", raising=False)
    config = make(
        world,
        provider="openai_chat",
        model_name="sim-expert",
        base_url=simulator.base_url,
        api_key_env="PROBE_NOT_SET_ANYWHERE",
    )
    body = html.unescape(
        editor.post(url("config_test", config_pk=config.pk), **HX).content.decode()
    )
    assert "API key missing" in body
    assert "The environment variable PROBE_NOT_SET_ANYWHERE is not set" in body
    assert "none was sent" in body
    assert simulator.requests == 0


def test_a_needed_but_unnamed_key_is_an_error_before_any_request(world):
    # Saved before the rule existed, or by a data migration: the check still stops it.
    config = ModelConfig.objects.create(
        team=world.team, label="No key", provider="anthropic", model_name="claude"
    )
    check = config_services.config_test_connection(config=config)
    assert not check.ok and not check.sent and check.error_kind == "missing_api_key"


def test_an_unknown_model_is_reported_with_the_servers_message(editor, world, simulator):
    config = make(world, model_name="sim-nonexistent", base_url=simulator.base_url)
    check = config_services.config_test_connection(config=config)
    assert not check.ok and check.sent and check.http_status == 404
    assert "sim-nonexistent" in check.error_message and check.request_id.startswith("req_sim_")
    assert check.retryable is False


def test_a_manual_configuration_has_nothing_to_test(editor, world):
    config = make(world, label="Chat window", provider="manual", model_name="a chat window")
    body = editor.post(url("config_test", config_pk=config.pk), **HX).content.decode()
    assert "Nothing to test" in body
    list_body = editor.get(url("config_list", team_slug=world.team.slug)).content.decode()
    assert url("config_test", config_pk=config.pk) not in list_body
