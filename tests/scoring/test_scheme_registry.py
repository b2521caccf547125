"""The scheme registry is the one list of schemes: a scheme registered with a bucket nobody
else has is offered by the experiment form and the API (its OpenAPI schema too), its bucket is a
stored value of every bucket field, its badge and swatch colours are in the bucket stylesheet,
the report's chart draws it in its own colour, the figures export has its count column with its
heading, and a grader may name it, with no other file changed."""

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.urls import reverse

from api.urls import api
from grading import labels
from probe.forms.experiments import ExperimentForm
from probe.models import Experiment, Response
from scoring import schemes
from scoring.models import Bucket, Judgement
from scoring.queue import services
from scoring.report.build import scorer_report
from scoring.report.charts import bucket_chart
from scoring.report.export_labels import csv_labels, header
from scoring.report.exports import FIGURE_COLUMNS, figure_columns, figure_rows
from scoring.schemes import BucketStyle, RightWrongScheme
from tests.report.conftest import build

UNSURE = "unsure"
UNSURE_STYLE = BucketStyle("Unsure", "#fff0c2", "#5a4500", "#b8860b")


@dataclass(frozen=True)
class UnsureFigures:
    n: int
    correct: int
    incorrect: int
    unsure: int
    unscored: int
    accuracy: float | None
    balance: float


class WithUnsure(RightWrongScheme):
    """Right, wrong or unsure: a new bucket, with its colours here and nowhere else."""

    key = "unsure3"
    label = "Right / Wrong / Unsure"
    help = "Three buckets, one of them new: Unsure."
    testing = False
    buckets = (Bucket.CORRECT, Bucket.INCORRECT, UNSURE)
    bucket_styles = {**RightWrongScheme.bucket_styles, UNSURE: UNSURE_STYLE}
    grader_names_bucket = True  # a grader says CORRECT, INCORRECT or UNSURE

    def figures(self, bucket_counts, n_items, w):
        c = bucket_counts.get(Bucket.CORRECT, 0)
        i = bucket_counts.get(Bucket.INCORRECT, 0)
        u = bucket_counts.get(UNSURE, 0)
        n = max(n_items, c + i + u)
        figures = UnsureFigures(n, c, i, u, n - c - i - u, c / n if n else None, c - w * i)
        return figures, figures


@pytest.fixture
def with_unsure():
    schemes.register(WithUnsure)
    yield schemes.scheme_for(WithUnsure.key)
    schemes.unregister(WithUnsure.key)


def _scheme_property(schema) -> dict:
    return schema["components"]["schemas"]["ExperimentIn"]["properties"]["scheme"]


def test_a_new_scheme_and_bucket_reach_form_api_css_and_chart(with_unsure, world, client):
    # The experiment form offers it, with its help.
    form = ExperimentForm(team=world.team)
    assert (WithUnsure.key, "Right / Wrong / Unsure") in form.fields["scheme"].choices
    assert "Three buckets, one of them new: Unsure." in str(form.fields["scheme"].help_text)
    # The model's choices take the scheme and the bucket (no migration: they are read from
    # the registry).
    assert WithUnsure.key in dict(Experiment._meta.get_field("scheme").choices)
    assert dict(Judgement._meta.get_field("bucket").choices)[UNSURE] == "Unsure"
    # The API's schema lists it and describes it.
    scheme = _scheme_property(api.get_openapi_schema())
    assert WithUnsure.key in scheme["enum"] and "Three buckets" in scheme["description"]
    # The badges' stylesheet has its rule, in its colours.
    css = client.get(reverse("scoring:bucket_css"))
    assert css.status_code == 200 and css["Content-Type"].startswith("text/css")
    assert ".bucket-unsure { background: #fff0c2; color: #5a4500; }" in css.content.decode()
    # ... and the report's swatch beside its column, in its chart colour; the report's own
    # stylesheet lists no bucket's swatch.
    assert ".swatch-unsure { background: #b8860b; }" in css.content.decode()
    report_css = (Path(__file__).parents[2] / "static" / "css" / "report.css").read_text()
    assert ".swatch-" not in report_css
    # A grader names the new bucket, and the label gives it.
    assert labels.scheme_labels(with_unsure) == ("CORRECT", "INCORRECT", "UNSURE")
    assert labels.bucket_for(with_unsure, "UNSURE", None) == UNSURE

    # An experiment in it: a response put in the new bucket is drawn in the bucket's colour.
    built = build(world, {("Alpha", 1): "CWWA"}, scheme=WithUnsure.key)
    scorer = world.users["scorer"]
    assignment = services.assignment_start(experiment=built.experiment, user=scorer)
    responses = list(Response.objects.filter(run__experiment=built.experiment).order_by("item"))
    services.judgement_decide(assignment=assignment, responses=responses[:1], verdict="correct")
    services.judgement_decide(assignment=assignment, responses=responses[1:2], verdict="wrong")
    services.judgement_decide(assignment=assignment, responses=responses[2:3], bucket=UNSURE)
    services.assignment_reveal(assignment=assignment)
    chart = bucket_chart(scorer_report(assignment))
    segments = {s.bucket: s for s in chart.rows[0].segments}
    assert segments[UNSURE].count == 1 and segments[UNSURE].colour == "#b8860b"
    assert {e.bucket: e.colour for e in chart.legend}[UNSURE] == "#b8860b"
    # The figures export has its count column beside the other buckets' (the existing columns
    # unmoved), filled, and headed and valued by the bucket's label in a named CSV.
    report = scorer_report(assignment)
    columns = figure_columns(report)
    assert (
        UNSURE not in FIGURE_COLUMNS
        and [c for c in columns if c != UNSURE][: len(FIGURE_COLUMNS)] == FIGURE_COLUMNS
    )
    assert columns.index(UNSURE) == columns.index("unscored") - 1
    run = next(r for r in figure_rows(report) if r["row"] == "run")
    assert run[UNSURE] == 1 and run["correct"] == 1
    named = csv_labels(columns)
    assert header(UNSURE) == "Unsure" and named.headers[UNSURE] == "Unsure"
    assert named.row({"bucket": UNSURE})["bucket"] == "Unsure"


def test_a_scheme_with_an_unstyled_bucket_is_refused():
    class Unstyled(WithUnsure):
        key = "nostyle"
        bucket_styles = RightWrongScheme.bucket_styles

    with pytest.raises(ValueError, match="without a style"):
        schemes.register(Unstyled)
    assert "nostyle" not in {s.key for s in schemes.registered()}


ROOT = Path(__file__).resolve().parents[2]
EXPORT_DOC = ROOT / "docs" / "export-columns.md"


def _offered_buckets() -> dict[str, tuple[str, ...]]:
    # The schemes offered outside the tests (a testing scheme's buckets are all another's).
    return {s.key: tuple(str(b) for b in s.buckets) for s in schemes.registered() if not s.testing}


def test_the_documented_bucket_values_are_the_registry_s():
    # docs/export-columns.md lists the bucket values by hand (a reader of an export needs them
    # there); they must be the registered schemes' buckets, scheme by scheme and in order.
    text = EXPORT_DOC.read_text(encoding="utf-8")
    responses = text.split("## Responses", 1)[1].split("\n## ", 1)[0]
    row = re.search(r"^\| `bucket` \| (.+) \|$", responses, flags=re.M).group(1)
    documented = {
        key: tuple(re.findall(r"`([a-z_]+)`", values))
        for values, key in re.findall(r"((?:`[a-z_]+`,? (?:or )?)+)\((\w+)\)", row)
    }
    assert documented == _offered_buckets()
    # The figures table has a count column per bucket, between `correct` and `unscored`.
    figures = text.split("## Figures", 1)[1].split("\n## ", 1)[0]
    columns = re.findall(r"^\| `([a-z_]+)` \|", figures, flags=re.M)
    counts = columns[columns.index("correct") : columns.index("unscored")]
    every = [str(b) for s in schemes.registered() for b in s.buckets]
    assert counts == list(dict.fromkeys(every))


def test_the_documented_scheme_values_are_the_registry_s():
    # Every `scheme` row of docs/export-columns.md names the offered schemes, no more, no fewer.
    text = EXPORT_DOC.read_text(encoding="utf-8")
    text = text.split("## Headings and values", 1)[0]  # that table gives headings, not values
    rows = re.findall(r"^\| `scheme` \| (.+) \|$", text, flags=re.M)
    assert len(rows) >= 2, "the responses' and the figures' scheme rows"
    offered = set(_offered_buckets())
    for row in rows:
        assert set(re.findall(r"`([a-z0-9_]+)`", row)) == offered, row
    # And docs/api.md's creation of an experiment, which names the values its `scheme` takes.
    api_doc = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    named = re.search(r"one of the offered schemes: ([^;]+);", api_doc).group(1)
    assert set(re.findall(r"`([a-z0-9_]+)`", named)) == offered, named


# Modules outside scoring/schemes/ that may compare with a bucket's value spelt out, and why.
BUCKET_LITERAL_ALLOWED = {
    # The pure figures: their counts classes have a field per bucket (named as the bucket) and
    # their formulas read them by name; scoring.metrics cannot import the registry (which
    # imports it), and tests/metrics/test_metrics.py checks the fields are the schemes' buckets.
    "scoring/metrics.py",
}


def _bucket_literal_comparisons(path: Path, values: set[str]) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for operand in operands:
            elements = (
                operand.elts if isinstance(operand, ast.Tuple | ast.List | ast.Set) else [operand]
            )
            if any(isinstance(e, ast.Constant) and e.value in values for e in elements):
                found.append(node.lineno)
                break
    return found


def test_no_module_outside_the_registry_compares_with_a_bucket_value():
    # A comparison with "partial" or "confident_wrong" is a scheme's rule written somewhere else:
    # it belongs to the scheme (an attribute or a method of its class).
    # "correct" is also a verdict (Judgement.Verdict.CORRECT), compared as such everywhere.
    values = {str(b) for s in schemes.registered() for b in s.buckets} - {"correct"}
    found = {}
    for package in ("config", "probe", "scoring", "grading", "api", "adapters"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            if "migrations" in path.parts or name.startswith("scoring/schemes/"):
                continue
            if name in BUCKET_LITERAL_ALLOWED:
                continue
            lines = _bucket_literal_comparisons(path, values)
            if lines:
                found[name] = lines
    assert found == {}
