"""The experiment page during collection, in a browser: a stalled run says so and offers Retry,
and the page keeps watching until the run moves again."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from adapters.simulator_server import start_simulator_in_thread
from probe.models import Run
from probe.services import collection
from tests.collection.conftest import WORLD_KNOWLEDGE, collect_all, make_config, make_experiment
from tests.replay import allow_loopback_port

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture
def simulator_url():
    server, base_url = start_simulator_in_thread(WORLD_KNOWLEDGE, latency_scale=0)
    allow_loopback_port(base_url)
    yield base_url
    server.stop()


def test_a_stalled_run_is_shown_with_retry(live_server, page, world, simulator_url, monkeypatch):
    ARTIFACTS.mkdir(exist_ok=True)
    sent = []
    monkeypatch.setattr(collection.dispatch, "send_run", lambda run_pk: sent.append(run_pk) or True)
    configs = [
        make_config(world, label=label, model_name=model, base_url=simulator_url)
        for label, model in [("Expert", "sim-expert"), ("Sloppy", "sim-sloppy")]
    ]
    experiment = make_experiment(world, configs, repeats=1, mode="item")
    first, stalled = experiment.runs.order_by("order")
    collection.collect_unit_sync(run_pk=first.pk, sleep=lambda s: None)
    then = timezone.now() - timedelta(minutes=7)
    items = list(experiment.items.order_by("position"))
    collection.collect_unit_sync(run_pk=stalled.pk, item_pk=items[0].pk, sleep=lambda s: None)
    # Its worker died seven minutes ago with two items to go.
    Run.objects.filter(pk=stalled.pk).update(
        status=Run.Status.RUNNING, queued_at=then, progress_at=then, lease_expires=then
    )

    page.goto(live_server.url + "/")
    page.get_by_label("Username").fill("acme-editor")
    page.get_by_label("Password").fill("correct horse battery staple")
    page.get_by_label("Password").press("Enter")
    expect(page.get_by_role("heading", name="Acme probes")).to_be_visible()
    page.goto(f"{live_server.url}/experiments/{experiment.pk}/")
    row = page.locator(f"#run-{stalled.order}")
    expect(row.get_by_text("Stalled", exact=True)).to_be_visible()
    expect(row).to_contain_text("no worker is working on it")
    expect(row).not_to_contain_text("Collecting")
    # Nothing works on the experiment either: its badge does not claim "Collecting".
    expect(page.locator(".progress-head .badge")).to_have_text("Stalled")
    expect(page.get_by_text("1 run has made no progress for a while")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "experiment_stalled_run.png"), full_page=True)

    row.get_by_role("button", name="Retry").click()
    expect(page.get_by_text("Run queued again.")).to_be_visible()
    expect(row.get_by_text("Queued: waiting for a worker")).to_be_visible()
    assert sent == [stalled.pk]
    collect_all(experiment)  # a worker takes it; the polling page follows
    expect(row.get_by_text("Collected", exact=True)).to_be_visible(timeout=10_000)


def test_manual_runs_end_when_the_editor_finishes(live_server, page, world):
    """Every reply pasted before Start: the page does not sit at "Ready to collect", offers
    Finish collecting, asks to confirm, and only then opens the key."""
    ARTIFACTS.mkdir(exist_ok=True)
    config = make_config(world, label="Chat window", provider="manual", model_name="chat")
    experiment = make_experiment(world, [config], repeats=2, start=False)
    reply = "1. ANSWER: 429\nCONFIDENCE: HIGH\n2. ANSWER: Retry-After\nCONFIDENCE: HIGH"
    for run in experiment.runs.all():
        collection.run_paste(run=run, user=world.users["editor"], text=reply)

    page.goto(live_server.url + "/")
    page.get_by_label("Username").fill("acme-editor")
    page.get_by_label("Password").fill("correct horse battery staple")
    page.get_by_label("Password").press("Enter")
    expect(page.get_by_role("heading", name="Acme probes")).to_be_visible()
    page.goto(f"{live_server.url}/experiments/{experiment.pk}/")
    # Nothing is being collected: the badge says who moves it on, not "Collecting".
    badge = page.locator(".progress-head .badge")
    expect(badge).to_have_text("Every run in: waiting for an editor to finish")
    expect(page.get_by_text("Every run is in.")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "experiment_finish_collecting.png"), full_page=True)

    page.once("dialog", lambda dialog: dialog.dismiss())  # the editor has second thoughts
    page.get_by_role("button", name="Finish collecting").click()
    expect(page.get_by_role("button", name="Finish collecting")).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Finish collecting").click()
    expect(page.get_by_text("Collection finished: the key is open.")).to_be_visible()
    expect(page.locator(".progress-head .badge")).to_have_text("Collection complete")
