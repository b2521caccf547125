"""Scoring writes: joining an experiment as a scorer, decisions, undo, reveal, disputes."""

import uuid
from dataclasses import dataclass

from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from probe.models import Experiment, ExperimentItem, Notification, Response
from probe.services import notifications
from scoring.allocation.selectors import allocated_item_ids, scorer_total, skipped_responses
from scoring.models import (
    Assignment,
    Judgement,
    JudgementChange,
    KeyDecision,
    KeyDispute,
    Reconciliation,
)
from scoring.queue import progress, reopen, selectors
from scoring.queue.carry import carried_judgements_create, carry_sync
from scoring.queue.decided import decided_elsewhere
from scoring.reconciliation.finals import final_buckets_sync
from scoring.reconciliation.waits import reconciliation_waits
from scoring.schemes import ask_first_buckets, scheme_for


class BucketNeeded(ValidationError):
    """The parse leaves the bucket open (no confidence, or a hedge in the answer): pick one."""


def scoring_open(experiment: Experiment) -> bool:
    return experiment.status == Experiment.Status.COLLECTED


def abstain_bucket(scheme: str) -> str:
    """The bucket an UNKNOWN answer is preset to under the scheme stored as ``scheme``."""
    return scheme_for(scheme).preset_bucket


def derive_bucket(*, scheme: str, verdict: str, response: Response) -> str | None:
    """The bucket that follows from "correct" or "wrong" and the parsed confidence, or None."""
    return scheme_for(scheme).derive(verdict, response)


@transaction.atomic
def assignment_start(*, experiment: Experiment, user, invited_by=None) -> Assignment:
    """The user's scorer assignment on the experiment (created once, with UNKNOWNs preset)."""
    if not scoring_open(experiment):
        raise ValidationError(_("Scoring opens when every run is collected or closed as failed."))
    assignment, created = Assignment.objects.get_or_create(
        experiment=experiment, user=user, defaults={"invited_by": invited_by}
    )
    if created:
        preset = experiment.scheme_obj.preset_bucket
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
        carry_sync(experiment=experiment)
        if invited_by is not None and invited_by != user:
            notifications.notify(
                users=[user],
                kind=Notification.Kind.TO_SCORE,
                experiment=experiment,
                url=reverse("scoring:start", kwargs={"experiment_pk": experiment.pk}),
                key=f"to_score:{experiment.pk}",
            )
        if not experiment.team.recheck_carried:
            # Carried buckets are decided: out of this scorer's queue, in their figures.
            carried_judgements_create(assignment=assignment)
        # Answers a grader decided (a routed experiment): out of the queue too, never a human
        # judgement (verdict "graded").
        Judgement.objects.bulk_create(
            [
                Judgement(
                    assignment=assignment,
                    response_id=response_id,
                    bucket=bucket,
                    verdict=Judgement.Verdict.GRADED,
                )
                for response_id, bucket in decided_elsewhere(experiment)
            ],
            ignore_conflicts=True,
        )
    return assignment


@dataclass
class Decision:
    """What one decision did: the batch id (for undo), and how many judgements it touched."""

    batch: str
    created: int = 0
    changed: int = 0
    kept: int = 0  # sent back for a re-check and given the same bucket again
    unchanged: int = 0  # already so: a second tab, a double keypress, a retry
    newly_judged: int = 0  # the progress counters' moves
    rechecked: int = 0

    @property
    def no_op(self) -> bool:
        return self.created == 0 and self.changed == 0 and self.kept == 0


def judgement_targets(
    assignment: Assignment, responses: list[Response], verdict: str, bucket: str
) -> dict[int, tuple[str, str]]:
    """Each response's (bucket, verdict) after the decision; raises what the scorer must fix."""
    scheme = assignment.experiment.scheme_obj
    if bucket:
        if not scheme.allows(bucket):
            raise ValidationError(_("That bucket does not belong to this experiment's scheme."))
        return {r.pk: (bucket, Judgement.Verdict.DIRECT) for r in responses}
    if verdict not in (Judgement.Verdict.CORRECT, Judgement.Verdict.WRONG):
        raise ValidationError(_("Say correct or wrong, or choose a bucket."))
    targets = {}
    for r in responses:
        derived = scheme.derive(verdict, r)
        if derived is None:
            raise BucketNeeded(
                _(
                    "The answer's confidence does not settle the bucket: choose it (keys 1 to "
                    "%(last)s)."
                )
                % {"last": scheme.last_key}
            )
        targets[r.pk] = (derived, verdict)
    return targets


class ConfirmationNeeded(ValidationError):
    """A HIGH-confidence answer marked wrong: the scorer confirms first (see ``asks_first``)."""


def asks_first(
    *,
    mode: str,
    responses: list[Response],
    judgements: dict,
    verdict: str,
    bucket: str,
    off: bool,
    high_wrong_confirmed,
) -> bool:
    """Whether marking these responses wrong asks for a confirmation first.

    A confident, specific disagreement is more often a correct model than a wrong key. The same
    rule holds for W, for a wrong bucket chosen directly and for the rest of an item given one
    bucket at once; the experiment says how often (``mode``): every time, once per item (the
    first HIGH answer marked wrong on an item asks, the rest do not), or never. The scorer may
    turn it off for the rest of their session (``off``), and a re-check of decisions already
    made (the key was amended) does not ask again. ``judgements``: response id -> this scorer's
    judgement; ``high_wrong_confirmed``: a callable, read only when the mode is once per item.
    """
    if off or not selectors.is_confident_wrong(verdict, bucket):
        return False
    if not any(r.confidence == "HIGH" and not r.abstained for r in responses):
        return False
    if mode == Experiment.ConfirmWrong.NEVER:
        return False
    members = [judgements.get(r.pk) for r in responses]
    if all(j is not None and j.needs_recheck for j in members):
        return False
    if mode == Experiment.ConfirmWrong.ONCE:
        return not high_wrong_confirmed()
    return True


class Ledger:
    """One scorer's judgements of some responses, read once under the lock of their assignment,
    changed in memory decision by decision and written in bulk (``flush``): a decision costs no
    query of its own, however many are applied together."""

    def __init__(self, assignment: Assignment, responses, judgements: dict, key_decisions: dict):
        self.assignment = assignment
        self.responses = {r.pk: r for r in responses}
        self.judgements = judgements  # response id -> Judgement (saved or still to create)
        self.key_decisions = key_decisions  # item id -> the newest key decision's id, or None
        self.created: list[Judgement] = []
        self.dirty: dict[int, Judgement] = {}
        self.changes: list[JudgementChange] = []
        self.newly_judged = self.rechecked = 0
        self.touched = False

    @classmethod
    def read(cls, assignment: Assignment, responses: list[Response]) -> "Ledger":
        """The judgements and key decisions of ``responses`` (the caller holds the lock)."""
        judgements = {
            j.response_id: j
            for j in Judgement.objects.select_for_update().filter(
                assignment=assignment, response__in=[r.pk for r in responses]
            )
        }
        key_decisions: dict[int, int] = {}
        for item_id, decision_id in KeyDecision.objects.filter(
            item_id__in={r.item_id for r in responses}
        ).values_list("item_id", "pk"):
            key_decisions[item_id] = max(decision_id, key_decisions.get(item_id, 0))
        return cls(assignment, responses, judgements, key_decisions)

    def high_wrong_confirmed(self, item_id: int) -> bool:
        """A HIGH answer of the item already in a wrong bucket (of the responses read)."""
        return any(
            r.item_id == item_id
            and r.confidence == "HIGH"
            and (j := self.judgements.get(pk)) is not None
            and j.bucket in ask_first_buckets()
            for pk, r in self.responses.items()
        )

    def apply(self, responses, targets: dict, decided_at=None, shown_at=None) -> Decision:
        """Set each response's (bucket, verdict) from ``targets``, in memory."""
        assignment = self.assignment
        result = Decision(batch=uuid.uuid4().hex)
        after_reveal = assignment.revealed
        now = timezone.now()
        for r in responses:
            new_bucket, new_verdict = targets[r.pk]
            key_decision = self.key_decisions.get(r.item_id)
            judgement = self.judgements.get(r.pk)
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
                    key_decision_id=key_decision,
                )
                self.judgements[r.pk] = judgement
                self.created.append(judgement)
                result.created += 1
            elif old_bucket != new_bucket or (
                old_verdict != new_verdict and not judgement.needs_recheck
            ):
                result.rechecked += judgement.needs_recheck
                judgement.bucket, judgement.verdict = new_bucket, new_verdict
                judgement.unblinded = judgement.unblinded or after_reveal
                judgement.needs_recheck = False
                judgement.key_decision_id = key_decision
                self._dirty(judgement, now)
                result.changed += 1
            elif judgement.needs_recheck:
                # Re-checked and kept (by the same key, or another giving the same bucket, as
                # W for a bucket once chosen directly): it stands against the amended key.
                result.rechecked += 1
                judgement.needs_recheck = False
                judgement.verdict = new_verdict
                judgement.key_decision_id = key_decision
                self._dirty(judgement, now)
                result.kept += 1
                continue
            else:
                result.unchanged += 1
                continue
            self.changes.append(
                JudgementChange(
                    assignment=assignment,
                    judgement=judgement,
                    batch=result.batch,
                    old_bucket=old_bucket,
                    old_verdict=old_verdict,
                    new_bucket=new_bucket,
                    new_verdict=new_verdict,
                    after_reveal=after_reveal,
                    decided_at=decided_at,
                    shown_at=shown_at,
                )
            )
        result.newly_judged = result.created
        self.newly_judged += result.newly_judged
        self.rechecked += result.rechecked
        self.touched = self.touched or not result.no_op
        return result

    def _dirty(self, judgement: Judgement, now) -> None:
        if judgement.pk is not None:
            judgement.updated = now  # bulk_update does not stamp auto_now fields
            self.dirty[judgement.pk] = judgement

    def flush(self) -> None:
        """Write what the decisions changed: one query per kind of write, none per decision.
        The caller moves the progress counters (``newly_judged``, ``rechecked``)."""
        Judgement.objects.bulk_create(self.created)  # sets their primary keys (PostgreSQL)
        if self.dirty:
            Judgement.objects.bulk_update(
                list(self.dirty.values()),
                ["bucket", "verdict", "unblinded", "needs_recheck", "key_decision", "updated"],
            )
        JudgementChange.objects.bulk_create(self.changes)
        # A routed experiment: a shared answer put in a wrong bucket makes a key suspect.
        reopen.wrong_decided(self.assignment, [*self.created, *self.dirty.values()], self.responses)
        self.created, self.dirty, self.changes = [], {}, []


def judgement_decide(
    *,
    assignment: Assignment,
    responses: list[Response],
    verdict: str = "",
    bucket: str = "",
    decided_at=None,
    shown_at=None,
    confirmed: bool = True,
    confirm_off: bool = False,
) -> Decision:
    """Set the bucket of every response in a group.

    Idempotent: deciding a group again (two tabs, a double keypress, a retry) changes what
    differs and leaves the rest; the result says which. Decisions of one scorer are serialised on
    their assignment row, so two concurrent requests never both insert the same judgement. Each
    judgement records the key decision in force when it was made. A scorer's decision passes
    ``confirmed=False`` until they confirmed: a HIGH answer marked wrong then raises
    ``ConfirmationNeeded`` (``asks_first``), and nothing is written. The page's batched
    decisions go through ``scoring.queue.decisions`` (one ``Ledger`` for the whole batch).
    """
    # What the decision asks is checked before anything is written or locked.
    share = allocated_item_ids(assignment)
    skipped = skipped_responses(assignment) if share is not None else set()
    if share is not None and any(r.item_id not in share or r.pk in skipped for r in responses):
        raise ValidationError(_("This item is not in your share of the experiment's items."))
    targets = judgement_targets(assignment, responses, verdict, bucket)
    with transaction.atomic():
        Assignment.objects.select_for_update().filter(pk=assignment.pk).values_list("pk").first()
        ledger = Ledger.read(assignment, responses)
        if not confirmed and asks_first(
            mode=assignment.experiment.confirm_wrong,
            responses=responses,
            judgements=ledger.judgements,
            verdict=verdict,
            bucket=bucket,
            off=confirm_off,
            high_wrong_confirmed=lambda: selectors.high_wrong_confirmed(
                assignment, item_id=responses[0].item_id
            ),
        ):
            raise ConfirmationNeeded(
                _("This answer was given with HIGH confidence: confirm before it is marked wrong.")
            )
        result = ledger.apply(responses, targets, decided_at, shown_at)
        ledger.flush()
        if ledger.newly_judged or ledger.rechecked:
            # The assignment's row is locked above: the counters move with the judgements.
            Assignment.objects.filter(pk=assignment.pk, progress_judged__isnull=False).update(
                progress_judged=F("progress_judged") + ledger.newly_judged + ledger.rechecked,
                progress_rechecks=F("progress_rechecks") - ledger.rechecked,
            )
        if ledger.touched:
            _sync_final_buckets(assignment.experiment)
        if ledger.newly_judged or ledger.rechecked:
            judging_done(assignment)
    return result


def judging_done(assignment: Assignment) -> None:
    """A decision judged something: if this scorer has now judged all theirs, the experiment
    may have become reconcilable (the leads hear of it once, whatever the reveals)."""
    judged, total = assignment_progress(assignment)
    if total and judged >= total:
        reconciliation_waits(assignment.experiment)


POSITION_THROTTLE_SECONDS = 5


def position_remember(*, assignment: Assignment, position: int) -> bool:
    """Where the scorer is (to resume there), written at most once every few seconds per
    scorer: moving through items quickly writes the newest place, not every place passed.
    Returns whether it wrote. Called from a decision or a POST, never from a GET."""
    if position < 1 or position == assignment.last_position:
        return False
    if not cache.add(f"scoring-position:{assignment.pk}", 1, POSITION_THROTTLE_SECONDS):
        return False
    Assignment.objects.filter(pk=assignment.pk).update(last_position=position)
    assignment.last_position = position
    return True


@transaction.atomic
def judgement_note_set(*, assignment: Assignment, responses: list[Response], note: str) -> int:
    """The scorer's note on the judgements of a group (empty clears it); returns how many."""
    note = note.strip()
    if len(note) > 2000:
        raise ValidationError({"note": _("A note is at most 2,000 characters.")})
    updated = Judgement.objects.filter(
        assignment=assignment, response__in=[r.pk for r in responses]
    ).update(note=note)
    if not updated:
        raise ValidationError({"note": _("Decide the answer first, then add a note to it.")})
    return updated


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
    progress.progress_forget(pk=assignment.pk)
    _sync_final_buckets(assignment.experiment)
    return changes[0].judgement.response.item.position if changes else None


def _sync_final_buckets(experiment: Experiment) -> None:
    """Once reconciliation has begun, unanimous final buckets follow the scorers' changes."""
    if Reconciliation.objects.filter(experiment=experiment).exists():
        final_buckets_sync(experiment=experiment)


def assignment_progress(assignment: Assignment) -> tuple[int, int]:
    """(judged, total): a judgement sent back for a re-check counts as open."""
    total = scorer_total(assignment)
    if total is None:
        total = Response.objects.filter(run__experiment_id=assignment.experiment_id).count()
    judged = assignment.judgements.filter(needs_recheck=False).count()
    return judged, total


@transaction.atomic
def assignment_reveal(*, assignment: Assignment) -> Assignment:
    judged, total = assignment_progress(assignment)
    rechecks = assignment.judgements.filter(needs_recheck=True).count() if judged < total else 0
    if rechecks:
        raise ValidationError(
            ngettext(
                "%(n)s answer is back for a re-check (a key was amended): decide it again"
                " before the reveal.",
                "%(n)s answers are back for a re-check (a key was amended): decide them again"
                " before the reveal.",
                rechecks,
            )
            % {"n": rechecks}
        )
    if judged < total:
        raise ValidationError(
            _("Judge every response before the reveal: %(left)s left.") % {"left": total - judged}
        )
    if assignment.revealed_at is None:
        assignment.revealed_at = timezone.now()
        assignment.save(update_fields=["revealed_at"])
        reconciliation_waits(assignment.experiment)
    return assignment


def dispute_raise(
    *, assignment: Assignment, item: ExperimentItem, note: str, response: Response | None = None
) -> KeyDispute:
    note = note.strip()
    if not note:
        raise ValidationError({"note": _("Say what you doubt about the key, and why.")})
    dispute = KeyDispute.objects.create(
        experiment=assignment.experiment,
        item=item,
        assignment=assignment,
        response=response,
        note=note,
    )
    # A routed experiment: what the grader decided on the item goes back to people.
    reopen.graded_reopen(experiment=assignment.experiment, item_ids={item.pk}, why=reopen.DISPUTED)
    return dispute
