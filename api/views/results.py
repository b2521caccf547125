"""The API's endpoints for an experiment's results, and the comparison of two experiments (the
regression gate)."""

from django.utils.translation import gettext as _
from ninja import Query, Router
from ninja.errors import HttpError

from probe.models import Experiment, Role
from scoring import compare, exports
from scoring.final_report import final_gate, final_report_build, may_see_keys
from scoring.models import Assignment
from scoring.report import (
    final_source,
    judgement_source,
    parse_weight,
    report_build,
    without_dropped,
)
from scoring.review import keys_in_force
from scoring.visibility import still_judging

from .. import schemas as s
from ..auth import blinded, reach
from ..errors import refuse

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
def results_figures(request, experiment_id: int, w: str = s.weight_query()):
    experiment, _m = reach(request, "experiment_pk", experiment_id, Role.VIEWER)
    try:
        weight = parse_weight(w)
    except ValueError:
        raise refuse(
            _("w must be a number from 0 to 100."),
            [{"field": "w", "message": _("w must be a number from 0 to 100.")}],
        ) from None
    kind, source, gate = _results_source(request, experiment)
    if kind == "final":
        report = final_report_build(experiment, gate, w=weight).report
    else:
        report = report_build(without_dropped(source), w=weight)
    return {"source": kind, "experiment": experiment.pk, "figures": exports.report_dict(report)}


@router.get(
    "/experiments/{experiment_id}/results/responses",
    response={200: dict, **s.errors(401, 404, 409, 422, 429)},
    summary="Every judged response",
)
def results_responses(request, experiment_id: int):
    experiment, _m = reach(request, "experiment_pk", experiment_id, Role.VIEWER)
    kind, source, gate = _results_source(request, experiment)
    rows = list(exports.response_rows(source))
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
        "responses": rows,
    }


# Comparison and the regression gate --------------------------------------------------------


@router.get(
    "/compare",
    response={200: dict, **s.errors(401, 404, 409, 422, 429)},
    summary="Compare two experiments on their shared items; the regression gate",
    description=(
        "`verdict` is `pass` (the candidate is not worse beyond the paired interval) or "
        "`fail`; 409 with `cannot tell` while collection, scoring or reconciliation is "
        "unfinished; 422 when the two cannot be compared as asked."
    ),
)
def compare_experiments(
    request,
    baseline: int,
    candidate: int,
    metric: str = Query(compare.NET_USABLE, pattern="^(net_usable|hallucination_rate)$"),
    w: str = s.weight_query(),
    pair: str = Query("", pattern=s.TEXT_PATTERN, max_length=400),
    allow_prompt_change: bool = False,
):
    experiments = []
    for value in (baseline, candidate):
        experiment, _m = reach(request, "experiment_pk", value, Role.VIEWER)
        if blinded(request, experiment) or still_judging(experiment, request.user):
            # A state, like the results before the reveal: not yet, rather than not allowed.
            raise HttpError(
                409, _("You are scoring %(name)s blind: finish first.") % {"name": experiment.name}
            )
        experiments.append(experiment)
    try:
        weight = parse_weight(w)
    except ValueError:
        raise refuse(
            _("w must be a number from 0 to 100."),
            [{"field": "w", "message": _("w must be a number from 0 to 100.")}],
        ) from None
    labels = None
    if pair:
        if "=" not in pair:
            message = _("pair takes BASELINE_LABEL=CANDIDATE_LABEL.")
            raise refuse(message, [{"field": "pair", "message": message}])
        labels = tuple(part.strip() for part in pair.split("=", 1))
    try:
        result = compare.compare(
            *experiments,
            metric=metric,
            w=weight,
            pair=labels,
            allow_prompt_change=allow_prompt_change,
        )
    except compare.CannotTellYet as error:
        raise refuse(str(error), [], status=409) from None
    except compare.NotComparable as error:
        raise refuse(str(error), []) from None
    return compare.comparison_dict(result) | {"verdict": "fail" if result.regression else "pass"}
