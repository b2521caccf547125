"""A grading job is leased work as a run is: the same fields (probe's LeasedWork,
ProviderCall and VersionedText bases), and beat's sweep queues it again by collection's rule
(``Leases.unattended``): a job whose last task was taken by a worker that died since, or that
was not sent lately; never one sent a moment ago and waiting in the queue, nor one a live
worker holds. Time is moved by dating the job's bookkeeping back."""

from datetime import timedelta

import pytest
from django.utils import timezone

from grading import dispatch, engine, services
from grading.models import GradeAttempt, GradingJob, GradingPrompt
from probe.models import Attempt, PromptVersion, Run
from probe.models.bases import LeasedWork, ProviderCall, VersionedText


@pytest.fixture
def sent(monkeypatch):
    jobs: list[int] = []
    monkeypatch.setattr(engine, "send_job", lambda job_pk: jobs.append(job_pk) or True)
    monkeypatch.setattr(dispatch, "send_job", lambda job_pk: jobs.append(job_pk) or True)
    return jobs


def _jobs(world, n):
    """n active jobs on the experiment, each of a grader of its own (one job per grader)."""
    return [
        services.grading_start(
            experiment=world.grading.experiment,
            grader=services.grader_create(team=world.team, user=None, label=f"Rules {k}"),
            user=None,
            queue=False,
        )
        for k in range(n)
    ]


def _age(job, **fields):
    GradingJob.objects.filter(pk=job.pk).update(**fields)


def test_runs_and_jobs_share_their_bookkeeping_fields():
    assert issubclass(Run, LeasedWork) and issubclass(GradingJob, LeasedWork)
    assert issubclass(Attempt, ProviderCall) and issubclass(GradeAttempt, ProviderCall)
    assert issubclass(PromptVersion, VersionedText) and issubclass(GradingPrompt, VersionedText)
    shared = (
        (LeasedWork, (Run, GradingJob)),
        (ProviderCall, (Attempt, GradeAttempt)),
        (VersionedText, (PromptVersion, GradingPrompt)),
    )
    for base, models in shared:
        for field in base._meta.fields:
            for model in models:
                mine = model._meta.get_field(field.name)
                ours, theirs = mine.deconstruct()[3], field.deconstruct()[3]
                if field.is_relation and field.remote_field.model in ("self", base):
                    # A reference to "self" names each concrete model: it is its own there.
                    assert mine.remote_field.model is model, (model, field.name)
                    ours, theirs = dict(ours, to=None), dict(theirs, to=None)
                assert (*mine.deconstruct()[1:3], ours) == (*field.deconstruct()[1:3], theirs), (
                    model,
                    field.name,
                )
    assert GradeAttempt.Outcome is Attempt.Outcome and GradeAttempt.SUCCESS == Attempt.SUCCESS


def test_the_sweep_queues_again_a_job_whose_worker_died(graded_world, sent, settings):
    settings.PROBE_RUN_LEASE_SECONDS = 10
    settings.PROBE_REQUEUE_AFTER_SECONDS = 60
    dead, waiting, held = _jobs(graded_world, 3)
    now = timezone.now()
    # Sent 20 s ago, taken, renewed last 12 s ago, lapsed 2 s ago: its worker died.
    _age(
        dead,
        status=GradingJob.Status.RUNNING,
        enqueued_at=now - timedelta(seconds=20),
        lease_expires=now - timedelta(seconds=2),
    )
    # Sent 20 s ago and not taken yet: it waits behind busy workers.
    _age(waiting, enqueued_at=now - timedelta(seconds=20))
    # Held by a live worker.
    _age(held, enqueued_at=now - timedelta(minutes=10))
    assert engine.lease_take(held.pk) is not None
    assert engine.sweep_stale_jobs() == {"requeued": 1}
    assert sent == [dead.pk]
    # Sent again, it waits like the other: not sent a third time.
    _age(dead, enqueued_at=timezone.now())
    sent.clear()
    assert engine.sweep_stale_jobs() == {"requeued": 0}
    # One sent long ago and never taken is sent again (the message may be lost), as is one never
    # sent at all.
    _age(waiting, enqueued_at=now - timedelta(seconds=70))
    _age(dead, enqueued_at=None, lease_expires=None)
    assert engine.sweep_stale_jobs() == {"requeued": 2}
    assert sorted(sent) == sorted([waiting.pk, dead.pk])


def test_the_sweep_leaves_finished_jobs(graded_world, sent):
    (job,) = _jobs(graded_world, 1)
    _age(job, status=GradingJob.Status.DONE, enqueued_at=None)
    assert engine.sweep_stale_jobs() == {"requeued": 0}
