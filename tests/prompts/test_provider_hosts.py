"""A model configuration calls only allowed hosts: checked when it is saved and before every
request, so nobody can aim the server at its own internal network."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from probe.models import Attempt, Experiment, ModelConfig, Run
from probe.services import configs as config_services
from probe.services.collection import collect_unit_sync
from probe.services.experiments import experiment_create, experiment_start
from tests.prompts.conftest import HX

BASE = {"label": "Local", "provider": "openai_chat", "model_name": "m", "api_key_env": "X_KEY"}


def save(world, base_url, **fields):
    return config_services.config_create(
        team=world.team, user=world.users["editor"], **{**BASE, "base_url": base_url, **fields}
    )


@pytest.mark.parametrize(
    "base_url",
    [
        "http://10.0.0.5:8080/v1",
        "http://169.254.169.254/latest/meta-data/",
        "http://postgres:5432",
        "http://[fd00::1]:8000/v1",
        "https://api.openai.com.attacker.example/v1",
        "http://0.0.0.0:8000",
    ],
)
def test_a_host_outside_the_list_is_refused_at_save(world, base_url):
    with pytest.raises(ValidationError) as caught:
        save(world, base_url)
    message = " ".join(caught.value.message_dict["base_url"])
    assert "does not send requests to" in message and "ALLOWED_PROVIDER_HOSTS" in message
    assert not ModelConfig.objects.filter(label="Local").exists()


@pytest.mark.parametrize(
    "base_url",
    [
        "https://api.openai.com/v1",
        "https://API.Anthropic.com",
        "https://openrouter.ai/api/v1",
        "http://localhost:11434/v1",
        "http://127.0.0.1:8000/v1",
        "http://[::1]:8080",
    ],
)
def test_public_apis_and_loopback_are_allowed_by_default(world, base_url):
    assert save(world, base_url).base_url == base_url


def test_the_server_setting_allows_more_hosts_and_suffix_patterns(world, settings):
    settings.ALLOWED_PROVIDER_HOSTS = [*settings.ALLOWED_PROVIDER_HOSTS, "vllm", "*.gpu.lab"]
    assert save(world, "http://vllm:8000/v1", label="a").pk
    assert save(world, "http://node1.gpu.lab/v1", label="b").pk
    with pytest.raises(ValidationError):
        save(world, "http://evilgpu.lab/v1", label="c")


def test_the_edit_form_says_why(client, world):
    client.force_login(world.users["editor"])
    response = client.post(
        reverse("probe:config_create", kwargs={"team_slug": "acme"}),
        {**BASE, "base_url": "http://192.168.1.1/v1", "concurrency_limit": "4"},
    )
    assert "does not send requests to 192.168.1.1" in response.content.decode()


def test_narrowed_hosts_stop_the_test_connection_before_sending(client, world, settings, simulator):
    config = save(world, simulator.base_url, provider="simulator", api_key_env="")
    settings.ALLOWED_PROVIDER_HOSTS = ["api.openai.com"]
    client.force_login(world.users["editor"])
    body = client.post(reverse("probe:config_test", kwargs={"config_pk": config.pk}), **HX)
    assert "does not send requests to 127.0.0.1" in body.content.decode()
    assert simulator.requests == 0


def test_narrowed_hosts_fail_the_run_before_any_request(world, settings, simulator):
    config = save(world, simulator.base_url, provider="simulator", api_key_env="", label="S")
    experiment = experiment_create(
        team=world.team,
        user=world.users["editor"],
        bank=world.bank,
        prompt_version=world.prompt,
        configs=[config],
        repeats=1,
        name="Hosts",
    )
    experiment_start(experiment=experiment, user=world.users["editor"], queue=False)
    settings.ALLOWED_PROVIDER_HOSTS = ["api.openai.com"]
    run = experiment.runs.get()
    collect_unit_sync(run_pk=run.pk, sleep=lambda s: None)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "does not send requests to 127.0.0.1" in run.error_message
    assert simulator.requests == 0 and not Attempt.objects.filter(run=run).exists()
    assert Experiment.objects.get(pk=experiment.pk).status != Experiment.Status.COLLECTED
