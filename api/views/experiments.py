"""The API's endpoints for experiments: list, create, read, start, cancel, and follow-ups."""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _
from ninja import Path, Query, Router
from ninja.errors import HttpError
from ninja.pagination import paginate
from ninja.responses import Status

from probe.models import (
    Bank,
    Experiment,
    ExperimentItem,
    ModelConfig,
    PromptVersion,
    Role,
    Run,
)
from probe.selectors.experiments import experiment_progress
from probe.services import experiments as experiment_services
from probe.wording import word_list
from scoring.comparison import followups

from .. import schemas as s
from ..auth import blinded, reach
from ..errors import refuse
from ..pagination import Page

router = Router()


# Experiments ---------------------------------------------------------------------------------


def _run_out(run: Run, n_items: int, hide: bool) -> dict:
    out = {
        "number": run.order,
        "status": run.status,
        "responses": run.n_responses,
        "items": n_items,
    }
    if not hide:
        out |= {
            "config": run.model_config_id,
            "label": run.label,
            "repeat": run.repeat,
            "included_from_experiment": (
                run.included_from.experiment_id if run.included_from_id else None
            ),
            "error": run.last_error or None,
        }
    return out


@dataclass
class ExperimentDetail:
    """What ExperimentDetailOut reads: the experiment's own attributes, then its progress."""

    experiment: Experiment
    blinded: bool
    responses: int
    expected_responses: int
    percent: int
    runs: list[dict]

    def __getattr__(self, name: str):
        return getattr(self.experiment, name)


def _experiment_detail(request, experiment: Experiment) -> ExperimentDetail:
    hide = blinded(request, experiment)
    progress = experiment_progress(experiment)
    experiment.n_items = progress.n_items
    return ExperimentDetail(
        experiment=experiment,
        blinded=hide,
        responses=progress.n_responses,
        expected_responses=progress.total,
        percent=progress.percent,
        # A blinded user sees runs in their collection order only, as on the page.
        runs=[_run_out(r, progress.n_items, hide) for r in progress.runs],
    )


@router.get(
    "/teams/{slug}/experiments",
    response={200: list[s.ExperimentOut], **s.errors(401, 404, 422, 429)},
    summary="Experiments",
)
@paginate(Page)
def experiment_list(request, slug: str = Path(..., pattern=s.SLUG_PATTERN)):
    team, _m = reach(request, "team_slug", slug, Role.VIEWER)
    # The snapshot's size as a subquery: one query for the page, however many experiments.
    n_items = (
        ExperimentItem.objects.filter(experiment=OuterRef("pk"))
        .order_by()
        .values("experiment")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        Experiment.objects.filter(team=team)
        .annotate(n_items=Coalesce(Subquery(n_items), 0))
        .order_by("-created", "-pk")
    )


def _own(model, team, pk: int | None, field: str, message: str):
    """`pk` among the team's objects of `model`, or a 422 naming the field."""
    if pk is None:
        return None
    found = model.objects.filter(team=team, pk=pk).first()
    if found is None:
        raise refuse(message, [{"field": field, "message": message}])
    return found


def _configs(team, ids: list[int], field: str = "configs") -> list[ModelConfig]:
    found = {c.pk: c for c in ModelConfig.objects.filter(team=team, pk__in=ids)}
    unknown = [pk for pk in ids if pk not in found]
    if unknown:
        message = _("No model configuration of this team has the id %(ids)s.") % {
            "ids": word_list(unknown)
        }
        raise refuse(message, [{"field": field, "message": message}])
    return [found[pk] for pk in ids]


def _validation(error: ValidationError) -> HttpError:
    problems = []
    if hasattr(error, "error_dict"):
        for name, errors in error.message_dict.items():
            problems += [{"field": name, "message": m} for m in errors]
    else:
        problems = [{"field": None, "message": m} for m in error.messages]
    return refuse(_("Nothing was saved."), problems)


@router.post(
    "/teams/{slug}/experiments",
    response={201: s.ExperimentDetailOut, **s.errors(400, 401, 403, 404, 413, 422, 429)},
    summary="Create an experiment (a snapshot of the bank's active items)",
)
def experiment_create(
    request, payload: s.ExperimentIn, slug: str = Path(..., pattern=s.SLUG_PATTERN)
):
    team, _m = reach(request, "team_slug", slug, Role.EDITOR)
    bank = _own(Bank, team, payload.bank, "bank", _("No bank of this team has that id."))
    prompt = _own(
        PromptVersion,
        team,
        payload.prompt_version,
        "prompt_version",
        _("No prompt version of this team has that id."),
    )
    try:
        experiment = experiment_services.experiment_create(
            team=team,
            user=request.user,
            bank=bank,
            prompt_version=prompt,
            configs=_configs(team, payload.configs),
            repeats=payload.repeats,
            mode=payload.mode,
            name=payload.name,
            seed=payload.seed,
            scheme=payload.scheme,
            hide_confidence=payload.hide_confidence,
            noise_floor=payload.noise_floor,
        )
    except ValidationError as error:
        raise _validation(error) from None
    return Status(201, _experiment_detail(request, experiment))


@router.get(
    "/experiments/{experiment_id}",
    response={200: s.ExperimentDetailOut, **s.errors(401, 404, 422, 429)},
    summary="An experiment with its collection progress",
)
def experiment_detail(request, experiment_id: int):
    experiment, _m = reach(request, "experiment_pk", experiment_id, Role.VIEWER)
    return _experiment_detail(request, experiment)


def _editor_action(request, experiment_id: int, action) -> ExperimentDetail:
    experiment, _m = reach(request, "experiment_pk", experiment_id, Role.EDITOR)
    if blinded(request, experiment):
        # As on the page: an editor who is scoring it blind does not steer its runs.
        raise HttpError(403, _("You are scoring this experiment blind: ask another editor."))
    try:
        action(experiment=experiment, user=request.user)
    except ValidationError as error:
        raise refuse(" ".join(error.messages), [], status=409) from None
    experiment.refresh_from_db()
    return _experiment_detail(request, experiment)


@router.post(
    "/experiments/{experiment_id}/start",
    response={200: s.ExperimentDetailOut, **s.errors(401, 403, 404, 409, 422, 429)},
    summary="Start collecting",
)
def experiment_start(request, experiment_id: int):
    return _editor_action(request, experiment_id, experiment_services.experiment_start)


@router.post(
    "/experiments/{experiment_id}/cancel",
    response={200: s.ExperimentDetailOut, **s.errors(401, 403, 404, 409, 422, 429)},
    summary="Stop collecting (collected answers are kept)",
)
def experiment_cancel(request, experiment_id: int):
    return _editor_action(request, experiment_id, experiment_services.experiment_cancel)


def _origin_for_follow_up(request, experiment_id: int) -> Experiment:
    origin, _m = reach(request, "experiment_pk", experiment_id, Role.EDITOR)
    if blinded(request, origin):
        raise HttpError(403, _("You are scoring this experiment blind: ask another editor."))
    return origin


@router.get(
    "/experiments/{experiment_id}/follow-up",
    response={200: s.FollowUpPlanOut, **s.errors(401, 403, 404, 422, 429)},
    summary="What a follow-up's items would be, and how they differ",
)
def follow_up_plan(
    request, experiment_id: int, items: str = Query("snapshot", pattern="^(snapshot|current)$")
):
    origin = _origin_for_follow_up(request, experiment_id)
    try:
        plan = followups.followup_plan(origin=origin, source=items)
    except ValidationError as error:
        raise _validation(error) from None
    return {
        "items": len(plan.items),
        "added": plan.added,
        "removed": plan.removed,
        "question_changed": plan.question_changed,
        "key_changed": plan.key_changed,
    }


@router.post(
    "/experiments/{experiment_id}/follow-up",
    response={201: s.ExperimentDetailOut, **s.errors(400, 401, 403, 404, 413, 422, 429)},
    summary="Run again: a new experiment like this one, plus or minus configurations",
)
def follow_up_create(request, experiment_id: int, payload: s.FollowUpIn):
    origin = _origin_for_follow_up(request, experiment_id)
    team = origin.team
    prompt = _own(
        PromptVersion,
        team,
        payload.prompt_version,
        "prompt_version",
        _("No prompt version of this team has that id."),
    )
    configs = None if payload.configs is None else _configs(team, payload.configs)
    runs = {r.pk: r for r in origin.runs.select_related("model_config")}
    unknown = [pk for pk in payload.include_runs if pk not in runs]
    if unknown:
        message = _("The earlier experiment has no run with the id %(ids)s.") % {
            "ids": word_list(unknown)
        }
        raise refuse(message, [{"field": "include_runs", "message": message}])
    try:
        experiment = followups.experiment_follow_up(
            origin=origin,
            user=request.user,
            source=payload.items,
            prompt_version=prompt,
            configs=configs,
            include_runs=[runs[pk] for pk in payload.include_runs],
            repeats=payload.repeats,
            name=payload.name,
            seed=payload.seed,
        )
    except ValidationError as error:
        raise _validation(error) from None
    return Status(201, _experiment_detail(request, experiment))
