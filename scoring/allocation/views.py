"""The lead's choices on the Scorers page: how many scorers judge each item and from which pool,
and handing a departed scorer's open items on (HTTP only; the rules are in services.py)."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from probe.access import team_view
from probe.models import Experiment, Role
from scoring.allocation import services
from scoring.models import Assignment
from scoring.reconciliation import selectors as reconcile


@team_view(scope="experiment_pk", get=None, post=Role.EDITOR)
def share(request, experiment: Experiment):
    members = {m.user_id: m.user for m in reconcile.scorer_pool(experiment)}
    wanted = [int(v) for v in request.POST.getlist("pool") if v.isdigit()]
    raw_k = request.POST.get("per_item", "").strip()
    try:
        if any(pk not in members for pk in wanted):
            raise ValidationError(_("Some of those members may not score this experiment."))
        if raw_k and not raw_k.isdigit():
            raise ValidationError(_("Scorers per item: a whole number, or empty for all."))
        allocation = services.allocation_create(
            experiment=experiment,
            by=request.user,
            pool=[members[pk] for pk in wanted],
            per_item=int(raw_k) if raw_k else None,
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(
            request,
            _("The items are shared out: each to %(k)s of %(n)s scorers (seed %(seed)s).")
            % {"k": allocation.per_item, "n": len(wanted), "seed": allocation.seed},
        )
    return redirect("scoring:scorers", experiment_pk=experiment.pk)


@team_view(scope="experiment_pk", get=None, post=Role.EDITOR)
def hand_on(request, experiment: Experiment):
    assignment = Assignment.objects.filter(
        experiment=experiment, pk=request.POST.get("assignment", "0") or 0
    ).first()
    if assignment is None:
        messages.error(request, _("Choose a scorer of this experiment."))
        return redirect("scoring:scorers", experiment_pk=experiment.pk)
    try:
        moved = services.allocation_reassign(assignment=assignment, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(
            request,
            _("%(n)s open items of %(name)s went to the other scorers; what they judged stays.")
            % {"n": moved, "name": assignment.user.get_username()},
        )
    return redirect("scoring:scorers", experiment_pk=experiment.pk)
