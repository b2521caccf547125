"""Decisions sent from the scoring page's queue: each applied once whatever the retries, and
refused, with what stands instead, when the page it was made on no longer holds.

The page sends what has queued up since its last request in one request (a batch, in the order
the scorer decided). A batch is one transaction under one lock of the scorer's assignment row,
so a slow server gets fewer, larger requests instead of a longer line of small ones.
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from probe.wording import sentences
from scoring.models import Assignment, Bucket, DecisionReceipt, Judgement, KeyDecision
from scoring.queue import selectors, services

# How far a browser's clock is believed: a decision queued offline for longer than this, or
# stamped in the future, is timed by the server's clock instead.
CLOCK_WINDOW = timedelta(days=7)
BATCH_LIMIT = 50  # decisions in one request


@dataclass
class QueuedDecision:
    """One decision (or an undo) as the page's queue sends it."""

    key: str  # the browser's name for this decision: a retry sends the same
    op: str = "decide"  # or "undo"
    position: int = 0
    tokens: list[str] = field(default_factory=list)
    verdict: str = ""
    bucket: str = ""
    confirmed: bool = False
    expect: str | None = None  # the group's state the page showed; None: not checked
    key_seen: str = ""  # the key version the page showed
    blind: bool = True  # the page was shown before this scorer's reveal
    confirm_off: bool = False  # the scorer turned the confirmation off for the session
    decided_at: datetime | None = None
    shown_at: datetime | None = None


def browser_time(milliseconds, *, now: datetime) -> datetime | None:
    """A time the browser sent (milliseconds since the epoch), if it is believable."""
    try:
        value = datetime.fromtimestamp(int(milliseconds) / 1000, tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return None
    if value > now + timedelta(minutes=1) or value < now - CLOCK_WINDOW:
        return None
    return min(value, now)


class Batch:
    """What one request's decisions share: the locked assignment, its counters, the item
    reads (several decisions of a batch are usually on one item)."""

    def __init__(self, assignment: Assignment):
        self.assignment = assignment
        row = (
            Assignment.objects.select_for_update()
            .filter(pk=assignment.pk)
            .values_list("revealed_at", "progress_judged", "progress_rechecks")
            .get()
        )
        assignment.revealed_at = row[0]
        self.judged = row[1] if row[1] is not None and row[2] is not None else None
        self.total = selectors.experiment_size(assignment.experiment)[1]
        self.responses: dict[int, list] = {}
        self.key_versions: dict[int, str] = {}

    def resolve(self, position: int, tokens: list[str]) -> list:
        if position not in self.responses:
            self.responses[position] = list(
                selectors.item_responses(self.assignment.experiment, position)
            )
        wanted = set(tokens)
        return [
            r
            for r in self.responses[position]
            if selectors.answer_token(self.assignment, r.pk) in wanted
        ]

    def key_version(self, item_id: int) -> str:
        if item_id not in self.key_versions:
            newest = KeyDecision.objects.filter(item_id=item_id).order_by("-pk").first()
            self.key_versions[item_id] = selectors.key_version(
                self.assignment, item_id, newest.pk if newest else None
            )
        return self.key_versions[item_id]

    def progress(self) -> dict:
        if self.judged is None:
            self.judged = selectors.assignment_counts(self.assignment)["judged"]
        return {"judged": self.judged, "total": self.total}


def _state_outcome(batch: Batch, status: str, message: str, responses, judgements, **extra):
    members = [judgements.get(r.pk) for r in responses]
    state = selectors.group_state(members)
    buckets = [] if state in ("", "mixed") else state.split(",")
    return {
        "status": status,
        "message": message,
        "state": state,
        "buckets": [{"value": b, "label": str(Bucket(b).label)} for b in buckets],
        "recheck": any(j is not None and j.needs_recheck for j in members),
        **batch.progress(),
        **extra,
    }


def _target_state(targets: dict) -> str:
    return ",".join(sorted({b for b, _verdict in targets.values()}))


def _decide(batch: Batch, decision: QueuedDecision) -> dict:
    assignment = batch.assignment
    responses = batch.resolve(decision.position, decision.tokens)
    if not responses:
        message = _("That answer is not on this item any more: nothing was saved.")
        return {"status": "gone", "message": message, "state": "", "buckets": []}
    judgements = {
        j.response_id: j
        for j in Judgement.objects.select_for_update().filter(
            assignment=assignment, response__in=[r.pk for r in responses]
        )
    }

    def refuse(status: str, message: str, **extra) -> dict:
        return _state_outcome(batch, status, message, responses, judgements, **extra)

    if decision.blind and assignment.revealed:
        return refuse(
            "conflict",
            _(
                "The models were revealed after this decision was made, so it was not saved. "
                "Decide again to change it; the change will be marked as made after the reveal."
            ),
            reason="reveal",
        )
    if decision.key_seen and decision.key_seen != batch.key_version(responses[0].item_id):
        return refuse(
            "conflict",
            _(
                "The key of this item was amended after the page was shown, so this decision "
                "was not saved. Read the key in force and decide again."
            ),
            reason="key",
        )
    try:
        targets = services.judgement_targets(
            assignment, responses, decision.verdict, decision.bucket
        )
    except services.BucketNeeded as error:
        return refuse("choose", sentences(error.messages))
    except ValidationError as error:
        return refuse("invalid", sentences(error.messages))
    current = selectors.group_state([judgements.get(r.pk) for r in responses])
    if decision.expect is not None and current not in (decision.expect, _target_state(targets)):
        return refuse(
            "conflict",
            _(
                "Decided otherwise elsewhere (another tab or window) after this page was shown, "
                "so this decision was not saved. Press the key again to decide anew."
            ),
            reason="changed",
        )
    if not decision.confirmed and selectors.asks_first(
        assignment, responses, decision.verdict, decision.bucket, off=decision.confirm_off
    ):
        return refuse(
            "confirm",
            _("This answer was given with HIGH confidence: confirm before it is marked wrong."),
        )
    result = services.judgement_decide(
        assignment=assignment,
        responses=responses,
        verdict=decision.verdict,
        bucket=decision.bucket,
        decided_at=decision.decided_at,
        shown_at=decision.shown_at,
        locked=judgements,
    )
    if batch.judged is not None:
        batch.judged += result.newly_judged + result.rechecked
    if result.no_op:
        message = _("Already decided so (another tab, or a second keypress): nothing changed.")
    elif result.kept and not result.changed and not result.created:
        message = _("Decision kept against the amended key.")
    else:
        message = ""
    state = _target_state(targets)
    return {
        "status": "saved",
        "message": message,
        "state": state,
        "buckets": [{"value": b, "label": str(Bucket(b).label)} for b in state.split(",")],
        "recheck": False,
        **batch.progress(),
    }


def _undo(batch: Batch) -> dict:
    position = services.judgement_undo(assignment=batch.assignment)
    batch.judged = None  # the undo forgot the counters
    return {
        "status": "undone" if position is not None else "nothing",
        "message": _("Undone.") if position is not None else _("Nothing to undo."),
        "position": position,
        **batch.progress(),
    }


@transaction.atomic
def decisions_record(*, assignment: Assignment, decisions: list[QueuedDecision]) -> list[dict]:
    """Apply a batch of queued decisions in order, each once, and remember each answer.

    The scorer's assignment row is locked first, so a retry that arrives while the first send
    is still being applied waits for it and then finds the receipts.
    """
    batch = Batch(assignment)
    keys = [d.key for d in decisions]
    done = {
        r.key: r.outcome
        for r in DecisionReceipt.objects.filter(assignment=assignment, key__in=keys)
    }
    outcomes, receipts = [], []
    for decision in decisions:
        if decision.key in done:
            outcomes.append({**done[decision.key], "replayed": True})
            continue
        if decision.op == "undo":
            outcome = _undo(batch)
        else:
            outcome = {
                **_decide(batch, decision),
                "position": decision.position,
                "tokens": ",".join(decision.tokens),
            }
        done[decision.key] = outcome
        receipts.append(DecisionReceipt(assignment=assignment, key=decision.key, outcome=outcome))
        outcomes.append(outcome)
    DecisionReceipt.objects.bulk_create(receipts)
    last = next((d.position for d in reversed(decisions) if d.op == "decide"), None)
    if last and last != assignment.last_position:
        Assignment.objects.filter(pk=assignment.pk).update(last_position=last)
    return outcomes
