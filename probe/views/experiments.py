"""Pages for experiments and runs: create, start, watch collection live, paste manual replies.

The key is sealed: until every run is collected, no page here shows a key entry. Before their
reveal, a blinded member (a scorer) sees runs only as anonymous rows: no label, no answers.
"""

import json

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from adapters.registry import is_simulated

from ..access import can, is_blinded, team_view
from ..forms.common import apply_service_errors
from ..forms.experiments import ExperimentForm, PasteForm
from ..htmx import HtmxHttpRequest
from ..models import Experiment, Role, Run, Team
from ..selectors import experiments as selectors
from ..services import collection
from ..services import experiments as experiment_services
from ..services.audit import key_view_record
from ..wording import sentences

RUN_ROWS_PER_PAGE = 100
PASTES_PER_PAGE = 20
PROMPTS_PER_PAGE = 50


def _without(params, name: str) -> str:
    """The query string without one parameter (a pager's links add it back)."""
    params = params.copy()
    params.pop(name, None)
    return params.urlencode()


PROGRESS_TARGET = "experiment-progress"


def _error_text(error: ValidationError) -> str:
    return sentences(error.messages)


# Experiments ---------------------------------------------------------------------------------


@team_view(scope="team_slug", get=Role.VIEWER)
def experiment_list(request: HtmxHttpRequest, team: Team):
    return render(
        request,
        "probe/experiment_list.html",
        {
            "team": team,
            "experiments": selectors.experiments_of_team(team),
            "can_edit": can(request.membership, Role.EDITOR),
        },
    )


@team_view(scope="team_slug", get=Role.EDITOR, post=Role.EDITOR)
def experiment_create(request: HtmxHttpRequest, team: Team):
    form = ExperimentForm(request.POST or None, team=team, bank=request.GET.get("bank"))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            experiment = experiment_services.experiment_create(
                team=team,
                user=request.user,
                bank=data["bank"],
                prompt_version=data["prompt_version"],
                configs=list(data["configs"]),
                repeats=data["repeats"],
                mode=data["mode"],
                name=data["name"],
                seed=data["seed"],
                scheme=data["scheme"],
                hide_confidence=data["hide_confidence"],
                confirm_wrong=data["confirm_wrong"],
                noise_floor=data["noise_floor"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(
                request, _("Experiment created: check the exact text, then start collecting.")
            )
            return redirect("probe:experiment_detail", experiment_pk=experiment.pk)
    return render(
        request,
        "probe/experiment_form.html",
        {
            "team": team,
            "form": form,
            "has_configs": form.fields["configs"].queryset.exists(),
            "has_banks": form.fields["bank"].queryset.exists(),
        },
    )


def _detail_context(request: HtmxHttpRequest, experiment: Experiment) -> dict:
    blinded = is_blinded(experiment, request.user, request.membership)
    return {
        "team": experiment.team,
        "experiment": experiment,
        "progress": selectors.experiment_progress(experiment),
        "can_edit": can(request.membership, Role.EDITOR) and not blinded,
        "blinded": blinded,
    }


@team_view(scope="experiment_pk", get=Role.VIEWER)
def experiment_detail(request: HtmxHttpRequest, experiment: Experiment):
    context = _detail_context(request, experiment)
    if request.htmx and request.htmx.target == PROGRESS_TARGET:
        context["show_messages"] = True
        return render(request, "probe/partials/_experiment_progress.html", context)
    return render(request, "probe/experiment_detail.html", context)


@team_view(scope="experiment_pk", get=Role.VIEWER)
def experiment_prompt(request: HtmxHttpRequest, experiment: Experiment):
    # One request per item: the requests a page at a time (a 1,000-item experiment opens fast).
    page = Paginator(experiment_services.experiment_prompts(experiment), PROMPTS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "probe/experiment_prompt.html",
        {
            "team": experiment.team,
            "experiment": experiment,
            "prompts": list(page),
            "page": page,
            "page_query": _without(request.GET, "page"),
        },
    )


def _after_experiment_action(request: HtmxHttpRequest, experiment: Experiment):
    """The progress fragment for htmx (with the message in it), the page otherwise."""
    if request.htmx:
        experiment.refresh_from_db()
        return render(
            request,
            "probe/partials/_experiment_progress.html",
            {**_detail_context(request, experiment), "show_messages": True},
        )
    return redirect("probe:experiment_detail", experiment_pk=experiment.pk)


@team_view(scope="experiment_pk", get=None, post=Role.EDITOR)
def experiment_start(request: HtmxHttpRequest, experiment: Experiment):
    try:
        experiment_services.experiment_start(experiment=experiment, user=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        messages.success(request, _("Collection started."))
    return _after_experiment_action(request, experiment)


@team_view(scope="experiment_pk", get=None, post=Role.EDITOR)
def experiment_cancel(request: HtmxHttpRequest, experiment: Experiment):
    try:
        experiment_services.experiment_cancel(experiment=experiment, user=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        messages.success(
            request, _("Experiment cancelled. The answers already collected are kept.")
        )
    return _after_experiment_action(request, experiment)


@team_view(scope="experiment_pk", get=None, post=Role.EDITOR)
def experiment_finish(request: HtmxHttpRequest, experiment: Experiment):
    try:
        experiment_services.experiment_finish(experiment=experiment, user=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        messages.success(request, _("Collection finished: the key is open."))
    return _after_experiment_action(request, experiment)


# Runs ----------------------------------------------------------------------------------------


def _run_context(request: HtmxHttpRequest, run: Run, paste_form: PasteForm | None = None) -> dict:
    experiment = run.experiment
    blinded = is_blinded(experiment, request.user, request.membership)
    may_edit = can(request.membership, Role.EDITOR) and not blinded
    # The key is sealed until every run is collected; then editors may open it beside the answers.
    key_available = experiment.collection_complete and may_edit
    show_key = key_available and request.GET.get("key") == "1"
    if show_key:
        key_view_record(
            team=experiment.team,
            user=request.user,
            bank=experiment.bank,
            subject="experiment",
            summary=_("viewed the key beside run %(run)s of %(name)s")
            % {"run": run, "name": experiment.name},
        )
    context = {
        "team": experiment.team,
        "experiment": experiment,
        "run": run,
        "blinded": blinded,
        "can_edit": may_edit,
        "key_available": key_available,
        "show_key": show_key,
        "n_items": experiment.items.count(),
        "is_simulated": is_simulated(run.config_snapshot.get("provider")),
    }
    # A simulated model answers from the experiment's key, so its answers show the key: they
    # are shown with the key only (sealed until collection ends, for editors, recorded).
    context["answers_sealed"] = context["is_simulated"] and not show_key
    if blinded:
        return context
    # A run of 1,000 items (one request each) shows its answers, attempts and paste forms a page
    # at a time: the page opens in a second whatever the experiment's size.
    attempts = (
        run.attempts.select_related("item", "pasted_by")
        .defer("raw_body", "text", "request_sent")
        .order_by("pk")
    )
    context["attempts"] = Paginator(attempts, RUN_ROWS_PER_PAGE).get_page(
        request.GET.get("attempts_page")
    )
    context["has_attempts"] = context["attempts"].paginator.count > 0
    context["sheets"] = sheets = selectors.run_sheets(run)
    for sheet in sheets:
        sheet.issue_labels = selectors.issue_labels(sheet.sheet_issues)
    rows = [(sheet, item, response) for sheet in sheets for item, response in sheet.rows]
    context["rows"] = Paginator(rows, RUN_ROWS_PER_PAGE).get_page(request.GET.get("page"))
    for _sheet, _item, response in context["rows"]:
        if response is not None:
            response.issue_labels = selectors.issue_labels(response.issues)
    context["n_responses"] = sum(1 for _sheet, _item, response in rows if response is not None)
    context["page_query"] = _without(request.GET, "page")
    context["attempts_query"] = _without(request.GET, "attempts_page")
    context["awaits_finish"] = may_edit and selectors.experiment_awaits_finish(experiment)
    if run.is_manual:
        prompts = experiment_services.experiment_prompts(experiment)
        if experiment.mode == Experiment.Mode.ITEM:
            # The paste forms of the items still waiting first (the page with the first one).
            answered = {item.pk for _sheet, item, response in rows if response is not None}
            waiting = next(
                (n for n, (item, _t) in enumerate(prompts) if item.pk not in answered), 0
            )
            wanted = request.GET.get("paste_page") or (waiting // PASTES_PER_PAGE + 1)
            context["paste_page"] = Paginator(prompts, PASTES_PER_PAGE).get_page(wanted)
            context["prompts"] = list(context["paste_page"])
            context["paste_query"] = _without(request.GET, "paste_page")
        else:
            context["prompts"] = prompts
        context["paste_form"] = paste_form or PasteForm()
        context["can_paste"] = (
            may_edit
            and experiment.status
            in (
                Experiment.Status.READY,
                Experiment.Status.COLLECTING,
            )
            and run.status not in (Run.Status.CANCELLED, Run.Status.CLOSED)
        )
    return context


@team_view(scope="run_pk", get=Role.VIEWER)
def run_detail(request: HtmxHttpRequest, run: Run):
    return render(request, "probe/run_detail.html", _run_context(request, run))


@team_view(scope="run_pk", get=Role.EDITOR)
def run_raw(request: HtmxHttpRequest, run: Run):
    """The raw text of the run's attempts, exactly as stored (one attempt with ?attempt=ID)."""
    blinded = is_blinded(run.experiment, request.user, request.membership)
    # A simulated model's replies are the key in part (see _run_context): sealed with it.
    sealed = (
        is_simulated(run.config_snapshot.get("provider")) and not run.experiment.collection_complete
    )
    attempts = run.attempts.select_related("item").order_by("pk")
    wanted = request.GET.get("attempt") or ""
    if wanted.isdigit():
        attempts = attempts.filter(pk=int(wanted))
    attempts = [] if blinded or sealed else list(attempts)
    for attempt in attempts:
        # The request as sent, never with the key (adapters.wire.sent_request).
        attempt.request_shown = (
            json.dumps(attempt.request_sent, indent=2, ensure_ascii=False)
            if attempt.request_sent
            else ""
        )
    return render(
        request,
        "probe/run_raw.html",
        {
            "team": run.experiment.team,
            "experiment": run.experiment,
            "run": run,
            "blinded": blinded,
            "sealed": sealed,
            "attempts": attempts,
        },
    )


def _back_to(request: HtmxHttpRequest, run: Run):
    if request.POST.get("back") == "run":
        return redirect("probe:run_detail", run_pk=run.pk)
    if request.htmx:
        experiment = run.experiment
        experiment.refresh_from_db()
        return render(
            request,
            "probe/partials/_experiment_progress.html",
            {**_detail_context(request, experiment), "show_messages": True},
        )
    return redirect("probe:experiment_detail", experiment_pk=run.experiment_id)


def _run_action(request: HtmxHttpRequest, run: Run, action, done_message: str):
    if is_blinded(run.experiment, request.user, request.membership):
        messages.error(
            request, _("You are scoring this experiment blind: its runs are not yours to change.")
        )
        return _back_to(request, run)
    try:
        action(run=run, user=request.user)
    except ValidationError as error:
        messages.error(request, _error_text(error))
    else:
        messages.success(request, done_message)
    return _back_to(request, run)


@team_view(scope="run_pk", get=None, post=Role.EDITOR)
def run_cancel(request: HtmxHttpRequest, run: Run):
    return _run_action(request, run, experiment_services.run_cancel, _("Run cancelled."))


@team_view(scope="run_pk", get=None, post=Role.EDITOR)
def run_retry(request: HtmxHttpRequest, run: Run):
    return _run_action(
        request,
        run,
        experiment_services.run_retry,
        _("Run queued again. Its earlier attempts and answers are kept."),
    )


@team_view(scope="run_pk", get=None, post=Role.EDITOR)
def run_close(request: HtmxHttpRequest, run: Run):
    return _run_action(
        request,
        run,
        experiment_services.run_close_failed,
        _("Run closed as failed: scoring can open without it."),
    )


@team_view(scope="run_pk", get=None, post=Role.EDITOR)
def run_reparse(request: HtmxHttpRequest, run: Run):
    def reparse(*, run, user):
        return collection.run_reparse(run=run)

    return _run_action(request, run, reparse, _("Parsed again from the stored replies."))


@team_view(scope="run_pk", get=None, post=Role.EDITOR)
def run_paste(request: HtmxHttpRequest, run: Run):
    form = PasteForm(request.POST)
    if is_blinded(run.experiment, request.user, request.membership):
        messages.error(
            request, _("You are scoring this experiment blind: its runs are not yours to change.")
        )
        return redirect("probe:run_detail", run_pk=run.pk)
    if form.is_valid():
        item = None
        if form.cleaned_data.get("item"):
            item = run.experiment.items.filter(position=form.cleaned_data["item"]).first()
        try:
            collection.run_paste(
                run=run, user=request.user, text=form.cleaned_data["text"], item=item
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("Reply saved and parsed."))
            if selectors.experiment_awaits_finish(run.experiment):
                messages.info(
                    request,
                    _(
                        "Every run is in. Check the answers below; a wrong paste can still be "
                        "replaced. Finish collecting when they are right: the key then opens."
                    ),
                )
            url = reverse("probe:run_detail", kwargs={"run_pk": run.pk})
            return redirect(f"{url}#answers")
    run.refresh_from_db()
    response: HttpResponse = render(
        request, "probe/run_detail.html", _run_context(request, run, form)
    )
    return response
