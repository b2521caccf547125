"""The blind queue: item by item across every sheet, one keypress per answer."""

import json
import re

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from probe.access import team_view
from probe.csvfile import csv_text
from probe.downloads import attachment
from probe.models import Experiment, Role, Team
from probe.wording import sentences
from scoring.models import Assignment, Bucket
from scoring.queue import decisions, lead_queue, selectors, services, timing
from scoring.queue.carry import carried_by_run, carry_counts
from scoring.report.export_labels import csv_labels, wants_names

URL_NAMES = ("decide", "dispute", "item", "note")
# A key the page names a queued decision by: a UUID, or any short run of these characters.
DECISION_KEY = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
# The assignments whose scorer turned the confident-wrong confirmation off for this session.
CONFIRM_OFF_SESSION_KEY = "scoring_confirm_off"


def confirm_off(request, assignment: Assignment) -> bool:
    return assignment.token in request.session.get(CONFIRM_OFF_SESSION_KEY, [])


def confirm_off_set(request, assignment: Assignment) -> None:
    tokens = request.session.get(CONFIRM_OFF_SESSION_KEY, [])
    if assignment.token not in tokens:
        request.session[CONFIRM_OFF_SESSION_KEY] = [*tokens[-49:], assignment.token]


@team_view(scope="experiment_pk", get=Role.SCORER, post=Role.SCORER)
def scoring_start(request, experiment: Experiment):
    """The way in: join as a scorer (once) and go to where this scorer left off."""
    assignment = Assignment.objects.filter(experiment=experiment, user=request.user).first()
    if request.method == "POST":
        try:
            assignment = services.assignment_start(experiment=experiment, user=request.user)
        except ValidationError as error:
            messages.error(request, sentences(error.messages))
            return redirect("scoring:start", experiment_pk=experiment.pk)
        position = selectors.first_open_position(assignment)
        return redirect("scoring:item", assignment_token=assignment.token, position=position)
    n_items = experiment.items.count()
    n_sheets = experiment.runs.count()
    is_open = services.scoring_open(experiment)
    counts = None
    if is_open:
        # Before anyone scores: how many answers carry a bucket, how many go to the scorers.
        counts = carry_counts(experiment)
    return render(
        request,
        "scoring/start.html",
        {
            "experiment": experiment,
            "team": experiment.team,
            "assignment": assignment,
            "open": is_open,
            "n_items": n_items,
            "n_sheets": n_sheets,
            "carry": counts,
        },
    )


def _item_context(request, assignment: Assignment, position: int, **extra) -> dict:
    queue = selectors.queue_item(assignment, position)
    if queue is None:
        raise Http404
    experiment = assignment.experiment
    # Reversed once here, not once per answer group in the template.
    kwargs = {"assignment_token": assignment.token, "position": position}
    urls = {name: reverse(f"scoring:{name}", kwargs=kwargs) for name in URL_NAMES}
    urls["record"] = reverse("scoring:record", kwargs={"assignment_token": assignment.token})
    decision = queue.key.decision
    return {
        "key_version": selectors.key_version(
            assignment, queue.item.pk, decision.pk if decision else None
        ),
        "confirm_off": confirm_off(request, assignment),
        "urls": urls,
        "assignment": assignment,
        "experiment": experiment,
        "team": experiment.team,
        "q": queue,
        "bucket_keys": experiment.scheme_obj.bucket_keys,
        "bucket_labels": dict(Bucket.choices),
        "confident_wrong_buckets": selectors.CONFIDENT_WRONG_BUCKETS,
        "hide_confidence": experiment.hide_confidence,
        "note_tokens": "",
        "scheme": experiment.scheme_obj,
        **extra,
    }


def _render_item(request, assignment: Assignment, position: int, status: int = 200, **extra):
    context = _item_context(request, assignment, position, **extra)
    template = "scoring/partials/_item.html" if request.htmx else "scoring/item.html"
    response = render(request, template, context, status=status)
    if request.htmx:
        # Keep the address bar on the item shown, so reload and back land here.
        response["HX-Push-Url"] = reverse(
            "scoring:item", kwargs={"assignment_token": assignment.token, "position": position}
        )
    return response


@team_view(scope="assignment_token", get=Role.SCORER)
def scoring_item(request, assignment: Assignment, position: int):
    if not services.scoring_open(assignment.experiment):
        raise Http404
    # The page fetches the next item ahead of time: only an item shown is where to resume.
    prefetch = request.GET.get("prefetch") == "1"
    if assignment.last_position != position and not prefetch:
        Assignment.objects.filter(pk=assignment.pk).update(last_position=position)
    dispute = request.GET.get("dispute", "")
    if dispute:
        return _render_item(
            request, assignment, position, confirm_tokens=dispute, show_dispute=True
        )
    return _render_item(request, assignment, position)


def _decision_notice(decision: services.Decision) -> str:
    if decision.no_op:
        return _("Already decided so (another tab, or a second keypress): nothing changed.")
    if decision.changed and not decision.created:
        return _("Decision changed.")
    if decision.kept:
        return _("Decision kept against the amended key.")
    return ""


@team_view(scope="assignment_token", get=None, post=Role.SCORER)
def scoring_decide(request, assignment: Assignment, position: int):
    tokens = [t for t in request.POST.get("tokens", "").split(",") if t]
    responses = selectors.resolve_tokens(assignment, position, tokens)
    if not responses:
        return _render_item(
            request,
            assignment,
            position,
            status=400,
            error=_("That answer is not on this item any more: nothing was saved."),
        )
    verdict = request.POST.get("verdict", "")
    bucket = request.POST.get("bucket", "")
    confirmed = request.POST.get("confirmed") == "1"
    off = confirm_off(request, assignment)
    if not confirmed and selectors.asks_first(assignment, responses, verdict, bucket, off=off):
        return _render_item(
            request, assignment, position, confirm_tokens=",".join(tokens), confirm_bucket=bucket
        )
    try:
        decision = services.judgement_decide(
            assignment=assignment, responses=responses, verdict=verdict, bucket=bucket
        )
    except services.BucketNeeded as error:
        return _render_item(
            request,
            assignment,
            position,
            status=200,
            choose_tokens=",".join(tokens),
            error=sentences(error.messages),
        )
    except ValidationError as error:
        return _render_item(
            request, assignment, position, status=400, error=sentences(error.messages)
        )
    notice = _decision_notice(decision)
    if not request.htmx:
        if notice:
            messages.info(request, notice)
        return redirect("scoring:item", assignment_token=assignment.token, position=position)
    return _render_item(request, assignment, position, focus_after=",".join(tokens), notice=notice)


def _queued_decision(raw, request, assignment: Assignment, now) -> decisions.QueuedDecision:
    """One decision of the page's batch, checked; ValueError names what is wrong with it."""
    if not isinstance(raw, dict) or not DECISION_KEY.match(str(raw.get("key", ""))):
        raise ValueError(_("A decision came without a valid key: nothing was saved."))
    if raw.get("op") == "undo":
        return decisions.QueuedDecision(key=raw["key"], op="undo")
    position = raw.get("position")
    if not isinstance(position, int) or position < 1:
        raise ValueError(_("A decision names no item: nothing was saved."))
    confirmed = raw.get("confirmed") is True
    if confirmed and raw.get("confirm_off") is True:
        confirm_off_set(request, assignment)
    decided_at = decisions.browser_time(raw.get("decided_at"), now=now) or now
    shown_at = decisions.browser_time(raw.get("shown_at"), now=now)
    expect = raw.get("expect", "*")
    return decisions.QueuedDecision(
        key=raw["key"],
        position=position,
        tokens=[t for t in str(raw.get("tokens", "")).split(",") if t],
        verdict=str(raw.get("verdict", "")),
        bucket=str(raw.get("bucket", "")),
        confirmed=confirmed,
        expect=None if expect == "*" else str(expect),
        key_seen=str(raw.get("key_seen", "")),
        blind=raw.get("blind") is True,
        confirm_off=confirm_off(request, assignment),
        decided_at=decided_at,
        shown_at=min(shown_at, decided_at) if shown_at else None,
    )


@team_view(scope="assignment_token", get=None, post=Role.SCORER)
def scoring_record(request, assignment: Assignment):
    """Decisions (and undos) from the page's queue, in the order made, each named by the
    browser's key: JSON in ({"decisions": [...]}), one outcome per decision out."""
    if not services.scoring_open(assignment.experiment):
        raise Http404
    unreadable = _("The page sent no decisions it could read: nothing was saved.")
    try:
        payload = json.loads(request.body or b"{}")
    except ValueError:
        payload = None
    batch = payload.get("decisions") if isinstance(payload, dict) else None
    if not isinstance(batch, list) or not 1 <= len(batch) <= decisions.BATCH_LIMIT:
        return JsonResponse({"status": "invalid", "message": unreadable}, status=400)
    now = timezone.now()
    try:
        queued = [_queued_decision(raw, request, assignment, now) for raw in batch]
    except ValueError as error:
        return JsonResponse({"status": "invalid", "message": str(error)}, status=400)
    outcomes = decisions.decisions_record(assignment=assignment, decisions=queued)
    return JsonResponse({"outcomes": outcomes})


@team_view(scope="assignment_token", get=None, post=Role.SCORER)
def scoring_note(request, assignment: Assignment, position: int):
    """The scorer's note on a decided answer: for the lead at reconciliation only."""
    tokens = [t for t in request.POST.get("tokens", "").split(",") if t]
    responses = selectors.resolve_tokens(assignment, position, tokens)
    note = request.POST.get("note", "")
    if not responses:
        return _render_item(
            request,
            assignment,
            position,
            status=400,
            error=_("That answer is not on this item any more: nothing was saved."),
        )
    try:
        services.judgement_note_set(assignment=assignment, responses=responses, note=note)
    except ValidationError as error:
        return _render_item(
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
    return _render_item(request, assignment, position, focus_after=",".join(tokens), notice=notice)


@team_view(scope="assignment_token", get=Role.SCORER)
def scoring_overview(request, assignment: Assignment):
    """Every item at a glance (open, done, re-check, flagged); jump to any by its number."""
    if not services.scoring_open(assignment.experiment):
        raise Http404
    overview = selectors.item_overview(assignment)
    error = ""
    wanted = request.GET.get("go", "").strip()
    if wanted:
        if wanted.isdigit() and 1 <= int(wanted) <= len(overview):
            return redirect("scoring:item", assignment_token=assignment.token, position=wanted)
        error = _("There is no item %(n)s: the items are numbered 1 to %(total)s.") % {
            "n": wanted,
            "total": len(overview),
        }
    judged, total = services.assignment_progress(assignment)
    counts = {state: sum(1 for o in overview if o.state == state) for state in ("open", "done")}
    counts["recheck"] = sum(1 for o in overview if o.state == "recheck")
    counts["flagged"] = sum(1 for o in overview if o.flagged)
    return render(
        request,
        "scoring/overview.html",
        {
            "assignment": assignment,
            "experiment": assignment.experiment,
            "team": assignment.experiment.team,
            "overview": overview,
            "counts": counts,
            "judged": judged,
            "total": total,
            "current": assignment.last_position,
            "error": error,
            "wanted": wanted,
        },
        status=400 if error else 200,
    )


@team_view(scope="assignment_token", get=Role.SCORER)
def scoring_next_open(request, assignment: Assignment):
    """The next item with something to judge or re-check, across items (wrapping round)."""
    current = request.GET.get("from", "")
    after = int(current) if current.isdigit() else assignment.last_position
    position = selectors.next_open_position(assignment, after)
    if position is None:
        if request.htmx:
            return _render_item(
                request, assignment, after, notice=_("Nothing left open: every answer is judged.")
            )
        messages.info(request, _("Nothing left open: every answer is judged."))
        return redirect("scoring:reveal", assignment_token=assignment.token)
    if request.htmx:
        Assignment.objects.filter(pk=assignment.pk).update(last_position=position)
        return _render_item(request, assignment, position)
    return redirect("scoring:item", assignment_token=assignment.token, position=position)


@team_view(scope="assignment_token", get=None, post=Role.SCORER)
def scoring_undo(request, assignment: Assignment):
    position = services.judgement_undo(assignment=assignment)
    current = request.POST.get("position", "")
    if position is None:
        position = int(current) if current.isdigit() else assignment.last_position
        extra = {"notice": _("Nothing to undo.")}
    else:
        extra = {"notice": _("Undone.")}
    if not request.htmx:
        return redirect("scoring:item", assignment_token=assignment.token, position=position)
    return _render_item(request, assignment, position, **extra)


@team_view(scope="assignment_token", get=None, post=Role.SCORER)
def scoring_dispute(request, assignment: Assignment, position: int):
    queue = selectors.queue_item(assignment, position)
    if queue is None:
        raise Http404
    tokens = [t for t in request.POST.get("tokens", "").split(",") if t]
    responses = selectors.resolve_tokens(assignment, position, tokens)
    try:
        services.dispute_raise(
            assignment=assignment,
            item=queue.item,
            note=request.POST.get("note", ""),
            response=responses[0] if responses else None,
        )
    except ValidationError as error:
        return _render_item(
            request,
            assignment,
            position,
            status=200,
            confirm_tokens=",".join(tokens),
            dispute_error=sentences(error.messages),
            show_dispute=True,
            dispute_note=request.POST.get("note", ""),
        )
    if not request.htmx:
        return redirect("scoring:item", assignment_token=assignment.token, position=position)
    return _render_item(
        request, assignment, position, notice=_("Dispute recorded for the key review.")
    )


@team_view(scope="assignment_token", get=Role.SCORER, post=Role.SCORER)
def scoring_reveal(request, assignment: Assignment):
    judged, total = services.assignment_progress(assignment)
    if request.method == "POST":
        try:
            services.assignment_reveal(assignment=assignment)
        except ValidationError as error:
            messages.error(request, sentences(error.messages))
        return redirect("scoring:reveal", assignment_token=assignment.token)
    sheets = []
    if assignment.revealed:
        runs = assignment.experiment.runs.order_by("order", "pk").select_related(
            "included_from__experiment"
        )
        carried = carried_by_run(assignment.experiment)
        counts = selectors.run_bucket_counts(assignment)
        scheme = assignment.experiment.scheme_obj
        sheets = [
            {
                "run": run,
                "buckets": [counts.get(run.pk, {}).get(b, 0) for b in scheme.buckets],
                "carried": carried.get(run.pk, []),
            }
            for run in runs
        ]
        extra = {
            "bucket_names": [scheme.bucket_label(b) for b in scheme.buckets],
            "time": timing.scorer_time(assignment),
        }
    else:
        extra = {}
    return render(
        request,
        "scoring/reveal.html",
        {
            "assignment": assignment,
            "experiment": assignment.experiment,
            "team": assignment.experiment.team,
            "judged": judged,
            "total": total,
            "sheets": sheets,
            "idle_minutes": timing.IDLE_SECONDS // 60,
            **extra,
        },
    )


@team_view(scope="experiment_pk", get=Role.EDITOR)
def scoring_times(request, experiment: Experiment):
    """The scorers' time on an experiment, for the lead: each scorer once they have revealed
    (a lead who scores it too sees only their own until reconciliation begins); CSV too."""
    times = timing.experiment_times(experiment, visible_to=request.user)
    if request.GET.get("format") == "csv":
        columns = ["scorer", "item", "seconds", "decisions", "decisions_per_minute"]
        rows = []
        for t in times:
            name = t.assignment.user.username
            rows += [
                {"scorer": name, "item": position, "seconds": round(seconds, 1)}
                for position, seconds in t.items
            ]
            rate = round(t.per_minute, 2) if t.per_minute else None
            rows.append(
                {
                    "scorer": name,
                    "item": "all",
                    "seconds": round(t.active, 1),
                    "decisions": t.decisions,
                    "decisions_per_minute": rate,
                }
            )
        labels = csv_labels(columns, wants_names(request))
        return attachment(
            csv_text(rows, columns, labels),
            name=experiment.name,
            contents="times",
            extension="csv",
        )
    return render(
        request,
        "scoring/times.html",
        {
            "experiment": experiment,
            "team": experiment.team,
            "times": times,
            "idle_minutes": timing.IDLE_SECONDS // 60,
        },
    )


@team_view(scope="team_slug", get=Role.EDITOR)
def lead_queue_page(request, team: Team):
    """What waits for a lead across the team's experiments (the fragment fetches itself again
    every 15 seconds while the page is open, so the counts follow the decisions)."""
    rows = lead_queue.lead_queue(team, user=request.user, membership=request.membership)
    template = "scoring/partials/_lead_queue.html" if request.htmx else "scoring/lead_queue.html"
    return render(request, template, {"team": team, "rows": rows})
