"""Downloads in the user's language: every result CSV with Japanese headings and values for a
Japanese user (the machine names with ?labels=machine, in English and in JSON), the bank's CSV
always in machine names (it must import back as it was), and every download named in the user's
words with an ASCII fallback (Content-Disposition, RFC 6266 and RFC 5987)."""

import csv
import io
import json
import re
from urllib.parse import unquote

import pytest
from django.urls import reverse
from django.utils import translation

from probe import bankformat
from probe.bankformat.tabular_write import COLUMNS as BANK_COLUMNS
from probe.services.banks import bank_to_data
from probe.services.preferences import user_language_set
from scoring.queue import services as queue_services
from scoring.report.export_labels import HEADERS, header
from scoring.report.exports import FIGURE_COLUMNS, RESPONSE_COLUMNS
from scoring.report.final_export import MOVE_COLUMNS
from tests.i18n.test_pages_ja import ALLOWED, WORD
from tests.scoring.factories import score_all

from .conftest import build
from .test_csv_downloads import CSV_DOWNLOADS
from .test_final_report import export_url, make_team

NAME = "確認テスト（！）　第２回"
DISPOSITION = re.compile(r"""^attachment; filename="([ -~]+)"; filename\*=UTF-8''(\S+)$""")


@pytest.fixture(autouse=True)
def _default_language_afterwards():
    # A request in Japanese leaves Japanese active in the thread (tests/i18n/conftest.py).
    yield
    translation.deactivate()


def rows_of(response) -> list[list[str]]:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"), newline="")))


def names_of(response) -> tuple[str, str]:
    """(the ASCII fallback, the UTF-8 name) of a download."""
    match = DISPOSITION.match(response["Content-Disposition"])
    assert match, response["Content-Disposition"]
    return match.group(1), unquote(match.group(2))


def japanese(user):
    user_language_set(user=user, language="ja")


@pytest.fixture
def scored(world):
    built = build(
        world,
        {("Twelve", 1): "C" * 6 + "W" * 2 + "H" + "A", ("Sim", 1): "C" * 5 + "m" * 5},
        providers={"Twelve": "openai_chat", "Sim": "simulator"},
        issues={("Twelve", 1): {3: ["missing_confidence", "markdown"]}},
        name=NAME,
    )
    assignment = score_all(built.experiment, world.users["scorer"])
    queue_services.assignment_reveal(assignment=assignment)
    return assignment


def scorer_url(assignment, what, fmt):
    return reverse(
        "scoring:export", kwargs={"assignment_token": assignment.token, "what": what, "fmt": fmt}
    )


def test_every_result_heading_has_a_japanese_name():
    columns = {*RESPONSE_COLUMNS, *FIGURE_COLUMNS, *MOVE_COLUMNS}
    columns |= {"seconds", "decisions", "decisions_per_minute"}
    with translation.override("ja"):
        for column in sorted(columns):
            assert header(column) != column, column
            words = [w for w in WORD.findall(header(column)) if w not in ALLOWED]
            assert not words, (column, header(column))
    assert set(HEADERS) <= columns | {"figure"}


def test_a_japanese_user_gets_japanese_headings_and_values(client, world, scored):
    japanese(world.users["scorer"])
    client.force_login(world.users["scorer"])
    rows = rows_of(client.get(scorer_url(scored, "responses", "csv")))
    with_language = dict(zip(RESPONSE_COLUMNS, rows[0], strict=True))
    assert with_language["bucket"] == "区分" and with_language["confidence"] == "確信度"
    assert with_language["question"] == "問題文" and with_language["scheme"] == "採点方式"
    table = [dict(zip(RESPONSE_COLUMNS, row, strict=True)) for row in rows[1:]]
    assert {r["bucket"] for r in table} == {"正答", "自信のある誤答", "留保付き誤答", "棄権"}
    assert {r["scheme"] for r in table} == {"4 区分"}
    assert {r["simulated"] for r in table} == {"はい", "いいえ"}
    # The tokens stay English, as the glossary says: 「HIGH」, never 「高」.
    assert {r["confidence"] for r in table} == {"HIGH", "MEDIUM", "LOW", ""}
    providers = {r["provider"] for r in table}
    assert len(providers) == 2 and not providers & {"simulator", "openai_chat"}
    assert any("シミュレーション" in p or "シミュレーター" in p for p in providers), providers
    issues = next(r["issues"] for r in table if r["issues"])
    assert "、" in issues and "markdown" not in issues and "confidence" not in issues
    verdicts = {r["verdict"] for r in table}
    assert verdicts and not any(re.search("[a-z]", v) for v in verdicts), verdicts
    # What users and models wrote stays as written.
    assert NAME in {r["experiment"] for r in table}

    figures = rows_of(client.get(scorer_url(scored, "figures", "csv")))
    assert figures[0][:3] == ["実験", "採点方式", "採点者"]
    assert "知識量（95 % 区間の下限）" in figures[0]
    kinds = {dict(zip(figures[0], row, strict=True))["行の種類"] for row in figures[1:]}
    assert {"実行", "モデル設定"} <= kinds and not any(re.search("[a-z]", k) for k in kinds)


def test_machine_names_on_request_in_english_and_in_json(client, world, scored):
    japanese(world.users["scorer"])
    client.force_login(world.users["scorer"])
    machine = client.get(scorer_url(scored, "responses", "csv") + "?labels=machine")
    rows = rows_of(machine)
    assert rows[0] == RESPONSE_COLUMNS
    table = [dict(zip(RESPONSE_COLUMNS, row, strict=True)) for row in rows[1:]]
    assert {r["bucket"] for r in table} == {
        "correct",
        "confident_wrong",
        "hedged_wrong",
        "abstained",
    }
    assert {r["simulated"] for r in table} == {"true", "false"}
    figures = rows_of(client.get(scorer_url(scored, "figures", "csv") + "?labels=machine"))
    assert figures[0][:6] == ["experiment", "scheme", "scorer", "w", "noise_floor", "row"]
    # JSON and JSON Lines always carry the machine names, whatever the language.
    data = json.loads(client.get(scorer_url(scored, "responses", "json")).getvalue())
    assert data["columns"] == RESPONSE_COLUMNS
    assert {r["bucket"] for r in data["responses"]} == {
        "correct",
        "confident_wrong",
        "hedged_wrong",
        "abstained",
    }
    lines = client.get(scorer_url(scored, "responses", "jsonl")).getvalue().decode().splitlines()
    assert json.loads(lines[0])["scheme"] == "four"
    # The page offers the machine names.
    page = client.get(reverse("scoring:report", kwargs={"assignment_token": scored.token}))
    assert "labels=machine" in page.content.decode()
    # An English interface: the machine names, as documented.
    user_language_set(user=world.users["scorer"], language="en")
    client.force_login(world.users["scorer"])
    english = rows_of(client.get(scorer_url(scored, "responses", "csv")))
    assert english[0] == RESPONSE_COLUMNS


def test_the_final_reports_csvs_and_the_times_in_japanese(client, world):
    team = make_team(world, name=NAME)
    queue_services.assignment_reveal(assignment=team.a)
    japanese(world.users["owner"])
    client.force_login(world.users["owner"])
    responses = rows_of(client.get(export_url(team.experiment, "responses", "csv")))
    assert responses[0][RESPONSE_COLUMNS.index("bucket")] == "区分"
    moves = rows_of(client.get(export_url(team.experiment, "moves", "csv")))
    assert moves[0] == [header(c) for c in MOVE_COLUMNS]
    assert {row[MOVE_COLUMNS.index("figure")] for row in moves[1:]} == {
        "知識量",
        "ハルシネーション率",
        "正味有用値",
    }
    figures = client.get(export_url(team.experiment, "figures", "csv"))
    assert rows_of(figures)[0][0] == "実験"
    times = client.get(
        reverse("scoring:times", kwargs={"experiment_pk": team.experiment.pk}), {"format": "csv"}
    )
    table = rows_of(times)
    assert table[0] == ["採点者", "設問", "秒数", "判定数", "1 分あたりの判定数"]
    assert "全設問" in {row[1] for row in table[1:]}
    machine = client.get(export_url(team.experiment, "moves", "csv", labels="machine"))
    assert rows_of(machine)[0] == MOVE_COLUMNS
    assert json.loads(client.get(export_url(team.experiment, "moves", "json")).content)[
        "columns"
    ] == (MOVE_COLUMNS)


def test_the_bank_csv_stays_in_machine_names_and_imports_back(client, world):
    japanese(world.users["editor"])
    client.force_login(world.users["editor"])
    url = reverse("probe:bank_export", kwargs={"bank_pk": world.bank.pk})
    response = client.get(url, {"format": "csv"})
    assert rows_of(response)[0] == list(BANK_COLUMNS)
    again = bankformat.load(response.content, "bank.csv")
    assert again.blocks == bank_to_data(world.bank).blocks


def download_urls(world, assignment, experiment):
    """Every download the URL conf has (tests/report/test_csv_downloads.py finds them), in each
    of its formats, with the words its Japanese name must carry."""
    bank = reverse("probe:bank_export", kwargs={"bank_pk": world.bank.pk})
    for fmt, extension in (("json", "json"), ("text", "txt"), ("csv", "csv"), ("jsonl", "jsonl")):
        yield "probe:bank_export", f"{bank}?format={fmt}", "確認バンク（！）", extension
    for what, word in (("responses", "回答"), ("figures", "数値")):
        for fmt in ("csv", "json", *(("jsonl",) if what == "responses" else ())):
            yield "scoring:export", scorer_url(assignment, what, fmt), word, fmt
    for what, word in (("responses", "最終区分"), ("figures", "最終数値"), ("moves", "変動")):
        for fmt in ("csv", "json", *(("jsonl",) if what == "responses" else ())):
            yield "scoring:final_export", export_url(experiment, what, fmt), word, fmt
    times = reverse("scoring:times", kwargs={"experiment_pk": experiment.pk})
    yield "scoring:times", f"{times}?format=csv", "採点時間", "csv"


def test_every_download_is_named_in_the_users_words_with_an_ascii_fallback(client, world):
    world.bank.name = "確認バンク（！）"
    world.bank.save()
    team = make_team(world, name=NAME)
    assignment = team.b  # the editor's, who scored it and may download the bank and the times
    queue_services.assignment_reveal(assignment=assignment)
    japanese(world.users["editor"])
    client.force_login(world.users["editor"])
    seen = set()
    for name, url, word, extension in download_urls(world, assignment, team.experiment):
        response = client.get(url)
        assert response.status_code == 200, url
        fallback, readable = names_of(response)
        assert fallback.isascii() and fallback.endswith(f".{extension}"), (url, fallback)
        assert readable.endswith(f"-{word}.{extension}") or readable == f"{word}.{extension}", (
            url,
            readable,
        )
        if name != "probe:bank_export":
            # The experiment's own name, full-width brackets and digits kept; the ideographic
            # space (a file system's blank) written as a dash.
            assert readable.startswith("確認テスト（！）-第２回-"), readable
        seen.add(name)
    # The grading export needs a grader's world: tests/grading/test_regrade_costs.py names it.
    assert seen == CSV_DOWNLOADS - {"grading:export"}


def test_an_english_name_keeps_its_ascii_name():
    from probe.downloads import download_filenames

    translation.activate("en")
    assert download_filenames("Sprint 3 probe", "responses", "csv") == (
        "sprint-3-probe-responses.csv",
        "Sprint-3-probe-responses.csv",
    )
    assert download_filenames('a/b:c*"d"', None, "json") == ("abcd.json", "a-b-c-d.json")
    translation.activate("ja")
    assert download_filenames("Sprint 3 probe", "figures", "csv")[1] == "Sprint-3-probe-数値.csv"


def test_the_documented_headings_are_the_written_ones():
    from pathlib import Path

    doc = Path(__file__).resolve().parents[2] / "docs" / "export-columns.md"
    section = doc.read_text(encoding="utf-8").split("## Headings and values in the", 1)[1]
    table = re.findall(r"^\| `([a-z_]+)` \| (.+?) \| (.+?) \|$", section, flags=re.M)
    assert len(table) > 100
    for column, english, japanese_heading in table:
        with translation.override("en"):
            assert header(column) == english, column
        with translation.override("ja"):
            assert header(column) == japanese_heading, column
    assert {c for c, _e, _j in table} == {*RESPONSE_COLUMNS, *FIGURE_COLUMNS, *MOVE_COLUMNS} | {
        "seconds",
        "decisions",
        "decisions_per_minute",
    }
