"""The second opinion: nothing of it until the scorer committed every answer of the item; then
shown with their bucket at that moment kept as the first bucket; a change needs its cause."""

import pytest
from django.core.exceptions import ValidationError

from grading import engine, selectors, services
from grading.models import SecondOpinion
from probe.models import Response
from scoring.models import Judgement
from scoring.queue import services as scoring

pytestmark = pytest.mark.django_db


def _graded(world):
    grader = services.grader_create(team=world.team, user=None, label="Rules")
    job = services.grading_start(experiment=world.scored, grader=grader, user=None, queue=False)
    assert engine.job_grade(job_pk=job.pk) == "done"
    return job


def test_the_second_opinion_waits_for_the_whole_item_then_keeps_the_first_bucket(world):
    _graded(world)
    scorer = world.users["scorer"]
    assignment = scoring.assignment_start(experiment=world.scored, user=scorer)
    first, second = Response.objects.filter(
        run__experiment=world.scored, item__position=1
    ).order_by("pk")
    assert services.opinions_show(assignment=assignment, position=1) == []
    scoring.judgement_decide(assignment=assignment, responses=[first], verdict="correct")
    assert selectors.item_grades(assignment, 1) == [], "half an item shows nothing"
    assert services.opinions_show(assignment=assignment, position=1) == []
    scoring.judgement_decide(assignment=assignment, responses=[second], verdict="correct")
    shown = services.opinions_show(assignment=assignment, position=1)
    assert len(shown) == 2 and {o.first_bucket for o in shown} == {"correct"}
    assert services.opinions_show(assignment=assignment, position=1)[0].pk == shown[0].pk

    opinion = next(o for o in shown if o.response_id == second.pk)
    with pytest.raises(ValidationError):
        services.opinion_respond(opinion=opinion, action="change", bucket="confident_wrong")
    services.opinion_respond(
        opinion=opinion, action="change", bucket="confident_wrong", cause="Misread the key."
    )
    opinion.refresh_from_db()
    assert (opinion.first_bucket, opinion.new_bucket, opinion.cause) == (
        "correct",
        "confident_wrong",
        "Misread the key.",
    )
    judged = Judgement.objects.get(assignment=assignment, response=second)
    assert judged.bucket == "confident_wrong"
    kept = next(o for o in shown if o.response_id == first.pk)
    services.opinion_respond(opinion=kept, action="keep")
    assert SecondOpinion.objects.get(pk=kept.pk).action == "keep"


def test_another_scorers_commit_shows_this_scorer_nothing(world):
    _graded(world)
    mine = scoring.assignment_start(experiment=world.scored, user=world.users["scorer"])
    theirs = scoring.assignment_start(experiment=world.scored, user=world.users["editor"])
    responses = list(Response.objects.filter(run__experiment=world.scored, item__position=1))
    scoring.judgement_decide(assignment=theirs, responses=responses, verdict="correct")
    assert services.opinions_show(assignment=theirs, position=1)
    assert services.opinions_show(assignment=mine, position=1) == []


def test_no_finished_grader_no_opinion(world):
    grader = services.grader_create(team=world.team, user=None, label="Rules")
    services.grading_start(experiment=world.scored, grader=grader, user=None, queue=False)
    assignment = scoring.assignment_start(experiment=world.scored, user=world.users["scorer"])
    responses = list(Response.objects.filter(run__experiment=world.scored, item__position=1))
    scoring.judgement_decide(assignment=assignment, responses=responses, verdict="correct")
    assert services.opinions_show(assignment=assignment, position=1) == []
