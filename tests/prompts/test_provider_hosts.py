"""A model configuration calls only allowed hosts: checked when it is saved and before every
request, so nobody can aim the server at its own internal network. Loopback (where the server's
own Redis and PostgreSQL listen) only on the ports the operator allowed."""

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from api.models import ApiToken
from probe.models import Attempt, Experiment, ModelConfig, Run
from probe.services import configs as config_services
from probe.services.collection import collect_unit_sync
from probe.services.experiments import experiment_create, experiment_start
from tests.prompts.conftest import HX

ROOT = Path(__file__).resolve().parents[2]

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
        "http://localhost:8765/v1",
        "http://127.0.0.1:8765/v1",
        "http://[::1]:8765",
    ],
)
def test_public_apis_and_the_simulators_loopback_port_are_allowed_by_default(world, base_url):
    assert save(world, base_url).base_url == base_url


@pytest.mark.parametrize(
    "base_url,host,port",
    [
        ("http://127.0.0.1:6379", "127.0.0.1", 6379),  # the server's own Redis
        ("http://localhost:5432/v1", "localhost", 5432),  # its PostgreSQL
        ("http://127.0.0.2:8000/v1", "127.0.0.2", 8000),  # all of 127.0.0.0/8 is loopback
        ("http://[::1]:6379", "::1", 6379),
        ("http://[::ffff:127.0.0.1]:6379", "::ffff:127.0.0.1", 6379),
        ("http://redis.localhost:6379", "redis.localhost", 6379),
        ("http://LOCALHOST./v1", "localhost", 80),  # no port: the scheme's
        ("https://127.0.0.1/v1", "127.0.0.1", 443),
    ],
)
def test_loopback_on_any_other_port_is_refused_at_save(world, base_url, host, port):
    with pytest.raises(ValidationError) as caught:
        save(world, base_url)
    message = " ".join(caught.value.message_dict["base_url"])
    assert f"loopback address ({host})" in message
    assert "PROVIDER_LOOPBACK_PORTS" in message and f"not on port {port}" in message
    assert "8765" in message, "it names the ports that are allowed"
    assert not ModelConfig.objects.filter(label="Local").exists()


def test_the_host_list_does_not_open_loopback_ports(world, settings):
    settings.ALLOWED_PROVIDER_HOSTS = [*settings.ALLOWED_PROVIDER_HOSTS, "127.0.0.1", "localhost"]
    with pytest.raises(ValidationError):
        save(world, "http://127.0.0.1:6379")


def test_the_ports_setting_allows_exactly_its_ports(world, settings):
    settings.PROVIDER_LOOPBACK_PORTS = [11434]
    assert save(world, "http://localhost:11434/v1", label="Ollama").pk
    for n, url in enumerate(["http://localhost:11435/v1", "http://127.0.0.1:8765/v1"]):
        with pytest.raises(ValidationError) as caught:
            save(world, url, label=f"no {n}")
        assert "(11434)" in " ".join(caught.value.message_dict["base_url"])


def test_no_loopback_port_at_all_says_so(world, settings):
    settings.PROVIDER_LOOPBACK_PORTS = []
    with pytest.raises(ValidationError) as caught:
        save(world, "http://127.0.0.1:8765/v1")
    message = " ".join(caught.value.message_dict["base_url"])
    assert "no local port is allowed" in message and "PROVIDER_LOOPBACK_PORTS" in message


def test_the_api_refuses_a_loopback_port_naming_the_field(world):
    _row, token = ApiToken.issue(
        user=world.users["editor"], team=world.team, access="write", name="ci"
    )
    response = Client().post(
        f"/api/teams/{world.team.slug}/configs",
        json.dumps({**BASE, "base_url": "http://127.0.0.1:6379/v1"}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 422, response.content
    body = json.dumps(response.json())
    assert "base_url" in body and "PROVIDER_LOOPBACK_PORTS" in body
    assert not ModelConfig.objects.filter(label="Local").exists()


class Listener:
    """A TCP port that counts the connections made to it (a stand-in for Redis)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.stop.is_set():
            try:
                conn, _addr = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self.stop.set()
        self.thread.join()
        self.sock.close()


def test_test_connection_to_a_loopback_port_not_allowed_sends_nothing(client, world):
    """A configuration written before the rule (or straight into the database) pointing at a
    local service: "Test connection" refuses it in the web process, before connecting."""
    listener = Listener()
    try:
        config = ModelConfig.objects.create(
            team=world.team,
            label="Old",
            provider="openai_chat",
            model_name="m",
            base_url=f"http://127.0.0.1:{listener.port}/v1",
        )
        client.force_login(world.users["editor"])
        body = client.post(reverse("probe:config_test", kwargs={"config_pk": config.pk}), **HX)
        text = body.content.decode()
        assert f"not on port {listener.port}" in text and "PROVIDER_LOOPBACK_PORTS" in text
    finally:
        listener.close()
    assert listener.connections == 0


def test_the_edit_form_refuses_a_loopback_port(client, world):
    client.force_login(world.users["editor"])
    response = client.post(
        reverse("probe:config_create", kwargs={"team_slug": "acme"}),
        {**BASE, "base_url": "http://127.0.0.1:6379", "concurrency_limit": "4"},
    )
    assert "not on port 6379" in response.content.decode()
    assert not ModelConfig.objects.filter(label="Local").exists()


def test_the_refusal_is_translated(world):
    from django.utils import translation

    with translation.override("ja"), pytest.raises(ValidationError) as caught:
        save(world, "http://127.0.0.1:6379")
    message = " ".join(caught.value.message_dict["base_url"])
    assert "PROVIDER_LOOPBACK_PORTS" in message and "loopback address" not in message


def _settings_with(env: dict) -> subprocess.CompletedProcess:
    code = "import django; django.setup(); from django.conf import settings as s; "
    code += "print(s.PROVIDER_LOOPBACK_PORTS)"
    base = {k: v for k, v in os.environ.items() if k != "PROVIDER_LOOPBACK_PORTS"}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_setting_defaults_to_the_simulators_port_and_reads_the_environment():
    assert _settings_with({}).stdout.strip() == "[8765]"
    assert _settings_with({"PROVIDER_LOOPBACK_PORTS": "11434, 8765"}).stdout.strip() == (
        "[8765, 11434]"
    )
    assert _settings_with({"PROVIDER_LOOPBACK_PORTS": ""}).stdout.strip() == "[]"
    moved = _settings_with({"SIMULATOR_URL": "http://127.0.0.1:9000/v1"})
    assert moved.stdout.strip() == "[9000]", "the simulator's port, wherever it is"
    bad = _settings_with({"PROVIDER_LOOPBACK_PORTS": "redis"})
    assert bad.returncode != 0 and "PROVIDER_LOOPBACK_PORTS must be" in bad.stderr


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
    settings.PROVIDER_LOOPBACK_PORTS = []
    client.force_login(world.users["editor"])
    body = client.post(reverse("probe:config_test", kwargs={"config_pk": config.pk}), **HX)
    assert "own loopback address (127.0.0.1)" in body.content.decode()
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
    settings.PROVIDER_LOOPBACK_PORTS = [8765]  # no longer the simulator's port
    run = experiment.runs.get()
    collect_unit_sync(run_pk=run.pk, sleep=lambda s: None)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert f"not on port {simulator.server.server_address[1]}" in run.error_message
    assert simulator.requests == 0 and not Attempt.objects.filter(run=run).exists()
    assert Experiment.objects.get(pk=experiment.pk).status != Experiment.Status.COLLECTED


@pytest.mark.parametrize(
    "extra,expected",
    [
        ({}, "[8765]"),
        ({"PRODUCTION": "1", "SECRET_KEY": "x" * 40 + "abcdefghij"}, "[]"),
        (
            {
                "PRODUCTION": "1",
                "SECRET_KEY": "x" * 40 + "abcdefghij",
                "SIMULATOR_URL": "http://127.0.0.1:9100/v1",
            },
            "[9100]",
        ),
    ],
    ids=["laptop", "production", "production-with-simulator"],
)
def test_loopback_is_allowed_by_default_only_where_the_simulator_runs(extra, expected):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PRODUCTION", "SIMULATOR_URL", "PROVIDER_LOOPBACK_PORTS")
    }
    env.update(extra, ALLOWED_HOSTS="localhost")
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from django.conf import settings as s; import django; "
            "django.setup(); print(s.PROVIDER_LOOPBACK_PORTS)",
        ],
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out == expected
