"""The API's comparison of two experiments: the regression gate, answering as the command does.

Every answer, 200 or not, has the gate's one shape (scoring.comparison.gate_report.gate_body): the verdict
and its exit code always, the figures when there are some, and ``detail`` and ``problems`` as
every refusal of the API has them.
"""

from django.http import JsonResponse
from django.utils.translation import gettext as _
from ninja import Query, Router
from ninja.errors import HttpError

from probe.models import Experiment, Role
from scoring.comparison import gate_report
from scoring.comparison.compare import CannotTellYet
from scoring.comparison.gate_decision import MIN_ITEMS, NET_USABLE
from scoring.visibility import still_judging

from .. import schemas as s
from ..auth import blinded, reach

router = Router()


def _finder(request):
    def find(name: str, pk: int) -> Experiment:
        try:
            experiment, _m = reach(request, "experiment_pk", pk, Role.VIEWER)
        except HttpError:
            # Another team's experiment reads as none at all, as everywhere in the API.
            raise gate_report.missing_experiment(name, pk) from None
        if blinded(request, experiment) or still_judging(experiment, request.user):
            # A state, like the results before the reveal: not yet, rather than not allowed.
            raise CannotTellYet(
                _("You are scoring %(name)s blind: finish first.") % {"name": experiment.name}
            )
        return experiment

    return find


@router.get(
    "/compare",
    response={200: dict, **s.errors(401, 404, 409, 422, 429)},
    summary="Compare two experiments on their shared items; the regression gate",
    description=(
        "`verdict` is always present: `pass` or `fail` (200), `cannot tell yet` (409: "
        "collection, scoring or reconciliation unfinished, ask again later), `cannot judge` "
        "(422: no waiting will change it), `refused` (422, or 404 for an unknown experiment). "
        "`exit_code` is the `gate` command's for the same answer, and the body is what "
        "`gate --json` prints."
    ),
)
def compare_experiments(
    request,
    baseline: str = Query(..., pattern=s.TEXT_PATTERN, max_length=40),
    candidate: str = Query(..., pattern=s.TEXT_PATTERN, max_length=40),
    metric: str = Query(NET_USABLE, pattern=s.TEXT_PATTERN, max_length=40),
    w: str = Query("1", pattern=s.TEXT_PATTERN, max_length=40),
    pair: str = Query("", pattern=s.TEXT_PATTERN, max_length=400),
    allow_prompt_change: str = Query("false", pattern=s.TEXT_PATTERN, max_length=10),
    min_items: str = Query(str(MIN_ITEMS), pattern=s.TEXT_PATTERN, max_length=20),
    figures: str = Query("corrected", pattern=s.TEXT_PATTERN, max_length=20),
):
    flag = gate_report.parse_flag(allow_prompt_change, "allow_prompt_change")
    if isinstance(flag, gate_report.Outcome):
        return JsonResponse(gate_report.gate_body(flag), status=flag.http_status)
    outcome = gate_report.gate_outcome(
        baseline=baseline,
        candidate=candidate,
        find=_finder(request),
        metric=metric,
        w=w,
        pair=pair,
        allow_prompt_change=flag,
        min_items=min_items,
        figures=figures,
    )
    return JsonResponse(gate_report.gate_body(outcome), status=outcome.http_status)
