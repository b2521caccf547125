"""The report slices by topic and by answer format, as it slices by block."""

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from probe.models import ExperimentItem
from scoring.report import scorer_report
from tests.report.conftest import build
from tests.scoring.factories import score_all


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
