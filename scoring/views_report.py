"""The report page of one scorer and the browser exports: only after that scorer's reveal."""

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from probe.access import team_view
from probe.downloads import attachment, file_stem
from probe.models import Role

from . import chart_sweep, charts, exports, selectors
from .models import Assignment
from .report import judgement_source, parse_weight, report_build

EXPORTS = {"responses", "figures"}
# Every pair is listed up to 12 configurations (66 pairs); beyond, neighbours in the ranking.
PAGE_GAPS = 66
# JSON Lines (one response a line) for the responses only: the figures are one nested object.
FORMATS = {"responses": {"csv", "json", "jsonl"}, "figures": {"csv", "json"}}


def _weight(request) -> tuple[float, str]:
    """w from the query string, and an error message when it was not usable (w is then 1)."""
    raw = request.GET.get("w")
    try:
        return parse_weight(raw), ""
    except ValueError:
        return 1.0, _("w must be a number from 0 to 100; 1 is used instead.")


def _page_gaps(result) -> tuple[list, bool]:
    """The gaps the page lists, best pair first, and whether some were left to the exports."""
    rank = {c.key: -(c.net.mean or 0) for c in result.configs}
    gaps = sorted(result.gaps, key=lambda g: (rank[g.a.key], rank[g.b.key]))
    if len(gaps) <= PAGE_GAPS:
        return gaps, False
    ranked = sorted(
        (c for c in result.configs if c.net.mean is not None), key=lambda c: rank[c.key]
    )
    neighbours = {frozenset((a.key, b.key)) for a, b in zip(ranked, ranked[1:], strict=False)}
    return [g for g in gaps if frozenset((g.a.key, g.b.key)) in neighbours], True


def _locked(request, assignment: Assignment):
    # Nothing of the figures, not even a configuration's label, before this scorer's reveal.
    return render(
        request,
        "scoring/report_locked.html",
        {
            "assignment": assignment,
            "experiment": assignment.experiment,
            "team": assignment.experiment.team,
        },
    )


@team_view(scope="assignment_token", get=Role.SCORER)
def report(request, assignment: Assignment):
    if not assignment.revealed:
        return _locked(request, assignment)
    w, w_error = _weight(request)
    result = report_build(judgement_source(assignment), w=w)
    gaps, gaps_cut = _page_gaps(result)
    context = {
        "assignment": assignment,
        "experiment": assignment.experiment,
        "team": assignment.experiment.team,
        "report": result,
        "w_input": request.GET.get("w", "1") if not w_error else "1",
        "w_error": w_error,
        "gaps": gaps,
        "gaps_cut": gaps_cut,
        "noise_pairs": sum(g.is_noise for g in result.gaps),
        "bucket_chart": charts.bucket_chart(result),
        "calibration_chart": charts.calibration_chart(result),
        "net_chart": charts.net_chart(result),
        "sweep_chart": chart_sweep.sweep_chart(result),
        "keys_judged": selectors.judgements_by_key(assignment),
    }
    if request.htmx:
        response = render(request, "scoring/report_body.html", context)
        url = reverse("scoring:report", kwargs={"assignment_token": assignment.token})
        response["HX-Push-Url"] = f"{url}?w={w:g}"
        return response
    return render(request, "scoring/report.html", context)


@team_view(scope="assignment_token", get=Role.SCORER)
def report_export(request, assignment: Assignment, what: str, fmt: str):
    if what not in EXPORTS or fmt not in FORMATS[what]:
        raise Http404
    if not assignment.revealed:
        # To the report's locked page, which says why; nothing of the results on the way.
        return redirect("scoring:report", assignment_token=assignment.token)
    source = judgement_source(assignment)
    if what == "responses":
        # Streamed from the database as it is written out: memory stays flat at any size.
        body = exports.responses_chunks([source], fmt)
    else:
        w, _error = _weight(request)
        result = report_build(source, w=w)
        if fmt == "csv":
            body = exports.csv_text(exports.figure_rows(result), exports.figure_columns(result))
        else:
            body = exports.figures_json(result)
    name = file_stem(assignment.experiment.name, "experiment")
    return attachment(body, filename=f"{name}-{what}", extension=fmt)
