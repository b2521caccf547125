"""The report page of one scorer and the browser exports: only after that scorer's reveal."""

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django_htmx.http import push_url

from probe.access import team_view
from probe.csvfile import csv_text
from probe.downloads import attachment
from probe.htmx import HtmxHttpRequest
from probe.models import Role
from scoring.models import Assignment
from scoring.report import exports
from scoring.report.build import judgement_source, report_build, without_dropped
from scoring.report.export_labels import csv_labels, wants_names
from scoring.report.page import export_weight, figures_context, request_weight
from scoring.report.sections import report_sections
from scoring.review.keys import judgements_by_key

EXPORTS = {"responses", "figures"}
# JSON Lines (one response a line) for the responses only: the figures are one nested object.
FORMATS = {"responses": {"csv", "json", "jsonl"}, "figures": {"csv", "json"}}


def _locked(request: HtmxHttpRequest, assignment: Assignment):
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
def report(request: HtmxHttpRequest, assignment: Assignment):
    if not assignment.revealed:
        return _locked(request, assignment)
    w, w_error = request_weight(request)
    # Items the key review dropped count nowhere, as in the final report and each scorer's
    # figures there.
    result = report_build(without_dropped(judgement_source(assignment)), w=w)
    context = {
        "assignment": assignment,
        "experiment": assignment.experiment,
        "team": assignment.experiment.team,
        **figures_context(request, result, w_error),
        "keys_judged": judgements_by_key(assignment),
        # What other apps add (a routed experiment's corrected figures: grading's).
        "routing_section": report_sections(
            request, assignment.experiment, without_dropped(judgement_source(assignment)), w
        ),
    }
    if request.htmx:
        response = render(request, "scoring/report_body.html", context)
        url = reverse("scoring:report", kwargs={"assignment_token": assignment.token})
        return push_url(response, f"{url}?w={w:g}")
    return render(request, "scoring/report.html", context)


@team_view(scope="assignment_token", get=Role.SCORER)
def report_export(request: HtmxHttpRequest, assignment: Assignment, what: str, fmt: str):
    if what not in EXPORTS or fmt not in FORMATS[what]:
        raise Http404
    if not assignment.revealed:
        # To the report's locked page, which says why; nothing of the results on the way.
        return redirect("scoring:report", assignment_token=assignment.token)
    source = judgement_source(assignment)
    named = wants_names(request)
    if what == "responses":
        # Streamed from the database as it is written out: memory stays flat at any size.
        body = exports.responses_chunks([source], fmt, named=named)
    else:
        w, refused = export_weight(request)
        if refused is not None:
            return refused
        result = report_build(without_dropped(source), w=w)
        if fmt == "csv":
            columns = exports.figure_columns(result)
            body = csv_text(exports.figure_rows(result), columns, csv_labels(columns, named))
        else:
            body = exports.figures_json(result)
    return attachment(body, name=assignment.experiment.name, contents=what, extension=fmt)
