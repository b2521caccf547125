"""The sweep queues again what nothing works on, and the pages say honestly what a run is doing.

Time is moved by dating the run's bookkeeping back (queued, last progress, lease expiry), as if
the worker had died that long ago; the sweep and the pages read the same fields.
"""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from probe.models import Experiment, Run
from probe.services import collection
from probe.templatetags.time_tags import when_text
from tests.collection.conftest import collect_all, make_config, make_experiment

LONG_AGO = timedelta(minutes=10)


@pytest.fixture
def sent(monkeypatch):
    """The runs the sweep (or Retry) sends to the broker, in order."""
    runs: list[int] = []
    monkeypatch.setattr(collection.dispatch, "send_run", lambda run_pk: runs.append(run_pk) or True)
    return runs


def _age(run, **fields) -> None:
    Run.objects.filter(pk=run.pk).update(**fields)
    run.refresh_from_db()


def _started(world, simulator, **options):
    config = make_config(world, label="Sim", base_url=simulator.base_url, **options)
    experiment = make_experiment(world, [config], repeats=2)
    return experiment, list(experiment.runs.order_by("order"))


def test_the_sweep_queues_again_a_run_nobody_works_on(world, simulator, sent):
    experiment, (dead, fresh) = _started(world, simulator)
    then = timezone.now() - LONG_AGO
    # The worker died ten minutes ago: its lease ran out, nothing was sent since.
    _age(dead, queued_at=then, enqueued_at=then, progress_at=then, lease_expires=then)
    _age(fresh, queued_at=then, enqueued_at=timezone.now())  # a task is on its way
    assert collection.sweep_stale_runs()["requeued"] == [dead.pk]
    assert sent == [dead.pk]


def test_the_sweep_leaves_a_run_whose_lease_is_live(world, simulator, sent):
    experiment, (held, _other) = _started(world, simulator)
    then = timezone.now() - LONG_AGO
    Run.objects.filter(experiment=experiment).update(queued_at=then, enqueued_at=then)
    token = collection.lease_take(held.pk)
    assert token is not None
    assert collection.sweep_stale_runs()["requeued"] == [_other.pk]
    assert collection.lease_renew(held.pk, token, {"in_flight": 1})


def test_the_sweep_leaves_manual_runs_and_finished_experiments(world, simulator, sent):
    manual = make_config(world, label="Chat", provider="manual", model_name="chat")
    experiment = make_experiment(world, [manual])
    Run.objects.filter(experiment=experiment).update(status=Run.Status.RUNNING)
    api, _runs = _started(world, simulator)
    Experiment.objects.filter(pk=api.pk).update(status=Experiment.Status.CANCELLED)
    assert collection.sweep_stale_runs() == {"requeued": [], "rolled_up": []}
    assert sent == []


def test_a_run_answered_but_never_rolled_up_is_rolled_up(world, simulator, sent):
    """The worker died between writing the last responses and marking the run collected."""
    experiment, runs = _started(world, simulator)
    collect_all(experiment)
    then = timezone.now() - LONG_AGO
    Run.objects.filter(experiment=experiment).update(
        status=Run.Status.RUNNING, progress_at=then, queued_at=then
    )
    Experiment.objects.filter(pk=experiment.pk).update(status=Experiment.Status.COLLECTING)
    result = collection.sweep_stale_runs()
    assert sorted(result["rolled_up"]) == sorted(r.pk for r in runs) and sent == []
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTED


def test_the_sweeps_task_is_what_beat_runs(settings):
    from probe.tasks import sweep_collection

    schedule = settings.CELERY_BEAT_SCHEDULE["sweep-collection"]
    assert schedule["task"] == sweep_collection.name
    assert schedule["schedule"] == settings.PROBE_SWEEP_SECONDS


# What the experiment page says -----------------------------------------------------------------


def _page(client, world, experiment, role="editor") -> str:
    client.force_login(world.users[role])
    url = reverse("probe:experiment_detail", kwargs={"experiment_pk": experiment.pk})
    return client.get(url, headers={"HX-Request": "true", "HX-Target": "experiment-progress"})


def _row(page: str, run: Run) -> str:
    start = page.index(f'id="run-{run.order}"')
    return page[start : page.index("</tr>", start)]


def test_a_run_nothing_works_on_shows_as_stalled_with_retry(
    client, world, simulator, sent, django_capture_on_commit_callbacks
):
    experiment, (dead, fresh) = _started(world, simulator)
    then = timezone.now() - LONG_AGO
    _age(dead, status=Run.Status.RUNNING, queued_at=then, progress_at=then, lease_expires=then)
    page = _page(client, world, experiment).content.decode()
    row = _row(page, dead)
    assert "Stalled" in row and "Collecting" not in row
    assert "No progress since <time" in row and f">{when_text(then)}</time>" in row
    assert "no worker is working on it" in row
    retry = reverse("probe:run_retry", kwargs={"run_pk": dead.pk})
    assert f'hx-post="{retry}"' in row
    assert "1 run has made no progress for a while" in page
    # The fresh run has just been queued: waiting for a worker, not "Collecting" either.
    assert "Queued: waiting for a worker" in _row(page, fresh)
    assert 'hx-trigger="load delay:2s"' in page, "keeps polling: the sweep may bring it back"

    with django_capture_on_commit_callbacks(execute=True):
        fragment = client.post(retry, headers={"HX-Request": "true"}).content.decode()
    assert "Run queued again." in fragment
    assert sent == [dead.pk]
    dead.refresh_from_db()
    assert dead.queued_at > then, "its retries are counted afresh"
    assert "Stalled" not in _row(fragment, dead)


def test_a_held_run_that_does_not_move_says_why(client, world, simulator, sent):
    experiment, (busy, waiting) = _started(world, simulator)
    then = timezone.now() - LONG_AGO
    token = collection.lease_take(busy.pk)
    collection.lease_renew(
        busy.pk, token, {"in_flight": 0, "retry_wait": 1, "last_error": "HTTP 503: overloaded"}
    )
    _age(busy, progress_at=then, queued_at=then, started_at=then)
    row = _row(_page(client, world, experiment).content.decode(), busy)
    assert "Stalled" in row and "the provider keeps failing" in row and "HTTP 503" in row
    # While requests are in flight it is collecting, however long ago the last answer came.
    collection.lease_renew(busy.pk, token, {"in_flight": 3})
    row = _row(_page(client, world, experiment).content.decode(), busy)
    assert "Collecting" in row and "Stalled" not in row


def test_a_blind_scorer_sees_stalled_without_the_reason(client, world, simulator, sent):
    experiment, (busy, _waiting) = _started(world, simulator)
    then = timezone.now() - LONG_AGO
    token = collection.lease_take(busy.pk)
    collection.lease_renew(busy.pk, token, {"last_error": "sim-expert said 503"})
    _age(busy, progress_at=then, queued_at=then, started_at=then)
    page = _page(client, world, experiment, role="scorer").content.decode()
    assert "Stalled" in page and "sim-expert" not in page
