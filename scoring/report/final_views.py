"""The team's final report and its exports: the pages (scoring.report.final builds the report,
scoring.report.final_export writes the files).

Every member (viewer and above) may open the page, but it shows figures only when the final
report's gate is open (``final_report.final_gate``); otherwise it says what is missing, with no
figure, label or bucket. The exports sit behind the same gate.
"""

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse

from probe.access import can, team_view
from probe.downloads import attachment, file_stem
from probe.models import Experiment, Role
from scoring.report.final import Gate, final_gate, final_report_build, may_see_keys
from scoring.report.final_export import EXPORTS, FORMATS, figures_body, moves_body, responses_body
from scoring.report.page import figures_context, request_weight


def _locked(request, experiment: Experiment, gate: Gate):
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
def final_report(request, experiment: Experiment):
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
    }
    # The moves table lists the configurations the other tables list (scoring.report.page).
    context["moves"] = data.moves[: len(context["report"].configs)]
    if request.htmx:
        response = render(request, "scoring/final_report_body.html", context)
        url = reverse("scoring:final_report", kwargs={"experiment_pk": experiment.pk})
        response["HX-Push-Url"] = f"{url}?w={w:g}"
        return response
    return render(request, "scoring/final_report.html", context)


@team_view(scope="experiment_pk", get=Role.VIEWER)
def final_export(request, experiment: Experiment, what: str, fmt: str):
    if what not in EXPORTS or fmt not in FORMATS[what]:
        raise Http404
    gate = final_gate(request, experiment)
    if not gate.open:
        # To the page, which says what is missing; nothing of the results on the way.
        return redirect("scoring:final_report", experiment_pk=experiment.pk)
    show_keys = may_see_keys(request, gate)
    if what == "responses":
        body = responses_body(experiment, fmt, show_keys=show_keys)
    else:
        w, _error = request_weight(request)
        data = final_report_build(experiment, gate, w=w, scorer_intervals=what == "figures")
        if what == "figures":
            body = figures_body(data, fmt, show_keys=show_keys)
        else:
            body = moves_body(data, fmt)
    name = file_stem(experiment.name, "experiment")
    return attachment(body, filename=f"{name}-final-{what}", extension=fmt)
