"""The team's final report: final buckets, each scorer beside them, the moves, the agreement
headline and the key changes; closed (no figure, label or bucket) until reconciliation is
complete and for a blinded user.

The experiment: two configurations x 10 items, scored by a scorer (A) and an editor (B) through
the services, four disagreements settled by the owner. Buckets per item (C correct,
W confidently wrong, H hedged wrong, U abstained):

    Alpha  item  1  2  3  4  5  6  7  8  9  10
           A     C  C  C  C  W  W  H  U  C  W
           B     C  C  C  C  W  W  W  U  W  W
           final C  C  C  C  W  W  H  U  C  W     (7 and 9 settled)
    Beta   A     C  W  W  C  W  U  H  C  C  W
           B     C  W  W  C  C  U  H  C  W  W
           final C  W  W  C  C  U  H  C  C  W     (5 and 9 settled)
"""

import csv
import io
import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from probe.models import ModelConfig, Response
from scoring.agreement import report as agreement_report
from scoring.models import Bucket, FinalBucket, JudgementChange
from scoring.queue import services
from scoring.reconciliation import finals
from scoring.reconciliation import selectors as reconcile
from scoring.reconciliation import services as reconcile_services
from scoring.report.build import (
    final_source,
    judgement_source,
    report_build,
    scorer_report,
    without_dropped,
)
from scoring.report.final_export import MOVE_COLUMNS
from scoring.review import services as review_services
from scoring.schemes import AAScheme
from tests.conftest import scored_experiment

from .test_exports import DOC
from .test_report_page import rows_after, tables

C, W, H, U = Bucket.CORRECT, Bucket.CONFIDENT_WRONG, Bucket.HEDGED_WRONG, Bucket.ABSTAINED
HX = {"HTTP_HX_REQUEST": "true"}
LABELS = ("Alpha-final-label", "Beta-final-label")
# Strings that only a page with figures carries.
FIGURE_WORDS = (
    "Alpha-final-label",
    "Beta-final-label",
    "model-alpha",
    "model-beta",
    "Knowledge",
    "Net usable",
    "Hallucination rate",
    "Confidently wrong",
    "Hedged wrong",
    "Abstained",
    "Scorer A",
    "acme-scorer",
    "acme-editor",
    "<svg",
    "<table",
    "moves-table",
)

ALPHA = [
    ("key 1", "HIGH"),
    ("key 2", "HIGH"),
    ("key 3", "MEDIUM"),
    ("key 4", "LOW"),
    ("wrong 5", "HIGH"),
    ("wrong 6", "MEDIUM"),
    ("wrong 7", "LOW"),
    ("UNKNOWN", ""),
    ("Alt 9", "HIGH"),
    ("Alt 10", "HIGH"),
]
BETA = [
    ("key 1", "HIGH"),
    ("wrong 2", "HIGH"),
    ("wrong 3", "HIGH"),
    ("key 4", "MEDIUM"),
    ("Alt 5", "MEDIUM"),
    ("UNKNOWN", ""),
    ("wrong 7", "LOW"),
    ("key 8", "HIGH"),
    ("Alt 9", "HIGH"),
    ("wrong 10", "HIGH"),
]


def responses_of(experiment):
    """{(configuration label, item position): Response}."""
    return {
        (r.run.model_config.label, r.item.position): r
        for r in Response.objects.filter(run__experiment=experiment).select_related(
            "run__model_config", "item"
        )
    }


def decide(assignment, response, bucket):
    """As a scorer would: correct or wrong (the bucket follows from the confidence), or a bucket
    set directly where the confidence would give another one."""
    if response.abstained:
        return
    if bucket == C:
        services.judgement_decide(assignment=assignment, responses=[response], verdict="correct")
    elif services.derive_bucket(scheme="four", verdict="wrong", response=response) == bucket:
        services.judgement_decide(assignment=assignment, responses=[response], verdict="wrong")
    else:
        services.judgement_decide(assignment=assignment, responses=[response], bucket=bucket)


def final_url(experiment, **query):
    base = reverse("scoring:final_report", kwargs={"experiment_pk": experiment.pk})
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def export_url(experiment, what, fmt, **query):
    base = reverse(
        "scoring:final_export", kwargs={"experiment_pk": experiment.pk, "what": what, "fmt": fmt}
    )
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


class Team:
    def __init__(self, experiment, a, b, responses):
        self.experiment, self.a, self.b, self.responses = experiment, a, b, responses


def make_team(world, *, answers=(ALPHA, BETA), name="Final probe", settle=True):
    """The experiment of the module docstring (or any sheets, every answer judged by its text),
    both scorers finished, reconciliation begun by the owner, disagreements settled."""
    from tests.probe import factories

    configs = [
        ModelConfig.objects.filter(team=world.team, label=label).first()
        or factories.ModelConfigFactory(
            team=world.team, label=label, model_name=f"model-{label[:4].lower()}"
        )
        for label in LABELS
    ]
    experiment = scored_experiment(
        world,
        configs=configs,
        answers=[list(a) for a in answers],
        name=name,
    )
    responses = responses_of(experiment)
    a = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    b = services.assignment_start(experiment=experiment, user=world.users["editor"])
    disputed = {
        ("Alpha-final-label", 7): (H, W, H),
        ("Alpha-final-label", 9): (C, W, C),
        ("Beta-final-label", 5): (W, C, C),
        ("Beta-final-label", 9): (C, W, C),
    }
    for key, response in responses.items():
        if key in disputed:
            bucket_a, bucket_b, _final = disputed[key]
        elif response.answer.startswith(("key", "Alt")) and key != ("Alpha-final-label", 10):
            bucket_a = bucket_b = C
        else:
            bucket_a = bucket_b = services.derive_bucket(
                scheme="four", verdict="wrong", response=response
            )
        decide(a, response, bucket_a)
        decide(b, response, bucket_b)
    reconcile_services.reconciliation_start(experiment=experiment, user=world.users["owner"])
    if settle:
        for key, (_a, _b, final) in disputed.items():
            if key in responses:
                finals.final_bucket_set(
                    experiment=experiment,
                    response=responses[key],
                    user=world.users["owner"],
                    bucket=final,
                    note="Checked against the source.",
                )
    return Team(experiment, a, b, responses)


@pytest.fixture
def team(world):
    return make_team(world)


def moves_rows(body):
    return tables(body)["moves-table"]


def figure_row(rows, label, figure):
    group = rows_after(rows, label)
    return next(r for r in group if r[0] == figure)


# --- The figures --------------------------------------------------------------------------------


def test_the_final_figures_are_the_reconciled_buckets(client, world, team):
    client.force_login(world.users["owner"])
    response = client.get(final_url(team.experiment))
    assert response.status_code == 200
    body = response.content.decode()
    summary = tables(body)["summary-table"]
    # Columns: repeat, correct, confidently wrong, hedged wrong, abstained, knowledge,
    # hallucination rate (over N - abstained = 9), net usable.
    assert rows_after(summary, "Alpha-final-label")[0] == [
        "Repeat 1",
        "5",
        "3",
        "1",
        "1",
        "50 %",
        "33.3 %",
        "2",
    ]
    assert rows_after(summary, "Beta-final-label")[0] == [
        "Repeat 1",
        "5",
        "3",
        "1",
        "1",
        "50 %",
        "33.3 %",
        "2",
    ]
    assert FinalBucket.objects.filter(response__run__experiment=team.experiment).count() == 20
    # The same tables and charts as the scorer report.
    for table in ("gap-table", "calibration-table", "block-table", "compliance-table"):
        assert table in tables(body)
    assert body.count("<svg") == 4  # buckets, net usable, calibration, the penalty sweep


def test_the_blocks_come_in_the_banks_order_and_the_first_table_is_named_by_its_heading(
    client, world, team
):
    """A block coded 「3」 after blocks A and B on the sheet comes after them in the table too (it
    was sorted by its code, before A), and the figures' table region is named as its section
    is, not 「表」."""
    from probe.models import ExperimentItem

    items = ExperimentItem.objects.filter(experiment=team.experiment).order_by("position")
    positions = list(items.values_list("position", flat=True))
    for codes, part in (("A", positions[:4]), ("B", positions[4:7]), ("3", positions[7:])):
        items.filter(position__in=part).update(block_code=codes, block_title=f"Block {codes}")
    client.force_login(world.users["owner"])
    body = client.get(final_url(team.experiment), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    table = body.split('id="block-table"')[1].split("</table>")[0]
    assert re.findall(r'<tr data-block="(\w+)">', table) == ["A", "B", "3"]
    (heading,) = re.findall(r'<h2 id="h-summary">([^<]+)</h2>', body)
    region = re.search(r'aria-label="([^"]+)">\s*<table[^>]* id="summary-table"', body)
    assert region.group(1) == heading


def test_each_scorer_beside_the_final_figures_and_the_moves(client, world, team):
    client.force_login(world.users["owner"])
    body = client.get(final_url(team.experiment)).content.decode()
    rows = moves_rows(body)
    # The team shows names: columns final, A's figure, moved, B's figure, moved, mean |move|.
    assert "acme-scorer" in rows[0] and "acme-editor" in rows[0]
    assert figure_row(rows, "Alpha-final-label", "Knowledge") == [
        "Knowledge",
        "50 %",
        "50 %",
        "0 pp",
        "40 %",
        "+10 pp",
        "5 pp",
    ]
    assert figure_row(rows, "Alpha-final-label", "Hallucination rate (probe)") == [
        # 3/9 against A's 3/9 and B's 5/9: -22.2 points; mean 11.1
        "Hallucination rate (probe)",
        "33.3 %",
        "33.3 %",
        "0 pp",
        "55.6 %",
        "−22.2 pp",
        "11.1 pp",
    ]
    assert figure_row(rows, "Alpha-final-label", "Net usable") == [
        "Net usable",
        "2",
        "2",
        "0",
        "−1",
        "+3",
        "1.5",
    ]
    assert figure_row(rows, "Beta-final-label", "Knowledge") == [
        "Knowledge",
        "50 %",
        "40 %",
        "+10 pp",
        "40 %",
        "+10 pp",
        "10 pp",
    ]
    assert figure_row(rows, "Beta-final-label", "Net usable") == [
        "Net usable",
        "2",
        "0",
        "+2",
        "0",
        "+2",
        "2",
    ]


def test_scorer_figures_equal_their_own_reports_and_moves_the_differences(world, team):
    from scoring.report.final import figure_moves

    final = report_build(without_dropped(final_source(team.experiment)))
    own = [scorer_report(team.a), scorer_report(team.b)]
    moves = figure_moves(final, own)
    for entry in moves:
        for figure in entry.figures:
            final_value = entry.config.summary[figure.name].mean
            for cell, report in zip(figure.scorers, own, strict=True):
                config = next(c for c in report.configs if c.key == entry.config.key)
                assert cell.value == config.summary[figure.name].mean
                assert cell.move == pytest.approx(final_value - cell.value)
            assert figure.mean_abs_move == pytest.approx(
                sum(abs(c.move) for c in figure.scorers) / 2
            )
    alpha = next(m for m in moves if m.config.label == "Alpha-final-label")
    net = next(f for f in alpha.figures if f.name == "net_usable")
    assert (net.final, [c.value for c in net.scorers], [c.move for c in net.scorers]) == (
        2,
        [2, -1],
        [0, 3],
    )


def test_w_moves_net_usable_everywhere_and_htmx_swaps_the_body(client, world, team):
    client.force_login(world.users["owner"])
    response = client.get(final_url(team.experiment, w=2), **HX)
    body = response.content.decode()
    assert body.startswith('<div id="report-body"') and "<html" not in body
    assert response["HX-Push-Url"] == final_url(team.experiment, w=2)
    # Alpha, w = 2: final 5 - 2 x 3 = -1; A -1; B 4 - 2 x 5 = -6: moved +5.
    assert figure_row(moves_rows(body), "Alpha-final-label", "Net usable") == [
        "Net usable",
        "−1",
        "−1",
        "0",
        "−6",
        "+5",
        "2.5",
    ]
    assert "Figures with w = 2." in body
    assert "figures.csv?w=2" in body


def test_unnamed_scorers_are_scorer_a_and_b(client, world, team):
    reconciliation = reconcile.reconciliation_of(team.experiment)
    reconciliation.name_scorers = False
    reconciliation.save()
    client.force_login(world.users["owner"])
    body = client.get(final_url(team.experiment)).content.decode()
    assert "Scorer A" in body and "Scorer B" in body
    assert "acme-scorer" not in body and "acme-editor" not in body
    moves = client.get(export_url(team.experiment, "moves", "csv")).getvalue().decode("utf-8-sig")
    assert {r["scorer"] for r in csv.DictReader(io.StringIO(moves))} == {"Scorer A", "Scorer B"}
    figures = (
        client.get(export_url(team.experiment, "figures", "csv")).getvalue().decode("utf-8-sig")
    )
    assert "acme-" not in figures


def test_the_agreement_headline_and_its_link(client, world, team):
    agreement = agreement_report.agreement_report(team.experiment)
    # 18 judged responses (the two UNKNOWNs left out), 4 disagreements: 14 / 18.
    assert agreement.overall.units == 18
    assert agreement.overall.percent == pytest.approx(14 / 18)
    client.force_login(world.users["owner"])
    body = client.get(final_url(team.experiment)).content.decode()
    row = tables(body)["agreement-table"][1]
    assert row[:3] == ["Overall", "18", "77.8 %"]
    assert row[3] == f"{agreement.overall.cohen_kappa:.3f}"
    # Gwet's AC1 beside the kappas, then alpha; each with its bootstrap interval in brackets.
    assert row[5] == f"{agreement.overall.gwet_ac1:.3f}"
    assert row[6] == f"{agreement.overall.krippendorff_alpha:.3f}"
    with_intervals = tables(body, intervals=True)["agreement-table"][1]
    low, high = agreement.overall.krippendorff_alpha_ci
    assert low < agreement.overall.krippendorff_alpha < high
    assert with_intervals[6] == f"{agreement.overall.krippendorff_alpha:.3f} ({low:.3f}–{high:.3f})"
    assert reverse("scoring:agreement", kwargs={"experiment_pk": team.experiment.pk}) in body
    # A viewer sees the headline, not the link to a page for leads.
    client.force_login(world.users["viewer"])
    body = client.get(final_url(team.experiment)).content.decode()
    assert "77.8 %" in body
    assert reverse("scoring:agreement", kwargs={"experiment_pk": team.experiment.pk}) not in body


# --- Key changes --------------------------------------------------------------------------------


def amend_and_drop(world, team):
    """Item 10's key amended to "Alt 10" (both scorers had marked Alpha's "Alt 10" wrong); item 3
    judged ambiguous. Returns the amendment."""
    owner = world.users["owner"]
    items = {i.position: i for i in team.experiment.items.all()}
    amendment = review_services.key_decision_create(
        item=items[10],
        user=owner,
        outcome="amended",
        new_answer="Alt 10",
        source="https://www.rfc-editor.org/rfc/rfc9110",
        note="Both spellings are in use.",
    )
    review_services.key_decision_create(
        item=items[3],
        user=owner,
        outcome="ambiguous",
        source="RFC 9110 section 15",
        note="Two readings.",
    )
    return amendment


def recheck(team):
    """Each scorer re-checks item 10: Alpha's answer is now correct, Beta's stays wrong."""
    for assignment in (team.a, team.b):
        decide(assignment, team.responses[("Alpha-final-label", 10)], C)
        decide(assignment, team.responses[("Beta-final-label", 10)], W)


def test_an_amended_key_lists_its_rechecks_and_a_dropped_item_reduces_n(client, world, team):
    amendment = amend_and_drop(world, team)
    assert amendment.rechecked == 4  # both scorers' judgements of both sheets' item 10
    client.force_login(world.users["owner"])
    # Until the re-checks are done, the report waits for them.
    body = client.get(final_url(team.experiment)).content.decode()
    assert "2 responses await a scorer" in body
    for word in FIGURE_WORDS:
        assert word not in body, word
    recheck(team)
    body = client.get(final_url(team.experiment)).content.decode()
    keys = tables(body)["key-changes-table"]
    assert keys[1][:4] == ["3", "dropped: ambiguous Two readings.", "key 3", "(dropped)"]
    assert keys[1][6:] == ["–", "–"]
    amended = keys[2]
    assert amended[:4] == ["10", "amended Both spellings are in use.", "key 10", "Alt 10"]
    assert amended[4] == "https://www.rfc-editor.org/rfc/rfc9110"
    assert amended[5].startswith("acme-owner")
    assert amended[6:] == ["4", "2"]  # 4 re-checked; Alpha's two changed bucket, Beta's kept
    # N = 9: item 3 is out of the final figures and of each scorer's.
    assert "N = 9" in body
    summary = tables(body)["summary-table"]
    # Alpha final: C 1 2 4 9 10, W 5 6, H 7, U 8: knowledge 5/9, 2/8, net 3.
    assert rows_after(summary, "Alpha-final-label")[0] == [
        "Repeat 1",
        "5",
        "2",
        "1",
        "1",
        "55.6 %",
        "25 %",
        "3",
    ]
    # Beta final: C 1 4 5 8 9, W 2 10, H 7, U 6.
    assert rows_after(summary, "Beta-final-label")[0] == [
        "Repeat 1",
        "5",
        "2",
        "1",
        "1",
        "55.6 %",
        "25 %",
        "3",
    ]
    rows = moves_rows(body)
    # Alpha: A C 1 2 4 9 10, W 5 6 -> net 3; B C 1 2 4 10, W 5 6 7 9 -> net 0.
    assert figure_row(rows, "Alpha-final-label", "Net usable") == [
        "Net usable",
        "3",
        "3",
        "0",
        "0",
        "+3",
        "1.5",
    ]
    # Beta: A and B both C 4, W 3 -> net 1, knowledge 4/9.
    assert figure_row(rows, "Beta-final-label", "Net usable") == [
        "Net usable",
        "3",
        "1",
        "+2",
        "1",
        "+2",
        "2",
    ]
    assert figure_row(rows, "Beta-final-label", "Knowledge") == [
        "Knowledge",
        "55.6 %",
        "44.4 %",
        "+11.1 pp",
        "44.4 %",
        "+11.1 pp",
        "11.1 pp",
    ]
    # Each scorer's column is their own judgements over the same 9 items.
    for assignment in (team.a, team.b):
        own = report_build(without_dropped(judgement_source(assignment)))
        assert own.n_items == 9 and own.dropped == 1


def test_a_viewer_sees_the_key_changes_without_the_key_texts(client, world, team):
    amend_and_drop(world, team)
    recheck(team)
    client.force_login(world.users["viewer"])
    body = client.get(final_url(team.experiment)).content.decode()
    assert "Key texts are shown to owners, editors" in body
    assert "Alt 10</strong>" not in body and ">key 10<" not in body
    rows = list(
        csv.DictReader(
            io.StringIO(
                client.get(export_url(team.experiment, "responses", "csv"))
                .getvalue()
                .decode("utf-8-sig")
            )
        )
    )
    assert {r["key"] for r in rows} == {""}
    figures = json.loads(client.get(export_url(team.experiment, "figures", "json")).getvalue())
    assert {k["old_key"] for k in figures["key_changes"]} == {None}
    # The scorer (revealed) saw every key while scoring: the texts are theirs to see.
    services.assignment_reveal(assignment=team.a)
    client.force_login(world.users["scorer"])
    body = client.get(final_url(team.experiment)).content.decode()
    assert "<strong>Alt 10</strong>" in body


def test_a_lead_decision_older_than_the_amendment_is_pointed_out(client, world, team):
    # Item 9 was settled by the lead on both sheets; then its key is amended to "Alt 9".
    item = team.experiment.items.get(position=9)
    amendment = review_services.key_decision_create(
        item=item,
        user=world.users["owner"],
        outcome="amended",
        new_answer="Alt 9",
        source="A primary source",
    )
    assert amendment.rechecked == 4
    for assignment in (team.a, team.b):  # A keeps correct; B changes wrong to correct
        for config in LABELS:
            decide(assignment, team.responses[(config, 9)], C)
    client.force_login(world.users["owner"])
    body = client.get(final_url(team.experiment)).content.decode()
    assert "2 final buckets were set by a lead before the key of their item was amended" in body
    keys = tables(body)["key-changes-table"]
    assert keys[1][0] == "9" and keys[1][6:] == ["4", "2"]


def test_a_recheck_undone_does_not_count_as_a_change(world, team):
    from scoring.report.final import key_change_rows

    amend_and_drop(world, team)
    recheck(team)
    services.judgement_undo(assignment=team.b)  # B's Beta re-check was a keep: undoes Alpha's
    rows = {r.decision.item.position: r for r in key_change_rows(team.experiment)}
    assert (rows[10].sent_back, rows[10].changed) == (4, 1)
    assert JudgementChange.objects.filter(undone=True).count() == 1


# --- The gate -----------------------------------------------------------------------------------


def assert_closed(body):
    # The page's own content (the top bar names the user who is logged in).
    body = body.split('<main id="main"', 1)[1]
    for word in FIGURE_WORDS:
        assert word not in body, word
    for bucket in ("bucket-", "Correct", "%"):
        assert bucket not in body, bucket


def test_before_reconciliation_nothing_shows(client, world):
    from tests.probe import factories

    configs = [factories.ModelConfigFactory(team=world.team, label=label) for label in LABELS]
    experiment = scored_experiment(
        world,
        configs=configs,
        answers=[ALPHA, BETA],
        name="Not begun",
    )
    client.force_login(world.users["owner"])
    body = client.get(final_url(experiment)).content.decode()
    assert "Reconciliation has not begun" in body and "0 of 0 scorers have finished" in body
    assert_closed(body)
    for what in ("responses", "figures", "moves"):
        response = client.get(export_url(experiment, what, "csv"))
        assert response.status_code == 302 and response["Location"] == final_url(experiment)


def test_open_disagreements_keep_it_closed_and_say_how_many(client, world):
    team = make_team(world, settle=False)
    client.force_login(world.users["owner"])
    body = client.get(final_url(team.experiment)).content.decode()
    assert "4 disagreements are left to settle." in body
    assert_closed(body)
    assert reverse("scoring:reconcile", kwargs={"experiment_pk": team.experiment.pk}) in body
    client.force_login(world.users["viewer"])
    body = client.get(final_url(team.experiment)).content.decode()
    assert "4 disagreements are left to settle." in body
    assert reverse("scoring:reconcile", kwargs={"experiment_pk": team.experiment.pk}) not in body
    response = client.get(export_url(team.experiment, "figures", "json"))
    assert response.status_code == 302 and b"Alpha" not in response.content


def test_a_blinded_scorer_sees_nothing_until_their_reveal(client, world, team):
    client.force_login(world.users["scorer"])  # scorer A: finished, not revealed
    response = client.get(final_url(team.experiment))
    body = response.content.decode()
    assert "opens to you after your own reveal" in body
    assert reverse("scoring:reveal", kwargs={"assignment_token": team.a.token}) in body
    assert_closed(body)
    assert "disagreement" not in body  # how far the others are is none of a blinded scorer's
    for what in ("responses", "figures", "moves"):
        export = client.get(export_url(team.experiment, what, "json"))
        assert export.status_code == 302 and b"Alpha" not in export.content
    services.assignment_reveal(assignment=team.a)
    body = client.get(final_url(team.experiment)).content.decode()
    assert "Alpha-final-label" in body and "moves-table" in body


def test_a_team_scorer_who_did_not_score_it_is_blinded(client, world, team):
    from probe.models import Membership
    from tests.probe import factories

    other = factories.UserFactory(username="acme-second-scorer")
    Membership.objects.create(team=world.team, user=other, role="scorer")
    client.force_login(other)
    body = client.get(final_url(team.experiment)).content.decode()
    assert "Score this experiment blind first" in body
    assert_closed(body)


# --- Exports ------------------------------------------------------------------------------------


def test_exports(client, world, team):
    client.force_login(world.users["owner"])
    responses = client.get(export_url(team.experiment, "responses", "csv"))
    assert 'filename="final-probe-final-responses.csv"' in responses["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(responses.getvalue().decode("utf-8-sig"))))
    assert len(rows) == 20
    buckets = {(r["run_label"], int(r["item"])): r["bucket"] for r in rows}
    assert buckets[("Alpha-final-label", 9)] == C and buckets[("Beta-final-label", 5)] == C
    assert buckets[("Alpha-final-label", 7)] == H
    figures = list(
        csv.DictReader(
            io.StringIO(
                client.get(export_url(team.experiment, "figures", "csv"))
                .getvalue()
                .decode("utf-8-sig")
            )
        )
    )
    config_rows = [r for r in figures if r["row"] == "configuration"]
    assert [(r["scorer"], r["configuration"], r["net_usable"]) for r in config_rows] == [
        ("", "Alpha-final-label", "2"),
        ("", "Beta-final-label", "2"),
        ("acme-scorer", "Alpha-final-label", "2"),
        ("acme-scorer", "Beta-final-label", "0"),
        ("acme-editor", "Alpha-final-label", "-1"),
        ("acme-editor", "Beta-final-label", "0"),
    ]
    moves = list(
        csv.DictReader(
            io.StringIO(
                client.get(export_url(team.experiment, "moves", "csv", w=2))
                .getvalue()
                .decode("utf-8-sig")
            )
        )
    )
    assert list(moves[0]) == MOVE_COLUMNS
    alpha_net = [
        r
        for r in moves
        if r["configuration"] == "Alpha-final-label" and r["figure"] == "net_usable"
    ]
    assert [(r["scorer"], r["value"], r["move"], r["mean_abs_move"]) for r in alpha_net] == [
        ("acme-scorer", "-1", "0", "2.5"),
        ("acme-editor", "-6", "5", "2.5"),
    ]
    data = json.loads(client.get(export_url(team.experiment, "figures", "json")).getvalue())
    assert data["final"]["scorer"] is None and data["dropped_items"] == 0
    assert [s["scorer"] for s in data["scorers"]] == ["acme-scorer", "acme-editor"]
    assert data["agreement"]["percent_agreement"] == pytest.approx(14 / 18)
    assert client.get(export_url(team.experiment, "other", "csv")).status_code == 404
    assert client.get(export_url(team.experiment, "moves", "xml")).status_code == 404


def test_the_moves_columns_are_documented():
    text = DOC.read_text(encoding="utf-8").split("## Final report\n", 1)[1].split("\n## ", 1)[0]
    moves = text.split("### Moves\n", 1)[1]
    assert re.findall(r"^\| `([a-z_]+)` \|", moves, flags=re.M) == MOVE_COLUMNS


# --- Links and queries --------------------------------------------------------------------------


def test_linked_from_the_experiment_and_the_reconciliation(client, world, team):
    url = final_url(team.experiment)
    client.force_login(world.users["viewer"])
    detail = client.get(
        reverse("probe:experiment_detail", kwargs={"experiment_pk": team.experiment.pk})
    )
    assert url in detail.content.decode()
    client.force_login(world.users["owner"])
    body = client.get(reverse("scoring:reconcile", kwargs={"experiment_pk": team.experiment.pk}))
    assert url in body.content.decode()


def test_query_count_does_not_grow_with_the_items(client, world):
    def queries(n_items):
        answers = [
            [
                (ALPHA[i % 10][0].replace(str(i % 10 + 1), str(i + 1)), ALPHA[i % 10][1])
                for i in range(n_items)
            ],
            [
                (BETA[i % 10][0].replace(str(i % 10 + 1), str(i + 1)), BETA[i % 10][1])
                for i in range(n_items)
            ],
        ]
        team = make_team(world, answers=answers, name=f"Final {n_items}", settle=False)
        for response in Response.objects.filter(run__experiment=team.experiment):
            if not FinalBucket.objects.filter(response=response).exists():
                finals.final_bucket_set(
                    experiment=team.experiment,
                    response=response,
                    user=world.users["owner"],
                    bucket=C,
                )
        client.force_login(world.users["owner"])
        url = final_url(team.experiment)
        assert "moves-table" in client.get(url).content.decode()
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx)

    assert queries(10) == queries(30)


def test_second_scheme_moves_the_index(client, world):
    from tests.scoring.factories import score_all

    from .conftest import build

    built = build(
        world,
        {("Alpha", 1): "CCWPA", ("Beta", 1): "CWWPA"},
        scheme=AAScheme.key,
        name="AA final",
    )
    score_all(built.experiment, world.users["scorer"])
    b = score_all(built.experiment, world.users["editor"])

    def response(label, position):
        return Response.objects.get(run=built.runs[(label, 1)], item__position=position)

    services.judgement_decide(assignment=b, responses=[response("Alpha", 3)], bucket=C)
    services.judgement_decide(
        assignment=b, responses=[response("Beta", 1)], bucket=Bucket.INCORRECT
    )
    reconcile_services.reconciliation_start(experiment=built.experiment, user=world.users["owner"])
    for label, position in (("Alpha", 3), ("Beta", 1)):
        finals.final_bucket_set(
            experiment=built.experiment,
            response=response(label, position),
            user=world.users["owner"],
            bucket=C,
        )
    client.force_login(world.users["owner"])
    body = client.get(final_url(built.experiment)).content.decode()
    assert 'id="id_w"' not in body  # w belongs to the four-bucket scheme
    rows = moves_rows(body)
    # Alpha final C C C P N: index 100 x 3 / 5 = 60; A (C C I P N) 20; B 60.
    assert figure_row(rows, "Alpha", "Index") == ["Index", "60", "20", "+40", "60", "0", "20"]
    assert figure_row(rows, "Alpha", "Accuracy") == [
        "Accuracy",
        "60 %",
        "40 %",
        "+20 pp",
        "60 %",
        "0 pp",
        "10 pp",
    ]
    # Hallucination rate = incorrect / (incorrect + partial + not attempted): 0, A 1/3, B 0.
    assert figure_row(rows, "Alpha", "Hallucination rate (AA-Omniscience)") == [
        "Hallucination rate (AA-Omniscience)",
        "0 %",
        "33.3 %",
        "−33.3 pp",
        "0 %",
        "0 pp",
        "16.7 pp",
    ]
    # Beta final C I I P N: index -20; A the same; B (I I I P N) -60.
    assert figure_row(rows, "Beta", "Index") == ["Index", "−20", "−20", "0", "−60", "+40", "20"]
