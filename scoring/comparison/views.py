"""The comparison page: two experiments of the team, side by side on their shared items."""

from django.shortcuts import render
from django.utils.translation import gettext as _

from probe.access import is_blinded, team_view
from probe.htmx import HtmxHttpRequest
from probe.models import Experiment, Role, Team
from scoring import visibility
from scoring.comparison import compare
from scoring.report.build import parse_weight


def _chosen(team: Team, value: str) -> Experiment | None:
    if not value.isdigit():
        return None
    return Experiment.objects.filter(team=team, pk=int(value)).first()


@team_view(scope="team_slug", get=Role.VIEWER)
def compare_page(request: HtmxHttpRequest, team: Team):
    experiments = list(
        Experiment.objects.filter(team=team, status=Experiment.Status.COLLECTED).only(
            "pk", "name", "created"
        )
    )
    baseline = _chosen(team, request.GET.get("baseline", ""))
    candidate = _chosen(team, request.GET.get("candidate", ""))
    metric = request.GET.get("metric", compare.NET_USABLE)
    if metric not in compare.METRICS:
        metric = compare.NET_USABLE
    allow = request.GET.get("allow_prompt_change") == "1"
    result, problem = None, ""
    try:
        w = parse_weight(request.GET.get("w") or "1")
    except ValueError:
        w, problem = 1.0, _("w must be a number from 0 to 100; 1 is used instead.")
    if baseline is not None and candidate is not None:
        # Blind to the models, or still judging (the comparison shows the team's buckets).
        blind = [
            e
            for e in (baseline, candidate)
            if is_blinded(e, request.user, request.membership)
            or visibility.still_judging(e, request.user)
        ]
        if blind:
            problem = _("You are scoring %(name)s blind: the comparison waits for your reveal.") % {
                "name": blind[0].name
            }
        else:
            try:
                # The page shows any comparison the tests can make (they hold at any N) and
                # says when the gate would not judge it; the gate keeps its minimum.
                result = compare.compare(
                    baseline, candidate, metric=metric, w=w, allow_prompt_change=allow, min_items=1
                )
            except compare.CannotTellYet as error:
                problem = _("Cannot tell yet: %(why)s") % {"why": error}
            except (compare.NotComparable, compare.Refused) as error:
                problem = _("Cannot judge: %(why)s") % {"why": error}
    elif "baseline" in request.GET:
        problem = _("Choose two experiments of this team.")
    return render(
        request,
        "scoring/compare.html",
        {
            "team": team,
            "nav_section": "experiments",
            "experiments": experiments,
            "baseline": baseline,
            "candidate": candidate,
            "metric": metric,
            "w": w,
            "allow": allow,
            "result": result,
            "gate_minimum": compare.MIN_ITEMS,
            "problem": problem,
            "prompt_refused": (
                baseline is not None
                and candidate is not None
                and baseline.prompt_version_id != candidate.prompt_version_id
                and not allow
            ),
        },
    )
