"""Collecting units over real HTTP: idempotency, retries, fatal errors, bad bodies, cancel, retry, close."""

import json

import pytest
from django.core.exceptions import ValidationError

from adapters.errors import MAX_RETRIES
from probe.models import Attempt, Experiment, Response, Run
from probe.services import collection, experiments
from probe.tasks import collect_run, collect_unit
from tests.builders import sheet_text
from tests.collection.conftest import (
    Reply,
    chat_body,
    collect_all,
    make_config,
    make_experiment,
)
from tests.keyreading import says_the_key
from tests.replay import allow_loopback_port

GOOD_SHEET = sheet_text([("429", "HIGH"), ("Retry-After", "MEDIUM"), ("3.10", "LOW")])
SECRET = "sk-test-never-shown-0123456789abcdef"


def _openai_config(world, replay, *, label="Replayed", env="BLINDPROBE_TEST_KEY"):
    return make_config(
        world,
        label=label,
        provider="openai_chat",
        model_name="gpt-test",
        base_url=replay.base_url,
        api_key_env=env,
    )


def _run(experiment) -> Run:
    return experiment.runs.get()


def test_the_task_called_twice_asks_the_provider_once(world, simulator):
    config = make_config(world, label="Sim expert", base_url=simulator.base_url)
    experiment = make_experiment(world, [config])
    run = _run(experiment)
    assert collect_run(run_pk=run.pk) == "done"
    assert collect_run(run_pk=run.pk) == "inactive"  # a redelivery: nothing left to do
    assert simulator.count == 1
    assert Response.objects.filter(run=run).count() == 3
    assert run.attempts.count() == 1
    run.refresh_from_db()
    experiment.refresh_from_db()
    assert run.status == Run.Status.COLLECTED and run.compliance == 1.0
    assert experiment.status == Experiment.Status.COLLECTED and experiment.collection_finished


def test_a_redelivery_after_the_reply_but_before_the_responses_parses_the_stored_reply(
    world, simulator
):
    config = make_config(world, label="Sim expert", base_url=simulator.base_url)
    experiment = make_experiment(world, [config], mode="item")
    run = _run(experiment)
    items = list(experiment.items.order_by("position"))
    collect_run(run_pk=run.pk)
    assert simulator.count == 3
    # The worker died after storing the attempt and before the responses: replay that state.
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)
    Experiment.objects.filter(pk=experiment.pk).update(status=Experiment.Status.COLLECTING)
    Response.objects.filter(run=run, item=items[1]).delete()
    collect_run(run_pk=run.pk)
    assert simulator.count == 3, "a unit whose call succeeded must not be asked again"
    assert Response.objects.filter(run=run).count() == 3
    assert Run.objects.get(pk=run.pk).status == Run.Status.COLLECTED


def test_the_text_sent_is_the_exact_text_shown(world, replay, monkeypatch):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    replay.play([Reply(200, chat_body(GOOD_SHEET))])
    experiment = make_experiment(world, [_openai_config(world, replay)])
    collect_all(experiment)
    [(_, shown)] = experiments.experiment_prompts(experiment)
    sent = replay.received[0]
    path, headers, payload = sent.target, sent.headers, sent.json()
    assert payload["messages"] == [{"role": "user", "content": shown}]
    assert "tools" not in payload
    # The key went in the header and nowhere else.
    headers = {k.lower(): v for k, v in headers.items()}
    assert headers.get("authorization") == f"Bearer {SECRET}"
    assert SECRET not in path
    run = _run(experiment)
    stored = [run.error_message, run.error_request_id, json.dumps(run.config_snapshot)]
    for attempt in run.attempts.all():
        stored += [attempt.raw_body, attempt.text, attempt.error_message, attempt.request_id]
    assert not any(SECRET in text for text in stored)


def test_429_with_retry_after_then_200_is_collected_with_two_attempts(world, replay, monkeypatch):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    rate_limited = json.dumps(
        {"error": {"message": "Slow down", "type": "requests", "code": "rate_limit_exceeded"}}
    )
    replay.play([Reply(429, rate_limited, {"retry-after": "1"}), Reply(200, chat_body(GOOD_SHEET))])
    experiment = make_experiment(world, [_openai_config(world, replay)])
    sleeps = collect_all(experiment)
    run = _run(experiment)
    assert sleeps == [1.0], "the server's delay is obeyed"
    assert replay.count == 2
    attempts = list(run.attempts.order_by("number"))
    assert [a.outcome for a in attempts] == [Attempt.Outcome.RETRYABLE, Attempt.Outcome.COMPLETE]
    assert attempts[0].http_status == 429 and attempts[0].retry_after == 1.0
    assert attempts[0].request_id == "req_replay_1" and "Slow down" in attempts[0].error_message
    assert attempts[1].input_tokens == 120 and attempts[1].output_tokens == 30
    run.refresh_from_db()
    assert run.status == Run.Status.COLLECTED
    assert list(run.responses.order_by("item__position").values_list("answer", "confidence")) == [
        ("429", "HIGH"),
        ("Retry-After", "MEDIUM"),
        ("3.10", "LOW"),
    ]


def test_the_flaky_simulated_model_is_collected_through_its_errors(world, simulator):
    configs = [
        make_config(world, label=f"Flaky {n}", model_name="sim-flaky", base_url=simulator.base_url)
        for n in range(3)
    ]
    experiment = make_experiment(world, configs, repeats=2, mode="item")
    collect_all(experiment)
    experiment.refresh_from_db()
    assert experiment.status == Experiment.Status.COLLECTED
    assert Response.objects.filter(run__experiment=experiment).count() == 18
    retried = Attempt.objects.filter(run__experiment=experiment, outcome=Attempt.Outcome.RETRYABLE)
    assert retried.exists(), "about 30% of sim-flaky's requests fail; some must have been retried"
    assert simulator.count == Attempt.objects.filter(run__experiment=experiment).count()


def test_401_fails_the_run_with_the_message_and_request_id(world, replay, monkeypatch):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    body = json.dumps(
        {
            "error": {
                "message": "Incorrect API key provided",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
        }
    )
    replay.play([Reply(401, body)])
    experiment = make_experiment(world, [_openai_config(world, replay)])
    assert collect_all(experiment) == []
    run = _run(experiment)
    assert replay.count == 1
    assert run.status == Run.Status.FAILED
    assert "401" in run.error_message and "Incorrect API key provided" in run.error_message
    assert run.error_request_id == "req_replay_1"
    attempt = run.attempts.get()
    assert attempt.outcome == Attempt.Outcome.FATAL and attempt.raw_body == body
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTING


def test_a_missing_key_variable_fails_before_any_request(world, replay, monkeypatch):
    monkeypatch.delenv("BLINDPROBE_UNSET_KEY", raising=False)
    replay.play([Reply(200, chat_body(GOOD_SHEET))])
    config = make_config(
        world,
        label="Real API",
        provider="openai_chat",
        model_name="gpt-test",
        base_url="https://api.openai.com/v1",
        api_key_env="BLINDPROBE_UNSET_KEY",
    )
    local = _openai_config(world, replay, label="Local with key", env="BLINDPROBE_UNSET_KEY")
    experiment = make_experiment(world, [config, local])
    collect_all(experiment)
    assert replay.count == 0
    for run in experiment.runs.all():
        assert run.status == Run.Status.FAILED
        assert "BLINDPROBE_UNSET_KEY" in run.error_message
        assert not run.attempts.exists()


def test_a_closed_port_is_retried_for_the_window_then_fails_alone(world, closed_port, settings):
    """Longer than the retry table's six attempts: retried with backoff for the whole window,
    then the unit fails, not the run: it ends collected, the unit retryable."""
    settings.PROBE_UNIT_RETRY_SECONDS = 60
    config = make_config(
        world,
        label="Nowhere",
        provider="openai_chat",
        model_name="local",
        base_url=f"http://127.0.0.1:{closed_port}/v1",
    )
    experiment = make_experiment(world, [config])
    sleeps = collect_all(experiment)
    run = _run(experiment)
    assert len(sleeps) > MAX_RETRIES, "more than the six attempts that used to fail the run"
    assert sum(sleeps) <= 60 and max(sleeps) <= settings.PROBE_UNIT_BACKOFF_MAX_SECONDS
    assert sleeps[:3] == sorted(sleeps[:3]), "backoff grows"
    attempts = list(run.attempts.order_by("number"))
    assert len(attempts) == len(sleeps) + 1
    assert all(a.outcome == Attempt.Outcome.RETRYABLE for a in attempts[:-1])
    assert attempts[-1].outcome == Attempt.Outcome.FATAL
    assert all(a.error_kind == "transport" and a.http_status is None for a in attempts)
    assert run.status == Run.Status.COLLECTED, "the unit failed, not the run"
    assert "could not reach 127.0.0.1" in run.error_message
    assert f"Gave up after {len(attempts)} attempts in" in run.error_message
    experiment.refresh_from_db()
    assert experiment.status == Experiment.Status.COLLECTING, "the key stays sealed"
    assert experiments.run_retry(run=run, user=None, queue=False).status == Run.Status.QUEUED


@pytest.mark.parametrize(
    "reply, says",
    [
        (
            Reply(
                200,
                "<html><head><title>502 Bad Gateway</title></head></html>",
                {"content-type": "text/html"},
            ),
            "HTML page",
        ),
        (Reply(200, ""), "empty body"),
        (Reply(200, "\x00\x01 not json at all"), "not JSON"),
        (Reply(200, json.dumps({"error": {"message": "Key revoked", "code": 401}})), "Key revoked"),
        (Reply(200, json.dumps({"choices": "nope"})), "no "),
    ],
    ids=["html", "empty", "garbage", "200-with-error", "wrong-shape"],
)
def test_a_bad_body_ends_in_a_clear_failed_state(world, replay, monkeypatch, reply, says):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    replay.play([reply])
    experiment = make_experiment(world, [_openai_config(world, replay)])
    collect_all(experiment)
    run = _run(experiment)
    assert run.status == Run.Status.FAILED
    assert says in run.error_message
    assert run.error_request_id == "req_replay_1"
    attempt = run.attempts.get()
    # Kept whatever it is (a NUL, which PostgreSQL text cannot hold, as the symbol ␀).
    assert attempt.raw_body == reply.body.replace("\x00", "\u2400")
    assert not run.responses.exists()


def test_a_sheet_in_the_wrong_language_is_collected_with_every_item_missing(
    world, replay, monkeypatch
):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    french = "Réponse : 429\nConfiance : HAUTE\n\nRéponse : Retry-After\nConfiance : MOYENNE"
    replay.play([Reply(200, chat_body(french))])
    experiment = make_experiment(world, [_openai_config(world, replay)])
    collect_all(experiment)
    run = _run(experiment)
    assert run.status == Run.Status.COLLECTED and run.compliance == 0.0
    assert list(run.responses.values_list("answer", flat=True)) == [None, None, None]
    assert all(r.issues == ["missing"] for r in run.responses.all())
    assert run.attempts.get().text == french


def test_a_truncated_reply_is_kept_and_not_retried(world, replay, monkeypatch):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    cut = "1. ANSWER: 429\nCONFIDENCE: HIGH\n2. ANSWER: Retry"
    replay.play([Reply(200, chat_body(cut, finish_reason="length"))])
    experiment = make_experiment(world, [_openai_config(world, replay)])
    collect_all(experiment)
    run = _run(experiment)
    assert replay.count == 1
    assert run.attempts.get().outcome == Attempt.Outcome.TRUNCATED
    assert run.status == Run.Status.COLLECTED
    answers = dict(run.responses.values_list("item__position", "answer"))
    assert answers[1] == "429" and answers[3] is None


def test_cancelled_runs_are_skipped(world, simulator):
    config = make_config(world, label="Sim expert", base_url=simulator.base_url)
    experiment = make_experiment(world, [config], repeats=2)
    first, second = experiment.runs.order_by("order")
    experiments.run_cancel(run=first, user=world.users["editor"])
    collect_run(run_pk=first.pk)
    collect_run(run_pk=second.pk)
    assert simulator.count == 1
    assert Run.objects.get(pk=first.pk).status == Run.Status.CANCELLED
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTING
    with pytest.raises(ValidationError):
        experiments.run_cancel(run=second, user=None)  # already collected

    experiments.experiment_cancel(experiment=experiment, user=world.users["editor"])
    experiment.refresh_from_db()
    assert experiment.status == Experiment.Status.CANCELLED
    assert Run.objects.get(pk=second.pk).status == Run.Status.COLLECTED  # collected answers kept
    with pytest.raises(ValidationError):
        experiments.run_retry(run=first, user=None)
    with pytest.raises(ValidationError):
        experiments.experiment_start(experiment=experiment, user=None)


def test_a_failed_run_is_retried_keeping_its_attempts(world, replay, monkeypatch):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    replay.play(
        [
            Reply(403, json.dumps({"error": {"message": "Not allowed today"}})),
            Reply(200, chat_body(GOOD_SHEET)),
        ]
    )
    experiment = make_experiment(world, [_openai_config(world, replay)])
    collect_all(experiment)
    run = _run(experiment)
    assert run.status == Run.Status.FAILED
    experiments.run_retry(run=run, user=world.users["editor"], queue=False)
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED and run.error_message == ""
    collect_all(experiment)
    run.refresh_from_db()
    assert run.status == Run.Status.COLLECTED
    assert [a.outcome for a in run.attempts.order_by("pk")] == ["fatal", "complete"]
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTED


def test_retrying_a_per_item_run_asks_only_for_the_items_without_a_response(
    world, replay, monkeypatch
):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)

    def script(index):
        # The second request (item 2) is refused the first time; every other request answers.
        if index == 1:
            return Reply(400, json.dumps({"error": {"message": "Bad item"}}))
        return Reply(200, chat_body("ANSWER: something\nCONFIDENCE: LOW"))

    replay.play([script])
    experiment = make_experiment(world, [_openai_config(world, replay)], mode="item")
    collect_all(experiment)
    run = _run(experiment)
    assert run.status == Run.Status.FAILED and run.error_message.startswith("Item 2:")
    # Item 3's unit found its run failed and did not ask.
    assert run.responses.count() == 1 and replay.count == 2
    experiments.run_retry(run=run, user=None, queue=False)
    missing = list(
        experiment.items.filter(position__in=[2, 3])
        .order_by("position")
        .values_list("pk", flat=True)
    )
    assert collection.run_units(Run.objects.get(pk=run.pk)) == missing
    collect_all(experiment)
    assert replay.count == 4
    assert Run.objects.get(pk=run.pk).status == Run.Status.COLLECTED
    assert run.responses.count() == 3


def test_closing_a_failed_run_lets_the_experiment_complete(world, replay, simulator, monkeypatch):
    monkeypatch.setenv("BLINDPROBE_TEST_KEY", SECRET)
    replay.play([Reply(404, json.dumps({"error": {"message": "No such model"}}))])
    good = make_config(world, label="Sim expert", base_url=simulator.base_url)
    experiment = make_experiment(world, [good, _openai_config(world, replay)])
    collect_all(experiment)
    failed = experiment.runs.get(status=Run.Status.FAILED)
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTING
    with pytest.raises(ValidationError):
        experiments.run_close_failed(
            run=experiment.runs.get(status=Run.Status.COLLECTED), user=None
        )
    experiments.run_close_failed(run=failed, user=world.users["owner"])
    assert Run.objects.get(pk=failed.pk).status == Run.Status.CLOSED
    experiment.refresh_from_db()
    assert experiment.status == Experiment.Status.COLLECTED and experiment.collection_complete


def test_reparse_redoes_parsing_from_the_stored_text_in_place(world, simulator):
    config = make_config(
        world, label="Sloppy", model_name="sim-sloppy", base_url=simulator.base_url
    )
    experiment = make_experiment(world, [config])
    collect_all(experiment)
    run = _run(experiment)
    before = {r.pk: (r.answer, r.confidence, r.issues) for r in run.responses.all()}
    run.responses.update(answer="tampered", confidence="", issues=["parser_error"])
    assert collection.run_reparse(run=run) == 3
    after = {r.pk: (r.answer, r.confidence, r.issues) for r in run.responses.all()}
    assert after == before, "same rows (same ids), same parse as the first time"
    assert simulator.count == 1


def test_a_full_limit_is_waited_for_without_a_provider_attempt_or_a_message(world, simulator):
    """The slot is held elsewhere for 0.6 s: the collector waits for it in place (no attempt,
    no task sent again) and sends each request once the slot is free."""
    import threading
    import time

    from probe import limits

    config = make_config(world, label="Sim", base_url=simulator.base_url, concurrency_limit=1)
    experiment = make_experiment(world, [config], mode="item")
    run = _run(experiment)
    key = limits.limit_key(run.config_snapshot)
    held = limits.get_limiter().try_acquire(key, 1)
    threading.Timer(0.6, held.release).start()
    started = time.monotonic()
    assert collection.run_collect(run_pk=run.pk) == "done"
    assert time.monotonic() - started >= 0.55
    run.refresh_from_db()
    assert run.status == Run.Status.COLLECTED
    assert simulator.count == 3 and run.attempts.count() == 3, "one request per item, no more"
    assert run.enqueued_at is None, "waiting for a slot sends no message"


def test_a_task_leaves_a_run_another_worker_holds(world, simulator, settings):
    """A duplicate (redelivered) task finds the run's lease held by a live worker and leaves
    without a request; once that lease has run out (a dead worker), a task takes the run over."""
    import time

    settings.PROBE_RUN_LEASE_SECONDS = 0.5
    config = make_config(world, label="Sim", base_url=simulator.base_url)
    experiment = make_experiment(world, [config])
    run = _run(experiment)
    token = collection.lease_take(run.pk)
    assert token is not None
    assert collection.lease_take(run.pk) is None, "one holder at a time"
    assert collection.run_collect(run_pk=run.pk) == "busy"
    assert simulator.count == 0
    time.sleep(0.6)  # the holder died: it stopped renewing
    assert collect_run(run_pk=run.pk) == "done"
    assert simulator.count == 1
    assert _run(experiment).status == Run.Status.COLLECTED


def test_the_task_waits_out_a_dead_holders_lease(world, simulator, settings):
    """A holder that stopped renewing (killed a moment ago): the task waits for its lease to
    lapse, then collects, rather than leave the run to the next sweep."""
    import time

    settings.PROBE_RUN_LEASE_SECONDS = 0.9
    config = make_config(world, label="Sim", base_url=simulator.base_url)
    experiment = make_experiment(world, [config])
    run = _run(experiment)
    assert collection.lease_take(run.pk) is not None  # and never renewed
    time.sleep(0.7)  # two renewal periods (0.3 s each) without a renewal
    assert not collection.lease_holder_live(run.pk)
    assert collect_run(run_pk=run.pk) == "done"
    assert simulator.count == 1


def test_a_duplicate_of_a_live_holders_task_leaves_at_once(world, simulator):
    """The sweep or a Retry sent the run again while a worker collects it: the second task
    does not occupy a worker process waiting for the lease."""
    import time

    config = make_config(world, label="Sim", base_url=simulator.base_url)
    experiment = make_experiment(world, [config])
    run = _run(experiment)
    token = collection.lease_take(run.pk)
    assert collection.lease_renew(run.pk, token, {"in_flight": 1})
    started = time.monotonic()
    assert collect_run(run_pk=run.pk) == "busy"
    assert time.monotonic() - started < 0.5
    assert simulator.count == 0


def test_a_message_of_the_earlier_per_unit_task_collects_the_run(world, simulator):
    """Messages queued before an upgrade name one unit; the old task name collects the run."""
    config = make_config(world, label="Sim expert", base_url=simulator.base_url)
    experiment = make_experiment(world, [config], mode="item")
    run = _run(experiment)
    collect_unit(run_pk=run.pk, item_pk=experiment.items.first().pk)
    assert simulator.count == 3 and _run(experiment).status == Run.Status.COLLECTED


@pytest.mark.django_db(transaction=True)
def test_a_cancel_stops_a_run_being_collected_within_seconds(world):
    """Cancelled from the page (another connection) while its task sends: no new request is
    started after the next lease renewal, and the replies of those in flight are kept."""
    import threading
    import time

    from tests.collection.processes import FaultServer
    from tests.probe import factories

    server = FaultServer(latency=0.2).start()
    bank = factories.BankFactory(team=world.team, name="Long bank")
    block = factories.BlockFactory(bank=bank, code="L", title="Long", order=1)
    for n in range(1, 101):
        factories.ItemFactory(block=block, question=f"Long question {n}?", order=n)
    config = make_config(
        world, label="Slow", provider="openai_chat", model_name="slow",
        base_url=server.base_url, concurrency_limit=2,
    )  # fmt: skip
    experiment = experiments.experiment_create(
        team=world.team, user=None, bank=bank, prompt_version=world.prompt,
        configs=[config], repeats=1, mode="item",
    )  # fmt: skip
    experiments.experiment_start(experiment=experiment, user=None, queue=False)
    run = _run(experiment)

    def cancel():
        from django.db import connection

        experiments.run_cancel(run=run, user=None)
        connection.close()

    threading.Timer(1.0, cancel).start()
    started = time.monotonic()
    try:
        assert collection.run_collect(run_pk=run.pk) == "stopped"
    finally:
        server.stop()
    assert time.monotonic() - started < 1.0 + collection.RENEW_AT_MOST_EVERY + 1.0
    assert _run(experiment).status == Run.Status.CANCELLED
    assert server.requests < 40, f"{server.requests} requests: it went on after the cancel"
    assert run.attempts.count() == server.requests, "the replies in flight were kept"


def test_simulated_models_answer_from_the_bank_of_the_experiment(world):
    """A bank imported today, a simulator that knows nothing of it: the simulated models still
    know a share of its key, because the experiment's key travels with the request."""
    from pathlib import Path

    from adapters.simulator_server import start_simulator_in_thread
    from probe import bankformat
    from probe.services.banks import bank_import

    demo = Path(bankformat.__file__).parents[1] / "demo" / "demo_bank.txt"
    bank = bank_import(team=world.team, user=None, data=bankformat.load(demo.read_bytes()))
    server, base_url = start_simulator_in_thread({"items": []}, latency_scale=0)
    allow_loopback_port(base_url)
    try:
        configs = [
            make_config(world, label="Expert", model_name="sim-expert", base_url=base_url),
            make_config(world, label="Cautious", model_name="sim-cautious", base_url=base_url),
        ]
        experiment = experiments.experiment_create(
            team=world.team,
            user=world.users["editor"],
            bank=bank,
            prompt_version=world.prompt,
            configs=configs,
            repeats=1,
            mode="sheet",
            seed=11,
        )
        experiment = experiments.experiment_start(
            experiment=experiment, user=world.users["editor"], queue=False
        )
        collect_all(experiment)
    finally:
        server.stop()
    right = {}
    for run in experiment.runs.select_related("model_config"):
        responses = Response.objects.filter(run=run).select_related("item")
        right[run.model_config.label] = sum(
            1 for r in responses if says_the_key(r.answer or "", r.item.key_answer)
        )
        assert responses.count() == 30
    assert right["Expert"] >= 20 and 5 <= right["Cautious"] < right["Expert"]
