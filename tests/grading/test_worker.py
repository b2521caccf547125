"""A simulated grader grades an experiment end to end in a real Celery worker process, which
is killed mid-job: beat's sweep queues the job again and nothing is graded or asked twice."""

import shutil
import time

import pytest
from django.db import connection
from django.db.models import Count

from adapters.simulator_server import start_simulator_in_thread
from grading import services
from grading.models import Grade, GradeAttempt, GradingJob
from tests import builders
from tests.collection.processes import (
    CeleryProcess,
    RedisServer,
    celery_env,
    database_url,
    free_port,
)
from tests.grading.conftest import grader_config
from tests.replay import allow_loopback_port

TIMINGS = {
    "PROBE_RUN_LEASE_SECONDS": "3",
    "PROBE_REQUEUE_AFTER_SECONDS": "10",
    "PROBE_SWEEP_SECONDS": "1",
    "PROBE_UNIT_RETRY_SECONDS": "60",
    "PROBE_UNIT_BACKOFF_MAX_SECONDS": "2",
}
N_ITEMS = 20


def _wait_for(predicate, timeout, what, processes):
    deadline = time.monotonic() + timeout
    while not predicate():
        for process in processes:
            assert process.process.poll() is None, f"{what}: a process exited\n{process.tail()}"
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s\n" + "\n".join(
            p.tail(40) for p in processes
        )
        time.sleep(0.1)


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_grades_and_recovers_from_a_kill(world, tmp_path):
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (the Redis package has it)")
    server, base_url = start_simulator_in_thread({"items": []}, latency_scale=1.0)
    port = allow_loopback_port(base_url)
    redis = RedisServer(port=free_port(), directory=tmp_path)
    redis.start()
    env = celery_env(
        database=database_url(connection), redis_url=redis.url, provider_ports=[port], **TIMINGS
    )
    worker = CeleryProcess(
        ["worker", "--pool", "prefork", "--concurrency", "2", "--loglevel", "INFO",
         "--without-gossip", "--without-mingle", "--hostname", "grading@%h"],
        env,
        tmp_path / "worker.log",
    )  # fmt: skip
    beat = CeleryProcess(
        ["beat", "--loglevel", "INFO", "--schedule", str(tmp_path / "beat-schedule")],
        env,
        tmp_path / "beat.log",
    )
    writers = builders.model_configs(world.team, ["Writer A", "Writer B"])
    items = [
        builders.SnapshotItem(question=f"Capital {n}?", key_answer=f"Paris {n}")
        for n in range(1, N_ITEMS + 1)
    ]
    sheets = [
        builders.Sheet(
            writers[0], [(f"the city of Paris {n}", "HIGH") for n in range(1, N_ITEMS + 1)]
        ),
        builders.Sheet(writers[1], [(f"Lyon {n}", "LOW") for n in range(1, N_ITEMS + 1)]),
    ]
    experiment = world.collected_experiment(sheets, items=items, name="Worker grading").experiment
    services.grading_prompt_defaults_ensure(team=world.team)
    config = grader_config(world, base_url=base_url, model_name="sim-grader")
    config.concurrency_limit = 2
    config.save()
    grader = services.grader_create(
        team=world.team,
        user=None,
        label="Sim grader",
        model_config=config,
        prompt=world.team.grading_prompts.get(language="en"),
    )
    processes = [worker, beat]
    try:
        worker.start()
        beat.start()
        worker.wait_ready()
        # No task is sent from this process (its Celery app knows another broker): beat's
        # sweep finds the queued job nothing works on.
        job = services.grading_start(experiment=experiment, grader=grader, user=None, queue=False)
        grades = Grade.objects.filter(job=job)
        _wait_for(lambda: grades.count() >= 8, 60, "first grades", processes)
        worker.kill()
        assert grades.count() < 2 * N_ITEMS, "killed mid-job"
        time.sleep(1)
        worker.start()
        worker.wait_ready()
        _wait_for(
            lambda: GradingJob.objects.get(pk=job.pk).status == GradingJob.Status.DONE,
            90,
            "grading done",
            processes,
        )
    finally:
        worker.stop()
        beat.stop()
        redis.stop()
        server.stop()

    assert grades.count() == 2 * N_ITEMS
    assert grades.filter(by=Grade.By.MODEL).count() == 2 * N_ITEMS, "the rules left them all"
    twice = (
        GradeAttempt.objects.filter(job=job, outcome__in=GradeAttempt.SUCCESS)
        .values("response")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
    )
    assert not twice.exists(), "no answer asked twice after its reply was stored"
    decided = grades.filter(state=Grade.State.DECIDED)
    right = decided.filter(response__run__model_config=writers[0], label="CORRECT").count()
    wrong = decided.filter(response__run__model_config=writers[1], label="INCORRECT").count()
    assert right + wrong >= 0.8 * 2 * N_ITEMS, (right, wrong)
    assert "grading.tasks.grade_job" in worker.text()
