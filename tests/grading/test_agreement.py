"""Agreement of a grader version with the scorers, against a hand computation on the graded
experiment (tests/grading/conftest.py): the rules decide 8 judged answers, a model grader 10;
scorer A agrees with the rules everywhere, scorer B on 5 of 8. The figures change with the
grader version, each scorer's bucket is the one from before the second opinion, and the trust
threshold's sentence says why it is (not) met."""

import json

import pytest

from grading import engine, services
from grading.agreement import grader_agreement
from grading.models import TrustThreshold
from probe.models import Response
from scoring.queue import services as scoring
from tests.collection.conftest import Reply, chat_body
from tests.grading.conftest import grader_config

pytestmark = pytest.mark.django_db

# (configuration, position) answers each scorer calls wrong; every other answer is correct.
WRONG_A = {
    ("Writer one", 3),
    ("Writer two", 1),
    ("Writer two", 4),
    ("Writer two", 6),
    ("Writer two", 5),
}
WRONG_B = (WRONG_A - {("Writer one", 3)}) | {("Writer one", 2), ("Writer two", 3)}


def _judge(world, user, wrong):
    experiment = world.grading.experiment
    assignment = scoring.assignment_start(experiment=experiment, user=user)
    for response in Response.objects.filter(run__experiment=experiment).select_related(
        "run__model_config", "item"
    ):
        if response.abstained:
            continue  # preset
        key = (response.run.model_config.label, response.item.position)
        scoring.judgement_decide(
            assignment=assignment,
            responses=[response],
            verdict="wrong" if key in wrong else "correct",
        )
    return assignment


def _rules_job(world):
    grader = services.grader_create(team=world.team, user=None, label="Rules")
    job = services.grading_start(experiment=world.grading.experiment, grader=grader, user=None)
    assert engine.job_grade(job_pk=job.pk) == "done"
    return job


def _model_job(world, replay):
    config = grader_config(
        world, base_url=replay.base_url + "/v1", provider="openai_chat", model_name="gpt-grader"
    )
    config.api_key_env = ""
    config.save()
    services.grading_prompt_defaults_ensure(team=world.team)
    grader = services.grader_create(
        team=world.team,
        user=None,
        label="Model",
        model_config=config,
        prompt=world.team.grading_prompts.get(language="en"),
    )
    replies = {
        "The city of Paris": "LABEL: CORRECT\nREASON: Names Paris.",
        "the Retry-After header": "I would say it is correct.",
        "Lyon": "LABEL: INCORRECT\nREASON: Lyon is not Paris.",
    }

    def answer(index):
        content = json.loads(replay.received[index].body)["messages"][0]["content"]
        tail = content[content.rfind("[ANSWER]\n") + 9 :].split("\n")[0]
        return Reply(body=chat_body(replies[tail]))(index)

    replay.play([answer])
    job = services.grading_start(experiment=world.grading.experiment, grader=grader, user=None)
    assert engine.job_grade(job_pk=job.pk, wait=lambda s: None) == "done"
    return job


def test_the_figures_equal_a_hand_computation_and_move_with_the_version(graded_world, replay):
    world = graded_world
    _judge(world, world.users["scorer"], WRONG_A)
    _judge(world, world.users["editor"], WRONG_B)
    rules = grader_agreement(_rules_job(world))
    assert (rules.judged, rules.decided) == (11, 8)
    overall = rules.overall
    assert overall["against_final"] is None, "no reconciliation yet"
    (name_a, a), (name_b, b) = overall["against_scorers"]
    assert (a.n, a.percent.value) == (8, 1.0)
    assert (b.n, b.percent.value) == (8, 5 / 8)
    # Kappa against B: po = 5/8, the grader says correct 4 of 8 and B 3 of 8:
    # pe = 4/8 * 3/8 + 4/8 * 5/8 = 1/2, kappa = (5/8 - 1/2) / (1 - 1/2).
    assert b.kappa.value == pytest.approx(0.25)
    # AC1 over the scheme's four buckets: pi = 7/16 correct, 9/16 confidently wrong,
    # pe = (2 * 7/16 * 9/16) / 3, AC1 = (5/8 - pe) / (1 - pe) = 59/107.
    assert b.ac1.value == pytest.approx(59 / 107)
    # B's not-correct answers: W1-2, W2-1, W2-3, W2-4, W2-6; the grader catches W2-1, -4, -6.
    assert b.recall_not_correct.value == pytest.approx(3 / 5)
    rows = {row.label: row.cells for row in b.confusion.rows}
    assert rows["correct"][:2] == (2, 2) and rows["confident_wrong"][:2] == (1, 3)
    for figure in (b.percent, b.kappa, b.ac1, b.recall_not_correct):
        assert figure.interval.low <= figure.value <= figure.interval.high
    humans = overall["humans_pooled"]
    assert (humans.n, humans.percent.value) == (11, 8 / 11)
    assert overall["grader_pooled"].percent.value == pytest.approx(13 / 16)
    assert [p["title"] for p in rules.formats] and rules.blocks

    model = grader_agreement(_model_job(world, replay))
    (_, a2), (_, b2) = model.overall["against_scorers"]
    assert (a2.n, a2.percent.value) == (10, 1.0)
    assert (b2.n, b2.percent.value) == (10, 7 / 10), "the figures follow the grader version"


def test_the_bucket_before_the_second_opinion_counts(graded_world):
    world = graded_world
    job = _rules_job(world)
    assignment = _judge(world, world.users["scorer"], WRONG_A - {("Writer two", 1)})
    _judge(world, world.users["editor"], WRONG_B)
    before = grader_agreement(job).overall["against_scorers"][0][1].percent.value
    assert before == pytest.approx(7 / 8)
    # Shown the grader's verdict on W2-1 ("428": confidently wrong), the scorer takes it.
    for opinion in services.opinions_show(assignment=assignment, position=1):
        if opinion.grade.bucket != opinion.first_bucket:
            services.opinion_respond(
                opinion=opinion, action="change", bucket=opinion.grade.bucket, cause="Misread."
            )
    after = grader_agreement(job).overall["against_scorers"][0][1].percent.value
    assert after == before, "agreement uses the bucket given before the second opinion"


def test_the_trust_threshold_says_why(graded_world):
    world = graded_world
    _judge(world, world.users["scorer"], WRONG_A)
    _judge(world, world.users["editor"], WRONG_B)
    job = _rules_job(world)
    result = grader_agreement(job)
    assert not result.meets and "only 8 judged answers" in result.verdict
    threshold = TrustThreshold.objects.create(team=world.team, min_answers=8)
    result = grader_agreement(job, threshold)
    # Pooled over both scorers 13 of 16 agree; Wilson's lower end (about 0.57) is below the
    # scorers' 8 of 11 (0.727).
    assert not result.meets and "below" in result.verdict
    assert result.verdict.endswith("is below the scorers' agreement with each other, 0.727.")
    # With a shortfall the sentence gives the scorers' agreement, the shortfall and the target
    # they make, each by its name: the target is not the scorers' agreement.
    threshold.margin = 0.1
    result = grader_agreement(job, threshold)
    assert not result.meets and result.verdict.endswith(
        "is below the scorers' agreement with each other, 0.727, less the allowed shortfall "
        "0.1: 0.627."
    )
    threshold.margin = 0.2
    result = grader_agreement(job, threshold)
    assert result.meets and result.verdict.startswith("Met")
    assert result.verdict.endswith(
        "is no worse than the scorers' agreement with each other, 0.727, less the allowed "
        "shortfall 0.2: 0.527."
    )


def test_against_the_final_buckets_once_there_are_any(graded_world):
    from scoring.models import FinalBucket, Judgement

    world = graded_world
    mine = _judge(world, world.users["scorer"], WRONG_A)
    _judge(world, world.users["editor"], WRONG_B)
    job = _rules_job(world)
    # The team settled on scorer B's buckets, except W1-2 (B alone called it wrong).
    theirs = Judgement.objects.filter(assignment__user=world.users["editor"]).exclude(
        assignment=mine
    )
    for judgement in theirs.select_related("response__run__model_config", "response__item"):
        key = (judgement.response.run.model_config.label, judgement.response.item.position)
        bucket = "correct" if key == ("Writer one", 2) else judgement.bucket
        FinalBucket.objects.create(response=judgement.response, bucket=bucket)
    final = grader_agreement(job).overall["against_final"]
    # Against B the rules agree on 5 of 8; W1-2 now agrees too.
    assert (final.n, final.percent.value) == (8, 6 / 8)
    threshold = TrustThreshold.objects.create(team=world.team, min_answers=8, margin=0.5)
    result = grader_agreement(job, threshold)
    assert result.meets, result.verdict
