"""The demo: default prompts, three simulated configurations, the simulator's knowledge file; runapp's simulator."""

import json

import httpx
import pytest
from django.core.management import call_command

import adapters
from adapters.simulator import Knowledge
from probe.management.commands import runapp
from probe.models import ModelConfig, PromptVersion, Team


@pytest.fixture
def data_dir(settings, tmp_path):
    settings.DATA_DIR = tmp_path
    return tmp_path


def test_load_demo_creates_prompts_configs_and_knowledge_and_is_idempotent(db, data_dir, capsys):
    call_command("load_demo")
    team = Team.objects.get(slug="demo")
    first = (data_dir / "simulator-knowledge.json").read_bytes()
    configs = list(
        ModelConfig.objects.filter(team=team)
        .order_by("label")
        .values_list("label", "provider", "model_name", "base_url")
    )
    assert configs == [
        ("Cautious (simulated)", "simulator", "sim-cautious", "http://127.0.0.1:8765/v1"),
        ("Expert (simulated)", "simulator", "sim-expert", "http://127.0.0.1:8765/v1"),
        ("Overconfident (simulated)", "simulator", "sim-overconfident", "http://127.0.0.1:8765/v1"),
    ]
    assert sorted(PromptVersion.objects.filter(team=team).values_list("name", "version")) == [
        ("Default (English)", 1),
        ("Default (Japanese)", 1),
    ]
    knowledge = json.loads(first)
    assert len(knowledge["items"]) == 30
    assert knowledge["items"][0] == {
        "question": "Which HTTP status code tells a client it has sent too many requests in a given amount of time?",
        "answer": "429 Too Many Requests",
    }
    assert len(Knowledge.from_dict(knowledge).items) == 30  # the simulator reads it

    call_command("load_demo")
    assert ModelConfig.objects.filter(team=team).count() == 3
    assert PromptVersion.objects.filter(team=team).count() == 2
    assert (data_dir / "simulator-knowledge.json").read_bytes() == first
    assert "Simulated models:" in capsys.readouterr().out


def test_load_demo_uses_the_simulator_url_setting(db, data_dir, settings):
    settings.SIMULATOR_URL = "http://127.0.0.1:9999/v1"
    settings.PROVIDER_LOOPBACK_PORTS = [9999]  # what SIMULATOR_URL's port makes the default
    call_command("load_demo")
    assert set(ModelConfig.objects.values_list("base_url", flat=True)) == {
        "http://127.0.0.1:9999/v1"
    }


def _free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("with_file", [True, False])
def test_runapp_starts_the_simulator_with_or_without_a_knowledge_file(tmp_path, with_file):
    knowledge = tmp_path / "simulator-knowledge.json"
    if with_file:
        knowledge.write_text(json.dumps({"items": [{"question": "Which port?", "answer": "5432"}]}))
    port = _free_port()
    process, empty = runapp.start_simulator(knowledge, "127.0.0.1", port)
    try:
        assert runapp.wait_for_port("127.0.0.1", port, process, 15)
        assert (empty is None) == with_file
        models = httpx.get(f"http://127.0.0.1:{port}/v1/models").json()
        assert "sim-expert" in {m["id"] for m in models["data"]}
        with adapters.new_client() as client:
            completion = adapters.check_connection(
                adapters.get_adapter("simulator"),
                client=client,
                model="sim-cautious",
                base_url=f"http://127.0.0.1:{port}/v1",
            )
        assert completion.outcome == "complete"
    finally:
        runapp.stop(process)
        if empty is not None:
            empty.unlink()
    assert process.poll() is not None
