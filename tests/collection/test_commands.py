"""python manage.py collect: the same units in this process, with a progress bar on stderr."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from probe.models import Experiment, Response, Run
from tests.builders import sheet_text
from tests.collection.conftest import Reply, chat_body, make_config, make_experiment


def test_collect_starts_and_collects_an_experiment(world, simulator):
    configs = [
        make_config(world, label=label, model_name=model, base_url=simulator.base_url)
        for label, model in [
            ("Expert", "sim-expert"),
            ("Cautious", "sim-cautious"),
            ("Sloppy", "sim-sloppy"),
        ]
    ]
    experiment = make_experiment(world, configs, repeats=2, start=False)
    out, err = StringIO(), StringIO()
    call_command("collect", str(experiment.pk), "--jobs", "1", stdout=out, stderr=err)
    experiment.refresh_from_db()
    assert experiment.status == Experiment.Status.COLLECTED
    assert Response.objects.filter(run__experiment=experiment).count() == 18
    assert simulator.count == 6
    progress = err.getvalue()
    assert "[" + "#" * 30 + "] 6/6 units" in progress and "[" + "-" * 30 + "] 0/6 units" in progress
    assert "Collection complete" in out.getvalue() and "Sloppy" in out.getvalue()
    with pytest.raises(CommandError, match="collection complete"):
        call_command("collect", str(experiment.pk), stdout=StringIO(), stderr=StringIO())
    with pytest.raises(CommandError, match="no experiment"):
        call_command("collect", "999999", stdout=StringIO(), stderr=StringIO())


def test_collect_reports_failures_and_retries_them(world, replay, monkeypatch):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", "sk-test")
    good = sheet_text([("429", "HIGH"), ("Retry-After", "HIGH"), ("3.10", "HIGH")])
    replay.play(
        [Reply(401, json.dumps({"error": {"message": "Bad key"}})), Reply(200, chat_body(good))]
    )
    config = make_config(
        world,
        label="Replayed",
        provider="openai_chat",
        model_name="m",
        base_url=replay.base_url,
        api_key_env="BLINDPROBE_TEST_KEY",
    )
    experiment = make_experiment(world, [config], start=False)
    out = StringIO()
    with pytest.raises(CommandError, match="1 run"):
        call_command("collect", str(experiment.pk), "--jobs", "1", stdout=out, stderr=StringIO())
    assert "Bad key" in out.getvalue() and "req_replay_1" in out.getvalue()
    call_command(
        "collect",
        str(experiment.pk),
        "--jobs",
        "1",
        "--retry-failed",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    assert experiment.runs.get().status == Run.Status.COLLECTED


@pytest.mark.django_db(transaction=True)
def test_collect_with_several_jobs_in_threads(world, simulator):
    configs = [
        make_config(world, label=f"Sim {n}", base_url=simulator.base_url, concurrency_limit=2)
        for n in range(2)
    ]
    experiment = make_experiment(world, configs, repeats=2, mode="item", start=False)
    call_command("collect", str(experiment.pk), "--jobs", "4", stdout=StringIO(), stderr=StringIO())
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTED
    assert Response.objects.filter(run__experiment=experiment).count() == 12
    assert simulator.count == 12


def test_collect_reports_items_that_failed_alone_and_retries_them(world, replay, settings):
    settings.PROBE_UNIT_RETRY_SECONDS = 1.5
    settings.PROBE_UNIT_BACKOFF_MAX_SECONDS = 0.3
    down = Reply(503, json.dumps({"error": {"message": "overloaded"}}))
    replay.play([down])
    config = make_config(
        world, label="Replayed", provider="openai_chat", model_name="m", base_url=replay.base_url
    )
    experiment = make_experiment(world, [config], start=False)
    out = StringIO()
    with pytest.raises(CommandError, match="have items that failed"):
        call_command("collect", str(experiment.pk), "--jobs", "1", stdout=out, stderr=StringIO())
    assert "Gave up after" in out.getvalue() and "overloaded" in out.getvalue()
    assert experiment.runs.get().status == Run.Status.COLLECTED
    good = sheet_text([("429", "HIGH"), ("Retry-After", "HIGH"), ("3.10", "HIGH")])
    replay.play([Reply(200, chat_body(good))])
    call_command(
        "collect", str(experiment.pk), "--jobs", "1", "--retry-failed", stdout=StringIO(),
        stderr=StringIO(),
    )  # fmt: skip
    assert Response.objects.filter(run__experiment=experiment).count() == 3
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTED
