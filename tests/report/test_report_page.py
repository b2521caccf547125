"""The report page: refused before the reveal, then every figure on the page, w, htmx, charts."""

import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from scoring.models import Judgement
from scoring.queue import services
from scoring.schemes import AAScheme
from tests.scoring.factories import score_all

from .conftest import build
from .test_report_figures import EXAMPLE_12, EXAMPLE_14

HX = {"HTTP_HX_REQUEST": "true"}


def url(assignment, **query):
    base = reverse("scoring:report", kwargs={"assignment_token": assignment.token})
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


class Cells(HTMLParser):
    """The text of every table row, by table id: {table id: [[cell text, ...], ...]}.

    Without ``intervals`` the 95 % intervals written after the figures (``span.ci``) are left
    out, so that a test of a figure reads the figure alone; tests of the intervals read them."""

    def __init__(self, intervals=False):
        super().__init__()
        self.tables, self.table, self.row, self.cell = {}, None, None, None
        self.intervals, self.skip = intervals, 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "span" and (self.skip or (not self.intervals and attrs.get("class") == "ci")):
            self.skip += 1
        if tag == "table":
            self.table = self.tables.setdefault(attrs.get("id", ""), [])
        elif tag == "tr" and self.table is not None:
            self.row = []
            self.table.append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "span" and self.skip:
            self.skip -= 1
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        if self.cell is not None and not self.skip:
            self.cell.append(data)


def tables(body: str, intervals: bool = False) -> dict:
    parser = Cells(intervals)
    parser.feed(body)
    return parser.tables


def rows_after(table, label):
    """The rows of a configuration's group: from its heading row to the next heading."""
    out, inside = [], False
    for row in table:
        if len(row) == 1:
            inside = row[0].startswith(label)
            continue
        if inside:
            out.append(row)
    return out


# The four-bucket summary's columns, by heading: a test reads a cell by its column's heading,
# never by its position, so that a new column (a figure, a scheme's bucket) moves nothing here.
FOUR_SUMMARY = (
    "Configuration / repeat",
    "Correct",
    "Confidently wrong",
    "Hedged wrong",
    "Abstained",
    "Knowledge",
    "Hallucination rate (probe)",
    "Net usable",
)


def summary_rows(body: str, label: str) -> list[dict[str, str]]:
    """A configuration's rows of the summary table, each as {column heading: cell text}."""
    summary = tables(body)["summary-table"]
    headings = summary[0]
    return [dict(zip(headings, row, strict=True)) for row in rows_after(summary, label)]


def cells(row: dict[str, str], headings=FOUR_SUMMARY) -> list[str]:
    return [row[h] for h in headings]


@pytest.fixture
def examples(world, scorer, client):
    built = build(
        world,
        {
            ("Twelve", 1): EXAMPLE_12,
            ("Twelve", 2): "C" * 22 + "W" * 8,
            ("Fourteen", 1): EXAMPLE_14,
            ("Fourteen", 2): EXAMPLE_14,
        },
        providers={"Fourteen": "simulator"},
        blocks=[("A", "HTTP semantics", 10), ("B", "Python", 20)],
    )
    assignment = score_all(built.experiment, scorer)
    client.force_login(scorer)
    return assignment


def test_before_the_reveal_the_report_shows_no_figure_and_no_label(world, scorer, client):
    built = build(
        world,
        {("Twelve", 1): EXAMPLE_12, ("Fourteen", 1): EXAMPLE_14},
        providers={"Fourteen": "simulator"},
    )
    assignment = score_all(built.experiment, scorer, reveal=False)
    client.force_login(scorer)
    response = client.get(url(assignment))
    body = response.content.decode()
    assert response.status_code == 200
    assert "The report opens after your reveal" in body
    assert reverse("scoring:reveal", kwargs={"assignment_token": assignment.token}) in body
    for secret in (
        "Twelve",
        "Fourteen",
        "model-of",
        "openai",
        "simulat",
        "Net usable",
        "Knowledge",
        "<svg",
        "<table",
    ):
        assert secret not in body, secret
    for what in ("responses", "figures"):
        for fmt in ("csv", "json"):
            export = client.get(
                reverse(
                    "scoring:export",
                    kwargs={"assignment_token": assignment.token, "what": what, "fmt": fmt},
                )
            )
            assert export.status_code == 302 and export["Location"] == url(assignment)
            assert "Twelve" not in export.content.decode()
            assert "attachment" not in export.get("Content-Disposition", "")


def test_the_page_carries_the_figures(examples, client):
    body = client.get(url(examples)).content.decode()
    summary = tables(body)["summary-table"]
    assert summary[0][: len(FOUR_SUMMARY)] == list(FOUR_SUMMARY)
    twelve = summary_rows(body, "Twelve")
    # Repeat 1, Repeat 2, Mean, Range; by column: label, 4 buckets, knowledge, hallucination, net
    assert cells(twelve[0]) == ["Repeat 1", "20", "8", "2", "0", "66.7 %", "26.7 %", "12"]
    assert cells(twelve[1]) == ["Repeat 2", "22", "8", "0", "0", "73.3 %", "26.7 %", "14"]
    assert twelve[2]["Configuration / repeat"] == "Mean" and twelve[2]["Net usable"] == "13"
    assert cells(twelve[3]) == [
        "Range", "20–22", "8", "0–2", "0", "66.7 %–73.3 %", "26.7 %", "12–14"
    ]  # fmt: skip
    fourteen = summary_rows(body, "Fourteen")
    # 2 / 18 = 11.1 %: the abstentions are out of the denominator
    assert cells(fourteen[0]) == ["Repeat 1", "16", "2", "0", "12", "53.3 %", "11.1 %", "14"]
    assert "simulated" in [r for r in summary if r and r[0].startswith("Fourteen")][0][0]

    gaps = tables(body)["gap-table"]
    assert gaps[1][0].startswith("Fourteen") and gaps[1][1].startswith("Twelve")
    # 14 - 13: the test's interval spans 0. Twelve's repeats differ on four items (two by 2
    # items of net usable, two by 1), Fourteen's on none: a repeat's variance 2 + 2 + 0.5 + 0.5
    # = 5, so the mean of two repeats varies by 5 / 2 and the floor is 1.96 x sqrt(2.5) = 3.1.
    assert gaps[1][2] == "1"
    assert gaps[1][4].startswith("not separable at 95 %")
    assert gaps[1][5] == "within their own repeat variation floor 3.1"
    # The rule of thumb (3 items in 30) is the author's, with its N, and judges no row.
    assert len(gaps[1]) == 6
    assert "3 items in 30, is 3 items at N = 30: shown for reference, it judges no gap" in (
        body.replace("&#x27;", "'")
    )

    blocks = tables(body)["block-table"]
    block_a = next(r for r in blocks if r and r[0].startswith("A "))
    # Fourteen (first by label): A = items 1-10 all correct; Twelve: A all correct in both repeats
    assert block_a[:5] == ["A HTTP semantics", "10", "10", "100 %", "10"]

    calibration = tables(body)["calibration-table"]
    twelve_cal = next(r for r in calibration if r and r[0].startswith("Twelve"))
    # HIGH: 42 correct of 58 (20 + 8 and 22 + 8); MEDIUM none; LOW: 0 of 2
    assert twelve_cal[1:8] == ["58", "72 %", "0", "–", "2", "0 %", "0"]
    compliance = tables(body)["compliance-table"]
    assert any(r[0].startswith("Twelve") and r[2] == "100 %" for r in compliance if r)

    assert "No decision was changed after the reveal." in body
    # Four charts, each with a title and a description, drawn inline (no script, no CDN), styled
    # by classes only (no style attribute: the page works under a strict content policy).
    assert body.count("<svg") == 4  # buckets, net usable, calibration, the penalty sweep
    assert len(re.findall(r"<title id=\"chart-[a-z]+-title\">", body)) == 4
    assert len(re.findall(r"<desc id=\"chart-[a-z]+-desc\">", body)) == 4
    assert " style=" not in body.split('id="report-body"', 1)[1]
    assert "http://" not in body.split("<svg", 1)[1] and "<script" not in body.split("<main", 1)[1]
    # The net usable chart's description carries the same numbers as the tables.
    described = re.search(r"Twelve: mean 13, 95 % interval ([0-9.]+) to ([0-9.]+)\.", body)
    assert described and float(described[1]) < 13 < float(described[2])


def test_w_on_the_page(examples, client):
    body = client.get(url(examples, w=2)).content.decode()
    twelve = summary_rows(body, "Twelve")
    assert (
        twelve[0]["Net usable"] == "4" and twelve[1]["Net usable"] == "6"
    )  # 20 - 2 x 8, 22 - 2 x 8
    assert "Figures with w = 2." in body
    assert 'value="2"' in body
    assert "figures.csv?w=2" in body


def test_a_bad_w_falls_back_to_1_and_says_so(examples, client):
    body = client.get(url(examples, w="lots")).content.decode()
    assert "w must be a number from 0 to 100" in body
    assert summary_rows(body, "Twelve")[0]["Net usable"] == "12"


def test_htmx_swaps_only_the_body_and_pushes_the_url(examples, client):
    response = client.get(url(examples, w="0.5"), **HX)
    body = response.content.decode()
    assert response.status_code == 200
    assert body.startswith('<div id="report-body"') and "<html" not in body
    assert response["HX-Push-Url"].endswith("/report/?w=0.5")
    assert summary_rows(body, "Twelve")[0]["Net usable"] == "16"


def test_unblinded_decisions_are_marked(examples, client):
    judgement = Judgement.objects.filter(assignment=examples, bucket="confident_wrong").first()
    services.judgement_decide(assignment=examples, responses=[judgement.response], bucket="correct")
    body = client.get(url(examples)).content.decode()
    assert "1 decision was changed after your reveal" in body
    assert "† 1" in body


def test_another_scorers_report_is_404(examples, client, world):
    client.force_login(world.users["editor"])
    assert client.get(url(examples)).status_code == 404
    export = reverse(
        "scoring:export",
        kwargs={"assignment_token": examples.token, "what": "responses", "fmt": "csv"},
    )
    assert client.get(export).status_code == 404


def test_a_viewer_cannot_open_a_report(examples, client, world):
    client.force_login(world.users["viewer"])
    assert client.get(url(examples)).status_code == 404  # not their assignment either


def test_second_scheme_page(world, scorer, client):
    built = build(
        world,
        {
            ("Alpha", 1): "C" * 15 + "W" * 6 + "P" * 4 + "A" * 5,
            ("Beta", 1): "C" * 12 + "W" * 3 + "A" * 15,
        },
        scheme=AAScheme.key,
    )
    assignment = score_all(built.experiment, scorer)
    client.force_login(scorer)
    body = client.get(url(assignment)).content.decode()
    summary = tables(body)["summary-table"]
    alpha = rows_after(summary, "Alpha")
    assert alpha[0] == [
        "Repeat 1",
        "15",
        "6",
        "4",
        "5",
        "30",
        "50 %",
        "83.3 %",
        "13.3 %",
        "16.7 %",
        "40 %",
    ]
    assert 'id="id_w"' not in body  # w belongs to the four-bucket scheme
    assert "That is 10 index points." in body


def test_page_query_count_does_not_grow_with_the_items(world, scorer, client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries(n_items):
        letters = ("CWHAm" * 10)[:n_items]
        built = build(world, {("Alpha", 1): letters, ("Beta", 1): letters}, name=f"{n_items}")
        assignment = score_all(built.experiment, scorer)
        client.force_login(scorer)
        client.get(url(assignment))
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url(assignment)).status_code == 200
        return len(ctx)

    assert queries(10) == queries(30)


def test_many_configurations_list_neighbours_in_the_ranking(world, scorer, client):
    # 13 configurations: 78 pairs; the page lists the 12 neighbours, the export every pair.
    sheets = {(f"cfg {i:02d}", 1): "C" * (10 + i) + "A" * (20 - i) for i in range(13)}
    built = build(world, sheets)
    assignment = score_all(built.experiment, scorer)
    client.force_login(scorer)
    body = client.get(url(assignment)).content.decode()
    gaps = [r for r in tables(body)["gap-table"][1:]]
    assert len(gaps) == 12
    assert gaps[0][:3] == ["cfg 12", "cfg 11", "1"]  # best first, each against the next
    # The rule of thumb is quoted with its N, and counts no pair as noise: with one repeat each
    # the repeats measure nothing, and the page says nothing about them.
    text = body.replace("&#x27;", "'")
    assert "(a gap under 3 items in 30 is noise; 3 items at N = 30) is shown for reference" in text
    assert "are noise" not in text and "own repeat noise" not in text
    assert "every pair is in the figures export" in body
