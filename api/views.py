"""The API's endpoints. Each reaches its object through the token user's memberships, with the
role the matching page needs, and tells a blinded user nothing a blinded page would not."""

from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.utils.translation import gettext as _
from ninja import Query, Router
from ninja.errors import HttpError
from ninja.responses import Status

from probe import bankformat
from probe.models import (
    Bank,
    Experiment,
    Membership,
    ModelConfig,
    PromptVersion,
    Role,
    Run,
)
from probe.selectors import banks_of_team
from probe.selectors_experiments import experiment_progress
from probe.services import banks as bank_services
from probe.services import experiments as experiment_services
from scoring import compare, exports, followups
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

from . import schemas as s
from .auth import blinded, reach
from .errors import refuse

router = Router()


# Who am I ------------------------------------------------------------------------------------


@router.get("/me", response=s.MeOut, summary="The token's user and their teams")
def me(request):
    memberships = Membership.objects.filter(user=request.user).select_related("team")
    return {
        "username": request.user.get_username(),
        "teams": [
            {"slug": m.team.slug, "name": m.team.name, "role": m.role}
            for m in memberships.order_by("team__name")
        ],
    }


# Banks ---------------------------------------------------------------------------------------


def _bank_out(bank: Bank, items: int) -> dict:
    return {
        "id": bank.pk,
        "name": bank.name,
        "description": bank.description,
        "items": items,
        "updated": bank.updated,
    }


@router.get("/teams/{slug}/banks", response=list[s.BankOut], summary="The team's banks")
def bank_list(request, slug: str):
    team, _m = reach(request, "team_slug", slug, Role.VIEWER)
    return [_bank_out(b, b.n_items) for b in banks_of_team(team)]


@router.post(
    "/teams/{slug}/banks",
    response={201: s.BankImportOut},
    summary="Import a bank file (all or nothing)",
)
def bank_import(request, slug: str, payload: s.BankImportIn):
    team, _m = reach(request, "team_slug", slug, Role.EDITOR)
    raw = payload.content.encode("utf-8", "surrogatepass")
    try:
        data = bankformat.load(raw, payload.filename)
    except bankformat.BankFormatError as error:
        raise refuse(
            _("The bank file was refused; nothing was saved."),
            [
                {
                    "field": "content" if p.line is None else f"content:{p.line}",
                    "message": str(p),
                }
                for p in error.problems
            ],
        ) from None
    bank = bank_services.bank_import(
        team=team,
        user=request.user,
        data=data,
        name=payload.name,
        source=payload.filename or _("the API"),
        file_format=bankformat.detect_format(payload.content, payload.filename),
    )
    return Status(
        201,
        {
            "bank": _bank_out(bank, data.item_count),
            "blocks": len(data.blocks),
            "items": data.item_count,
            "missing_keys": data.missing_key_count,
        },
    )


@router.get("/banks/{bank_id}/export", summary="The bank as a file, in JSON or text")
def bank_export(request, bank_id: int, format: str = Query("json", pattern="^(json|text)$")):
    bank, _m = reach(request, "bank_pk", bank_id, Role.EDITOR)
    text = bank_services.bank_export(bank=bank, user=request.user, file_format=format)
    content_type = "application/json" if format == "json" else "text/plain; charset=utf-8"
    response = HttpResponse(text, content_type=content_type)
    response["Cache-Control"] = "no-store"  # it holds the key
    return response


# Prompt versions and model configurations ----------------------------------------------------


@router.get("/teams/{slug}/prompts", response=list[s.PromptOut], summary="Prompt versions")
def prompt_list(request, slug: str):
    team, _m = reach(request, "team_slug", slug, Role.VIEWER)
    return list(PromptVersion.objects.filter(team=team).order_by("name", "-version"))


@router.get(
    "/teams/{slug}/configs",
    response=list[s.ConfigOut],
    summary="Model configurations (editors: a scorer would learn which models are in play)",
)
def config_list(request, slug: str):
    team, _m = reach(request, "team_slug", slug, Role.EDITOR)
    return [
        {
            "id": c.pk,
            "label": c.label,
            "provider": c.provider,
            "model_name": c.model_name,
            "simulated": c.provider == "simulator",
            "archived": c.archived,
            "concurrency_limit": c.concurrency_limit,
        }
        for c in ModelConfig.objects.filter(team=team).order_by("label", "pk")
    ]


# Experiments ---------------------------------------------------------------------------------


def _experiment_out(e: Experiment, items: int | None = None) -> dict:
    return {
        "id": e.pk,
        "name": e.name,
        "status": e.status,
        "bank": e.bank_id,
        "bank_name": e.bank_name,
        "prompt_version": e.prompt_version_id,
        "mode": e.mode,
        "scheme": e.scheme,
        "repeats": e.repeats,
        "seed": e.seed,
        "items": e.items.count() if items is None else items,
        "follows": e.follows_id,
        "created": e.created,
        "collection_started": e.collection_started,
        "collection_finished": e.collection_finished,
    }


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


def _experiment_detail(request, experiment: Experiment) -> dict:
    hide = blinded(request, experiment)
    progress = experiment_progress(experiment)
    return _experiment_out(experiment, progress.n_items) | {
        "blinded": hide,
        "responses": progress.n_responses,
        "expected_responses": progress.total,
        "percent": progress.percent,
        # A blinded user sees runs in their collection order only, as on the page.
        "runs": [_run_out(r, progress.n_items, hide) for r in progress.runs],
    }


@router.get("/teams/{slug}/experiments", response=list[s.ExperimentOut], summary="Experiments")
def experiment_list(request, slug: str):
    team, _m = reach(request, "team_slug", slug, Role.VIEWER)
    return [_experiment_out(e) for e in Experiment.objects.filter(team=team)]


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
            "ids": ", ".join(str(pk) for pk in unknown)
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
    response={201: s.ExperimentDetailOut},
    summary="Create an experiment (a snapshot of the bank's active items)",
)
def experiment_create(request, slug: str, payload: s.ExperimentIn):
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
    response=s.ExperimentDetailOut,
    summary="An experiment with its collection progress",
)
def experiment_detail(request, experiment_id: int):
    experiment, _m = reach(request, "experiment_pk", experiment_id, Role.VIEWER)
    return _experiment_detail(request, experiment)


def _editor_action(request, experiment_id: int, action) -> dict:
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
    response=s.ExperimentDetailOut,
    summary="Start collecting",
)
def experiment_start(request, experiment_id: int):
    return _editor_action(request, experiment_id, experiment_services.experiment_start)


@router.post(
    "/experiments/{experiment_id}/cancel",
    response=s.ExperimentDetailOut,
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
    response=s.FollowUpPlanOut,
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
    response={201: s.ExperimentDetailOut},
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
            "ids": ", ".join(str(pk) for pk in unknown)
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


# Results -------------------------------------------------------------------------------------


def _results_source(request, experiment: Experiment):
    """The team's final buckets when the final report may show; else the requester's own
    judgements after their reveal; else a 409 that says what is missing (counts only)."""
    gate = final_gate(request, experiment)
    if gate.open:
        return "final", without_dropped(final_source(experiment)), gate
    own = Assignment.objects.filter(experiment=experiment, user=request.user).first()
    if own is not None and own.revealed:
        return "scorer", judgement_source(own), gate
    reasons = {
        "blinded": _("You have not finished scoring this experiment: nothing shows before."),
        "not_begun": _("Reconciliation has not begun: the team has no final buckets yet."),
        "too_few": _("Fewer than two scorers have judged every response."),
        "unsettled": _("Some disagreements are not settled yet."),
    }
    raise HttpError(409, reasons.get(gate.missing, _("The results are not available yet.")))


@router.get("/experiments/{experiment_id}/results/figures", summary="The report's figures")
def results_figures(request, experiment_id: int, w: str = "1"):
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
        report = report_build(source, w=weight)
    return {"source": kind, "experiment": experiment.pk, "figures": exports.report_dict(report)}


@router.get("/experiments/{experiment_id}/results/responses", summary="Every judged response")
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
    w: str = "1",
    pair: str = "",
    allow_prompt_change: bool = False,
):
    experiments = []
    for value in (baseline, candidate):
        experiment, _m = reach(request, "experiment_pk", value, Role.VIEWER)
        if blinded(request, experiment):
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
