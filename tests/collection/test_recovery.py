"""The sweep queues again what nothing works on, and the pages say honestly what a run is doing.

Time is moved by dating the run's bookkeeping back (queued, last progress, lease expiry), as if
the worker had died that long ago; the sweep and the pages read the same fields.
"""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from probe.models import Experiment, Run
from probe.services import collection, experiments
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


# Sending: once, and again as soon as a holder is known dead ----------------------------------


def test_start_marks_the_runs_sent_in_the_transaction_that_queues_them(
    world, simulator, sent, django_capture_on_commit_callbacks
):
    """Between Start's commit and its tasks being sent, a sweep must not send the runs too."""
    config = make_config(world, label="Sim", base_url=simulator.base_url)
    experiment = make_experiment(world, [config], repeats=2, start=False)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        experiments.experiment_start(experiment=experiment, user=world.users["editor"])
    assert len(callbacks) == 2, "the sends wait for the commit"
    runs = list(experiment.runs.all())
    assert all(r.status == Run.Status.QUEUED and r.enqueued_at is not None for r in runs)
    assert collection.sweep_stale_runs()["requeued"] == []
    assert sent == []


def test_a_send_the_broker_refused_is_retried_by_the_next_sweep(world, simulator, monkeypatch):
    experiment, (run, _other) = _started(world, simulator)

    def down(*args, **kwargs):
        raise ConnectionRefusedError("broker down")

    monkeypatch.setattr(collection.dispatch.current_app, "send_task", down)
    assert collection.send_run(run.pk) is False
    run.refresh_from_db()
    assert run.enqueued_at is None, "not waiting PROBE_REQUEUE_AFTER_SECONDS for a lost send"
    sent = []
    monkeypatch.setattr(collection.dispatch, "send_run", lambda pk: sent.append(pk) or True)
    assert run.pk in collection.sweep_stale_runs()["requeued"]


def test_a_run_whose_holder_died_is_sent_again_at_the_next_sweep(world, simulator, sent):
    experiment, (dead, waiting) = _started(world, simulator)
    now = timezone.now()
    # Sent 20 s ago, taken, renewed last 12 s ago, lapsed 2 s ago (a 10 s lease): its worker
    # died. The other was sent 20 s ago too and waits in the queue behind busy workers.
    _age(
        dead,
        status=Run.Status.RUNNING,
        enqueued_at=now - timedelta(seconds=20),
        lease_expires=now - timedelta(seconds=2),
        progress_at=now - timedelta(seconds=12),
    )
    _age(waiting, enqueued_at=now - timedelta(seconds=20))
    assert collection.sweep_stale_runs()["requeued"] == [dead.pk]
    # Once sent again, it waits for a worker like the other: not sent a third time.
    _age(dead, enqueued_at=timezone.now())
    assert collection.sweep_stale_runs()["requeued"] == []
    # A run sent long ago and still not taken is sent again (the message may be lost).
    _age(waiting, enqueued_at=now - timedelta(seconds=70))
    assert collection.sweep_stale_runs()["requeued"] == [waiting.pk]


# What the page says, within one sweep ---------------------------------------------------------


def _state(run) -> str:
    run.refresh_from_db()
    return collection.run_health(run).state


def test_a_killed_workers_run_shows_waiting_for_a_worker_once_its_lease_lapses(
    client, world, simulator, sent, settings
):
    experiment, (run, _other) = _started(world, simulator)
    token = collection.lease_take(run.pk)
    collection.lease_renew(run.pk, token, {"in_flight": 4})
    _age(run, progress_at=timezone.now())
    assert _state(run) == "collecting"
    # Its last renewal was 11 s ago: with a 10 s lease, lapsed; nothing is in flight any more.
    _age(run, lease_expires=timezone.now() - timedelta(seconds=1))
    assert _state(run) == "waiting"
    row = _row(_page(client, world, experiment).content.decode(), run)
    assert "Waiting for a worker again" in row and "Collecting" not in row


def test_a_long_lease_still_shows_waiting_within_one_sweep_interval(world, simulator, settings):
    settings.PROBE_RUN_LEASE_SECONDS = 60
    settings.PROBE_SWEEP_SECONDS = 15
    experiment, (run, _other) = _started(world, simulator)
    token = collection.lease_take(run.pk)
    collection.lease_renew(run.pk, token, {"in_flight": 4})
    # Renewed 16 s ago: the lease has 44 s to run, but no live worker has renewed it.
    _age(run, lease_expires=timezone.now() + timedelta(seconds=44), progress_at=timezone.now())
    assert _state(run) == "waiting"


@pytest.mark.parametrize(
    "activity, state, says",
    [
        ({"in_flight": 0, "waiting_slot": 3}, "waiting_slot", "Waiting for a free slot"),
        ({"in_flight": 0, "retry_wait": 2, "last_error": "HTTP 500"}, "retrying", "Retrying"),
        ({"in_flight": 0, "store_error": "ConnectionError"}, "waiting_store", "Waiting for Redis"),
        ({"in_flight": 2, "store_error": "ConnectionError"}, "collecting", "Collecting"),
    ],
)
def test_a_held_run_that_sends_nothing_says_what_it_waits_for(
    client, world, simulator, sent, activity, state, says
):
    experiment, (run, _other) = _started(world, simulator)
    token = collection.lease_take(run.pk)
    collection.lease_renew(run.pk, token, activity)
    _age(run, progress_at=timezone.now())
    assert _state(run) == state
    row = _row(_page(client, world, experiment).content.decode(), run)
    assert says in row
    blind = _row(_page(client, world, experiment, role="scorer").content.decode(), run)
    assert "Collecting" in blind and "Redis" not in blind and "slot" not in blind


def test_stalled_comes_after_four_sweep_intervals_without_progress(world, simulator, settings):
    assert settings.PROBE_STALL_SECONDS == 4 * settings.PROBE_SWEEP_SECONDS == 60
    experiment, (run, _other) = _started(world, simulator)
    _age(run, queued_at=timezone.now() - timedelta(seconds=59))
    assert _state(run) == "waiting"
    _age(run, queued_at=timezone.now() - timedelta(seconds=61))
    assert _state(run) == "stalled"
