"""Routing an experiment's answers between a grader and people, with an audit.

Opt-in per experiment, set by a lead on the experiment's grading page before the first scorer
starts, and only with a grader version the team trusts: a finished job of the same version
(configuration hash, prompt hash, parser and rules versions) on another experiment of the team
whose agreement with its people meets the trust threshold (``agreement.trust_verdict``). That
job also calibrates the confidence cut (``agreement.calibrated_cut``).

The grader decides an answer when it is certain: a rule decided it (confidence 1), or the model
stated a confidence at or above the cut. People judge everything else: the answers below the
cut, every answer of a (!) item, of an item whose key is disputed or suspect (answers of two
configurations or more agree with each other and the grader calls them wrong: the key itself
may be), unreadable replies and answers the grader left; plus the audit, a uniform random
sample of the grader-decided answers (``audit_share`` of them, at least ``audit_min``) drawn
from a recorded seed. An audit answer reaches the scorers as an open answer like any other: no
judgement, marker or count sets it apart. Answers preset (UNKNOWN, missing) or carried stay
as they are.
"""

from __future__ import annotations

import secrets
from collections import defaultdict

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from probe.models import Experiment, Response
from probe.sheetparser import normalise_answer
from scoring.models import Assignment, KeyDispute
from scoring.queue.carry import carry_plan
from scoring.review.keys import keys_in_force

from .agreement import calibrated_cut, grader_agreement, threshold_of
from .models import Grade, GradingJob, RoutedAnswer, RoutingPlan
from .ppi import audit_draw

VERSION_FIELDS = ("config_hash", "prompt_hash", "parser_version", "rules_version")
DEFAULT_AUDIT_SHARE = 0.10
DEFAULT_AUDIT_MIN = 30


def same_version(job: GradingJob):
    """Finished jobs of the team with the job's grader version, on other experiments."""
    return (
        GradingJob.objects.filter(
            experiment__team_id=job.experiment.team_id,
            status=GradingJob.Status.DONE,
            grader__model_config__isnull=job.grader.model_config_id is None,
            **{f: getattr(job, f) for f in VERSION_FIELDS},
        )
        .exclude(experiment_id=job.experiment_id)
        .select_related("experiment", "grader")
        .order_by("-finished_at", "-pk")
    )


def trusted_job(job: GradingJob) -> tuple[GradingJob | None, float | None, str]:
    """The newest job of the same version that meets the team's trust threshold on the answers
    it would decide (at its calibrated cut), the cut and the sentence there; else None, None
    and the sentence saying why routing is refused."""
    threshold = threshold_of(job.experiment.team)
    refusal = ""
    for other in same_version(job)[:5]:
        cut, sentence = calibrated_cut(other, threshold)
        if cut is not None:
            return other, cut, sentence
        refusal = refusal or grader_agreement(other, threshold).verdict
    if not refusal:
        return (
            None,
            None,
            _(
                "Routing refused: no other experiment of the team was graded by this grader version "
                "and judged by people, so nothing shows that it meets the trust threshold."
            ),
        )
    return (
        None,
        None,
        _(
            "Routing refused: this grader version does not meet the team's trust threshold at any "
            "confidence cut. %(why)s"
        )
        % {"why": refusal},
    )


def _suspect_items(responses, grades: dict[int, Grade], correct: str) -> set[int]:
    """Items where answers of two configurations or more agree with each other and the grader
    calls them wrong: the key may be the one that is wrong."""
    configs = defaultdict(set)
    for r in responses:
        grade = grades.get(r.pk)
        if grade is None or grade.state != Grade.State.DECIDED or grade.bucket == correct:
            continue
        text = normalise_answer(r.answer or "")
        if text:
            configs[(r.item_id, text)].add(r.run.model_config_id)
    return {item for (item, _text), found in configs.items() if len(found) >= 2}


def route(experiment: Experiment, job: GradingJob, cut: float) -> list[tuple[int, str, str, str]]:
    """(response id, route, why, grader bucket) for every answer people would otherwise judge:
    before the audit, the route is "grader" or "people"."""
    keys = keys_in_force(experiment)
    carried = set(carry_plan(experiment)) if not experiment.team.recheck_carried else set()
    responses = [
        r
        for r in experiment_responses(experiment)
        if not r.abstained
        and r.answer is not None
        and r.pk not in carried
        and not keys[r.item_id].dropped
    ]
    grades = {g.response_id: g for g in Grade.objects.filter(job=job)}
    disputed = set(
        KeyDispute.objects.filter(
            item__experiment=experiment, status=KeyDispute.Status.OPEN
        ).values_list("item_id", flat=True)
    )
    suspects = _suspect_items(responses, grades, str(experiment.scheme_obj.correct))
    rows = []
    for r in responses:
        grade = grades.get(r.pk)
        why = RoutedAnswer.Why.UNDECIDED
        if keys[r.item_id].snapshot_flagged:
            why = RoutedAnswer.Why.FLAGGED
        elif r.item_id in disputed:
            why = RoutedAnswer.Why.DISPUTED
        elif r.item_id in suspects:
            why = RoutedAnswer.Why.SUSPECT
        elif grade is not None and grade.state == Grade.State.PARSE_FAILURE:
            why = RoutedAnswer.Why.UNREADABLE
        elif grade is not None and grade.state == Grade.State.DECIDED:
            certain = grade.confidence is not None and grade.confidence >= cut - 1e-9
            why = RoutedAnswer.Why.CERTAIN if certain else RoutedAnswer.Why.UNCERTAIN
        decided = why == RoutedAnswer.Why.CERTAIN
        rows.append(
            (
                r.pk,
                RoutedAnswer.Route.GRADER if decided else RoutedAnswer.Route.PEOPLE,
                why,
                grade.bucket if grade is not None and grade.state == Grade.State.DECIDED else "",
            )
        )
    return rows


def experiment_responses(experiment: Experiment):
    return (
        Response.objects.filter(run__experiment=experiment)
        .select_related("run")
        .only("pk", "item_id", "answer", "abstained", "run__model_config_id")
        .order_by("pk")
    )


@transaction.atomic
def routing_plan_create(
    *,
    experiment: Experiment,
    job: GradingJob,
    user,
    audit_share: float = DEFAULT_AUDIT_SHARE,
    audit_min: int = DEFAULT_AUDIT_MIN,
    seed: int | None = None,
) -> RoutingPlan:
    """Route the experiment's answers with the job's grades; refused with a sentence that says
    why where it may not be (no trusted version, scoring begun, already routed)."""
    Experiment.objects.select_for_update().filter(pk=experiment.pk).first()
    if job.experiment_id != experiment.pk or job.status != GradingJob.Status.DONE:
        raise ValidationError(_("Choose a finished grading job of this experiment."))
    if RoutingPlan.objects.filter(experiment=experiment).exists():
        raise ValidationError(_("This experiment is routed already."))
    if Assignment.objects.filter(experiment=experiment).exists():
        raise ValidationError(
            _("Routing is set before the first scorer starts: someone has started scoring.")
        )
    if not 0 < audit_share <= 1:
        raise ValidationError(_("The audit share is a number above 0 and at most 1."))
    if audit_min < 30:
        raise ValidationError(_("The audit holds at least 30 answers."))
    trusted, cut, cut_sentence = trusted_job(job)
    if trusted is None:
        raise ValidationError(cut_sentence)
    seed = secrets.randbits(48) if seed is None else seed
    plan = RoutingPlan.objects.create(
        experiment=experiment,
        job=job,
        calibration_job=trusted,
        confidence_cut=cut,
        calibration_sentence=cut_sentence,
        audit_share=audit_share,
        audit_min=audit_min,
        seed=seed,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    rows = route(experiment, job, cut)
    decided = [pk for pk, way, _why, _b in rows if way == RoutedAnswer.Route.GRADER]
    audit = set(audit_draw(decided, audit_share, audit_min, seed))
    RoutedAnswer.objects.bulk_create(
        [
            RoutedAnswer(
                plan=plan,
                response_id=pk,
                route=RoutedAnswer.Route.AUDIT if pk in audit else way,
                why=why,
                grader_bucket=bucket,
            )
            for pk, way, why, bucket in rows
        ],
        batch_size=1000,
    )
    return plan


def plan_of(experiment: Experiment) -> RoutingPlan | None:
    return (
        RoutingPlan.objects.filter(experiment=experiment)
        .select_related("job__grader", "calibration_job__experiment")
        .first()
    )


def grader_decided(experiment: Experiment) -> list[tuple[int, str]]:
    """The answers the grader decides, with its bucket (scoring's decider hook): the audit,
    the answers returned to people since routing and those of an item whose key was amended
    since are left to people."""
    keys = keys_in_force(experiment)
    return [
        (pk, bucket)
        for pk, bucket, item_id in RoutedAnswer.objects.filter(
            plan__experiment=experiment, route=RoutedAnswer.Route.GRADER, returned=""
        ).values_list("response_id", "grader_bucket", "response__item_id")
        if not keys[item_id].amended and bucket
    ]


def audit_answers(experiment: Experiment) -> dict[int, str]:
    """The audit: response id -> the grader's bucket (scoring's audit hook); an audit answer
    returned to people since routing is people's alone."""
    return dict(
        RoutedAnswer.objects.filter(
            plan__experiment=experiment, route=RoutedAnswer.Route.AUDIT, returned=""
        ).values_list("response_id", "grader_bucket")
    )


def answers_return(experiment: Experiment, item_ids: set[int], why: str) -> int:
    """The grader-decided answers (the audit's too) of these items go back to people for good
    (scoring's reopened hook: their key disputed, amended or suspect since routing)."""
    return RoutedAnswer.objects.filter(
        plan__experiment=experiment,
        response__item_id__in=item_ids,
        route__in=[RoutedAnswer.Route.GRADER, RoutedAnswer.Route.AUDIT],
        returned="",
    ).update(returned=why, returned_at=timezone.now())


def returned_counts(plan: RoutingPlan) -> list[tuple[str, str, int]]:
    """(reason, its label, how many answers) of the answers returned to people since routing."""
    counts = dict.fromkeys(RoutedAnswer.Returned.values, 0)
    for why in plan.answers.exclude(returned="").values_list("returned", flat=True):
        counts[why] += 1
    return [
        (why, str(RoutedAnswer.Returned(why).label), n) for why, n in counts.items() if why and n
    ]


def is_routed(experiment: Experiment) -> bool:
    return RoutingPlan.objects.filter(experiment=experiment).exists()


def route_counts(plan: RoutingPlan) -> dict[str, int]:
    counts = dict.fromkeys(RoutedAnswer.Route.values, 0)
    for way in plan.answers.values_list("route", flat=True):
        counts[way] += 1
    return counts
