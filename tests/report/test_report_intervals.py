"""The report's intervals, paired comparisons, repeat noise, risk-coverage, sweep and definitions,
on real experiments in the database and on the page."""

import numpy as np
import pytest

from scoring.report.build import scorer_report
from scoring.report.stats import wilson, wilson_items
from scoring.schemes import AAScheme
from tests.scoring.factories import score_all

from .conftest import build
from .test_report_figures import EXAMPLE_12, EXAMPLE_14, config
from .test_report_page import rows_after, tables, url

# 20 correct (16 HIGH, 4 MEDIUM), 8 confidently wrong (2 HIGH, 6 MEDIUM), 2 hedged wrong (LOW)
GRADED_12 = "C" * 16 + "m" * 4 + "W" * 2 + "M" * 6 + "H" * 2


def test_the_sweep_crosses_at_two_thirds_on_the_worked_example(world, scorer, client):
    built = build(world, {("Twelve", 1): EXAMPLE_12, ("Fourteen", 1): EXAMPLE_14})
    assignment = score_all(built.experiment, scorer)
    report = scorer_report(assignment)
    (cross,) = report.inference.sweep.crossovers
    twelve, fourteen = config(report, "Twelve"), config(report, "Fourteen")
    assert (cross.a, cross.b) == (twelve.key, fourteen.key)  # Twelve ahead below, Fourteen above
    assert cross.w == pytest.approx(2 / 3) and cross.t == pytest.approx(0.4)
    assert report.inference.sweep.value(twelve.key, 1.0) == 12
    assert report.inference.sweep.value(fourteen.key, 1.0) == 14
    client.force_login(scorer)
    body = client.get(url(assignment)).content.decode()
    crossing = tables(body)["crossover-table"][1]
    assert crossing == ["Twelve", "Fourteen", "0.667", "0.4", "14.7"]
    sweep = {r[0]: r[1:] for r in tables(body)["sweep-table"][1:]}
    assert sweep["Twelve"] == ["20", "16", "12", "4", "−12"]  # w = 0, 0.5, 1, 2, 4
    assert 'class="chart chart-sweep"' in body and 'class="crossover"' in body


def test_risk_coverage_on_the_worked_example(world, scorer, client):
    built = build(world, {("Graded", 1): GRADED_12, ("Fourteen", 1): EXAMPLE_14})
    assignment = score_all(built.experiment, scorer)
    report = scorer_report(assignment)
    high, high_medium, every = (row.point for row in config(report, "Graded").risk_coverage)
    # Answering only at HIGH would have scored 16 - 2 = 14; at HIGH and MEDIUM 20 - 8 = 12.
    assert (high.answered, high.score) == (18, 14)
    assert (high_medium.answered, high_medium.score) == (28, 12)
    assert (every.answered, every.score) == (30, 12)
    assert [row.point.score for row in config(report, "Fourteen").risk_coverage] == [14, 14, 14]
    client.force_login(scorer)
    rows = tables(client.get(url(assignment)).content.decode())["risk-table"]
    start = next(i for i, r in enumerate(rows) if r and r[0] == "Graded")
    graded = rows[start : start + 3]
    assert graded[0] == ["Graded", "HIGH only", "18", "60 %", "11.1 %", "14"]
    assert graded[1] == ["HIGH and MEDIUM", "28", "93.3 %", "28.6 %", "12"]


def test_every_figure_carries_its_interval(world, scorer, client):
    built = build(
        world,
        {("Twelve", 1): EXAMPLE_12, ("Twelve", 2): "C" * 22 + "W" * 8, ("Fourteen", 1): EXAMPLE_14},
    )
    assignment = score_all(built.experiment, scorer)
    report = scorer_report(assignment)
    fourteen = config(report, "Fourteen")
    (run,) = fourteen.runs
    assert run.ci["knowledge"] == wilson(16, 30)
    assert run.ci["hallucination_rate"] == wilson(2, 18)  # abstentions out of the denominator
    assert run.ci["net"].low <= 14 <= run.ci["net"].high
    twelve = config(report, "Twelve")
    # The mean over repeats, over its N items, each item with its two repeats: items 1-20
    # correct in both, 21-22 in one of the two, 23-30 in neither.
    knowledge = np.array([1.0] * 20 + [0.5] * 2 + [0.0] * 8)
    (expected,) = wilson_items(knowledge, np.ones(30), np.zeros(30), repeats=2)
    assert twelve.ci["knowledge"] == pytest.approx(expected, rel=1e-12)
    assert expected.low < 21 / 30 < expected.high
    assert twelve.ci["net"].low <= 13 <= twelve.ci["net"].high
    # Every answer of both repeats is rated HIGH (C and W): 42 correct of 58 attempted.
    high_correct = np.array([1.0] * 20 + [0.5] * 2 + [0.0] * 8)
    high_count = np.array([1.0] * 28 + [0.5] * 2)
    expected = wilson_items(high_correct, high_count, np.zeros(30), 2)[0]
    assert twelve.ci["accuracy_HIGH"] == pytest.approx(expected, rel=1e-12)
    # the same data give the same intervals (fixed seed)
    assert config(scorer_report(assignment), "Twelve").ci == twelve.ci
    client.force_login(scorer)
    body = client.get(url(assignment)).content.decode()
    summary = rows_after(tables(body, intervals=True)["summary-table"], "Fourteen")
    assert summary[0][5] == "53.3 % (36.1–69.8 %)"  # 16 / 30 with Wilson's interval
    assert summary[0][6] == "11.1 % (3.1–32.8 %)"
    low, high = run.ci["net"]
    assert summary[0][7] == f"14 ({low:g}–{high:g})"


def test_repeats_measure_the_noise_and_one_repeat_says_it_cannot(world, scorer, client):
    built = build(
        world,
        {("Twelve", 1): EXAMPLE_12, ("Twelve", 2): "C" * 22 + "W" * 8, ("Fourteen", 1): EXAMPLE_14},
    )
    assignment = score_all(built.experiment, scorer)
    report = scorer_report(assignment)
    noise = config(report, "Twelve").repeat_noise
    # the repeats differ on items 21-22 (confidently wrong, then correct) and 29-30 (hedged,
    # then confidently wrong): 26 of 30 alike
    assert (noise.same, noise.compared, noise.gap) == (26, 30, 2)
    assert noise.gap_ci.low <= 2 <= noise.gap_ci.high
    assert config(report, "Fourteen").repeat_noise is None
    (gap,) = report.gaps
    assert gap.within_repeat_noise is None  # Fourteen has one repeat: not measured
    client.force_login(scorer)
    body = client.get(url(assignment)).content.decode()
    assert "One repeat: the noise cannot be measured." in body
    repeats = tables(body)["repeat-table"]
    assert repeats[2][:3] == ["Twelve", "2", "86.7 % 26 of 30"]


def test_a_clear_gap_is_separable_and_a_gap_within_the_repeats_is_marked(world, scorer, client):
    built = build(
        world,
        {
            ("Good", 1): "C" * 28 + "W" * 2,
            ("Good", 2): "C" * 26 + "W" * 4,
            ("Bad", 1): "C" * 8 + "W" * 22,
            ("Bad", 2): "C" * 10 + "W" * 20,
            ("Near", 1): "C" * 26 + "W" * 4,
            ("Near", 2): "C" * 25 + "W" * 5,
        },
    )
    assignment = score_all(built.experiment, scorer)
    report = scorer_report(assignment)
    gaps = {(g.a.label, g.b.label): g for g in report.gaps}
    clear = gaps[("Good", "Bad")]
    assert clear.test.separable and clear.test.interval.low > 0
    # The interval is the test's own: it excludes 0 because the pair is separable, at the level
    # Holm's correction tested the pair at (three pairs: 1 - 0.05 / 3 for the first).
    assert clear.test.p_holm <= 0.05 and clear.test.level == pytest.approx(1 - 0.05 / 3)
    assert clear.within_repeat_noise is False
    near = gaps[("Good", "Near")]  # 23 against 21.5: Good's repeats differ by 4
    assert not near.test.separable and near.within_repeat_noise is True
    assert report.separable_pairs == 2
    client.force_login(scorer)
    body = client.get(url(assignment)).content.decode()
    assert "2 of 3 pairs are separable at 95 %." in body
    rows = {tuple(r[:2]): r for r in tables(body)["gap-table"][1:]}
    assert rows[("Good", "Bad")][4].startswith("separable The higher one is ahead")
    assert rows[("Good", "Near")][4].startswith("not separable at 95 % These items do not tell")
    assert rows[("Good", "Near")][5].startswith("within their own repeat variation floor")


def test_definitions_side_by_side_never_share_a_name(world, scorer, client):
    built = build(world, {("Twelve", 1): EXAMPLE_12, ("Fourteen", 1): EXAMPLE_14})
    assignment = score_all(built.experiment, scorer)
    client.force_login(scorer)
    body = client.get(url(assignment)).content.decode()
    rows = tables(body)["definitions-table"]
    names = [r[0] for r in rows[1:]]
    assert len(set(names)) == len(names)
    formulas = {r[0]: r[2] for r in rows[1:]}
    assert formulas["Hallucination rate (probe)"].startswith("confidently wrong / attempted")
    assert formulas["Hallucination rate (AA-Omniscience)"] == (
        "incorrect / (incorrect + partial + not attempted)"
    )
    values = {r[0]: r[3:] for r in rows[1:]}  # Fourteen, Twelve (by label)
    # Fourteen: 2 confidently wrong of 18 attempted; AA: 2 incorrect of 2 + 0 + 12 not correct.
    # Twelve: 8 of 30 attempted; AA: 10 incorrect (8 + 2 hedged) of 10 not correct.
    assert values["Hallucination rate (probe)"] == ["11.1 %", "26.7 %"]
    assert values["Hallucination rate (AA-Omniscience)"] == ["14.3 %", "100 %"]
    assert values["Correct given attempted"] == ["88.9 %", "66.7 %"]
    assert values["Omniscience index"][1] == "33.3"  # 100 x (20 - 10) / 30


def test_the_second_scheme_has_its_own_definitions_and_no_sweep(world, scorer, client):
    built = build(
        world,
        {("Alpha", 1): "C" * 15 + "W" * 6 + "P" * 4 + "A" * 5},
        scheme=AAScheme.key,
    )
    assignment = score_all(built.experiment, scorer)
    report = scorer_report(assignment)
    assert report.inference.sweep is None
    alpha = config(report, "Alpha")
    assert alpha.ci["hallucination_rate"] == wilson(6, 15)  # 6 / (6 + 4 + 5)
    assert alpha.ci["net"].low <= 30 <= alpha.ci["net"].high  # index 100 x (15 - 6) / 30
    client.force_login(scorer)
    body = client.get(url(assignment)).content.decode()
    assert 'id="sweep-table"' not in body and body.count("<svg") == 3
    values = {r[0]: r[3:] for r in tables(body)["definitions-table"][1:]}
    assert values["Hallucination rate (probe)"] == ["–"]  # no confidently wrong bucket here
    assert values["Hallucination rate (AA-Omniscience)"] == ["40 %"]
    assert values["Omniscience index"] == ["30"]
