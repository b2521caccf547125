"""The "Run again" page: a follow-up of an experiment, its difference from the earlier one
listed before anything is created."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from probe.access import is_blinded, team_view
from probe.forms.common import apply_service_errors
from probe.htmx import HtmxHttpRequest
from probe.models import Experiment, Role
from scoring.comparison import followups
from scoring.comparison.forms import FollowUpForm


@team_view(scope="experiment_pk", get=Role.EDITOR, post=Role.EDITOR)
def follow_up(request: HtmxHttpRequest, origin: Experiment):
    if is_blinded(origin, request.user, request.membership):
        # The form names each earlier run's configuration: not before this user's reveal.
        return render(
            request,
            "scoring/follow_up_locked.html",
            {"team": origin.team, "experiment": origin},
        )
    form = FollowUpForm(request.POST or None, origin=origin)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            experiment = followups.experiment_follow_up(
                origin=origin,
                user=request.user,
                source=data["items"],
                prompt_version=data["prompt_version"],
                configs=list(data["configs"]),
                include_runs=list(data["include_runs"]),
                repeats=data["repeats"],
                name=data["name"],
                seed=data["seed"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(
                request,
                _("Follow-up created: check the exact text, then start collecting."),
            )
            return redirect("probe:experiment_detail", experiment_pk=experiment.pk)
    current = None
    if origin.bank_id is not None:
        current = followups.followup_plan(origin=origin, source=followups.CURRENT)
    return render(
        request,
        "scoring/follow_up.html",
        {
            "team": origin.team,
            "experiment": origin,
            "form": form,
            "current": current,
            "other_prompts": origin.team.prompt_versions.exclude(pk=origin.prompt_version_id)
            .order_by("name", "-version")
            .only("pk", "name", "version"),
        },
    )
