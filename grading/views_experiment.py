"""An experiment's grading pages: its jobs and their progress, the agreement of a grader version
with the people, a re-grade against an earlier job, the costs, and the exports. Only for those
no longer blind to the experiment (``probe.access.is_blinded``: a lead, or a scorer after their
reveal); anyone else is sent to the experiment's page, whatever exists, so nothing tells them
whether a grader graded it."""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from probe.access import can, is_blinded, team_view
from probe.csvfile import csv_text
from probe.downloads import attachment
from probe.models import Experiment, Response, Role
from scoring.report.page import export_weight

from . import exports, services
from .agreement import grader_agreement, threshold_of
from .costs import experiment_costs
from .forms import RoutingForm, StartForm
from .models import Grade, GradeAttempt, GradingJob, GradingPrompt
from .regrade import regrade
from .routing import plan_of, returned_counts, route_counts, routing_plan_create


def _blinded(request, experiment) -> bool:
    return is_blinded(experiment, request.user, getattr(request, "membership", None))


def _away(experiment):
    return redirect("probe:experiment_detail", experiment_pk=experiment.pk)


def _jobs(experiment):
    return list(
        GradingJob.objects.filter(experiment=experiment)
        .select_related("grader", "prompt")
        .order_by("-created", "-pk")
    )


def job_progress(experiment, jobs) -> list[dict]:
    total = Response.objects.filter(run__experiment=experiment).count()
    states = {}
    for job_id, state, n in (
        Grade.objects.filter(job__in=jobs)
        .values_list("job_id", "state")
        .annotate(n=Count("pk"))
        .order_by()
    ):
        states.setdefault(job_id, {})[state] = n
    attempts = dict(
        GradeAttempt.objects.filter(job__in=jobs)
        .values_list("job_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    rows = []
    for job in jobs:
        counts = states.get(job.pk, {})
        done = sum(counts.values())
        rows.append(
            {
                "job": job,
                "total": total,
                "graded": done,
                "percent": round(100 * done / total) if total else 0,
                "decided": counts.get(Grade.State.DECIDED, 0),
                "undecided": counts.get(Grade.State.UNDECIDED, 0),
                "parse_failures": counts.get(Grade.State.PARSE_FAILURE, 0),
                "failed": counts.get(Grade.State.FAILED, 0),
                "requests": attempts.get(job.pk, 0),
            }
        )
    return rows


@team_view(scope="experiment_pk", get=Role.SCORER, post=Role.EDITOR)
def experiment_grading(request, experiment: Experiment):
    if _blinded(request, experiment):
        return _away(experiment)
    team = experiment.team
    form = StartForm(team=team)
    status = 200
    if request.method == "POST":
        action = request.POST.get("action", "start")
        try:
            if action == "start":
                form = StartForm(request.POST, team=team)
                if not form.is_valid():
                    raise ValidationError(_("Choose a grader."))
                services.grading_start(
                    experiment=experiment, grader=form.cleaned_data["grader"], user=request.user
                )
                messages.success(request, _("Grading started."))
            elif action == "regrade":
                base = get_object_or_404(
                    GradingJob, pk=request.POST.get("base") or 0, experiment=experiment
                )
                prompt = get_object_or_404(
                    GradingPrompt, pk=request.POST.get("prompt") or 0, team=team
                )
                services.grading_start(
                    experiment=experiment, grader=base.grader, user=request.user, prompt=prompt
                )
                messages.success(
                    request, _("Re-grading started with %(prompt)s.") % {"prompt": prompt}
                )
            elif action == "cancel":
                job = get_object_or_404(
                    GradingJob, pk=request.POST.get("job") or 0, experiment=experiment
                )
                services.grading_cancel(job=job, user=request.user)
                messages.success(request, _("Grading cancelled."))
            elif action == "route":
                routing = RoutingForm(request.POST, experiment=experiment)
                if not routing.is_valid():
                    raise ValidationError(_("Choose a finished grading job and an audit share."))
                routing_plan_create(
                    experiment=experiment,
                    job=routing.cleaned_data["job"],
                    user=request.user,
                    audit_share=routing.cleaned_data["audit_share"],
                    audit_min=routing.cleaned_data["audit_min"],
                )
                messages.success(request, _("Routed: the scorers' queue holds the routed answers."))
            else:
                raise ValidationError(_("Unknown action."))
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
            status = 400
        else:
            return redirect("grading:experiment", experiment_pk=experiment.pk)
    jobs = _jobs(experiment)
    plan = plan_of(experiment)
    return render(
        request,
        "grading/experiment.html",
        {
            "experiment": experiment,
            "team": team,
            "rows": job_progress(experiment, jobs),
            "form": form,
            "can_edit": can(request.membership, Role.EDITOR),
            "prompts": GradingPrompt.objects.filter(team=team),
            "done_jobs": [
                j for j in jobs if j.status == GradingJob.Status.DONE and j.grader.uses_model
            ],
            "costs": experiment_costs(experiment),
            "routing_form": RoutingForm(experiment=experiment),
            "plan": plan,
            "route_counts": route_counts(plan) if plan else None,
            "returned_counts": returned_counts(plan) if plan else [],
        },
        status=status,
    )


def _job(experiment, value, default=None) -> GradingJob | None:
    if not value:
        return default
    if not str(value).isdigit():
        raise Http404
    return get_object_or_404(
        GradingJob.objects.select_related("grader", "prompt", "experiment"),
        pk=value,
        experiment=experiment,
    )


def _done(experiment) -> list[GradingJob]:
    return [j for j in _jobs(experiment) if j.status == GradingJob.Status.DONE]


@team_view(scope="experiment_pk", get=Role.SCORER)
def experiment_agreement(request, experiment: Experiment):
    if _blinded(request, experiment):
        return _away(experiment)
    done = _done(experiment)
    job = _job(experiment, request.GET.get("job"), done[0] if done else None)
    result = grader_agreement(job) if job is not None else None
    return render(
        request,
        "grading/agreement.html",
        {
            "experiment": experiment,
            "team": experiment.team,
            "jobs": done,
            "job": job,
            "result": result,
            "threshold": threshold_of(experiment.team),
        },
    )


@team_view(scope="experiment_pk", get=Role.SCORER)
def experiment_regrade(request, experiment: Experiment):
    if _blinded(request, experiment):
        return _away(experiment)
    done = _done(experiment)
    new = _job(experiment, request.GET.get("new"), done[0] if done else None)
    base = _job(experiment, request.GET.get("base"), done[1] if len(done) > 1 else None)
    result = regrade(base, new) if base is not None and new is not None and base != new else None
    return render(
        request,
        "grading/regrade.html",
        {
            "experiment": experiment,
            "team": experiment.team,
            "jobs": done,
            "base": base,
            "new": new,
            "result": result,
        },
    )


@team_view(scope="experiment_pk", get=Role.SCORER)
def experiment_export(request, experiment: Experiment, fmt: str):
    """Every grade with its version, the agreement of each finished job, and the costs."""
    if fmt not in ("csv", "json"):
        raise Http404
    if _blinded(request, experiment):
        return _away(experiment)
    jobs = _jobs(experiment)
    what = request.GET.get("what", "grades")
    if fmt == "json":
        w, refused = export_weight(request)  # w of the routed figures, as the figures export
        if refused is not None:
            return refused
        body = json.dumps(
            exports.experiment_dict(experiment, request, w), ensure_ascii=False, indent=1
        )
        return attachment(body, name=experiment.name, contents="grading", extension="json")
    if what == "costs":
        costs = exports.costs_dict(experiment_costs(experiment))
        text = csv_text(costs["runs"] + costs["grading"], exports.COST_COLUMNS)
        return attachment(text, name=experiment.name, contents="grading-costs", extension="csv")
    text = csv_text(exports.grade_rows(jobs), exports.GRADE_COLUMNS)
    return attachment(text, name=experiment.name, contents="grading", extension="csv")
