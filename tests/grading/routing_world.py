"""A team with a judged experiment and a fresh one, each graded by the same simulated model
grader over real HTTP (its instructions ask for a CONFIDENCE line, as the default prompts do):
the first calibrates the routing of the second.

Every item's key is a phrase (the rules decide only the exact ones), each configuration answers
it with the key itself, with words around the key (correct: the simulator's careful reader and
the scorers agree) or with a wrong answer of its own; on item 2 two configurations give the same
wrong answer (a key suspect once the grader calls it wrong), and item 1 of the fresh experiment
is a (!) item."""

from __future__ import annotations

from dataclasses import dataclass

from grading import engine, services
from grading.models import GradingJob, TrustThreshold
from probe.models import Experiment
from scoring.models import Assignment
from scoring.queue import services as scoring
from tests import builders
from tests.grading.conftest import grader_config

ITEMS = 150
CONFIGS = ("Writer one", "Writer two", "Writer three")


def key(position: int) -> str:
    return f"Alpha{position} gateway"


def answer(position: int, config: int, shift: int) -> tuple[str, str]:
    kind = (position + config + shift) % 5
    if position == 2 and config in (0, 1):
        return "Gamma router", "HIGH"
    if kind == 0:
        return key(position), "HIGH"
    if kind in (1, 2):
        return f"the {key(position)}, I believe", "MEDIUM"
    return f"Beta{position} router {config}", "HIGH"


def judge_all(assignment: Assignment, shift: int, **response_filter) -> None:
    """Every scorer says the same: an answer is correct when it carries the key."""

    def bucket(unit) -> str:
        text, _confidence = answer(unit.position, unit.run_index, shift)
        return "correct" if key(unit.position) in text else "confident_wrong"

    builders.bulk_judgements(assignment, bucket, **response_filter)


@dataclass
class RoutingWorld:
    judged: Experiment
    fresh: Experiment
    judged_job: GradingJob
    fresh_job: GradingJob


def experiment(world, configs, *, name: str, shift: int, flagged: tuple[int, ...] = ()):
    items = [
        builders.SnapshotItem(
            question=f"Which gateway is number {n}?", key_answer=key(n), key_flagged=n in flagged
        )
        for n in range(1, ITEMS + 1)
    ]
    sheets = [
        builders.Sheet(c, [answer(n, i, shift) for n in range(1, ITEMS + 1)])
        for i, c in enumerate(configs)
    ]
    return world.collected_experiment(sheets, items=items, name=name).experiment


def build(world, simulator, *, margin: float = 0.04) -> RoutingWorld:
    configs = builders.model_configs(world.team, CONFIGS)
    judged = experiment(world, configs, name="Judged", shift=0)
    fresh = experiment(world, configs, name="Fresh", shift=1, flagged=(1,))
    services.grading_prompt_defaults_ensure(team=world.team)
    prompt = world.team.grading_prompts.get(language="en")
    assert "CONFIDENCE:" in prompt.text, "the default prompt asks for the grader's confidence"
    grader = services.grader_create(
        team=world.team,
        user=None,
        label="Sim grader",
        model_config=grader_config(world, base_url=simulator.base_url),
        prompt=prompt,
    )
    jobs = []
    for exp in (judged, fresh):
        job = services.grading_start(experiment=exp, grader=grader, user=None, queue=False)
        assert engine.job_grade(job_pk=job.pk, wait=lambda s: None) == "done"
        jobs.append(GradingJob.objects.get(pk=job.pk))
    for role in ("scorer", "editor"):
        judge_all(scoring.assignment_start(experiment=judged, user=world.users[role]), 0)
    TrustThreshold.objects.update_or_create(
        team=world.team, defaults={"min_answers": 300, "margin": margin}
    )
    return RoutingWorld(judged, fresh, jobs[0], jobs[1])
