"""Collection asks the run's adapter: its settings checked again before anything is sent, its
retry hook, and the request kept with each attempt (without the key) and shown to who may see it."""

import json

from django.urls import reverse

from probe.models import Attempt, ModelConfig, Run
from probe.services import collection
from probe.tasks import collect_run
from tests.builders import sheet_text
from tests.collection.conftest import (
    Reply,
    chat_body,
    collect_all,
    make_config,
    make_experiment,
)

GOOD_SHEET = sheet_text([("429", "HIGH"), ("Retry-After", "MEDIUM"), ("3.10", "LOW")])
SECRET = "sk-test-never-stored-0123456789abcdef"
CONTEXT_500 = json.dumps(
    {
        "error": {
            "message": "This model's maximum context length is 4096 tokens; you requested 5000.",
            "type": "server_error",
        }
    }
)


def _config(world, replay, *, provider="openai_chat", label="Replayed"):
    return make_config(
        world,
        label=label,
        provider=provider,
        model_name="gpt-test",
        base_url=replay.base_url + "/v1",
        api_key_env="BLINDPROBE_TEST_KEY",
    )


def test_the_task_sent_by_name_is_the_collect_task():
    assert collect_run.name == collection.COLLECT_RUN_TASK


def test_settings_the_adapter_refuses_fail_the_run_before_any_request(world, replay, monkeypatch):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    replay.play([Reply(200, "{}")])
    config = _config(world, replay, provider="anthropic", label="Claude")
    # Saved before Anthropic's range was its own (the form now refuses it).
    ModelConfig.objects.filter(pk=config.pk).update(temperature=1.5)
    config.refresh_from_db()
    experiment = make_experiment(world, [config])
    collect_all(experiment)
    run = experiment.runs.get()
    assert replay.count == 0
    assert run.status == Run.Status.FAILED
    assert "Temperature" in run.error_message and "from 0 to 1" in run.error_message
    assert not run.attempts.exists()


def test_a_context_length_error_is_not_retried_though_it_came_as_a_500(world, replay, monkeypatch):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    replay.play([Reply(500, CONTEXT_500), Reply(200, chat_body(GOOD_SHEET))])
    experiment = make_experiment(world, [_config(world, replay)])
    assert collect_all(experiment) == []  # no retry delay asked
    run = experiment.runs.get()
    assert replay.count == 1
    assert run.status == Run.Status.FAILED and "maximum context length" in run.error_message
    assert run.attempts.get().outcome == Attempt.Outcome.FATAL


def test_each_attempt_keeps_the_request_as_sent_without_the_key(world, replay, monkeypatch):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    replay.play(
        [Reply(500, json.dumps({"error": {"message": "boom"}})), Reply(200, chat_body(GOOD_SHEET))]
    )
    experiment = make_experiment(world, [_config(world, replay)])
    collect_all(experiment)
    run = experiment.runs.get()
    attempts = list(run.attempts.order_by("number"))
    assert [a.outcome for a in attempts] == [Attempt.Outcome.RETRYABLE, Attempt.Outcome.COMPLETE]
    for attempt, received in zip(attempts, replay.received, strict=True):
        sent = attempt.request_sent
        assert SECRET not in json.dumps(sent)
        assert "authorization" not in {h.lower() for h in sent["headers"]}
        assert sent["url"] == replay.base_url + received.target
        assert sent["body"] == received.json()
        assert received.headers["authorization"] == f"Bearer {SECRET}"


def test_the_raw_page_shows_the_request_to_editors_never_to_a_blind_scorer(
    client, world, replay, monkeypatch
):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    replay.play([Reply(200, chat_body(GOOD_SHEET))])
    experiment = make_experiment(world, [_config(world, replay, label="Distinct-config-q")])
    collect_all(experiment)
    run = experiment.runs.get()
    url = reverse("probe:run_raw", kwargs={"run_pk": run.pk})
    client.force_login(world.users["editor"])
    body = client.get(url).content.decode()
    assert "Request sent (without the API key)" in body
    assert "gpt-test" in body and "/v1/chat/completions" in body
    assert SECRET not in body
    client.force_login(world.users["scorer"])
    response = client.get(url)
    body = response.content.decode()
    assert "Request sent" not in body and "gpt-test" not in body
    assert "Distinct-config-q" not in body
