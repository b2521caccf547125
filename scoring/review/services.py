"""Key review, the writes: a key decision on an experiment item, and on a bank's key entry.

Amending an experiment item's key sends the judgements that relied on the old key back to their
scorers as "re-check" (and, once reconciliation has begun, the unanimous final buckets follow);
the amendment may be carried back to the bank through probe's ``key_entry_set``, which keeps the
bank's own history. The reads are in scoring.review.selectors.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from probe.models import ExperimentItem, Item, KeyEntry, Notification
from probe.services import notifications
from probe.services.banks import item_set_retired, key_entry_set
from scoring.models import Judgement, KeyDecision, KeyDispute, Reconciliation
from scoring.queue import progress
from scoring.queue.carry import carry_reopen
from scoring.queue.reopen import AMENDED, graded_reopen
from scoring.queue.services import scoring_open
from scoring.reconciliation.finals import final_buckets_sync
from scoring.review.selectors import KEY_VERDICTS, key_in_force


def _clean(outcome: str, source: str, new_answer: str) -> tuple[str, str, dict]:
    errors: dict[str, str] = {}
    if outcome not in KeyDecision.Outcome.values:
        errors["outcome"] = _("Choose an outcome: confirmed, amended or ambiguous.")
    source = source.strip()
    if not source:
        errors["source"] = _("Name the primary source you checked: a citation or a URL.")
    new_answer = new_answer.strip()
    if outcome == KeyDecision.Outcome.AMENDED and not new_answer:
        errors["new_answer"] = _("An amended key needs its new text.")
    return source, new_answer, errors


@transaction.atomic
def key_decision_create(
    *,
    item: ExperimentItem,
    user,
    outcome: str,
    source: str,
    new_answer: str = "",
    note: str = "",
    carry_to_bank: bool = False,
    clear_bank_flag: bool = False,
) -> KeyDecision:
    """Settle an experiment item's key against a primary source.

    Amended: every judgement of this item that compared an answer with the old key (verdict
    correct, wrong or a bucket set directly; not the presets of UNKNOWN answers) goes back to its
    scorer as "re-check", and the count is kept on the decision; with ``carry_to_bank`` the new
    text also becomes the bank's key entry (which records its own revision). Confirmed with
    ``carry_to_bank``: the source joins the bank entry's references. Either way carried, the
    bank's (!) flag is taken off with ``clear_bank_flag`` and kept without it. Ambiguous: the
    item is dropped from the figures. Every outcome resolves the item's open disputes.
    """
    experiment = item.experiment
    if not scoring_open(experiment):
        raise ValidationError(_("The key is sealed until every run is collected."))
    # One decision at a time per item: the previous key must be the one in force.
    item = (
        ExperimentItem.objects.select_for_update(of=("self",))
        .select_related("source_item")
        .get(pk=item.pk)
    )
    previous = key_in_force(item)
    source, new_answer, errors = _clean(outcome, source, new_answer)
    amended = outcome == KeyDecision.Outcome.AMENDED
    if amended and new_answer and new_answer == previous:
        errors["new_answer"] = _("That is the key in force: choose 'Key confirmed' instead.")
    carry = carry_to_bank and outcome in (
        KeyDecision.Outcome.AMENDED,
        KeyDecision.Outcome.CONFIRMED,
    )
    if carry and item.source_item is None:
        errors["carry_to_bank"] = _(
            "The bank item this was taken from no longer exists: nothing to carry the amendment to."
        )
    if errors:
        raise ValidationError(errors)
    decision = KeyDecision.objects.create(
        experiment=experiment,
        item=item,
        outcome=outcome,
        previous_answer=previous,
        new_answer=new_answer if amended else "",
        source=source,
        note=note.strip(),
        decided_by=user if user is not None and user.is_authenticated else None,
    )
    if amended:
        decision.rechecked = Judgement.objects.filter(
            response__item=item, verdict__in=KEY_VERDICTS
        ).update(needs_recheck=True)
        _tell_rechecks(experiment, item)
        # Buckets carried from earlier experiments, or decided by a grader, were given under
        # the old key: open again (the grader's go back to people for good: reopen).
        graded_reopen(experiment=experiment, item_ids={item.pk}, why=AMENDED)
        Judgement.objects.filter(
            response__item=item,
            verdict__in=[Judgement.Verdict.CARRIED, Judgement.Verdict.GRADED],
        ).delete()
        carry_reopen(item=item)
        progress.progress_forget(experiment=experiment)
    if carry:
        decision.bank_flag_cleared = _carry_to_bank(
            decision, item.source_item, user, clear_flag=clear_bank_flag
        )
        decision.carried_to_bank = True
    if amended or carry:
        decision.save(update_fields=["rechecked", "carried_to_bank", "bank_flag_cleared"])
    KeyDispute.objects.filter(item=item, status=KeyDispute.Status.OPEN).update(
        status=KeyDispute.Status.RESOLVED
    )
    # Unanimous final buckets of re-checked judgements are no longer settled.
    if amended and Reconciliation.objects.filter(experiment=experiment).exists():
        final_buckets_sync(experiment=experiment)
    return decision


def _carry_to_bank(decision: KeyDecision, bank_item: Item, user, *, clear_flag: bool) -> bool:
    """Write the decision into the bank's key entry; returns whether its (!) was taken off."""
    entry = bank_item.key_entry_or_none
    flagged = bool(entry and entry.flagged)
    sources = list(entry.sources) if entry else []
    if decision.source not in sources:
        sources.append(decision.source)
    reason = _("Key review of experiment '%(experiment)s', item %(position)s.") % {
        "experiment": decision.experiment.name,
        "position": decision.item.position,
    }
    if decision.note:
        reason = f"{reason} {decision.note}"
    amended = decision.outcome == KeyDecision.Outcome.AMENDED
    keep_flag = flagged and not clear_flag
    key_entry_set(
        item=bank_item,
        user=user,
        answer=decision.new_answer
        if amended
        else (entry.answer if entry else decision.previous_answer),
        flagged=keep_flag,
        flag_note=entry.flag_note if entry and keep_flag else "",
        sources=sources,
        reason=reason,
        source=decision.source,
    )
    return flagged and not keep_flag


@transaction.atomic
def bank_key_decide(
    *, item: Item, user, outcome: str, source: str, new_answer: str = "", note: str = ""
) -> KeyEntry | None:
    """Settle a bank key entry against a primary source (experiments keep their snapshots).

    Confirmed or amended: the (!) flag is cleared, since the check it asked for is done, and the
    source joins the entry's references. Ambiguous: the entry keeps a (!) flag saying so and the
    item is retired, so that no new experiment asks it. ``key_entry_set`` keeps the revision.
    """
    entry = item.key_entry_or_none
    source, new_answer, errors = _clean(outcome, source, new_answer)
    note = note.strip()
    if entry is None and outcome != KeyDecision.Outcome.AMENDED:
        errors["outcome"] = _("This item has no key entry yet: amend it to write one.")
    if errors:
        raise ValidationError(errors)
    sources = list(entry.sources) if entry else []
    if source not in sources:
        sources.append(source)
    label = KeyDecision.Outcome(outcome).label
    reason = _("Key review: %(outcome)s.") % {"outcome": label}
    if note:
        reason = f"{reason} {note}"
    if outcome == KeyDecision.Outcome.AMBIGUOUS:
        flag_note = _("Ambiguous: %(note)s") % {"note": note} if note else _("Ambiguous.")
        result = key_entry_set(
            item=item,
            user=user,
            answer=entry.answer,
            flagged=True,
            flag_note=flag_note,
            sources=sources,
            reason=reason,
            source=source,
        )
        item_set_retired(item=item, user=user, retired=True)
        return result
    answer = new_answer if outcome == KeyDecision.Outcome.AMENDED else entry.answer
    return key_entry_set(
        item=item,
        user=user,
        answer=answer,
        flagged=False,
        flag_note="",
        sources=sources,
        reason=reason,
        source=source,
    )


def _tell_rechecks(experiment, item) -> None:
    """The scorers whose judgements on the item went back for a re-check are told (the
    experiment's name and a link to their scoring; nothing of the item or its answers)."""
    users = list(
        get_user_model()
        .objects.filter(
            assignments__judgements__response__item=item,
            assignments__judgements__needs_recheck=True,
            assignments__experiment=experiment,
        )
        .distinct()
    )
    notifications.notify(
        users=users,
        kind=Notification.Kind.RECHECK,
        experiment=experiment,
        url=reverse("scoring:start", kwargs={"experiment_pk": experiment.pk}),
        key=f"recheck:{item.pk}:{timezone.now():%Y%m%d%H%M%S%f}",
    )
