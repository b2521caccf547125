"""The blind queue: item by item across every sheet, one keypress per answer."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django_htmx.http import push_url

from probe.access import team_view
from probe.csvfile import csv_text
from probe.downloads import attachment
from probe.htmx import HtmxHttpRequest
from probe.models import Experiment, Role, Team
from probe.wording import sentences
from scoring.allocation.selectors import allocated_item_ids
from scoring.models import Assignment, Bucket
from scoring.queue import forms, lead_queue, panels, selectors, services, timing
from scoring.queue.carry import carried_by_run, carry_counts
from scoring.queue.overview import first_open_position, item_overview, next_open_position
from scoring.queue.presets import preset_count
from scoring.report.export_labels import csv_labels, wants_names

URL_NAMES = ("decide", "dispute", "item", "note")
# The assignments whose scorer turned the confident-wrong confirmation off for this session.
CONFIRM_OFF_SESSION_KEY = "scoring_confirm_off"


def confirm_off(request: HtmxHttpRequest, assignment: Assignment) -> bool:
    return assignment.token in request.session.get(CONFIRM_OFF_SESSION_KEY, [])


def confirm_off_set(request: HtmxHttpRequest, assignment: Assignment) -> None:
    tokens = request.session.get(CONFIRM_OFF_SESSION_KEY, [])
    if assignment.token not in tokens:
        request.session[CONFIRM_OFF_SESSION_KEY] = [*tokens[-49:], assignment.token]


@team_view(scope="experiment_pk", get=Role.SCORER, post=Role.SCORER)
def scoring_start(request: HtmxHttpRequest, experiment: Experiment):
    """The way in: join as a scorer (once) and go to where this scorer left off."""
    assignment = Assignment.objects.filter(experiment=experiment, user=request.user).first()
    if request.method == "POST":
        try:
            assignment = services.assignment_start(experiment=experiment, user=request.user)
        except ValidationError as error:
            messages.error(request, sentences(error.messages))
            return redirect("scoring:start", experiment_pk=experiment.pk)
        position = first_open_position(assignment)
        return redirect("scoring:item", assignment_token=assignment.token, position=position)
    n_items = experiment.items.count()
    n_sheets = experiment.runs.count()
    share = allocated_item_ids(assignment) if assignment is not None else None
    if share is not None:
        n_items = len(share)  # this scorer's share of the items, not the bank
    is_open = services.scoring_open(experiment)
    counts = None
    if is_open:
        # Before anyone scores: how many answers carry a bucket, how many go to the scorers.
        counts = carry_counts(experiment)
    progress = {}
    if assignment is not None and not assignment.revealed:
        # Said before the reveal is offered: what waits on the server, and (the page's script)
        # what waits in this browser.
        judged, total = services.assignment_progress(assignment)
        progress = {
            "judged": judged,
            "total": total,
            "rechecks": selectors.assignment_counts(assignment)["rechecks"],
            "record_url": reverse("scoring:record", kwargs={"assignment_token": assignment.token}),
        }
    return render(
        request,
        "scoring/start.html",
        {
            **progress,
            "experiment": experiment,
            "team": experiment.team,
            "assignment": assignment,
            "open": is_open,
            "n_items": n_items,
            "n_sheets": n_sheets,
            "shared": share is not None,
            "carry": counts,
        },
    )


def _item_context(request: HtmxHttpRequest, assignment: Assignment, position: int, **extra) -> dict:
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
        "confident_wrong_buckets": experiment.scheme_obj.ask_first_buckets,
        "hide_confidence": experiment.hide_confidence,
        "note_tokens": "",
        "scheme": experiment.scheme_obj,
        "answer_panels": panels.item_panels(request, assignment, position, queue),
        **extra,
    }


def render_item(
    request: HtmxHttpRequest, assignment: Assignment, position: int, status: int = 200, **extra
):
    """The item page or its fragment, for a view that ends on it (the decision endpoints of
    ``views_decide``, grading's answer to a second opinion)."""
    context = _item_context(request, assignment, position, **extra)
    template = "scoring/partials/_item.html" if request.htmx else "scoring/item.html"
    response = render(request, template, context, status=status)
    if request.htmx:
        # Keep the address bar on the item shown, so reload and back land here.
        response = push_url(
            response,
            reverse(
                "scoring:item", kwargs={"assignment_token": assignment.token, "position": position}
            ),
        )
    return response


@team_view(scope="assignment_token", get=Role.SCORER, post=Role.SCORER)
def scoring_item(request: HtmxHttpRequest, assignment: Assignment, position: int):
    if not services.scoring_open(assignment.experiment):
        raise Http404
    if request.method == "POST":
        # The page says which item it shows (a GET writes nothing; decisions say it too).
        form = forms.PositionForm({"position": position})
        if form.is_valid():
            services.position_remember(
                assignment=assignment, position=form.cleaned_data["position"]
            )
        return HttpResponse(status=204)
    dispute = request.GET.get("dispute", "")
    if dispute:
        return render_item(request, assignment, position, confirm_tokens=dispute, show_dispute=True)
    return render_item(request, assignment, position)


@team_view(scope="assignment_token", get=Role.SCORER)
def scoring_overview(request: HtmxHttpRequest, assignment: Assignment):
    """Every item at a glance (open, done, re-check, flagged); jump to any by its number."""
    if not services.scoring_open(assignment.experiment):
        raise Http404
    overview = item_overview(assignment)
    wanted = request.GET.get("go", "").strip()
    number, error = forms.jump_target(wanted, len(overview))
    if number is not None:
        # The scorer's own numbering: the n-th of their items (every item, unless shared out).
        position = overview[number - 1].position
        return redirect("scoring:item", assignment_token=assignment.token, position=position)
    positions = [o.position for o in overview]
    current = assignment.last_position
    if current not in positions:
        # Not one of theirs (or not scored yet): back to their first item.
        current = positions[0] if positions else 1
    judged, total = services.assignment_progress(assignment)
    preset = preset_count(assignment)  # set before they began: not judged by them
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
            "judged": judged - preset,
            "total": total - preset,
            "preset": preset,
            "current": current,
            "current_number": positions.index(current) + 1 if current in positions else 1,
            "error": error,
            "wanted": wanted,
        },
        status=400 if error else 200,
    )


@team_view(scope="assignment_token", get=Role.SCORER)
def scoring_next_open(request: HtmxHttpRequest, assignment: Assignment):
    """The next item with something to judge or re-check, across items (wrapping round)."""
    current = request.GET.get("from", "")
    after = int(current) if current.isdigit() else assignment.last_position
    position = next_open_position(assignment, after)
    if position is None:
        if request.htmx:
            return render_item(
                request, assignment, after, notice=_("Nothing left open: every answer is judged.")
            )
        messages.info(request, _("Nothing left open: every answer is judged."))
        return redirect("scoring:reveal", assignment_token=assignment.token)
    if request.htmx:
        return render_item(request, assignment, position)
    return redirect("scoring:item", assignment_token=assignment.token, position=position)


@team_view(scope="assignment_token", get=Role.SCORER, post=Role.SCORER)
def scoring_reveal(request: HtmxHttpRequest, assignment: Assignment):
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
        extra = {
            "rechecks": selectors.assignment_counts(assignment)["rechecks"],
            "preset": preset_count(assignment),
        }
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
def scoring_times(request: HtmxHttpRequest, experiment: Experiment):
    """The scorers' time on an experiment, for the lead: each scorer once they have revealed
    (a lead who scores it too sees only their own until reconciliation begins); CSV too."""
    times = timing.experiment_times(experiment, visible_to=request.user)
    if request.GET.get("format") == "csv":
        columns = ["scorer", "item", "seconds", "decisions", "decisions_per_minute"]
        rows = []
        for t in times:
            name = t.assignment.user.username
            for position, seconds in t.items:
                rate = t.item_rate(position)
                rows.append(
                    {
                        "scorer": name,
                        "item": position,
                        "seconds": round(seconds, 1),
                        "decisions": t.per_item_decisions.get(position, 0),
                        "decisions_per_minute": round(rate, 2) if rate else None,
                    }
                )
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
def lead_queue_page(request: HtmxHttpRequest, team: Team):
    """What waits for a lead across the team's experiments (the fragment fetches itself again
    every 15 seconds while the page is open, so the counts follow the decisions)."""
    rows = lead_queue.lead_queue(team, user=request.user, membership=request.membership)
    template = "scoring/partials/_lead_queue.html" if request.htmx else "scoring/lead_queue.html"
    return render(request, template, {"team": team, "rows": rows})
