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


def test_an_audit_answer_looks_like_any_other_answer_routed_to_people(client, world, simulator):
    """Which answers are the audit changes nothing a scorer can fetch: swap the audit with
    answers routed to people for another reason and every page is the same bytes, with the same
    queries, in the same order; no word of grading or of the audit appears."""
    from grading import routing
    from grading.models import RoutedAnswer
    from scoring.queue import services as scoring
    from tests.grading import routing_world
    from tests.grading.test_opinion_page import CSRF, _item

    rw = routing_world.build(world, simulator)
    plan = routing.routing_plan_create(experiment=rw.fresh, job=rw.fresh_job, user=None)
    scorer = world.users["scorer"]
    client.force_login(scorer)
    assignment = scoring.assignment_start(experiment=rw.fresh, user=scorer)
    by_item = {}
    for pk, way, position in plan.answers.values_list(
        "response_id", "route", "response__item__position"
    ):
        by_item.setdefault(position, {}).setdefault(way, []).append(pk)
    # Items with an audit answer, and items with answers people judge for another reason.
    audited = [p for p, ways in sorted(by_item.items()) if "audit" in ways][:4]
    others = [p for p, ways in sorted(by_item.items()) if "people" in ways and p not in audited]
    pages = audited + others[:2]
    assert len(audited) == 4 and len(others) >= 2
    overview = reverse("scoring:overview", kwargs={"assignment_token": assignment.token})
    for position in pages:
        _item(client, assignment, position)  # the first visit records where the scorer is

    def fetch():
        bodies = [
            _item(client, assignment, p, **h)
            for p in pages
            for h in ({}, {"HTTP_HX_REQUEST": "true"})
        ]
        return bodies, CSRF.sub(r"\1…", client.get(overview).content.decode())

    before = fetch()
    for body, _queries, _kind in before[0]:
        assert not re.search(r"audit|監査|grader|採点モデル", body, re.I)
    # The audit becomes answers people judge for another reason, and back the other way.
    swapped = [pk for p in others[:2] for pk in by_item[p]["people"]][:4]
    now_people = [by_item[p]["audit"][0] for p in audited]
    RoutedAnswer.objects.filter(response_id__in=now_people).update(route=RoutedAnswer.Route.PEOPLE)
    RoutedAnswer.objects.filter(response_id__in=swapped).update(route=RoutedAnswer.Route.AUDIT)
    assert swapped
    after = fetch()
    assert before == after
