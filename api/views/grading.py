"""The API's grading endpoint: an experiment's grading jobs with their versions, every grade,
the agreement of each finished grader version with the scorers, and the costs, under the rule
of the pages (nothing for someone still blind to the experiment, whatever exists)."""

from django.utils.translation import gettext as _
from ninja import Router
from ninja.errors import HttpError

from grading.exports import experiment_dict
from probe.access import is_blinded
from probe.models import Role
from scoring.report.build import parse_weight

from .. import schemas as s
from ..auth import reach
from ..errors import refuse

router = Router()


@router.get(
    "/experiments/{experiment_id}/grading",
    response={200: dict, **s.errors(401, 403, 404, 409, 422, 429)},
    summary="Grades with their versions, agreement with the scorers, and costs",
)
def experiment_grading(request, experiment_id: int, w: str = s.weight_query()):
    experiment, membership = reach(request, "experiment_pk", experiment_id, Role.SCORER)
    try:
        weight = parse_weight(w)  # of a routed experiment's figures, as in results/figures
    except ValueError:
        raise refuse(
            _("w must be a number from 0 to 100."),
            [{"field": "w", "message": _("w must be a number from 0 to 100.")}],
        ) from None
    if is_blinded(experiment, request.user, membership):
        raise HttpError(
            409, _("You have not finished scoring this experiment: nothing shows before.")
        )
    return experiment_dict(experiment, request, weight)
