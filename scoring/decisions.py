"""Decisions sent from the scoring page's queue: each applied once whatever the retries, and
refused, with what stands instead, when the page it was made on no longer holds."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from . import selectors, services
from .models import Assignment, Bucket, DecisionReceipt, Judgement

# How far a browser's clock is believed: a decision queued offline for longer than this, or
# stamped in the future, is timed by the server's clock instead.
CLOCK_WINDOW = timedelta(days=7)


@dataclass
class QueuedDecision:
    """One decision as the page's queue sends it."""

    key: str  # the browser's name for this decision: a retry sends the same
    position: int
    tokens: list[str]
    verdict: str = ""
    bucket: str = ""
    confirmed: bool = False
    expect: str | None = None  # the group's state the page showed; None: not checked
    key_seen: str = ""  # the key version the page showed
    blind: bool = True  # the page was shown before this scorer's reveal
    confirm_off: bool = False  # the scorer turned the confirmation off for the session
    decided_at: datetime | None = None
    shown_at: datetime | None = None


def browser_time(milliseconds: str, *, now: datetime) -> datetime | None:
    """A time the browser sent (milliseconds since the epoch), if it is believable."""
    try:
        value = datetime.fromtimestamp(int(milliseconds) / 1000, tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return None
    if value > now + timedelta(minutes=1) or value < now - CLOCK_WINDOW:
        return None
    return min(value, now)


def _outcome(assignment: Assignment, status: str, message: str, responses, **extra) -> dict:
    judgements = {
        j.response_id: j
        for j in Judgement.objects.filter(
            assignment=assignment, response__in=[r.pk for r in responses]
        ).only("response_id", "bucket", "needs_recheck")
    }
    members = [judgements.get(r.pk) for r in responses]
    state = selectors.group_state(members)
    buckets = [] if state in ("", "mixed") else state.split(",")
    counts = selectors.assignment_counts(assignment)
    _n_items, total = selectors.experiment_size(assignment.experiment)
    return {
        "status": status,
        "message": message,
        "state": state,
        "buckets": [{"value": b, "label": str(Bucket(b).label)} for b in buckets],
        "recheck": any(j is not None and j.needs_recheck for j in members),
        "judged": counts["judged"],
        "total": total,
        **extra,
    }


def _target_state(assignment: Assignment, responses, decision: QueuedDecision) -> str | None:
    """The state the decision would leave the group in (None: the bucket is not settled)."""
    if decision.bucket:
        return decision.bucket
    scheme = assignment.experiment.scheme_obj
    derived = {scheme.derive(decision.verdict, r) for r in responses}
    if None in derived or not derived:
        return None
    return ",".join(sorted(derived))


def _refusal(assignment: Assignment, responses, decision: QueuedDecision) -> dict | None:
    """Why the decision cannot be applied as it was made, as the page will show it; or None."""
    if not responses:
        message = _("That answer is not on this item any more: nothing was saved.")
        return {"status": "gone", "message": message, "state": "", "buckets": []}
    if decision.blind and assignment.revealed:
        message = _(
            "The models were revealed after this decision was made, so it was not saved. "
            "Decide again to change it; the change will be marked as made after the reveal."
        )
        return _outcome(assignment, "conflict", message, responses, reason="reveal")
    item_id = responses[0].item_id
    if decision.key_seen and decision.key_seen != selectors.current_key_version(
        assignment, item_id
    ):
        message = _(
            "The key of this item was amended after the page was shown, so this decision was "
            "not saved. Read the key in force and decide again."
        )
        return _outcome(assignment, "conflict", message, responses, reason="key")
    target = _target_state(assignment, responses, decision)
    if decision.expect is not None:
        judged = {
            j.response_id: j
            for j in Judgement.objects.filter(assignment=assignment, response__in=responses)
        }
        current = selectors.group_state([judged.get(r.pk) for r in responses])
        if current not in (decision.expect, target):
            message = _(
                "Decided otherwise elsewhere (another tab or window) after this page was shown, "
                "so this decision was not saved. Press the key again to decide anew."
            )
            return _outcome(assignment, "conflict", message, responses, reason="changed")
    return None


@transaction.atomic
def decision_record(*, assignment: Assignment, decision: QueuedDecision) -> dict:
    """Apply one queued decision once, and remember the answer for a retry of it.

    The scorer's assignment row is locked first, so a retry that arrives while the first send
    is still being applied waits for it and then finds its receipt.
    """
    Assignment.objects.select_for_update().filter(pk=assignment.pk).values_list("pk").first()
    assignment.refresh_from_db(fields=["revealed_at"])
    receipt = DecisionReceipt.objects.filter(assignment=assignment, key=decision.key).first()
    if receipt is not None:
        return {**receipt.outcome, "replayed": True}
    responses = selectors.resolve_tokens(assignment, decision.position, decision.tokens)
    outcome = _refusal(assignment, responses, decision)
    if outcome is None:
        outcome = _apply(assignment, responses, decision)
    outcome = {**outcome, "position": decision.position, "tokens": ",".join(decision.tokens)}
    DecisionReceipt.objects.create(assignment=assignment, key=decision.key, outcome=outcome)
    if assignment.last_position != decision.position:
        Assignment.objects.filter(pk=assignment.pk).update(last_position=decision.position)
    return outcome


def _apply(assignment: Assignment, responses, decision: QueuedDecision) -> dict:
    if not decision.confirmed and selectors.asks_first(
        assignment, responses, decision.verdict, decision.bucket, off=decision.confirm_off
    ):
        message = _(
            "This answer was given with HIGH confidence: confirm before it is marked wrong."
        )
        return _outcome(assignment, "confirm", message, responses)
    try:
        result = services.judgement_decide(
            assignment=assignment,
            responses=responses,
            verdict=decision.verdict,
            bucket=decision.bucket,
            decided_at=decision.decided_at,
            shown_at=decision.shown_at,
        )
    except services.BucketNeeded as error:
        return _outcome(assignment, "choose", " ".join(error.messages), responses)
    except ValidationError as error:
        return _outcome(assignment, "invalid", " ".join(error.messages), responses)
    if result.no_op:
        message = _("Already decided so (another tab, or a second keypress): nothing changed.")
    elif result.kept and not result.changed and not result.created:
        message = _("Decision kept against the amended key.")
    else:
        message = ""
    return _outcome(assignment, "saved", message, responses)


@transaction.atomic
def undo_record(*, assignment: Assignment, key: str) -> dict:
    """Undo the scorer's last decision once, however often the request arrives."""
    Assignment.objects.select_for_update().filter(pk=assignment.pk).values_list("pk").first()
    receipt = DecisionReceipt.objects.filter(assignment=assignment, key=key).first()
    if receipt is not None:
        return {**receipt.outcome, "replayed": True}
    position = services.judgement_undo(assignment=assignment)
    counts = selectors.assignment_counts(assignment)
    _n_items, total = selectors.experiment_size(assignment.experiment)
    outcome = {
        "status": "undone" if position is not None else "nothing",
        "message": _("Undone.") if position is not None else _("Nothing to undo."),
        "position": position,
        "judged": counts["judged"],
        "total": total,
    }
    DecisionReceipt.objects.create(assignment=assignment, key=key, outcome=outcome)
    return outcome
