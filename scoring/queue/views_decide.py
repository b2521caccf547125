"""The blind queue's decision endpoints (POST only): a decision, the page's queue of decisions,
a note for the lead, undo, a dispute of the key. Each ends on the item (``views.render_item``) or,
for the queue, on JSON. The pages themselves (start, an item, the overview, the reveal, ...) are
``scoring/queue/views.py``."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from probe.access import team_view
from probe.htmx import HtmxHttpRequest
from probe.models import Role
from probe.wording import sentences
from scoring.models import Assignment
from scoring.queue import decisions, forms, selectors, services
from scoring.queue.views import confirm_off, confirm_off_set, render_item


def _decision_notice(decision: services.Decision) -> str:
    if decision.no_op:
        return _("Already decided so (another tab, or a second keypress): nothing changed.")
    if decision.changed and not decision.created:
        return _("Decision changed.")
    if decision.kept:
        return _("Decision kept against the amended key.")
    return ""


def _answer_gone(request, assignment: Assignment, position: int):
    """The item again, saying the answer posted is no longer on it (the item was edited)."""
    return render_item(
        request,
        assignment,
        position,
        status=400,
        error=_("That answer is not on this item any more: nothing was saved."),
    )


@team_view(scope="assignment_token", get=None, post=Role.SCORER)
def scoring_decide(request: HtmxHttpRequest, assignment: Assignment, position: int):
    form = forms.read_form(forms.DecideForm, request.POST)
    tokens = form.cleaned_data["tokens"]
    responses = selectors.resolve_tokens(assignment, position, tokens)
    if not responses:
        return _answer_gone(request, assignment, position)
    bucket = form.cleaned_data["bucket"]
    try:
        decision = services.judgement_decide(
            assignment=assignment,
            responses=responses,
            verdict=form.cleaned_data["verdict"],
            bucket=bucket,
            confirmed=form.cleaned_data["confirmed"],
            confirm_off=confirm_off(request, assignment),
        )
    except services.ConfirmationNeeded:
        return render_item(
            request, assignment, position, confirm_tokens=",".join(tokens), confirm_bucket=bucket
        )
    except services.BucketNeeded as error:
        return render_item(
            request,
            assignment,
            position,
            status=200,
            choose_tokens=",".join(tokens),
            error=sentences(error.messages),
        )
    except ValidationError as error:
        return render_item(
            request, assignment, position, status=400, error=sentences(error.messages)
        )
    notice = _decision_notice(decision)
    if not request.htmx:
        if notice:
            messages.info(request, notice)
        return redirect("scoring:item", assignment_token=assignment.token, position=position)
    return render_item(request, assignment, position, focus_after=",".join(tokens), notice=notice)


@team_view(scope="assignment_token", get=None, post=Role.SCORER)
def scoring_record(request: HtmxHttpRequest, assignment: Assignment):
    """Decisions (and undos) from the page's queue, in the order made, each named by the
    browser's key: JSON in ({"decisions": [...]}), one outcome per decision out."""
    if not services.scoring_open(assignment.experiment):
        raise Http404
    try:
        queued, turned_off = forms.decision_batch(
            request.body, confirm_off=confirm_off(request, assignment)
        )
    except forms.BatchError as error:
        return JsonResponse({"status": "invalid", "message": str(error)}, status=400)
    if turned_off:
        confirm_off_set(request, assignment)
    outcomes = decisions.decisions_record(assignment=assignment, decisions=queued)
    return JsonResponse({"outcomes": outcomes})


@team_view(scope="assignment_token", get=None, post=Role.SCORER)
def scoring_note(request: HtmxHttpRequest, assignment: Assignment, position: int):
    """The scorer's note on a decided answer: for the lead at reconciliation only."""
    form = forms.read_form(forms.NoteForm, request.POST)
    tokens = form.cleaned_data["tokens"]
    responses = selectors.resolve_tokens(assignment, position, tokens)
    note = form.cleaned_data["note"]
    if not responses:
        return _answer_gone(request, assignment, position)
    try:
        services.judgement_note_set(assignment=assignment, responses=responses, note=note)
    except ValidationError as error:
        return render_item(
            request,
            assignment,
            position,
            status=400,
            note_tokens=",".join(tokens),
            error=sentences(error.messages),
            note_text=note,
        )
    notice = _("Note saved for the lead.") if note.strip() else _("Note removed.")
    if not request.htmx:
        messages.success(request, notice)
        return redirect("scoring:item", assignment_token=assignment.token, position=position)
    return render_item(request, assignment, position, focus_after=",".join(tokens), notice=notice)


@team_view(scope="assignment_token", get=None, post=Role.SCORER)
def scoring_undo(request: HtmxHttpRequest, assignment: Assignment):
    position = services.judgement_undo(assignment=assignment)
    current = request.POST.get("position", "")
    if position is None:
        position = int(current) if current.isdigit() else assignment.last_position
        extra = {"notice": _("Nothing to undo.")}
    else:
        extra = {"notice": _("Undone.")}
    if not request.htmx:
        return redirect("scoring:item", assignment_token=assignment.token, position=position)
    return render_item(request, assignment, position, **extra)


@team_view(scope="assignment_token", get=None, post=Role.SCORER)
def scoring_dispute(request: HtmxHttpRequest, assignment: Assignment, position: int):
    queue = selectors.queue_item(assignment, position)
    if queue is None:
        raise Http404
    form = forms.read_form(forms.DisputeForm, request.POST)
    tokens = form.cleaned_data["tokens"]
    responses = selectors.resolve_tokens(assignment, position, tokens)
    try:
        services.dispute_raise(
            assignment=assignment,
            item=queue.item,
            note=form.cleaned_data["note"],
            response=responses[0] if responses else None,
        )
    except ValidationError as error:
        return render_item(
            request,
            assignment,
            position,
            status=200,
            confirm_tokens=",".join(tokens),
            dispute_error=sentences(error.messages),
            show_dispute=True,
            dispute_note=form.cleaned_data["note"],
        )
    if not request.htmx:
        return redirect("scoring:item", assignment_token=assignment.token, position=position)
    return render_item(
        request, assignment, position, notice=_("Dispute recorded for the key review.")
    )
