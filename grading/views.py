"""Grading's team pages (graders, grading prompt versions and their diff) and a scorer's answer
to a second opinion. An experiment's grading pages are in views_experiment.py."""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from probe.access import is_blinded, team_view
from probe.forms.common import apply_service_errors
from probe.models import Role, Team
from probe.services.prompts import prompt_diff as text_diff
from scoring.models import Assignment
from scoring.queue import selectors as queue_selectors
from scoring.queue.views import render_item

from . import services
from .agreement import threshold_of
from .forms import GraderForm, PromptVersionForm, ThresholdForm
from .models import Grader, GradingJob, GradingPrompt, SecondOpinion


def visible_jobs(request, jobs) -> list[GradingJob]:
    """The grading jobs of experiments the viewer is no longer blind to (``is_blinded``, the
    predicate of an experiment's grading page): an editor who scores an experiment sees nothing
    of its graders here before their reveal, whether one exists, what it said or how far it got.
    """
    jobs = list(jobs.select_related("experiment"))
    blinded = {}
    for job in jobs:
        if job.experiment_id not in blinded:
            blinded[job.experiment_id] = is_blinded(
                job.experiment, request.user, getattr(request, "membership", None)
            )
    return [job for job in jobs if not blinded[job.experiment_id]]


@team_view(scope="team_slug", get=Role.EDITOR, post=Role.EDITOR)
def grader_list(request, team: Team):
    threshold = threshold_of(team)
    threshold_form = ThresholdForm(instance=threshold)
    form = GraderForm(team=team)
    if request.method == "POST" and request.POST.get("action") == "threshold":
        threshold_form = ThresholdForm(request.POST, instance=threshold)
        if threshold_form.is_valid():
            services.threshold_save(team=team, **threshold_form.cleaned_data)
            messages.success(request, _("Trust threshold saved."))
            return redirect("grading:graders", team_slug=team.slug)
    elif request.method == "POST":
        form = GraderForm(request.POST, team=team)
    if request.method == "POST" and form.is_bound and form.is_valid():
        try:
            grader = services.grader_create(team=team, user=request.user, **form.cleaned_data)
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("Grader “%(label)s” created.") % {"label": grader})
            return redirect("grading:graders", team_slug=team.slug)
    graders = Grader.objects.filter(team=team).select_related("model_config", "prompt")
    jobs = {}
    for job in visible_jobs(request, GradingJob.objects.filter(grader__team=team)):
        jobs.setdefault(job.grader_id, []).append(job)
    return render(
        request,
        "grading/graders.html",
        {
            "team": team,
            "form": form,
            "rows": [(g, jobs.get(g.pk, [])) for g in graders],
            "threshold": threshold,
            "threshold_form": threshold_form,
        },
        status=400 if form.errors or threshold_form.errors else 200,
    )


def _as_text(prompt: GradingPrompt) -> str:
    """The instruction text, then each calibration example on lines of its own: what the hash
    covers, as the diff compares it."""
    lines = [prompt.text, ""]
    for number, example in enumerate(prompt.examples, start=1):
        lines.append(f"[EXAMPLE {number}]")
        lines.extend(f"{field}: {value}" for field, value in example.items())
    return "\n".join(lines)


@team_view(scope="team_slug", get=Role.EDITOR, post=Role.EDITOR)
def prompt_list(request, team: Team):
    form = PromptVersionForm(request.POST or None, team=team)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            version = services.grading_prompt_new_version(
                prompt=data["prompt"],
                user=request.user,
                text=data["text"],
                examples=data["examples"],
                note=data["note"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("%(prompt)s saved.") % {"prompt": version})
            return redirect("grading:prompts", team_slug=team.slug)
    prompts = list(GradingPrompt.objects.filter(team=team))
    return render(
        request,
        "grading/prompts.html",
        {
            "team": team,
            "prompts": prompts,
            "form": form,
            "examples_json": {
                p.pk: json.dumps(p.examples, ensure_ascii=False, indent=1) for p in prompts
            },
        },
        status=400 if form.errors else 200,
    )


@team_view(scope="team_slug", get=Role.EDITOR)
def prompt_diff(request, team: Team):
    """`?a=` on the left, `?b=` on the right (the team's own versions); b alone: against its
    parent. Probe's diff and its table, over the text and the examples."""

    def pick(name):
        value = request.GET.get(name, "")
        if not value:
            return None
        if not value.isdigit():
            raise Http404
        return get_object_or_404(GradingPrompt, pk=value, team=team)

    right, left = pick("b"), pick("a")
    if right is not None and left is None and right.parent_id:
        left = right.parent
    diff = text_diff(_as_text(left), _as_text(right)) if left and right else None
    return render(
        request,
        "grading/prompt_diff.html",
        {
            "team": team,
            "left": left,
            "right": right,
            "diff": diff,
            "choices": GradingPrompt.objects.filter(team=team),
        },
    )


@team_view(scope="assignment_token", get=None, post=Role.SCORER)
def opinion_respond(request, assignment: Assignment, position: int):
    """Keep my bucket, or take the grader's (its reason is the recorded cause), for the answers
    named by the tokens; then the item again."""
    action = request.POST.get("action", "")
    tokens = [t for t in request.POST.get("tokens", "").split(",") if t]
    responses = queue_selectors.resolve_tokens(assignment, position, tokens) if tokens else []
    opinions = list(
        SecondOpinion.objects.filter(
            assignment=assignment, response__in=[r.pk for r in responses]
        ).select_related("grade", "assignment")
    )
    if not opinions or action not in (SecondOpinion.Action.KEEP, SecondOpinion.Action.CHANGE):
        return HttpResponseBadRequest(_("Keep your bucket or take the second opinion."))
    for opinion in opinions:
        bucket = opinion.grade.bucket
        cause = request.POST.get("cause", "").strip() or (
            _("Took the second opinion: %(reason)s") % {"reason": opinion.grade.reason or bucket}
        )
        try:
            services.opinion_respond(opinion=opinion, action=action, cause=cause, bucket=bucket)
        except ValidationError as error:
            return render_item(
                request, assignment, position, status=400, error=" ".join(error.messages)
            )
    return render_item(request, assignment, position, focus_after=",".join(tokens))
