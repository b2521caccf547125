"""Scorers, agreement and reconciliation pages: keyboard-first, like scoring.

Every page is for owners and editors (the scorers page counts; agreement and reconciliation show
scorers' buckets side by side), except that only an owner invites scorers. Buckets side by side
appear only once reconciliation has begun, and never to someone still scoring the experiment.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django_htmx.http import push_url

from probe.access import can, team_view
from probe.htmx import HtmxHttpRequest
from probe.models import Experiment, Role
from probe.wording import sentences, word_list
from scoring.agreement import report as agreement_report
from scoring.allocation.selectors import allocation_of
from scoring.queue.services import scoring_open
from scoring.reconciliation import finals
from scoring.reconciliation import page as reconcile_page
from scoring.reconciliation import selectors as reconcile
from scoring.reconciliation import services as reconcile_services
from scoring.schemes import bucket_choices

# --------------------------------------------------------------------------------------------
# Scorers: invitations and progress (counts only)
# --------------------------------------------------------------------------------------------


@team_view(scope="experiment_pk", get=Role.EDITOR, post=Role.OWNER)
def scorers(request: HtmxHttpRequest, experiment: Experiment):
    if request.method == "POST":
        wanted = [v for v in request.POST.getlist("user") if v.isdigit()]
        candidates = {m.user_id: m.user for m in reconcile.scorer_candidates(experiment)}
        users = [candidates[int(v)] for v in wanted if int(v) in candidates]
        try:
            if len(users) != len(wanted):
                raise ValidationError(_("Some of those members may not score this experiment."))
            invited = reconcile_services.scorers_invite(
                experiment=experiment, users=users, invited_by=request.user
            )
        except ValidationError as error:
            messages.error(request, sentences(error.messages))
        else:
            messages.success(
                request,
                _("Invited: %(names)s. Each scores blind and alone.")
                % {"names": word_list(a.user.get_username() for a in invited)},
            )
        return redirect("scoring:scorers", experiment_pk=experiment.pk)
    progress = reconcile.scorer_progress(experiment)
    return render(
        request,
        "scoring/reconcile_scorers.html",
        {
            "experiment": experiment,
            "team": experiment.team,
            "section": "scorers",
            "progress": progress,
            "open": scoring_open(experiment),
            "candidates": reconcile.scorer_candidates(experiment),
            "can_invite": can(request.membership, Role.OWNER),
            "n_finished": sum(1 for p in progress if p.finished),
            "reconciliation": reconcile.reconciliation_of(experiment),
            "allocation": allocation_of(experiment),
            "pool": reconcile.scorer_pool(experiment),
            "can_share": can(request.membership, Role.EDITOR),
        },
    )


# --------------------------------------------------------------------------------------------
# Reconciliation and agreement
# --------------------------------------------------------------------------------------------


def _closed_context(request: HtmxHttpRequest, experiment: Experiment) -> dict:
    """What a lead sees before reconciliation (or while still scoring): counts only."""
    progress = reconcile.scorer_progress(experiment)
    own = next((p for p in progress if p.assignment.user_id == request.user.pk), None)
    return {
        "experiment": experiment,
        "team": experiment.team,
        "progress": progress,
        "n_finished": sum(1 for p in progress if p.finished),
        "own": own,
        "reconciliation": reconcile.reconciliation_of(experiment),
        "open": scoring_open(experiment),
    }


@team_view(scope="experiment_pk", get=Role.EDITOR, post=Role.EDITOR)
def reconcile_overview(request: HtmxHttpRequest, experiment: Experiment):
    if request.method == "POST":
        try:
            reconcile_services.reconciliation_start(experiment=experiment, user=request.user)
        except ValidationError as error:
            messages.error(request, sentences(error.messages))
        else:
            messages.success(request, _("Reconciliation has begun: unanimous responses are final."))
        return redirect("scoring:reconcile", experiment_pk=experiment.pk)
    if not reconcile.decisions_visible(experiment, request.user):
        return render(
            request,
            "scoring/reconcile_closed.html",
            {**_closed_context(request, experiment), "section": "reconcile"},
        )
    # Nothing is written here: every write that changes a judgement after reconciliation has
    # begun (a decision, an undo, a re-check, a key amendment, a hand-over) brings the
    # unanimous rows in line itself (scoring.reconciliation.finals.final_buckets_sync).
    summary = reconcile.reconcile_summary(experiment)
    return render(
        request,
        "scoring/reconcile.html",
        {"experiment": experiment, "team": experiment.team, "section": "reconcile", "s": summary},
    )


def _reconcile_item_response(
    request: HtmxHttpRequest, experiment: Experiment, position: int, status=200, **extra
):
    data = reconcile_page.reconcile_item(experiment, position, user=request.user)
    if data is None:
        raise Http404
    context = {
        "experiment": experiment,
        "team": experiment.team,
        "section": "reconcile",
        "r": data,
        "bucket_keys": experiment.scheme_obj.bucket_keys,
        "bucket_labels": dict(bucket_choices()),
        **extra,
    }
    template = (
        "scoring/partials/_reconcile_item.html" if request.htmx else "scoring/reconcile_item.html"
    )
    response = render(request, template, context, status=status)
    if request.htmx:
        url = reverse(
            "scoring:reconcile_item", kwargs={"experiment_pk": experiment.pk, "position": position}
        )
        push_url(response, url)
    return response


@team_view(scope="experiment_pk", get=Role.EDITOR, post=Role.EDITOR)
def reconcile_item(request: HtmxHttpRequest, experiment: Experiment, position: int):
    if not reconcile.decisions_visible(experiment, request.user):
        if request.method == "POST":
            messages.error(request, _("Reconciliation has not begun, or you are still scoring."))
        return redirect("scoring:reconcile", experiment_pk=experiment.pk)
    if request.method == "GET":
        # Classified from the judgements as they are now (the stored unanimous rows follow
        # every write that changes a judgement; nothing is written here).
        return _reconcile_item_response(request, experiment, position)
    token = request.POST.get("token", "")
    responses = reconcile_page.resolve_responses(
        experiment, position, token.split(","), user=request.user
    )
    if not responses:
        return _reconcile_item_response(
            request,
            experiment,
            position,
            status=400,
            error=_("That answer is not on this item: nothing was saved."),
        )
    bucket = request.POST.get("set") or request.POST.get("bucket", "")
    try:
        with transaction.atomic():
            for response in responses:
                finals.final_bucket_set(
                    experiment=experiment,
                    response=response,
                    user=request.user,
                    bucket=bucket,
                    note=request.POST.get("note", ""),
                )
    except ValidationError as error:
        return _reconcile_item_response(
            request,
            experiment,
            position,
            error=sentences(error.messages),
            error_token=token,
            note=request.POST.get("note", ""),
        )
    if not request.htmx:
        return redirect("scoring:reconcile_item", experiment_pk=experiment.pk, position=position)
    notice = (
        _("Final bucket saved.")
        if len(responses) == 1
        else _("Final bucket saved for %(n)s identical answers.") % {"n": len(responses)}
    )
    return _reconcile_item_response(request, experiment, position, focus_after=token, notice=notice)


@team_view(scope="experiment_pk", get=Role.EDITOR)
def agreement(request: HtmxHttpRequest, experiment: Experiment):
    if not reconcile.decisions_visible(experiment, request.user):
        return render(
            request,
            "scoring/reconcile_closed.html",
            {**_closed_context(request, experiment), "section": "agreement"},
        )
    return render(
        request,
        "scoring/reconcile_agreement.html",
        {
            "experiment": experiment,
            "team": experiment.team,
            "section": "agreement",
            "a": agreement_report.agreement_report(experiment),
            "reconciliation": reconcile.reconciliation_of(experiment),
        },
    )
