"""The second opinion on the scoring page: grading's panel for scoring's item hook
(scoring.queue.panels). Asked only once the scorer has committed every answer of the item;
before that it returns nothing, so the page is the same whether a grader exists or not.

One grader version gives the opinion, the newest to finish on the experiment; the panel names
it (its label and its version in short) and, where others finished too, says why it is the one
shown."""

from __future__ import annotations

from django.template.loader import render_to_string

from scoring.models import Bucket

from . import selectors, services
from .models import Grade, SecondOpinion


def opinion_panel(request, assignment, position: int, queue) -> dict[str, str]:
    opinions = services.opinions_show(assignment=assignment, position=position)
    if not opinions:
        return {}
    by_response = {o.response_id: o for o in opinions}
    labels = dict(Bucket.choices)
    job = opinions[0].grade.job  # one grader version: the newest to finish (opinion_job)
    graders = selectors.finished_jobs(assignment.experiment)
    html = {}
    for group in queue.groups:
        shown = [
            by_response[m.response.pk]
            for m in group.members
            if m.response.pk in by_response
            and by_response[m.response.pk].grade.state == Grade.State.DECIDED
        ]
        if not shown:
            continue
        mine = group.buckets
        grader_buckets = sorted({o.grade.bucket for o in shown})
        pending = [
            o
            for o in shown
            if o.action == SecondOpinion.Action.PENDING and o.grade.bucket not in mine
        ]
        html[group.tokens] = render_to_string(
            "grading/partials/_opinion.html",
            {
                "assignment": assignment,
                "position": position,
                "tokens": group.tokens,
                "opinions": shown,
                "grader_buckets": [(b, labels.get(b, b)) for b in grader_buckets],
                "reasons": sorted({o.grade.reason for o in shown if o.grade.reason}),
                "agrees": set(grader_buckets) <= set(mine),
                "pending": bool(pending),
                "responded": [o for o in shown if o.action],
                "take_bucket": grader_buckets[0] if len(grader_buckets) == 1 else "",
                "job": job,
                "graders": graders,
            },
            request=request,
        )
    return html
