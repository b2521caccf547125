"""Exports: responses and figures as CSV and JSON, in the browser and by the command; the columns
are those of docs/export-columns.md."""

import csv
import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from scoring.models import Judgement
from scoring.queue import services
from scoring.report.exports import FIGURE_COLUMNS, RESPONSE_COLUMNS
from scoring.schemes import AAScheme
from tests.scoring.factories import score_all

from .conftest import build
from .test_report_figures import EXAMPLE_12, EXAMPLE_14

DOC = Path(__file__).resolve().parents[2] / "docs" / "export-columns.md"


def documented(section: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8").split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.M)


def export(client, assignment, what, fmt, **query):
    url = reverse(
        "scoring:export", kwargs={"assignment_token": assignment.token, "what": what, "fmt": fmt}
    )
    if query:
        url += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    return client.get(url)


@pytest.fixture
def examples(world, scorer, client):
    built = build(
        world,
        {("Twelve", 1): EXAMPLE_12, ("Twelve", 2): "C" * 22 + "W" * 8, ("Fourteen", 1): EXAMPLE_14},
        providers={"Fourteen": "simulator"},
        blocks=[("A", "HTTP semantics", 10), ("B", "Python", 20)],
        issues={("Twelve", 1): {3: ["missing_confidence", "markdown"]}},
        name="Export probe",
    )
    assignment = score_all(built.experiment, scorer)
    client.force_login(scorer)
    return assignment


def test_the_documented_columns_are_the_exported_ones():
    assert documented("Responses") == RESPONSE_COLUMNS
    assert documented("Figures") == FIGURE_COLUMNS


def test_responses_csv_parses_with_the_documented_columns(examples, client):
    response = export(client, examples, "responses", "csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == (
        'attachment; filename="export-probe-responses.csv"; '
        "filename*=UTF-8''Export-probe-responses.csv"
    )
    reader = csv.DictReader(io.StringIO(response.getvalue().decode("utf-8-sig")))
    assert reader.fieldnames == documented("Responses")
    rows = list(reader)
    assert len(rows) == 90  # 3 runs x 30 items
    first = rows[0]  # item 1, "Fourteen" before "Twelve"
    assert (first["item"], first["block"], first["run_label"], first["simulated"]) == (
        "1",
        "A",
        "Fourteen",
        "true",
    )
    assert first["question"] == "Report question 1?" and first["key"] == "key 1"
    assert (first["answer"], first["confidence"], first["bucket"], first["verdict"]) == (
        "key 1",
        "HIGH",
        "correct",
        "correct",
    )
    assert first["scorer"] == "acme-scorer" and first["unblinded"] == "false"
    third = next(
        r for r in rows if r["item"] == "3" and r["run_label"] == "Twelve" and r["repeat"] == "1"
    )
    assert third["issues"] == "missing_confidence;markdown"
    abstained = next(r for r in rows if r["answer"] == "UNKNOWN")
    assert (
        abstained["abstained"],
        abstained["bucket"],
        abstained["verdict"],
        abstained["confidence"],
    ) == ("true", "abstained", "preset", "")
    # counted back from the export, the worked examples hold
    twelve = [r for r in rows if r["run_label"] == "Twelve" and r["repeat"] == "1"]
    assert sum(r["bucket"] == "correct" for r in twelve) == 20
    assert sum(r["bucket"] == "confident_wrong" for r in twelve) == 8


def test_responses_json(examples, client):
    response = export(client, examples, "responses", "json")
    data = json.loads(response.getvalue())
    assert data["columns"] == RESPONSE_COLUMNS
    assert len(data["responses"]) == 90
    row = next(
        r
        for r in data["responses"]
        if r["item"] == 3 and r["run_label"] == "Twelve" and r["repeat"] == 1
    )
    assert row["issues"] == ["missing_confidence", "markdown"]
    assert row["abstained"] is False and row["unblinded"] is False


def test_figures_csv(examples, client):
    response = export(client, examples, "figures", "csv")
    reader = csv.DictReader(io.StringIO(response.getvalue().decode("utf-8-sig")))
    assert reader.fieldnames == documented("Figures")
    rows = list(reader)
    runs = {(r["configuration"], r["repeat"]): r for r in rows if r["row"] == "run"}
    assert runs[("Twelve", "1")]["net_usable"] == "12"
    assert runs[("Twelve", "2")]["net_usable"] == "14"
    assert runs[("Fourteen", "1")]["net_usable"] == "14"
    assert float(runs[("Fourteen", "1")]["hallucination_rate_probe"]) == pytest.approx(
        2 / 18, abs=1e-6
    )
    assert runs[("Fourteen", "1")]["simulated"] == "true"
    assert float(runs[("Twelve", "1")]["compliance"]) == pytest.approx(29 / 30, abs=1e-6)
    twelve = next(r for r in rows if r["row"] == "configuration" and r["configuration"] == "Twelve")
    assert (twelve["net_usable"], twelve["net_usable_min"], twelve["net_usable_max"]) == (
        "13",
        "12",
        "14",
    )
    assert twelve["high_count"] == "58" and twelve["medium_accuracy"] == ""
    blocks = [r for r in rows if r["row"] == "block"]
    assert {(r["configuration"], r["block"], r["n"]) for r in blocks} == {
        ("Fourteen", "A", "10"),
        ("Fourteen", "B", "20"),
        ("Twelve", "A", "10"),
        ("Twelve", "B", "20"),
    }
    (gap,) = [r for r in rows if r["row"] == "gap"]
    assert (gap["configuration"], gap["other_configuration"], gap["gap"], gap["gap_is_noise"]) == (
        "Fourteen",
        "Twelve",
        "1",
        "true",
    )
    assert {r["w"] for r in rows} == {"1"} and {r["noise_floor"] for r in rows} == {"3"}


def test_figures_follow_w(examples, client):
    rows = list(
        csv.DictReader(
            io.StringIO(
                export(client, examples, "figures", "csv", w=2).getvalue().decode("utf-8-sig")
            )
        )
    )
    run = next(r for r in rows if r["row"] == "run" and r["configuration"] == "Twelve")
    assert run["net_usable"] == "4" and run["w"] == "2"  # 20 - 2 x 8
    data = json.loads(export(client, examples, "figures", "json", w=2).getvalue())
    assert data["w"] == 2
    twelve = next(c for c in data["configurations"] if c["label"] == "Twelve")
    assert twelve["runs"][0]["figures"]["net_usable"] == 4


@pytest.mark.parametrize("w", ["nan", "-3", "inf", "abc", "101"])
def test_a_figures_download_with_an_unusable_w_is_refused_with_the_reason(examples, client, w):
    """A script asking for an unusable w is told so, not given the figures at w = 1 without a
    word (the page may use 1 and say so beside the field; a file cannot)."""
    for fmt in ("csv", "json"):
        response = export(client, examples, "figures", fmt, w=w)
        assert response.status_code == 400
        assert response.content.decode() == "w must be a number from 0 to 100."
    assert export(client, examples, "figures", "json", w="0.5").status_code == 200


def test_figures_json(examples, client):
    data = json.loads(export(client, examples, "figures", "json").getvalue())
    assert data["experiment"]["items"] == 30 and data["scorer"] == "acme-scorer"
    assert data["noise_floor"] == {
        "items": 3.0,
        "default": True,
        "compared_in": "items",
        "value": 3.0,
    }
    fourteen = next(c for c in data["configurations"] if c["label"] == "Fourteen")
    assert fourteen["simulated"] is True
    run = fourteen["runs"][0]
    assert run["figures"]["net_usable"] == 14 and run["figures"]["abstained"] == 12
    assert run["figures"]["hallucination_rate_probe"] == pytest.approx(2 / 18)
    assert run["calibration"]["levels"]["HIGH"] == {
        "count": 18,
        "correct": 16,
        "accuracy": pytest.approx(16 / 18),
    }
    assert fourteen["summary"]["net_usable"] == {"mean": 14, "min": 14, "max": 14, "spread": 0}
    (gap,) = data["gaps"]
    assert {k: gap[k] for k in ("a", "b", "gap", "is_noise")} == {
        "a": "Fourteen",
        "b": "Twelve",
        "gap": 1,
        "is_noise": True,
    }
    twelve = next(c for c in data["configurations"] if c["label"] == "Twelve")
    assert twelve["compliance"]["top_issues"][0]["label"] in (
        "Markdown formatting",
        "Confidence missing",
    )


def test_unblinded_shows_in_the_exports(examples, client):
    judgement = Judgement.objects.filter(assignment=examples, bucket="confident_wrong").first()
    services.judgement_decide(assignment=examples, responses=[judgement.response], bucket="correct")
    rows = list(
        csv.DictReader(
            io.StringIO(export(client, examples, "responses", "csv").getvalue().decode("utf-8-sig"))
        )
    )
    assert sum(r["unblinded"] == "true" for r in rows) == 1
    figures = list(
        csv.DictReader(
            io.StringIO(export(client, examples, "figures", "csv").getvalue().decode("utf-8-sig"))
        )
    )
    assert sum(int(r["unblinded"]) for r in figures if r["row"] == "run") == 1


def test_unknown_export_is_404(examples, client):
    assert export(client, examples, "secrets", "csv").status_code == 404
    assert export(client, examples, "figures", "xml").status_code == 404


def test_second_scheme_exports(world, scorer, client):
    built = build(
        world, {("Alpha", 1): "C" * 15 + "W" * 6 + "P" * 4 + "A" * 5}, scheme=AAScheme.key
    )
    assignment = score_all(built.experiment, scorer)
    client.force_login(scorer)
    rows = list(
        csv.DictReader(
            io.StringIO(export(client, assignment, "figures", "csv").getvalue().decode("utf-8-sig"))
        )
    )
    run = next(r for r in rows if r["row"] == "run")
    assert (run["correct"], run["incorrect"], run["partial"], run["not_attempted"]) == (
        "15",
        "6",
        "4",
        "5",
    )
    assert run["index"] == "30" and run["hallucination_rate_aa"] == "0.4" and run["w"] == ""
    assert run["confident_wrong"] == "" and run["net_usable"] == ""
    responses = list(
        csv.DictReader(
            io.StringIO(
                export(client, assignment, "responses", "csv").getvalue().decode("utf-8-sig")
            )
        )
    )
    assert sum(r["bucket"] == "partial" for r in responses) == 4
    assert sum(r["bucket"] == "not_attempted" for r in responses) == 5


# The command ----------------------------------------------------------------------------------


def run_command(*args) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("export_results", *args, stdout=out, stderr=err)
    return out.getvalue()


def test_command_exports_responses_and_figures(examples, world, tmp_path):
    experiment = examples.experiment
    rows = list(csv.DictReader(io.StringIO(run_command(str(experiment.pk), "--format", "csv"))))
    assert len(rows) == 90 and rows[0]["scorer"] == "acme-scorer"
    data = json.loads(
        run_command(
            experiment.name,
            "--format",
            "json",
            "--what",
            "figures",
            "--scorer",
            "acme-scorer",
            "--w",
            "2",
        )
    )
    twelve = next(c for c in data["configurations"] if c["label"] == "Twelve")
    assert twelve["runs"][0]["figures"]["net_usable"] == 4
    target = tmp_path / "figures.csv"
    run_command(str(experiment.pk), "--what", "figures", "--output", str(target))
    rows = list(csv.DictReader(target.open(encoding="utf-8-sig")))
    assert list(rows[0]) == FIGURE_COLUMNS and rows[0]["scorer"] == "acme-scorer"


def test_command_without_scorer_exports_every_scorer(examples, world):
    second = score_all(examples.experiment, world.users["editor"])
    assert second.revealed
    rows = list(csv.DictReader(io.StringIO(run_command(str(examples.experiment.pk)))))
    assert len(rows) == 180 and {r["scorer"] for r in rows} == {"acme-scorer", "acme-editor"}
    data = json.loads(
        run_command(str(examples.experiment.pk), "--what", "figures", "--format", "json")
    )
    assert [d["scorer"] for d in data] == ["acme-editor", "acme-scorer"]


def test_command_errors(examples, world):
    with pytest.raises(CommandError, match="No experiment"):
        run_command("999999")
    with pytest.raises(CommandError, match="is not a scorer"):
        run_command(str(examples.experiment.pk), "--scorer", "nobody")
    with pytest.raises(CommandError, match="--w"):
        run_command(str(examples.experiment.pk), "--w", "-3")
    unscored = build(world, {("Alpha", 1): "C" * 30}, name="Unscored")
    with pytest.raises(CommandError, match="Nobody has scored"):
        run_command(str(unscored.experiment.pk))


def test_figures_csv_carries_the_intervals_and_tests_and_opens_in_pandas(examples, client):
    import pandas as pd

    body = export(client, examples, "figures", "csv").content.decode()
    frame = pd.read_csv(io.StringIO(body))  # no options: one header row, plain commas
    assert list(frame.columns) == FIGURE_COLUMNS
    rows = list(csv.DictReader(io.StringIO(body)))
    runs = {(r["configuration"], r["repeat"]): r for r in rows if r["row"] == "run"}
    fourteen = runs[("Fourteen", "1")]
    # Wilson on 16 / 30 (knowledge) and 2 / 18 (the probe's hallucination rate)
    assert float(fourteen["knowledge_low"]) == pytest.approx(0.3614, abs=1e-4)
    assert float(fourteen["knowledge_high"]) == pytest.approx(0.6977, abs=1e-4)
    assert (
        float(fourteen["hallucination_rate_probe_low"])
        < 2 / 18
        < float(fourteen["hallucination_rate_probe_high"])
    )
    assert float(fourteen["net_usable_low"]) <= 14 <= float(fourteen["net_usable_high"])
    twelve = next(r for r in rows if r["row"] == "configuration" and r["configuration"] == "Twelve")
    # Every definition side by side: the AA index of 4 buckets maps incorrect = CW + HW.
    assert float(twelve["index"]) == pytest.approx(100 * (21 - 9) / 30)  # means: 21 C, 8 CW + 1 HW
    assert float(twelve["hallucination_rate_aa"]) == pytest.approx(1.0)  # 9 / (9 + 0 + 0)
    assert twelve["repeat_same_bucket"] != "" and twelve["repeat_gap"] == "2"
    one_repeat = next(
        r for r in rows if r["row"] == "configuration" and r["configuration"] == "Fourteen"
    )
    assert one_repeat["repeat_gap"] == "" and one_repeat["repeat_same_bucket"] == ""
    (gap,) = [r for r in rows if r["row"] == "gap"]
    assert float(gap["gap_low"]) <= 1 <= float(gap["gap_high"])
    assert gap["separable"] == "false" and gap["within_repeat_variation"] == ""
    risk = [r for r in rows if r["row"] == "risk_coverage" and r["configuration"] == "Fourteen"]
    assert [r["answer_at"] for r in risk] == ["HIGH", "HIGH+MEDIUM", "all"]
    assert risk[-1]["score"] == "14"  # every answer kept: net usable
    sweep = [r for r in rows if r["row"] == "sweep" and r["configuration"] == "Twelve"]
    assert [r["sweep_w"] for r in sweep] == ["0", "0.5", "1", "2", "4"]
    assert [r["net_usable"] for r in sweep] == ["21", "17", "13", "5", "-11"]  # 21 - 8 w
    (cross,) = [r for r in rows if r["row"] == "crossover"]
    # 21 - 8 w = 16 - 2 w at w = 5 / 6: Twelve ahead below, Fourteen above
    assert (cross["configuration"], cross["other_configuration"]) == ("Twelve", "Fourteen")
    assert float(cross["sweep_w"]) == pytest.approx(5 / 6, abs=1e-6)
    assert float(cross["sweep_t"]) == pytest.approx(5 / 11, abs=1e-6)


def test_figures_json_carries_the_intervals(examples, client):
    data = json.loads(export(client, examples, "figures", "json").content)
    assert data["intervals"]["bootstrap_resamples"] >= 2000
    assert data["intervals"]["blocks"] == "strata"  # two blocks: too few to resample as clusters
    twelve = next(c for c in data["configurations"] if c["label"] == "Twelve")
    low, high = twelve["intervals"]["net"]
    assert low <= 13 <= high
    assert twelve["definitions"]["hallucination_rate_probe"]["value"] == pytest.approx(8 / 30)
    assert twelve["repeat_variation"]["largest_gap"] == 2
    (gap,) = data["gaps"]
    assert gap["separable"] is False and gap["interval_low"] <= 1 <= gap["interval_high"]
    assert {x["ahead_below"] for x in data["sweep"]["crossovers"]} == {"Twelve"}


def test_a_page_of_responses_is_that_slice_of_the_whole_listing(world, scorer):
    """The API's pages are read item by item; every page, wherever it starts or ends (inside
    an item, on an item with a response missing), holds exactly those rows of the whole list."""
    from probe.models import Response
    from scoring.report import exports
    from scoring.report.build import judgement_source

    sheets = {("Beta", 1): "CWHAC", ("alpha", 1): "CCWWA", ("alpha", 2): "AHCWC"}
    experiment = build(world, sheets, name="Pages").experiment
    # Item 2 lost one of its three responses: the items hold 3, 2, 3, 3, 3 rows.
    Response.objects.filter(run__experiment=experiment, item__position=2).order_by("pk")[0].delete()
    source = judgement_source(score_all(experiment, scorer))
    whole = list(exports.response_rows(source))
    assert len(whole) == 14
    for start, stop in [(0, 1), (0, 3), (2, 4), (3, 5), (4, 9), (5, 14), (13, 14), (0, 14)]:
        page = list(exports.response_rows(source, start=start, stop=stop))
        assert page == whole[start:stop], (start, stop)
    assert list(exports.response_rows(source, start=14, stop=20)) == []
    assert list(exports.response_rows(source, start=6)) == whole[6:]
