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
    r"grader|grading|second opinion|LABEL:|採点モデル|自動採点|セカンドオピニオン", re.I
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


@pytest.mark.parametrize("role", ["scorer", "editor"])
def test_grading_pages_answer_a_blinded_scorer_alike_with_or_without_a_grader(client, world, role):
    """Fetched by hand (nothing links to them for a blinded scorer), every grading page sends a
    scorer still blind to the experiment to its page: the same answer for an experiment with a
    grader as for one without."""
    from scoring.queue import services as scoring
    from tests.conftest import scored_experiment

    graded = world.scored
    plain = scored_experiment(
        world,
        [world.config],
        [[("429", "HIGH"), ("Retry-After", "HIGH"), ("UNKNOWN", "LOW")]],
        name="Plain",
    )
    rules = services.grader_create(team=world.team, user=None, label="Acme-rules-grader-xyzzy")
    job = services.grading_start(experiment=graded, grader=rules, user=None, queue=False)
    assert engine.job_grade(job_pk=job.pk) == "done"
    user = world.users[role]
    client.force_login(user)
    scoring.assignment_start(experiment=graded, user=user)

    def answers(experiment):
        out = []
        for name, kwargs in (
            ("grading:experiment", {}),
            ("grading:agreement", {}),
            ("grading:regrade", {}),
            ("grading:export", {"fmt": "csv"}),
            ("grading:export", {"fmt": "json"}),
        ):
            url = reverse(name, kwargs={"experiment_pk": experiment.pk, **kwargs})
            response = client.get(url)
            location = response.get("Location", "").replace(str(experiment.pk), "N")
            out.append((response.status_code, location, len(response.content)))
        return out

    scoring.assignment_start(experiment=plain, user=user)
    assert answers(graded) == answers(plain)
    assert {status for status, _l, _n in answers(graded)} == {302}
