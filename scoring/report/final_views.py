"""The team's final report and its exports: the pages (scoring.report.final builds the report,
scoring.report.final_export writes the files).

Every member (viewer and above) may open the page, but it shows figures only when the final
report's gate is open (``final_report.final_gate``); otherwise it says what is missing, with no
figure, label or bucket. The exports sit behind the same gate.
"""

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django_htmx.http import push_url

from probe.access import can, team_view
from probe.downloads import attachment
from probe.htmx import HtmxHttpRequest
from probe.models import Experiment, Role
from scoring.report.export_labels import wants_names
from scoring.report.final import Gate, final_gate, final_report_build, may_see_keys
from scoring.report.final_export import EXPORTS, FORMATS, figures_body, moves_body, responses_body
from scoring.report.page import export_weight, figures_context, request_weight
from scoring.report.sections import report_sections
from scoring.report.source import final_source, without_dropped


def _locked(request: HtmxHttpRequest, experiment: Experiment, gate: Gate):
    # What is missing, in counts; nothing of the figures, labels or buckets.
    return render(
        request,
        "scoring/final_report_locked.html",
        {
            "experiment": experiment,
            "team": experiment.team,
            "gate": gate,
            "can_lead": can(request.membership, Role.EDITOR),
        },
    )


@team_view(scope="experiment_pk", get=Role.VIEWER)
def final_report(request: HtmxHttpRequest, experiment: Experiment):
    gate = final_gate(request, experiment)
    if not gate.open:
        return _locked(request, experiment, gate)
    w, w_error = request_weight(request)
    data = final_report_build(experiment, gate, w=w)
    context = {
        "experiment": experiment,
        "team": experiment.team,
        "final": data,
        **figures_context(request, data.report, w_error),
        "show_keys": may_see_keys(request, gate),
        "can_lead": can(request.membership, Role.EDITOR),
        "move_cols": 2 * len(data.labels) + 3,  # figure, final, each scorer's two, mean move
        # What other apps add (a routed experiment's corrected figures: grading's).
        "routing_section": report_sections(
            request, experiment, without_dropped(final_source(experiment)), w
        ),
    }
    # The moves table lists the configurations the other tables list (scoring.report.page).
    context["moves"] = data.moves[: len(context["report"].configs)]
    if request.htmx:
        response = render(request, "scoring/final_report_body.html", context)
        url = reverse("scoring:final_report", kwargs={"experiment_pk": experiment.pk})
        return push_url(response, f"{url}?w={w:g}")
    return render(request, "scoring/final_report.html", context)


@team_view(scope="experiment_pk", get=Role.VIEWER)
def final_export(request: HtmxHttpRequest, experiment: Experiment, what: str, fmt: str):
    if what not in EXPORTS or fmt not in FORMATS[what]:
        raise Http404
    gate = final_gate(request, experiment)
    if not gate.open:
        # To the page, which says what is missing; nothing of the results on the way.
        return redirect("scoring:final_report", experiment_pk=experiment.pk)
    show_keys = may_see_keys(request, gate)
    named = wants_names(request)
    if what == "responses":
        body = responses_body(experiment, fmt, show_keys=show_keys, named=named)
    else:
        w, refused = export_weight(request)
        if refused is not None:
            return refused
        data = final_report_build(experiment, gate, w=w, scorer_intervals=what == "figures")
        if what == "figures":
            body = figures_body(data, fmt, show_keys=show_keys, named=named)
        else:
            body = moves_body(data, fmt, named=named)
    return attachment(body, name=experiment.name, contents=f"final-{what}", extension=fmt)
