"""A unit that keeps failing is retried over a window, then fails alone: the rest of its run is
collected, the run ends collected with that unit named and retryable, and the key stays sealed
until Retry brings the answer or an editor finishes without it (scoring then opens without the
missing answer, as it does for a run closed as failed)."""

import json

import pytest
from django.urls import reverse

from adapters.errors import MAX_RETRIES, RateLimitError, ServerError
from probe.models import Attempt, Experiment, Response, Run
from probe.services import collection, experiments
from scoring.queue.services import assignment_progress, assignment_start
from tests.collection.conftest import Reply, chat_body, collect_all, make_config, make_experiment

OK = Reply(200, chat_body("ANSWER: 42\nCONFIDENCE: HIGH"))
DOWN = Reply(500, json.dumps({"error": {"message": "upstream down", "type": "server_error"}}))


@pytest.fixture
def short_window(settings):
    settings.PROBE_UNIT_RETRY_SECONDS = 60
    settings.PROBE_UNIT_BACKOFF_MAX_SECONDS = 10


def _config(world, replay):
    return make_config(
        world,
        label="Replayed",
        provider="openai_chat",
        model_name="m",
        base_url=replay.base_url + "/v1",
        concurrency_limit=1,
    )


def _item_experiment(world, replay):
    # One request at a time, in item order: item 1 answers, item 2 fails for good, item 3
    # answers; after that every request is item 2's retry.
    replay.play([OK, DOWN, OK, DOWN])
    experiment = make_experiment(world, [_config(world, replay)], mode="item")
    run = experiment.runs.get()
    collection.run_collect(run_pk=run.pk, wait=lambda delay: None)
    run.refresh_from_db()
    return experiment, run


def test_a_unit_failing_for_its_whole_window_fails_alone(world, replay, short_window):
    experiment, run = _item_experiment(world, replay)
    assert run.status == Run.Status.COLLECTED, "the run is not failed by one unit"
    answered = sorted(Response.objects.filter(run=run).values_list("item__position", flat=True))
    assert answered == [1, 3]
    item2 = Attempt.objects.filter(run=run, item__position=2).order_by("number")
    assert item2.count() > MAX_RETRIES + 1, "retried past the retry table's budget"
    assert item2.last().outcome == Attempt.Outcome.FATAL
    assert run.error_message.startswith("Item 2: ") and "Gave up after" in run.error_message
    experiment.refresh_from_db()
    assert experiment.status == Experiment.Status.COLLECTING, "sealed: Retry may bring it"
    # A task that starts again (the sweep) does not ask the given-up unit again.
    before = replay.count
    assert collection.run_collect(run_pk=run.pk, wait=lambda delay: None) == "inactive"
    assert replay.count == before


def test_retry_sends_only_the_failed_unit_and_completes_the_experiment(world, replay, short_window):
    experiment, run = _item_experiment(world, replay)
    replay.play([OK])
    replay.received.clear()
    run = experiments.run_retry(run=run, user=world.users["editor"], queue=False)
    assert run.status == Run.Status.QUEUED and run.error_message == ""
    collection.run_collect(run_pk=run.pk, wait=lambda delay: None)
    assert replay.count == 1, "only item 2 was sent again"
    run.refresh_from_db()
    assert run.status == Run.Status.COLLECTED and run.responses.count() == 3
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTED


def test_finishing_without_the_failed_unit_opens_scoring_without_it(world, replay, short_window):
    experiment, run = _item_experiment(world, replay)
    experiments.experiment_finish(experiment=experiment, user=world.users["editor"])
    experiment.refresh_from_db()
    assert experiment.status == Experiment.Status.COLLECTED
    assignment = assignment_start(experiment=experiment, user=world.users["scorer"])
    assert assignment_progress(assignment) == (0, 2), "two answers to score, none invented"


def test_the_page_names_the_failed_items_and_offers_retry(client, world, replay, short_window):
    experiment, run = _item_experiment(world, replay)
    client.force_login(world.users["editor"])
    url = reverse("probe:experiment_detail", kwargs={"experiment_pk": experiment.pk})
    page = client.get(url).content.decode()
    start = page.index(f'id="run-{run.order}"')
    row = page[start : page.index("</tr>", start)]
    assert "Collected, 1 item failed" in row and "Item 2: " in row
    assert "Retry the failed items" in row
    assert "1 item could not be collected" in page and "Finish collecting" in page
    assert "upstream down" not in _scorer_page(client, world, url)


def _scorer_page(client, world, url) -> str:
    client.force_login(world.users["scorer"])
    return client.get(url).content.decode()


def test_sheet_mode_a_failed_sheet_request_is_retryable_too(world, replay, short_window):
    replay.play([DOWN])
    experiment = make_experiment(world, [_config(world, replay)])
    collect_all(experiment)
    run = experiment.runs.get()
    assert run.status == Run.Status.COLLECTED and run.responses.count() == 0
    assert "Gave up after" in run.error_message
    replay.play([Reply(200, chat_body("1. ANSWER: 429\nCONFIDENCE: HIGH"))])
    experiments.run_retry(run=run, user=None, queue=False)
    collect_all(experiment)
    assert experiment.runs.get().responses.count() == 3


def test_a_refused_request_still_fails_the_run_at_once(world, replay, short_window):
    """A 400 is the request itself: every unit would get it, so the run fails, unretried."""
    replay.play([OK, Reply(400, json.dumps({"error": {"message": "bad field", "type": "x"}}))])
    experiment = make_experiment(world, [_config(world, replay)], mode="item")
    run = experiment.runs.get()
    collection.run_collect(run_pk=run.pk, wait=lambda delay: None)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and "Item 2: " in run.error_message
    assert Attempt.objects.filter(run=run, item__position=2).count() == 1, "not retried"


# The window and the backoff -----------------------------------------------------------------


def test_backoff_doubles_to_its_cap_and_stops_at_the_window(settings):
    settings.PROBE_UNIT_RETRY_SECONDS = 100
    settings.PROBE_UNIT_BACKOFF_MAX_SECONDS = 30
    error = ServerError("down", status=500)
    delays = [collection.unit_retry_delay(error, n, 0, rng=lambda: 0) for n in range(8)]
    assert delays == [0.5, 1, 2, 4, 8, 16, 30, 30]
    assert collection.unit_retry_delay(error, 3, 96, rng=lambda: 0) == 4, "ends at the window"
    assert collection.unit_retry_delay(error, 3, 97, rng=lambda: 0) is None, "past the window"
    assert collection.unit_retry_delay(error, 3, 97.5, rng=lambda: 1) is None  # 3 s, jittered


def test_the_servers_delay_is_honoured_within_the_window(settings):
    settings.PROBE_UNIT_RETRY_SECONDS = 600
    settings.PROBE_UNIT_BACKOFF_MAX_SECONDS = 30
    slow_down = RateLimitError("slow down", status=429, retry_after=300)
    assert collection.unit_retry_delay(slow_down, 0, 0, rng=lambda: 0) == 300
    assert collection.unit_retry_delay(slow_down, 0, 400, rng=lambda: 0) is None
    at_once = RateLimitError("slow down", status=429, retry_after=0.2)
    assert collection.unit_retry_delay(at_once, 0, 0, rng=lambda: 0) == 0.2
    # Past the retry table's attempts a server saying "at once" is not hammered.
    assert collection.unit_retry_delay(at_once, MAX_RETRIES + 2, 0, rng=lambda: 0) == 30
