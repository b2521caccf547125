"""Before a scorer's reveal, nothing they can fetch tells that a grader exists, what it said or
how far it got: the scoring crawl of tests/scoring/test_blinding.py, with graders that graded
the experiment and one still queued on it."""

import re

import pytest
from django.urls import reverse

from grading import engine, services
from grading.models import Grade
from tests.scoring.test_blinding import crawl

pytestmark = pytest.mark.django_db

GRADING_WORDS = re.compile(
    r"grader|grading|second opinion|LABEL:|採点モデル|セカンドオピニオン", re.I
)


@pytest.mark.parametrize("role", ["scorer", "editor"])
def test_nothing_reachable_tells_of_a_grader(client, world, role):
    from scoring.queue import services as scoring

    experiment = world.scored
    services.grading_prompt_defaults_ensure(team=world.team)
    rules = services.grader_create(team=world.team, user=None, label="Acme-rules-grader-xyzzy")
    job = services.grading_start(experiment=experiment, grader=rules, user=None, queue=False)
    assert engine.job_grade(job_pk=job.pk) == "done"
    assert Grade.objects.filter(job=job, state=Grade.State.DECIDED).exists()
    queued = services.grader_create(
        team=world.team,
        user=None,
        label="Acme-model-grader-plugh",
        model_config=world.config,
        prompt=world.team.grading_prompts.get(language="en"),
    )
    services.grading_start(experiment=experiment, grader=queued, user=None, queue=False)
    reasons = {r for r in Grade.objects.filter(job=job).values_list("reason", flat=True) if r}

    user = world.users[role]
    client.force_login(user)
    assignment = scoring.assignment_start(experiment=experiment, user=user)
    starts = [
        reverse("probe:experiment_detail", kwargs={"experiment_pk": experiment.pk}),
        reverse("scoring:start", kwargs={"experiment_pk": experiment.pk}),
        reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 1}),
        reverse("scoring:reveal", kwargs={"assignment_token": assignment.token}),
    ]
    prefixes = (f"/experiments/{experiment.pk}/", "/score/", "/runs/")
    keep = (lambda path: True) if role == "scorer" else (lambda path: path.startswith(prefixes))
    pages = crawl(client, starts, keep=keep)
    assert len({url for url, _, _ in pages}) >= 6
    for url, headers, response in pages:
        body = response.content.decode("utf-8", "replace")
        where = f"{url} {'(htmx)' if headers else ''}"
        for secret in ("Acme-rules-grader-xyzzy", "Acme-model-grader-plugh", *reasons):
            assert secret not in body, f"{secret!r} in {where}"
        match = GRADING_WORDS.search(body)
        assert match is None, f"{match.group(0)!r} in {where}"
        assert "grad" not in url.lower()
