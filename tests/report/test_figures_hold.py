"""Every figure request answers, and every figure sits inside its bounds and its interval.

Random experiments in the database (both schemes, one to three configurations with their own
number of repeats, one to three blocks, dropped items, missing responses, answers without a
confidence), scored through the services, then read the way a user reads them: the report page,
the figures CSV and JSON, and the API. Each must answer 200; every share must lie in [0, 1], net
usable in [-w N, N], the index in [-100, 100]; every interval must hold its own figure; and the
page, the CSV, the JSON and the API must give one number per figure and name.
"""

import csv
import io
import json
import math

import pytest
from django.db import transaction
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from api.models import ApiToken
from probe.models import Response
from scoring.models import Bucket
from scoring.queue import services
from scoring.report.build import scorer_report
from scoring.report.numbers import numbers
from scoring.schemes import AAScheme, FourBucketScheme
from tests.scoring.factories import key_decision

from .conftest import build
from .test_exports import export
from .test_report_page import rows_after, tables, url

# What a model did on an item: (answer kind, confidence); "" is an answer with no confidence.
FOUR_ANSWERS = [
    ("key", "HIGH"),
    ("key", "MEDIUM"),
    ("key", "LOW"),
    ("key", ""),
    ("wrong", "HIGH"),
    ("wrong", "MEDIUM"),
    ("wrong", "LOW"),
    ("wrong", ""),
    ("UNKNOWN", ""),
]
AA_ANSWERS = [*FOUR_ANSWERS, ("partial", "MEDIUM"), ("partial", "")]
SHARES = (
    "knowledge",
    "hallucination_rate",
    "accuracy",
    "attempt_rate",
    "partial_rate",
    "abstention_rate",
)


@st.composite
def experiments(draw):
    scheme = draw(st.sampled_from([FourBucketScheme.key, AAScheme.key]))
    n_items = draw(st.integers(2, 22))
    n_blocks = draw(st.integers(1, min(3, n_items)))
    cuts = sorted(
        draw(st.sets(st.integers(1, n_items - 1), min_size=n_blocks - 1, max_size=n_blocks - 1))
    )
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, n_items], strict=True)]
    answers = AA_ANSWERS if scheme == AAScheme.key else FOUR_ANSWERS
    sheets = {}
    for c in range(draw(st.integers(1, 3))):
        for repeat in range(1, draw(st.integers(1, 3)) + 1):
            sheets[(f"Config {c}", repeat)] = draw(
                st.lists(st.sampled_from(answers), min_size=n_items, max_size=n_items)
            )
    positions = list(range(1, n_items + 1))
    dropped = draw(st.lists(st.sampled_from(positions), max_size=2, unique=True))
    missing = draw(
        st.lists(st.tuples(st.sampled_from(sorted(sheets)), st.sampled_from(positions)), max_size=3)
    )
    w = draw(st.sampled_from([0, 0.5, 1, 2.5]))
    return scheme, sizes, sheets, dropped, missing, w


def as_pairs(label, repeat, answers):
    texts = {"key": "key {n}", "wrong": f"wrong {{n}} {label} {repeat}", "UNKNOWN": "UNKNOWN"}
    texts["partial"] = f"partial {{n}} {label} {repeat}"
    return [(texts[kind].format(n=n), conf) for n, (kind, conf) in enumerate(answers, start=1)]


def score_everything(experiment, user, scheme):
    """Decide every response as its answer says; a wrong answer whose bucket the confidence
    cannot settle (none given) is put in a bucket directly, as a scorer would."""
    assignment = services.assignment_start(experiment=experiment, user=user)
    wrong_bucket = Bucket.INCORRECT if scheme == AAScheme.key else Bucket.HEDGED_WRONG
    for response in Response.objects.filter(run__experiment=experiment).exclude(answer="UNKNOWN"):
        kind = response.answer.split(" ")[0]
        if kind == "key":
            choice = {"verdict": "correct"}
        elif kind == "partial":
            choice = {"bucket": Bucket.PARTIAL}
        elif response.confidence:
            choice = {"verdict": "wrong"}
        else:
            choice = {"bucket": wrong_bucket}
        services.judgement_decide(assignment=assignment, responses=[response], **choice)
    services.assignment_reveal(assignment=assignment)
    assignment.refresh_from_db()
    return assignment


def within(value, low, high):
    return value is None or low - 1e-9 <= value <= high + 1e-9


def holds(interval, value, low, high):
    """An interval (None or (low, high)) inside the bounds, holding its figure."""
    if interval is None:
        return True
    lo, hi = interval
    inside = low - 1e-9 <= lo <= hi <= high + 1e-9
    return inside and (value is None or lo - 1e-9 <= value <= hi + 1e-9)


def check_report(report):
    n, w = report.n_items, report.w if report.scheme_obj.uses_weight else 1.0
    net_bounds = (-w * n, n) if report.scheme_obj.uses_weight else (-100, 100)
    for config in report.configs:
        for holder in (config, *config.runs):
            summary = config.summary if holder is config else None
            for name in SHARES:
                value = (
                    summary[name].mean
                    if summary and name in summary
                    else getattr(getattr(holder, "figures", None), name, None)
                )
                assert within(value, 0, 1), (name, value)
                assert holds(holder.ci.get(name), value, 0, 1), (name, value, holder.ci.get(name))
            value = config.net.mean if holder is config else holder.net
            assert within(value, *net_bounds) and holds(holder.ci.get("net"), value, *net_bounds)
        for level, entry in zip(("HIGH", "MEDIUM", "LOW"), config.calibration.levels, strict=True):
            assert holds(config.ci.get(f"accuracy_{level}"), entry.accuracy, 0, 1)
        for definition in config.definitions:
            bounds = (-100, 100) if definition.key == "aa_index" else (0, 1)
            if definition.key == "net_usable":
                bounds = net_bounds
            assert within(definition.value, *bounds), definition
            assert holds(definition.ci, definition.value, *bounds), definition
        for row in config.risk_coverage:
            point = row.point
            assert 0 <= point.wrong <= point.answered <= n + 1e-9 and point.penalised <= point.wrong
            assert holds(row.coverage_ci, point.coverage, 0, 1)
            assert holds(row.risk_ci, point.risk, 0, 1)
            assert holds(row.score_ci, point.score, -w * n, n)
    for part in [*report.blocks, *(row for facet in report.facets for row in facet.rows)]:
        for cell in part.cells:
            for key, interval in cell.ci.items():
                summary = cell.summary.get(key) or cell.summary.get(
                    report.scheme_obj.compared_figure
                )
                if key in ("knowledge", "accuracy"):
                    value = cell.summary["knowledge" if "knowledge" in cell.summary else "accuracy"]
                    assert holds(interval, value.mean, 0, 1), (key, value, interval)
                elif summary is not None:
                    assert holds(interval, summary.mean, -math.inf, math.inf), (key, interval)


def check_same_numbers(report, page_tables, csv_rows, json_data, api_data):
    """One number per name: the summary, the definitions, the CSV and the JSON (and the API,
    which answers the JSON's figures) agree for every configuration."""
    assert api_data["figures"] == json_data
    column = report.scheme_obj.hallucination_column
    by_label = {c["label"]: c for c in json_data["configurations"]}
    for config in report.configs:
        row = next(
            r
            for r in csv_rows
            if r["row"] == "configuration" and r["configuration"] == config.label
        )
        summary = by_label[config.label]["summary"]
        definitions = by_label[config.label]["definitions"]
        rate = config.summary["hallucination_rate"].mean
        assert summary[column]["mean"] == rate
        assert definitions[column]["value"] == rate
        # The CSV writes 6 decimals.
        assert (row[column] == "") if rate is None else float(row[column]) == round(rate, 6)
        interval = config.ci.get("hallucination_rate")
        assert definitions[column]["interval"] == (None if interval is None else list(interval))
        if interval is not None:
            assert float(row[f"{column}_low"]) == round(interval.low, 6)
            assert float(row[f"{column}_high"]) == round(interval.high, 6)
        # The page: the configuration's row over its repeats (its only run with one repeat).
        rows = rows_after(page_tables["summary-table"], config.label)
        shown = rows[-2] if len(config.runs) > 1 else rows[0]
        place = 1 + len(report.bucket_names)
        place += [c.name for c in report.scheme_obj.summary_columns].index("hallucination_rate")
        assert shown[place] == numbers().figure(rate, "pct")
        for name in ("knowledge", "accuracy"):
            if name in config.summary:
                value = config.summary[name].mean
                assert (
                    definitions["knowledge" if name == "knowledge" else "accuracy"]["value"]
                    == value
                )
    facet_rows = [r for r in csv_rows if r["row"] == "facet"]
    values = sum(len(f["values"]) for f in json_data["facets"])
    assert len(facet_rows) == values * len(report.configs)


@pytest.mark.django_db(transaction=False)
@settings(
    max_examples=25,
    deadline=None,
    # Each example builds and scores an experiment in the database: shrinking a failure would
    # take minutes; the failing example is printed as drawn.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(experiments())
def test_every_figure_answers_and_holds_its_bounds(world, case):
    scheme, sizes, sheets, dropped, missing, w = case
    with transaction.atomic():
        blocks = [(chr(65 + k), f"Block {k}", size) for k, size in enumerate(sizes)]
        built = build(
            world,
            {key: as_pairs(*key, answers) for key, answers in sheets.items()},
            blocks=blocks,
            scheme=scheme,
        )
        experiment = built.experiment
        for key, position in missing:  # a response the run never got
            Response.objects.filter(run=built.runs[key], item__position=position).delete()
        for k, item in enumerate(built.items):  # topics on some items, so facets exist
            item.topic = ("HTTP", "DNS", "")[k % 3]
            item.save(update_fields=["topic"])
        scorer = world.users["scorer"]
        assignment = score_everything(experiment, scorer, scheme)
        for position in dropped:
            key_decision(experiment, position, world.users["owner"], outcome="ambiguous", note="x")
        report = scorer_report(assignment, w=w)
        check_report(report)

        client = Client()
        client.force_login(scorer)
        page = client.get(url(assignment, w=w))
        assert page.status_code == 200
        figures_csv = export(client, assignment, "figures", "csv", w=w)
        figures_json = export(client, assignment, "figures", "json", w=w)
        assert figures_csv.status_code == 200 and figures_json.status_code == 200
        _row, token = ApiToken.issue(
            user=scorer, team=experiment.team, access="read", name="property"
        )
        api = client.get(
            f"/api/experiments/{experiment.pk}/results/figures",
            {"w": w},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert api.status_code == 200, api.content[:300]
        csv_text = figures_csv.getvalue().decode("utf-8-sig")
        check_same_numbers(
            report,
            tables(page.content.decode()),
            list(csv.DictReader(io.StringIO(csv_text))),
            _json(figures_json),
            api.json(),
        )
        transaction.set_rollback(True)


def _json(response):
    return json.loads(response.getvalue().decode("utf-8"))


def test_fractional_counts_over_repeats_never_break_the_report(world, scorer, client):
    """22 items, three repeats, 2, 50 and 14 answers at HIGH over the repeats: the mean counts
    add up to 22.000000000000004 in floating point. The report, both exports and the API used
    to answer 500 ("need 0 <= successes <= n")."""
    # Every answer correct: 2 at HIGH, 50 at MEDIUM and 14 at LOW over the three repeats.
    sheets = {
        ("Trio", 1): "C" * 2 + "m" * 20,
        ("Trio", 2): "m" * 22,
        ("Trio", 3): "m" * 8 + "c" * 14,
    }
    built = build(world, sheets)
    assignment = score_everything(built.experiment, scorer, FourBucketScheme.key)
    report = scorer_report(assignment)
    check_report(report)
    client.force_login(scorer)
    assert client.get(url(assignment)).status_code == 200
    for fmt in ("csv", "json"):
        assert export(client, assignment, "figures", fmt).status_code == 200
    (every,) = [row for row in report.configs[0].risk_coverage if row.point.levels[-1:] == ("LOW",)]
    assert every.point.answered == 22 and every.point.wrong == 0
    assert every.coverage_ci.high == 1.0 and every.risk_ci.low == 0.0
