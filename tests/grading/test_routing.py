"""Routing through the real services: a simulated model grader over HTTP grades a judged
experiment and a fresh one (tests/grading/routing_world.py); routing the fresh one is refused
below the trust threshold, and otherwise the scorers' queue holds exactly the routed answers,
every answer of the (!) item among them, an audit of at least 30, and the final report shows the
human-only and the corrected figures, computed as the estimator says."""

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from api.models import ApiToken
from grading import engine, routing, services
from grading.agreement import calibrated_cut, grader_agreement, threshold_of
from grading.models import Grade, RoutedAnswer, RoutingPlan
from grading.ppi import audit_size, ppi_rate
from grading.routing import route_counts
from grading.routing_report import routed_figures
from probe.models import ExperimentItem, Response, Run
from scoring.comparison.compare import experiment_buckets, side_rows
from scoring.comparison.routed import corrections, human_only
from scoring.models import FinalBucket, Judgement
from scoring.queue import overview, selectors
from scoring.queue import services as scoring
from scoring.reconciliation.services import reconciliation_start
from scoring.report.source import final_source, without_dropped
from scoring.templatetags.report_tags import num
from tests.grading import routing_world
from tests.grading.routing_world import ITEMS

pytestmark = pytest.mark.django_db


def _queue(assignment) -> set[int]:
    """Every answer the scorer's queue shows, item by item."""
    shown = set()
    for position in range(1, ITEMS + 1):
        item = selectors.queue_item(assignment, position)
        for group in item.groups:
            shown.update(m.response.pk for m in group.members)
    return shown


def test_routing_is_refused_below_the_threshold_and_without_a_judged_experiment(world, simulator):
    rw = routing_world.build(world, simulator, margin=0.0)  # the scorers agree on everything
    with pytest.raises(ValidationError) as refused:
        routing.routing_plan_create(experiment=rw.fresh, job=rw.fresh_job, user=None)
    assert "does not meet the team's trust threshold" in " ".join(refused.value.messages)
    assert grader_agreement(rw.judged_job).meets is False
    # The rules alone, never graded anywhere else: nothing shows they can be trusted.
    rules = services.grader_create(team=world.team, user=None, label="Rules only")
    job = services.grading_start(experiment=rw.fresh, grader=rules, user=None, queue=False)
    engine.job_grade(job_pk=job.pk)
    job.refresh_from_db()
    with pytest.raises(ValidationError) as refused:
        routing.routing_plan_create(experiment=rw.fresh, job=job, user=None)
    assert "no other experiment of the team" in " ".join(refused.value.messages)
    assert not RoutingPlan.objects.exists()
    # The page says it in the same sentence, to a lead.
    client_page = reverse("grading:experiment", kwargs={"experiment_pk": rw.fresh.pk})
    client = Client()
    client.force_login(world.users["owner"])
    answer = client.post(
        client_page,
        {"action": "route", "job": rw.fresh_job.pk, "audit_share": "0.1", "audit_min": "30"},
    )
    assert answer.status_code == 400
    assert "does not meet the team" in answer.content.decode()
    assert not RoutingPlan.objects.exists()


def test_a_routed_experiment_queues_exactly_the_routed_answers_and_reports_both_figures(
    world, simulator, client, monkeypatch
):
    rw = routing_world.build(world, simulator)
    # A fixed seed for the audit, so that the test is the same every run (the page draws one).
    monkeypatch.setattr(routing.secrets, "randbits", lambda bits: 20261203)
    client.force_login(world.users["owner"])
    page = reverse("grading:experiment", kwargs={"experiment_pk": rw.fresh.pk})
    answer = client.post(
        page, {"action": "route", "job": rw.fresh_job.pk, "audit_share": "0.1", "audit_min": "30"}
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    plan = RoutingPlan.objects.get(experiment=rw.fresh)
    assert plan.calibration_job == rw.judged_job and plan.seed == 20261203
    assert (plan.audit_share, plan.audit_min) == (0.1, 30)
    # The cut: the lowest at which the grader meets the threshold on the judged answers.
    cut, sentence = calibrated_cut(rw.judged_job, threshold_of(world.team))
    assert plan.confidence_cut == cut and sentence.startswith("Met")
    confidences = sorted(
        {
            round(c, 2)
            for c in Grade.objects.filter(job=rw.judged_job, by="model").values_list(
                "confidence", flat=True
            )
            if c is not None
        }
    )
    assert confidences[0] < cut, "the cut is a real cut: the grader's least sure are out"

    routed = dict(plan.answers.values_list("response_id", "route"))
    why = dict(plan.answers.values_list("response_id", "why"))
    grades = {g.response_id: g for g in Grade.objects.filter(job=rw.fresh_job)}
    for pk, way in routed.items():
        grade = grades[pk]
        if way != RoutedAnswer.Route.PEOPLE:
            assert grade.state == Grade.State.DECIDED and grade.confidence >= cut
    decided = [pk for pk, way in routed.items() if way != RoutedAnswer.Route.PEOPLE]
    audit = {pk for pk, way in routed.items() if way == RoutedAnswer.Route.AUDIT}
    assert len(audit) == audit_size(len(decided), 0.1, 30) >= 30
    flagged = set(
        Response.objects.filter(run__experiment=rw.fresh, item__position=1).values_list(
            "pk", flat=True
        )
    )
    assert all(routed[pk] == RoutedAnswer.Route.PEOPLE for pk in flagged), "(!) to people"
    assert {why[pk] for pk in flagged} == {RoutedAnswer.Why.FLAGGED}
    suspect = Response.objects.filter(run__experiment=rw.fresh, item__position=2)
    assert {why[r.pk] for r in suspect} == {RoutedAnswer.Why.SUSPECT}
    unsure = [pk for pk, w in why.items() if w == RoutedAnswer.Why.UNCERTAIN]
    assert unsure, "some model answers fall below the cut and go to people"

    to_people = {pk for pk, way in routed.items() if way != RoutedAnswer.Route.GRADER}
    for role in ("scorer", "editor"):
        assignment = scoring.assignment_start(experiment=rw.fresh, user=world.users[role])
        assert _queue(assignment) == to_people, "the queue holds exactly the routed answers"
        graded = Judgement.objects.filter(assignment=assignment, verdict="graded")
        assert set(graded.values_list("response_id", flat=True)) == set(decided) - audit
        routing_world.judge_all(assignment, 1)
        assert overview.first_open_position(assignment) == 1
        progress = selectors.assignment_counts(assignment)
        assert progress["judged"] == Response.objects.filter(run__experiment=rw.fresh).count()
    # Agreement never takes a grader's bucket for a human one.
    agreement = grader_agreement(rw.fresh_job)
    assert agreement.judged == len(to_people)
    reconciliation_start(experiment=rw.fresh, user=world.users["owner"])

    figures = routed_figures(rw.fresh, without_dropped(final_source(rw.fresh)))
    finals = dict(
        FinalBucket.objects.filter(response__run__experiment=rw.fresh).values_list(
            "response_id", "bucket"
        )
    )
    buckets = dict(plan.answers.values_list("response_id", "grader_bucket"))
    first = figures[0]
    ours = set(
        Response.objects.filter(
            run__experiment=rw.fresh, run__model_config__label=first.label
        ).values_list("pk", flat=True)
    )
    mine = sorted(ours)
    people = [pk for pk in mine if routed.get(pk) in (None, RoutedAnswer.Route.PEOPLE)]
    stratum = [pk for pk in mine if routed.get(pk) in ("grader", "audit")]
    sample = [pk for pk in stratum if pk in audit]
    knowledge = next(f for f in first.figures if f.name == "correct")
    expected = ppi_rate(
        np.array([finals[pk] == "correct" for pk in people]),
        np.array([buckets[pk] == "correct" for pk in stratum]),
        np.array([finals[pk] == "correct" for pk in sample]),
        np.array([buckets[pk] == "correct" for pk in sample]),
    )
    assert knowledge.corrected.value == pytest.approx(expected.value)
    assert knowledge.corrected.low == pytest.approx(expected.low)
    judged = [pk for pk in mine if pk in people or pk in sample]
    assert knowledge.human_only == pytest.approx(
        np.mean([finals[pk] == "correct" for pk in judged])
    )
    # All-human truth (every scorer would say what routing_world says): inside the interval.
    truth = np.mean(
        [
            r.answer is not None and routing_world.key(r.item.position) in r.answer
            for r in Response.objects.filter(pk__in=mine).select_related("item")
        ]
    )
    assert knowledge.corrected.low <= truth <= knowledge.corrected.high

    report = client.get(reverse("scoring:final_report", kwargs={"experiment_pk": rw.fresh.pk}))
    body = report.content.decode()
    assert report.status_code == 200
    assert "Headline: the corrected figures" in body
    assert "Human-only" in body and "Corrected (headline)" in body
    assert f"<strong>{num(knowledge.corrected.value, 3)}</strong>" in body
    # The report's own tables are human-only: no grader bucket counts there.
    graded_answers = len(decided) - len(audit)
    n_responses = Response.objects.filter(run__experiment=rw.fresh).count()
    source_rows = without_dropped(final_source(rw.fresh)).scoped().count()
    assert source_rows == n_responses - graded_answers

    # The gate reads the same corrected figures, item by item: never the grader's labels raw.
    _source, buckets = experiment_buckets(rw.fresh)
    config_id = Run.objects.get(
        experiment=rw.fresh, model_config__label=first.label
    ).model_config_id
    items = list(ExperimentItem.objects.filter(experiment=rw.fresh).values_list("pk", flat=True))
    fix = corrections(rw.fresh, buckets)
    values = side_rows(rw.fresh, buckets, [config_id], items, fix)[config_id]
    assert values[:, 0].mean() == pytest.approx(knowledge.corrected.value)
    raw = side_rows(rw.fresh, buckets, [config_id], items)[config_id]
    assert fix.delta[config_id][0] != 0 or values[:, 0].mean() == raw[:, 0].mean()
    # Or, asked for, the human-only figures: each item over the answers people judged.
    human = side_rows(rw.fresh, human_only(buckets, fix), [config_id], items, None, True)
    assert np.nanmean(human[config_id][:, 0]) == pytest.approx(knowledge.human_only)

    # The API's figures say which they are, and are the report's section's and the gate's.
    _row, token = ApiToken.issue(
        user=world.users["owner"], team=world.team, access="read", name="figures"
    )
    api = Client(headers={"Authorization": f"Bearer {token}"})
    url = f"/api/experiments/{rw.fresh.pk}/results/figures"
    answer = api.get(url).json()
    assert answer["tables"] == "human_only_counts", "the tables are marked as human-only counts"
    routed_api = answer["routing"]
    assert routed_api["figures"] == "corrected", "the default is the report's headline"
    counts = route_counts(plan)
    assert routed_api["plan"] | {"calibration_sentence": ""} == {
        "job": rw.fresh_job.pk,
        "calibration_job": rw.judged_job.pk,
        "confidence_cut": plan.confidence_cut,
        "calibration_sentence": "",
        "audit_share": 0.1,
        "audit_min": 30,
        "seed": 20261203,
        "decided_by_grader": len(decided) - len(audit),
        "judged_by_people": counts["people"],
        "audit": len(audit),
    }
    mine_api = next(c for c in routed_api["configurations"] if c["label"] == first.label)
    k = mine_api["figures"]["correct"]
    assert k["value"] == k["corrected"] == pytest.approx(knowledge.corrected.value)
    assert k["value"] == pytest.approx(values[:, 0].mean()), "the gate's corrected figure"
    assert f"<strong>{num(k['value'], 3)}</strong>" in body, "the report page's headline"
    assert k["interval"] == pytest.approx([knowledge.corrected.low, knowledge.corrected.high])
    assert k["interval_beyond"] == pytest.approx(
        [knowledge.corrected.low_beyond, knowledge.corrected.high_beyond]
    )
    assert k["human_only"] == pytest.approx(knowledge.human_only)
    assert (k["answers"], k["decided_by_grader"], k["audit"]) == (
        len(mine),
        len(stratum),
        len(sample),
    )
    assert k["judged_by_people"] == len(judged)
    assert set(mine_api["figures"]) == {
        "correct",
        "hedged_wrong",
        "confident_wrong",
        "abstained",
        "net",
    }
    # The tables' knowledge is a count over every answer, the grader's unscored: below both.
    table = next(c for c in answer["figures"]["configurations"] if c["label"] == first.label)
    assert table["summary"]["knowledge"]["mean"] < min(k["human_only"], k["corrected"])
    # Asked for, the human-only figures: the gate's with --figures human.
    human_api = api.get(url, {"figures": "human"}).json()["routing"]
    assert human_api["figures"] == "human"
    mine_human = next(c for c in human_api["configurations"] if c["label"] == first.label)
    assert mine_human["figures"]["correct"]["value"] == pytest.approx(
        np.nanmean(human[config_id][:, 0])
    )
    refused = api.get(url, {"figures": "raw"})
    assert refused.status_code == 422 and refused.json()["problems"][0]["field"] == "figures"
    # The grading export and the API's grading carry the same routing.
    exported = client.get(
        reverse("grading:export", kwargs={"experiment_pk": rw.fresh.pk, "fmt": "json"})
    ).json()
    assert exported["routing"] == routed_api
    assert api.get(f"/api/experiments/{rw.fresh.pk}/grading").json()["routing"] == routed_api
    # At another w, the net figure moves with it in all three, and an unusable w is refused.
    at_three = api.get(url, {"w": "3"}).json()["routing"]
    assert at_three["w"] == 3 and at_three != routed_api
    exported = client.get(
        reverse("grading:export", kwargs={"experiment_pk": rw.fresh.pk, "fmt": "json"}),
        {"w": "3"},
    )
    assert exported.json()["routing"] == at_three
    grading_api = api.get(f"/api/experiments/{rw.fresh.pk}/grading", {"w": "3"})
    assert grading_api.json()["routing"] == at_three
    net = next(c for c in at_three["configurations"] if c["label"] == first.label)["figures"]
    assert net["net"]["value"] != mine_api["figures"]["net"]["value"]
    bad = reverse("grading:export", kwargs={"experiment_pk": rw.fresh.pk, "fmt": "json"})
    assert client.get(bad, {"w": "-2"}).status_code == 400
    refused = api.get(f"/api/experiments/{rw.fresh.pk}/grading", {"w": "lots"})
    assert refused.status_code == 422 and refused.json()["problems"][0]["field"] == "w"
