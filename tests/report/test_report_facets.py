"""The report slices by topic and by answer format, as it slices by block."""

import csv
import io
import json

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from api.models import ApiToken
from probe.models import ExperimentItem, Response
from scoring.report.build import scorer_report
from scoring.report.stats import wilson
from tests.report.conftest import build
from tests.scoring.factories import score_all

from .test_exports import export
from .test_report_page import tables, url


def facets_of(report):
    return {
        facet.name: {
            row.label: (row.n_items, [round(c.summary["correct"].mean, 2) for c in row.cells])
            for row in facet.rows
        }
        for facet in report.facets
    }


def test_slices_by_topic_and_answer_format(world, scorer):
    # Alpha knows items 1-3, Beta items 4-6; items 1-2 are HTTP, 3-4 Python, 5-6 have no topic.
    built = build(world, {("Alpha", 1): "CCCWWW", ("Beta", 1): "WWWCCC"})
    items = ExperimentItem.objects.filter(experiment=built.experiment).order_by("position")
    topics = ["HTTP", "HTTP", "Python", "Python", "", ""]
    kinds = ["number", "number", "name", "name", "name", "number"]
    for item, topic, kind in zip(items, topics, kinds, strict=True):
        item.topic, item.answer_kind = topic, kind
        item.save(update_fields=["topic", "answer_kind"])
    report = scorer_report(score_all(built.experiment, scorer))
    assert [c.label for c in report.configs] == ["Alpha", "Beta"]
    assert facets_of(report) == {
        "topic": {"HTTP": (2, [2, 0]), "Python": (2, [1, 1]), "—": (2, [0, 2])},
        "answer_kind": {"name": (3, [1, 2]), "number": (3, [2, 1])},
    }
    knowledge = report.facets[0].rows[0].cells[0].summary["knowledge"].mean
    assert knowledge == 1.0  # Alpha: both HTTP items


def test_without_item_facts_there_are_no_slices_and_no_extra_queries(world, scorer):
    built = build(world, {("Alpha", 1): "CCWW"})
    assignment = score_all(built.experiment, scorer)
    with CaptureQueriesContext(connection) as ctx:
        report = scorer_report(assignment)
    assert report.facets == [] and len(ctx) <= 7  # as without facets; the 7th: the bucket rows


def test_the_report_page_shows_the_slices(client, world, scorer):
    built = build(world, {("Alpha", 1): "CCWW"})
    ExperimentItem.objects.filter(experiment=built.experiment, position__lte=2).update(
        topic="Caching"
    )
    assignment = score_all(built.experiment, scorer)
    client.force_login(scorer)
    body = client.get(
        reverse("scoring:report", kwargs={"assignment_token": assignment.token})
    ).content.decode()
    assert 'id="facet-table-topic"' in body and "Per topic" in body and "Caching" in body
    assert 'id="facet-table-answer_kind"' not in body
    assert assignment.revealed_at is not None


def test_facets_are_in_the_figures_exports_and_the_api_with_their_intervals(world, scorer, client):
    # Alpha knows both HTTP items and one of the two Python items; Beta the other way round.
    built = build(world, {("Alpha", 1): "CCCW", ("Beta", 1): "WWCC"})
    items = ExperimentItem.objects.filter(experiment=built.experiment).order_by("position")
    for item, topic in zip(items, ["HTTP", "HTTP", "Python", "Python"], strict=True):
        item.topic, item.answer_kind = topic, "number"
        item.save(update_fields=["topic", "answer_kind"])
    assignment = score_all(built.experiment, scorer)
    client.force_login(scorer)
    rows = list(
        csv.DictReader(
            io.StringIO(export(client, assignment, "figures", "csv").getvalue().decode("utf-8-sig"))
        )
    )
    facet_rows = {
        (r["facet"], r["facet_value"], r["configuration"]): r for r in rows if r["row"] == "facet"
    }
    http = facet_rows[("topic", "HTTP", "Alpha")]
    assert (http["n"], http["correct"], http["knowledge"]) == ("2", "2", "1")
    assert float(http["knowledge_low"]) == round(wilson(2, 2).low, 6)
    assert http["net_usable_low"] != "" and float(http["net_usable_high"]) >= 2
    assert facet_rows[("answer_format", "number", "Beta")]["correct"] == "2"
    data = json.loads(export(client, assignment, "figures", "json").getvalue().decode("utf-8"))
    topic = next(f for f in data["facets"] if f["facet"] == "topic")
    python = next(v for v in topic["values"] if v["value"] == "Python")
    beta = python["configurations"]["Beta"]
    assert python["items"] == 2 and beta["knowledge"]["mean"] == 1.0
    assert beta["intervals"]["knowledge"] == list(wilson(2, 2))
    _row, token = ApiToken.issue(user=scorer, team=world.team, access="read", name="facets")
    api = client.get(
        f"/api/experiments/{built.experiment.pk}/results/figures",
        headers={"Authorization": f"Bearer {token}"},
    ).json()
    assert api["figures"]["facets"] == data["facets"]


def test_aa_figures_leave_unscored_responses_out_of_not_attempted(world, scorer, client):
    """A four-bucket run closed part-way: 3 answers, all correct, and 3 items never answered.
    AA's hallucination rate is incorrect / (incorrect + partial + not attempted) over the scored
    answers: nothing was not correct, so it is undefined (a dash), not 0 of 3."""
    built = build(world, {("Partway", 1): "CCCCCC", ("Whole", 1): "CCWWAA"})
    Response.objects.filter(run=built.runs[("Partway", 1)], item__position__gt=3).delete()
    assignment = score_all(built.experiment, scorer)
    report = scorer_report(assignment)
    values = {c.label: {d.key: d for d in c.definitions} for c in report.configs}
    partway = values["Partway"]["aa_hallucination_rate"]
    assert partway.value is None and partway.ci is None
    whole = values["Whole"]["aa_hallucination_rate"]  # 2 incorrect of 2 + 0 + 2 abstained
    assert whole.value == 0.5
    assert values["Partway"]["aa_attempt_rate"].value == 0.5  # 3 of the 6 items: N-based
    client.force_login(scorer)
    rows = tables(client.get(url(assignment)).content.decode())["definitions-table"]
    shown = {r[0]: r[3:] for r in rows[1:]}  # Partway, Whole (by label)
    assert shown["Hallucination rate (AA-Omniscience)"] == ["–", "50 %"]
