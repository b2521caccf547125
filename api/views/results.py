"""The API's endpoints for an experiment's results (the comparison of two experiments, the
regression gate, is in api.views.gate)."""

from django.utils.translation import gettext as _
from ninja import Query, Router
from ninja.errors import HttpError

from grading.routing_report import routed_dict
from probe.models import Experiment, Role
from scoring.comparison.routed import CORRECTED, FIGURES
from scoring.models import Assignment
from scoring.report import exports
from scoring.report.build import (
    final_source,
    judgement_source,
    parse_weight,
    report_build,
    without_dropped,
)
from scoring.report.final import final_gate, final_report_build, may_see_keys
from scoring.review.selectors import keys_in_force

from .. import schemas as s
from ..auth import reach
from ..errors import refuse
from ..pagination import MAX_PAGE, page_bounds

router = Router()


# Results -------------------------------------------------------------------------------------


def _results_source(request, experiment: Experiment):
    """The team's final buckets when the final report may show; else the requester's own
    judgements after their reveal; else a 409 that says what is missing (counts only)."""
    gate = final_gate(request, experiment)
    if gate.open:
        return "final", without_dropped(final_source(experiment)), gate
    own = Assignment.objects.filter(experiment=experiment, user=request.user).first()
    if own is not None and own.revealed:
        return "scorer", judgement_source(own), gate  # its figures leave out dropped items
    reasons = {
        "blinded": _("You have not finished scoring this experiment: nothing shows before."),
        "not_begun": _("Reconciliation has not begun: the team has no final buckets yet."),
        "too_few": _("Fewer than two scorers have judged every response."),
        "unsettled": _("Some disagreements are not settled yet."),
    }
    raise HttpError(409, reasons.get(gate.missing, _("The results are not available yet.")))


@router.get(
    "/experiments/{experiment_id}/results/figures",
    response={200: dict, **s.errors(401, 404, 409, 422, 429)},
    summary="The report's figures",
)
def results_figures(
    request,
    experiment_id: int,
    w: str = s.weight_query(),
    figures: str = Query(
        CORRECTED,
        pattern=s.TEXT_PATTERN,
        max_length=20,
        description="a routed experiment's figures: corrected (the report's headline) or human",
    ),
):
    experiment, _m = reach(request, "experiment_pk", experiment_id, Role.VIEWER)
    try:
        weight = parse_weight(w)
    except ValueError:
        raise refuse(
            _("w must be a number from 0 to 100."),
            [{"field": "w", "message": _("w must be a number from 0 to 100.")}],
        ) from None
    if figures not in FIGURES:
        message = _("figures must be “corrected” or “human” (a routed experiment's figures).")
        raise refuse(message, [{"field": "figures", "message": message}])
    kind, source, gate = _results_source(request, experiment)
    if kind == "final":
        report = final_report_build(experiment, gate, w=weight, final_only=True).report
    else:
        report = report_build(without_dropped(source), w=weight)
    # A routed experiment: the report's tables count the grader's answers as unscored (human-only
    # counts); ``routing`` holds the figures to read, saying which, as the report's section does.
    routing = routed_dict(experiment, without_dropped(source), weight, figures)
    return {
        "source": kind,
        "experiment": experiment.pk,
        "figures": exports.report_dict(report),
        "tables": "all" if routing is None else "human_only_counts",
        "routing": routing,
    }


# Rows a page of the responses listing: a page is read in one query of its rows (streamed in
# chunks), so an experiment of 100,000 responses costs what one of 1,000 does, page by page.
RESPONSES_PAGE_SIZE = 1000


@router.get(
    "/experiments/{experiment_id}/results/responses",
    response={200: s.ResponsesPageOut, **s.errors(401, 404, 409, 422, 429)},
    summary="Every judged response, 1,000 a page",
)
def results_responses(
    request,
    experiment_id: int,
    page: int = Query(1, ge=1, le=MAX_PAGE, description="the page, from 1"),
):
    experiment, _m = reach(request, "experiment_pk", experiment_id, Role.VIEWER)
    kind, source, gate = _results_source(request, experiment)
    start, stop = page_bounds(page, RESPONSES_PAGE_SIZE)
    rows = list(exports.response_rows(source, start=start, stop=stop))
    # The key column is the key in force, and only for those the final report shows keys to.
    show_keys = kind == "scorer" or may_see_keys(request, gate)
    keys = keys_in_force(experiment) if show_keys else {}
    positions = dict(experiment.items.values_list("position", "pk"))
    for row in rows:
        row["key"] = keys.get(positions.get(row["item"])) if show_keys else None
    return {
        "source": kind,
        "experiment": experiment.pk,
        "columns": exports.RESPONSE_COLUMNS,
        "count": exports.response_count(source),
        "page": page,
        "page_size": RESPONSES_PAGE_SIZE,
        "responses": rows,
    }
