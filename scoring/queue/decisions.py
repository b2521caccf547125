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
from django.db.models import Exists, F, OuterRef, Subquery
from django.utils.translation import gettext as _

from probe.models import Response
from probe.wording import sentences
from scoring.allocation.selectors import allocated_item_ids, skipped_responses
from scoring.models import (
    Allocation,
    Assignment,
    Bucket,
    DecisionReceipt,
    Judgement,
    KeyDecision,
    Reconciliation,
)
from scoring.queue import progress, selectors, services
from scoring.reconciliation.finals import final_buckets_sync
from scoring.reconciliation.waits import reconciliation_waits

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
    """What one request's decisions share: the locked assignment and its counters, and every
    response, judgement and key decision of the items the batch names, read once (three
    queries whatever the number of decisions: the lock, the responses with their newest key
    decisions, the judgements) and written once, in bulk, at the end (``finish``)."""

    def __init__(self, assignment: Assignment, decisions: list[QueuedDecision]):
        self.assignment = assignment
        row = (
            Assignment.objects.select_for_update(of=("self",))
            .filter(pk=assignment.pk)
            .annotate(
                reconciling=Exists(
                    Reconciliation.objects.filter(experiment_id=OuterRef("experiment_id"))
                ),
                allocated=Exists(
                    Allocation.objects.filter(experiment_id=OuterRef("experiment_id"))
                ),
            )
            .values_list(
                "revealed_at",
                "progress_judged",
                "progress_rechecks",
                "last_position",
                "reconciling",
                "allocated",
            )
            .get()
        )
        assignment.revealed_at, assignment.last_position = row[0], row[3]
        self.counted = row[1] is not None and row[2] is not None
        self.judged = row[1] if self.counted else None
        self.rechecks = row[2] if self.counted else None
        self.reconciling = row[4]
        self.total = selectors.experiment_size(assignment.experiment)[1]
        # The items this scorer was dealt (None: no allocation, every item is theirs).
        self._share = allocated_item_ids(assignment) if row[5] else None
        self._skipped = skipped_responses(assignment) if row[5] else set()
        if self._share is not None:
            self.total = Response.objects.filter(item_id__in=self._share).count() - len(
                self._skipped
            )
        self.positions = sorted(
            {d.position for d in decisions if d.op == "decide" and d.position >= 1}
        )
        self.ledger: services.Ledger | None = None
        self.newly_judged = self.rechecked = 0

    def read(self) -> services.Ledger:
        if self.ledger is None:
            newest = KeyDecision.objects.filter(item_id=OuterRef("item_id")).order_by("-pk")
            responses = list(
                Response.objects.filter(
                    item__experiment_id=self.assignment.experiment_id,
                    item__position__in=self.positions,
                )
                .only("pk", "item_id", "answer", "confidence", "abstained", "hedged")
                .annotate(
                    position=F("item__position"), newest_decision=Subquery(newest.values("pk")[:1])
                )
            )
            judgements = {
                j.response_id: j
                for j in Judgement.objects.select_for_update().filter(
                    assignment=self.assignment, response__in=[r.pk for r in responses]
                )
            }
            decisions = {r.item_id: r.newest_decision for r in responses}
            self.by_position: dict[int, list] = {}
            for r in responses:
                self.by_position.setdefault(r.position, []).append(r)
            self.ledger = services.Ledger(self.assignment, responses, judgements, decisions)
        return self.ledger

    def share(self) -> set | None:
        """The items this scorer was dealt (None: every item), read once a batch."""
        return self._share

    def skipped(self) -> set:
        """Responses of this scorer's items judged by a departed scorer before a hand-on."""
        return self._skipped

    def outside_share(self, position: int) -> bool:
        """Whether the item at ``position`` is not among this scorer's items."""
        self.read()
        found = self.by_position.get(position, [])
        return self._share is not None and bool(found) and found[0].item_id not in self._share

    def resolve(self, position: int, tokens: list[str]) -> list:
        self.read()
        wanted = set(tokens)
        return [
            r
            for r in self.by_position.get(position, [])
            if selectors.answer_token(self.assignment, r.pk) in wanted
        ]

    def key_version(self, item_id: int) -> str:
        return selectors.key_version(self.assignment, item_id, self.read().key_decisions[item_id])

    def write(self) -> None:
        """What the decisions so far changed, written (before an undo, and at the end)."""
        if self.ledger is not None:
            self.ledger.flush()
            self.newly_judged += self.ledger.newly_judged
            self.rechecked += self.ledger.rechecked
            self.ledger.newly_judged = self.ledger.rechecked = 0

    def forget(self) -> None:
        """An undo changed judgements behind the ledger: read them again if needed."""
        self.ledger = None
        self.judged = self.rechecks = None
        self.counted = False
        self.newly_judged = self.rechecked = 0

    def moved(self, result: services.Decision) -> None:
        if self.judged is not None:
            self.judged += result.newly_judged + result.rechecked

    def progress(self) -> dict:
        if self.judged is None:
            self.write()  # the count reads the database: what is still in memory first
            counts = progress.progress_counts_store(self.assignment)
            self.judged, self.rechecks = counts["judged"], counts["rechecks"]
            self.counted = True
            self.newly_judged = self.rechecked = 0
        return {"judged": self.judged, "total": self.total}

    def finish(self, last_position: int | None) -> None:
        """The judgements written, then the counters and where the scorer is, in one update
        of the row this batch holds locked (no query when neither moved)."""
        touched = self.ledger is not None and self.ledger.touched
        self.write()
        moved = self.newly_judged or self.rechecked
        fields = {}
        if self.counted and (self.newly_judged or self.rechecked):
            fields["progress_judged"] = self.judged
            fields["progress_rechecks"] = self.rechecks - self.rechecked
        if fields:
            if last_position and last_position != self.assignment.last_position:
                fields["last_position"] = last_position
            Assignment.objects.filter(pk=self.assignment.pk).update(**fields)
        elif last_position:
            services.position_remember(assignment=self.assignment, position=last_position)
        if touched and self.reconciling:
            final_buckets_sync(experiment=self.assignment.experiment)
        if moved and not self.reconciling and self.progress()["judged"] >= self.total:
            # This scorer has judged all theirs: the experiment may be reconcilable now.
            reconciliation_waits(self.assignment.experiment)


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
        if batch.outside_share(decision.position):
            message = _("That answer is not among your answers to judge: nothing was saved.")
            return {"status": "invalid", "message": message, "state": "", "buckets": []}
        message = _("That answer is not on this item any more: nothing was saved.")
        return {"status": "gone", "message": message, "state": "", "buckets": []}
    ledger = batch.read()
    judgements = ledger.judgements

    def refuse(status: str, message: str, **extra) -> dict:
        return _state_outcome(batch, status, message, responses, judgements, **extra)

    share = batch.share()
    if share is not None and any(r.item_id not in share for r in responses):
        return refuse("invalid", _("This item is not in your share of the experiment's items."))
    if any(r.pk in batch.skipped() for r in responses):
        return refuse(
            "invalid", _("That answer is not among your answers to judge: nothing was saved.")
        )

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
    if not decision.confirmed and services.asks_first(
        mode=assignment.experiment.confirm_wrong,
        responses=responses,
        judgements=judgements,
        verdict=decision.verdict,
        bucket=decision.bucket,
        off=decision.confirm_off,
        high_wrong_confirmed=lambda: ledger.high_wrong_confirmed(responses[0].item_id),
    ):
        return refuse(
            "confirm",
            _("This answer was given with HIGH confidence: confirm before it is marked wrong."),
        )
    result = ledger.apply(responses, targets, decision.decided_at, decision.shown_at)
    batch.moved(result)
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
    batch.write()  # the decisions before it, so that it can take the last of them back
    position = services.judgement_undo(assignment=batch.assignment)
    batch.forget()  # the undo forgot the counters
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
    batch = Batch(assignment, decisions)
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
    last = next((d.position for d in reversed(decisions) if d.op == "decide"), None)
    batch.finish(last)
    DecisionReceipt.objects.bulk_create(receipts)
    return outcomes
