"""A report of many configurations lists the first PAGE_CONFIGS of them in its tables, says so
with a link to the figures export (every row) and one to show every row on the page; the charts
and counts stay those of the whole report."""

import pytest
from django.urls import reverse
from django.utils import timezone

from scoring.models import Assignment
from scoring.report.page import PAGE_CONFIGS
from tests.builders import bulk_judgements, standalone_experiment

pytestmark = pytest.mark.django_db

N_CONFIGS = PAGE_CONFIGS + 5


def summary_table(html: str) -> str:
    return html.split('id="summary-table"', 1)[1].split("</table>", 1)[0]


@pytest.fixture
def many(client):
    experiment, user = standalone_experiment(
        n_items=6,
        n_configs=N_CONFIGS,
        repeats=1,
        answer_for=lambda i, r: (f"answer {i}", "HIGH"),
        team_name="Many",
        scorer="many-scorer",
    )
    assignment = Assignment.objects.create(
        experiment=experiment, user=user, revealed_at=timezone.now()
    )
    bulk_judgements(assignment, lambda u: "correct" if u.position % 2 else "confident_wrong")
    client.force_login(user)
    return client, assignment


def test_long_tables_are_cut_with_links_to_every_row(many):
    client, assignment = many
    url = reverse("scoring:report", kwargs={"assignment_token": assignment.token})
    page = client.get(url).content.decode()
    assert 'id="rows-cut"' in page
    assert f"first {PAGE_CONFIGS} of {N_CONFIGS} model configurations, and the pairs" in page
    export = reverse(
        "scoring:export",
        kwargs={"assignment_token": assignment.token, "what": "figures", "fmt": "csv"},
    )
    assert f'href="{export}?w=1"' in page and 'href="?rows=all"' in page
    assert f"{N_CONFIGS} model configurations" in page  # the heading counts every one
    last_shown, first_cut = f"config {PAGE_CONFIGS - 1:02d}", f"config {PAGE_CONFIGS:02d}"
    assert last_shown in summary_table(page) and first_cut not in summary_table(page)

    everything = client.get(url, {"rows": "all"}).content.decode()
    assert 'id="rows-cut"' not in everything
    assert f"config {N_CONFIGS - 1:02d}" in summary_table(everything)
    assert len(everything) > len(page)
    # The export has every configuration.
    csv = client.get(export).content.decode()
    assert all(f"config {c:02d}" in csv for c in range(N_CONFIGS))


def test_a_report_within_the_limit_is_not_cut(client):
    experiment, user = standalone_experiment(
        n_items=6,
        n_configs=3,
        repeats=1,
        answer_for=lambda i, r: (f"answer {i}", "HIGH"),
        team_name="Few",
        scorer="few-scorer",
    )
    assignment = Assignment.objects.create(
        experiment=experiment, user=user, revealed_at=timezone.now()
    )
    bulk_judgements(assignment, lambda u: "correct")
    client.force_login(user)
    page = client.get(reverse("scoring:report", kwargs={"assignment_token": assignment.token}))
    assert 'id="rows-cut"' not in page.content.decode()


def test_a_cut_slice_table_has_as_many_cells_as_heads(many):
    """The block and topic tables' rows hold the cells of the configurations their heads name."""
    client, assignment = many
    url = reverse("scoring:report", kwargs={"assignment_token": assignment.token})
    for query in ({}, {"rows": "all"}):
        page = client.get(url, query).content.decode()
        table = page.split('id="block-table"', 1)[1].split("</table>", 1)[0]
        head, body = table.split("</thead>", 1)
        groups = head.count('scope="colgroup"')
        assert groups == (PAGE_CONFIGS if not query else N_CONFIGS)
        figures = head.count('<th scope="col" class="num">')
        row = body.split("<tr", 2)[1]
        assert row.count("<td") == 1 + figures  # the items, then each head's cell
