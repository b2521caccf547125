"""An item the key review judged ambiguous drops out of a scorer's own report too."""

import csv
import io

from django.urls import reverse

from scoring.queue import services
from scoring.queue.selectors import queue_item
from scoring.report.build import scorer_report
from tests.scoring.factories import key_decision


def _scored_as_correct(world):
    """The scorer's assignment with every answer to items 1 to 3 judged correct."""
    assignment = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    for position in (1, 2, 3):
        for group in queue_item(assignment, position).groups:
            if not group.decided:
                services.judgement_decide(
                    assignment=assignment,
                    responses=[m.response for m in group.members],
                    verdict="correct",
                )
    return assignment


def test_a_dropped_item_leaves_the_scorers_report(world):
    assignment = _scored_as_correct(world)
    before = scorer_report(assignment)
    assert before.n_items == 3
    key_decision(
        world.scored,
        2,
        world.users["owner"],
        outcome="ambiguous",
        source="RFC 9110",
        note="two readings",
    )
    after = scorer_report(assignment)
    assert after.n_items == 2
    assert sum(run.counts.correct for c in after.configs for run in c.runs) == (
        sum(run.counts.correct for c in before.configs for run in c.runs) - 2
    )


def test_the_scorers_report_page_and_figures_export_leave_the_dropped_item_out(client, world):
    """The page and its figures export count what scorer_report counts: the dropped item
    nowhere, N one less, and the page says why."""
    assignment = _scored_as_correct(world)
    services.assignment_reveal(assignment=assignment)
    client.force_login(world.users["scorer"])
    page_url = reverse("scoring:report", kwargs={"assignment_token": assignment.token})
    export_url = reverse(
        "scoring:export",
        kwargs={"assignment_token": assignment.token, "what": "figures", "fmt": "csv"},
    )
    assert "judged ambiguous" not in client.get(page_url).content.decode()
    key_decision(
        world.scored, 2, world.users["owner"], outcome="ambiguous", source="RFC 9110", note="x"
    )
    page = client.get(page_url).content.decode()
    assert "1 item was judged ambiguous in the key review and is dropped from every figure" in page
    assert "N = 2." in page
    rows = list(csv.DictReader(io.StringIO(b"".join(client.get(export_url)).decode())))
    run_rows = [row for row in rows if row["row"] == "run"]
    expected = scorer_report(assignment)
    assert run_rows and all(row["n"] == "2" for row in run_rows)
    assert sum(int(row["correct"]) for row in run_rows) == sum(
        run.counts.correct for c in expected.configs for run in c.runs
    )
