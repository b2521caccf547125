"""Scoring writes: joining an experiment as a scorer, decisions, undo, reveal, disputes."""

import uuid

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from probe.models import Experiment, ExperimentItem, Response

from .models import SCHEME_BUCKETS, Assignment, Bucket, Judgement, JudgementChange, KeyDispute

WRONG_CONFIDENT = {"HIGH", "MEDIUM"}


class BucketNeeded(ValidationError):
    """The parse leaves the bucket open (no confidence, or a hedge in the answer): pick one."""


def scoring_open(experiment: Experiment) -> bool:
    return experiment.status == Experiment.Status.COLLECTED


def abstain_bucket(scheme: str) -> str:
    return Bucket.NOT_ATTEMPTED if scheme == Experiment.Scheme.AA else Bucket.ABSTAINED


def derive_bucket(*, scheme: str, verdict: str, response: Response) -> str | None:
    """The bucket that follows from "correct" or "wrong" and the parsed confidence, or None."""
    if verdict == Judgement.Verdict.CORRECT:
        return Bucket.CORRECT
    if response.abstained or response.answer is None:
        return abstain_bucket(scheme)
    if scheme == Experiment.Scheme.AA:
        return Bucket.INCORRECT
    if response.hedged:
        return None
    if response.confidence in WRONG_CONFIDENT:
        return Bucket.CONFIDENT_WRONG
    if response.confidence == "LOW":
        return Bucket.HEDGED_WRONG
    return None


@transaction.atomic
def assignment_start(*, experiment: Experiment, user, invited_by=None) -> Assignment:
    """The user's scorer assignment on the experiment (created once, with UNKNOWNs preset)."""
    if not scoring_open(experiment):
        raise ValidationError(_("Scoring opens when every run is collected or closed as failed."))
    assignment, created = Assignment.objects.get_or_create(
        experiment=experiment, user=user, defaults={"invited_by": invited_by}
    )
    if created:
        preset = abstain_bucket(experiment.scheme)
        responses = Response.objects.filter(run__experiment=experiment).filter(
            Q(abstained=True) | Q(answer__isnull=True)
        )
        Judgement.objects.bulk_create(
            [
                Judgement(
                    assignment=assignment,
                    response=r,
                    bucket=preset,
                    verdict=Judgement.Verdict.PRESET,
                )
                for r in responses
            ]
        )
    return assignment


@transaction.atomic
def judgement_decide(
    *,
    assignment: Assignment,
    responses: list[Response],
    verdict: str = "",
    bucket: str = "",
) -> str:
    """Set the bucket of every response in a group; returns the batch id (for undo)."""
    scheme = assignment.experiment.scheme
    allowed = SCHEME_BUCKETS[scheme]
    if bucket:
        if bucket not in allowed:
            raise ValidationError(_("That bucket does not belong to this experiment's scheme."))
        targets = {r.pk: (bucket, Judgement.Verdict.DIRECT) for r in responses}
    elif verdict in (Judgement.Verdict.CORRECT, Judgement.Verdict.WRONG):
        targets = {}
        for r in responses:
            derived = derive_bucket(scheme=scheme, verdict=verdict, response=r)
            if derived is None:
                raise BucketNeeded(
                    _(
                        "The answer's confidence does not settle the bucket: choose it (keys 1 to 4)."
                    )
                )
            targets[r.pk] = (derived, verdict)
    else:
        raise ValidationError(_("Say correct or wrong, or choose a bucket."))
    existing = {
        j.response_id: j
        for j in Judgement.objects.select_for_update().filter(
            assignment=assignment, response__in=[r.pk for r in responses]
        )
    }
    batch = uuid.uuid4().hex
    after_reveal = assignment.revealed
    changes = []
    created: list[Judgement] = []
    for r in responses:
        new_bucket, new_verdict = targets[r.pk]
        judgement = existing.get(r.pk)
        old_bucket, old_verdict = (
            ("", "") if judgement is None else (judgement.bucket, judgement.verdict)
        )
        if judgement is None:
            judgement = Judgement(
                assignment=assignment,
                response=r,
                bucket=new_bucket,
                verdict=new_verdict,
                unblinded=after_reveal,
            )
            created.append(judgement)
        elif (old_bucket, old_verdict) != (new_bucket, new_verdict):
            judgement.bucket, judgement.verdict = new_bucket, new_verdict
            judgement.unblinded = judgement.unblinded or after_reveal
            judgement.needs_recheck = False
            judgement.save(
                update_fields=["bucket", "verdict", "unblinded", "needs_recheck", "updated"]
            )
        elif judgement.needs_recheck:
            # Re-checked and kept: the decision stands against the amended key.
            judgement.needs_recheck = False
            judgement.save(update_fields=["needs_recheck", "updated"])
            continue
        else:
            continue
        changes.append(
            JudgementChange(
                assignment=assignment,
                judgement=judgement,
                batch=batch,
                old_bucket=old_bucket,
                old_verdict=old_verdict,
                new_bucket=new_bucket,
                new_verdict=new_verdict,
                after_reveal=after_reveal,
            )
        )
    Judgement.objects.bulk_create(created)  # sets their primary keys (PostgreSQL and SQLite)
    JudgementChange.objects.bulk_create(changes)
    _sync_final_buckets(assignment.experiment)
    return batch


@transaction.atomic
def judgement_undo(*, assignment: Assignment) -> int | None:
    """Undo the scorer's last decision (a whole group); returns the item position it touched."""
    last = (
        JudgementChange.objects.filter(assignment=assignment, undone=False).order_by("-pk").first()
    )
    if last is None:
        return None
    changes = list(
        JudgementChange.objects.select_related("judgement__response__item")
        .select_for_update()
        .filter(assignment=assignment, batch=last.batch, undone=False)
    )
    for change in changes:
        judgement = change.judgement
        if change.old_bucket:
            judgement.bucket, judgement.verdict = change.old_bucket, change.old_verdict
            judgement.save(update_fields=["bucket", "verdict", "updated"])
        else:
            judgement.delete()
        change.undone = True
    JudgementChange.objects.bulk_update(changes, ["undone"])
    _sync_final_buckets(assignment.experiment)
    return changes[0].judgement.response.item.position if changes else None


def _sync_final_buckets(experiment: Experiment) -> None:
    """Once reconciliation has begun, unanimous final buckets follow the scorers' changes."""
    from .models import Reconciliation
    from .reconcile import final_buckets_sync

    if Reconciliation.objects.filter(experiment=experiment).exists():
        final_buckets_sync(experiment=experiment)


def assignment_progress(assignment: Assignment) -> tuple[int, int]:
    """(judged, total): a judgement sent back for a re-check counts as open."""
    total = Response.objects.filter(run__experiment_id=assignment.experiment_id).count()
    judged = assignment.judgements.filter(needs_recheck=False).count()
    return judged, total


@transaction.atomic
def assignment_reveal(*, assignment: Assignment) -> Assignment:
    judged, total = assignment_progress(assignment)
    if judged < total:
        raise ValidationError(
            _("Judge every response before the reveal: %(left)s left.") % {"left": total - judged}
        )
    if assignment.revealed_at is None:
        assignment.revealed_at = timezone.now()
        assignment.save(update_fields=["revealed_at"])
    return assignment


def dispute_raise(
    *, assignment: Assignment, item: ExperimentItem, note: str, response: Response | None = None
) -> KeyDispute:
    note = note.strip()
    if not note:
        raise ValidationError({"note": _("Say what you doubt about the key, and why.")})
    return KeyDispute.objects.create(
        experiment=assignment.experiment,
        item=item,
        assignment=assignment,
        response=response,
        note=note,
    )
