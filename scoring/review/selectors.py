"""Key review: (!) entries, disputed keys and suspect keys, each settled against a primary source.

An experiment's item snapshot never changes. The key in force for an item is the newest
KeyDecision's (the amended text, or the key as it stood when confirmed or judged ambiguous); an
item whose newest decision says "ambiguous" is dropped from the figures. Amending a key sends the
judgements that relied on the old key back to their scorers as "re-check"; the amendment may be
carried back to the bank through probe's ``key_entry_set``, which keeps the bank's own history.

These are the reads: the key in force by its text, dropped items, re-checks, and the review
queues of an experiment and of a bank. The writes are in scoring.review.services.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.utils.translation import gettext_lazy

from probe.access import is_blinded
from probe.models import (
    Bank,
    Experiment,
    ExperimentItem,
    Item,
    KeyEntry,
    KeyEntryRevision,
    Response,
)
from probe.sheetparser import normalise_answer
from scoring.models import Assignment, Bucket, Judgement, KeyDecision, KeyDispute
from scoring.review import keys
from scoring.review.keys import KeyInForce
from scoring.schemes import ask_first_buckets
from scoring.visibility import sees_others_judgements

# The verdicts that compared an answer with the key (a preset UNKNOWN did not).
KEY_VERDICTS = (Judgement.Verdict.CORRECT, Judgement.Verdict.WRONG, Judgement.Verdict.DIRECT)

REASONS = {
    "flagged": gettext_lazy("(!) entry: check against a primary source"),
    "disputed": gettext_lazy("disputed while scoring"),
    "shared_wrong": gettext_lazy("two or more configurations gave the same answer, not the key's"),
    "high_wrong": gettext_lazy(
        "a HIGH-confidence answer was marked wrong and no answer was marked Correct"
    ),
}
STATES = ("open", "decided", "all")


# --------------------------------------------------------------------------------------------
# The key in force, dropped items, re-checks
# --------------------------------------------------------------------------------------------


def key_in_force(item: ExperimentItem) -> str:
    """The text of the item's key in force (``keys.key_in_force`` has the whole record)."""
    return keys.key_in_force(item).answer


def latest_decisions(experiment: Experiment) -> dict[int, KeyDecision]:
    """The newest decision per item of the experiment, by item id (one query)."""
    latest: dict[int, KeyDecision] = {}
    for decision in KeyDecision.objects.filter(experiment=experiment).order_by("item_id", "-pk"):
        latest.setdefault(decision.item_id, decision)
    return latest


def keys_in_force(experiment: Experiment) -> dict[int, str]:
    """Item id -> the text of the key in force, for every item of the experiment (two queries)."""
    return {pk: key.answer for pk, key in keys.keys_in_force(experiment).items()}


def dropped_items(experiment: Experiment) -> QuerySet[ExperimentItem]:
    """The items whose newest key decision says "ambiguous": left out of every figure.

    A queryset, so it composes as a subquery: ``rows.exclude(response__item__in=dropped_items(e))``.
    """
    newest = KeyDecision.objects.filter(item=OuterRef("pk")).order_by("-pk").values("outcome")[:1]
    return (
        ExperimentItem.objects.filter(experiment=experiment)
        .annotate(key_outcome=Subquery(newest))
        .filter(key_outcome=KeyDecision.Outcome.AMBIGUOUS)
    )


def recheck_positions(assignment: Assignment) -> list[int]:
    """Positions of the items where this scorer has judgements to re-check (the key changed)."""
    return list(
        Judgement.objects.filter(assignment=assignment, needs_recheck=True)
        .values_list("response__item__position", flat=True)
        .distinct()
        .order_by("response__item__position")
    )


def recheck_count(assignment: Assignment) -> int:
    return Judgement.objects.filter(assignment=assignment, needs_recheck=True).count()


# --------------------------------------------------------------------------------------------
# The queue
# --------------------------------------------------------------------------------------------


@dataclass
class ReviewAnswer:
    """One answer that differs from the key in force, grouped like the scoring page groups it."""

    answer: str
    sheets: int = 0
    configs: set = field(default_factory=set)  # configuration ids: counted, never shown
    confidences: Counter = field(default_factory=Counter)
    high_wrong: bool = False  # given with HIGH confidence and put in a wrong bucket
    marked_correct: int = 0  # sheets of this answer a scorer marked Correct
    labels: list[str] = field(default_factory=list)  # only for a viewer who is not blinded

    @property
    def n_configs(self) -> int:
        return len(self.configs)

    @property
    def suspect(self) -> bool:
        """Evidence against the key: several configurations agree on it, nobody marked it Correct."""
        return self.marked_correct == 0 and self.n_configs >= 2

    @property
    def n_high(self) -> int:
        return self.confidences.get("HIGH", 0)

    @property
    def confidence_list(self) -> list[tuple[str, int]]:
        order = {"HIGH": 0, "MEDIUM": 1, "LOW": 2}
        return sorted(
            ((c or "–", n) for c, n in self.confidences.items()), key=lambda p: order.get(p[0], 3)
        )


@dataclass
class ReviewEntry:
    item: ExperimentItem
    key_info: KeyInForce
    reasons: list[str]
    disputes: list[KeyDispute]
    answers: list[ReviewAnswer]
    matching: int  # sheets whose answer matches the key in force
    abstained: int  # sheets that answered UNKNOWN or left the item out
    decisions: list[KeyDecision]  # newest first
    sheets: int = 0  # every sheet that answered the item
    marked_correct: int = 0  # sheets a scorer (one the viewer may see) marked Correct
    judged: int = 0  # sheets with at least one such judgement

    @property
    def key(self) -> str:
        return self.key_info.answer

    @property
    def latest(self) -> KeyDecision | None:
        return self.decisions[0] if self.decisions else None

    @property
    def open_disputes(self) -> list[KeyDispute]:
        return [d for d in self.disputes if d.status == KeyDispute.Status.OPEN]

    @property
    def is_open(self) -> bool:
        return not self.decisions or bool(self.open_disputes)

    @property
    def state(self) -> str:
        return "open" if self.is_open else "decided"

    @property
    def dropped(self) -> bool:
        return self.latest is not None and self.latest.outcome == KeyDecision.Outcome.AMBIGUOUS

    @property
    def key_changed(self) -> bool:
        return self.key != self.item.key_answer

    @property
    def reason_labels(self) -> list[tuple[str, str]]:
        return [(code, REASONS[code]) for code in self.reasons]

    @property
    def first_class(self) -> bool:
        """A (!) entry or a dispute: looked at before any suspect."""
        return "flagged" in self.reasons or "disputed" in self.reasons

    @property
    def evidence(self) -> tuple[int, int, int]:
        """How strongly the answers speak against the key: configurations agreeing on one wrong
        answer, then HIGH ratings of it, then whether nobody's answer was marked Correct."""
        suspects = [a for a in self.answers if a.marked_correct == 0]
        top = max(suspects, key=lambda a: (a.n_configs, a.n_high), default=None)
        return (
            top.n_configs if top else 0,
            top.n_high if top else 0,
            int(self.marked_correct == 0 and self.judged > 0),
        )

    @property
    def sort_key(self) -> tuple:
        configs, high, none_correct = self.evidence
        return (
            not self.is_open,
            not self.first_class,
            -configs,
            -high,
            -none_correct,
            self.item.position,
        )


def review_queue(
    experiment: Experiment,
    *,
    user,
    membership,
    positions: list[int] | None = None,
) -> list[ReviewEntry]:
    """Every item of the experiment that needs, or had, a check against a primary source.

    Ordered as the reviewer should work through it: open entries first; among them the (!)
    entries and the disputes, then the suspects ranked by evidence (``ReviewEntry.evidence``).
    An answer a scorer marked Correct is no evidence against the key, and a HIGH-confidence
    answer marked wrong makes a suspect only where no answer of the item was marked Correct.

    A fixed number of queries whatever the size of the experiment; the counting is grouped in
    the database and only the grouped rows are merged here by their normalised answer. Nothing
    names a model unless the viewer is not blinded; configurations are counted by id, never shown.
    """
    blinded = is_blinded(experiment, user, membership)
    # Whoever may not see other scorers' judgements (scoring.visibility) counts only their own
    # judgements and disputes.
    own = None if sees_others_judgements(experiment, user) else user

    items_qs = ExperimentItem.objects.filter(experiment=experiment)
    if positions is not None:
        items_qs = items_qs.filter(position__in=positions)
    items = {item.pk: item for item in items_qs}

    decisions: dict[int, list[KeyDecision]] = defaultdict(list)
    for d in (
        KeyDecision.objects.filter(experiment=experiment, item__in=list(items))
        .select_related("decided_by")
        .order_by("item_id", "-pk")
    ):
        decisions[d.item_id].append(d)
    in_force = keys.keys_in_force(experiment, item_ids=list(items))
    disputes = _disputes_by_item(experiment, list(items), own=own)
    tally = _answer_tally(list(items), in_force, own=own, blinded=blinded)

    entries = []
    for pk, item in items.items():
        key = in_force[pk]
        item_answers = sorted(
            tally.answers.get(pk, {}).values(),
            key=lambda a: (a.marked_correct > 0, -a.n_configs, -a.n_high, -a.sheets, a.answer),
        )
        reasons = _reasons(key, disputes.get(pk), item_answers, tally.marked_correct[pk])
        if not reasons and not decisions.get(pk) and positions is None:
            continue
        entries.append(
            ReviewEntry(
                item=item,
                key_info=key,
                reasons=reasons,
                disputes=disputes.get(pk, []),
                answers=item_answers,
                matching=tally.matching[pk],
                abstained=tally.abstained[pk],
                decisions=decisions.get(pk, []),
                sheets=tally.sheets[pk],
                marked_correct=tally.marked_correct[pk],
                judged=tally.judged[pk],
            )
        )
    entries.sort(key=lambda e: e.sort_key)
    return entries


def _disputes_by_item(experiment: Experiment, item_ids: list[int], *, own) -> dict:
    """Item id -> its disputes, oldest first (only ``own``'s when given)."""
    disputes_qs = KeyDispute.objects.filter(
        experiment=experiment, item__in=item_ids
    ).select_related("response", "assignment__user")
    if own is not None:
        disputes_qs = disputes_qs.filter(assignment__user=own)
    disputes: dict[int, list[KeyDispute]] = defaultdict(list)
    for dispute in disputes_qs.order_by("created", "pk"):
        disputes[dispute.item_id].append(dispute)
    return disputes


@dataclass
class _Tally:
    """The answers of the reviewed items, counted per item from the grouped rows."""

    answers: dict[int, dict[str, ReviewAnswer]] = field(default_factory=lambda: defaultdict(dict))
    matching: Counter = field(default_factory=Counter)
    abstained: Counter = field(default_factory=Counter)
    sheets: Counter = field(default_factory=Counter)
    marked_correct: Counter = field(default_factory=Counter)
    judged: Counter = field(default_factory=Counter)


def _answer_tally(item_ids: list[int], in_force: dict, *, own, blinded: bool) -> _Tally:
    # A HIGH-confidence answer put in a wrong bucket (by this viewer only, before reconciliation).
    said = Q(judgements__verdict__in=KEY_VERDICTS)
    high_wrong_qs = Judgement.objects.filter(
        response__item__in=item_ids, bucket__in=ask_first_buckets(), response__confidence="HIGH"
    )
    if own is not None:
        high_wrong_qs = high_wrong_qs.filter(assignment__user=own)
        said &= Q(judgements__assignment__user=own)
    high_wrong: dict[int, set[str]] = defaultdict(set)
    for item_id, answer in high_wrong_qs.values_list(
        "response__item_id", "response__answer"
    ).distinct():
        high_wrong[item_id].add(normalise_answer(answer or ""))

    # The answers, grouped in the database: per item, answer, confidence and configuration, with
    # how many of those sheets a scorer judged, and marked Correct.
    fields = ["item_id", "answer", "confidence", "abstained", "run__model_config_id"]
    if not blinded:
        fields.append("run__config_snapshot__label")
    grouped = (
        Response.objects.filter(item__in=item_ids)
        .values(*fields)
        .annotate(
            n=Count("pk", distinct=True),
            judged=Count("pk", filter=said, distinct=True),
            correct=Count("pk", filter=said & Q(judgements__bucket=Bucket.CORRECT), distinct=True),
        )
        .order_by()
    )
    tally = _Tally()
    key_norms = {pk: normalise_answer(k.answer) for pk, k in in_force.items()}
    for row in grouped:
        item_id, text, n = row["item_id"], row["answer"], row["n"]
        tally.sheets[item_id] += n
        tally.marked_correct[item_id] += row["correct"]
        tally.judged[item_id] += row["judged"]
        if row["abstained"] or text is None:
            tally.abstained[item_id] += n
            continue
        norm = normalise_answer(text)
        if norm and norm == key_norms[item_id]:
            tally.matching[item_id] += n
            continue
        entry = tally.answers[item_id].setdefault(norm, ReviewAnswer(answer=text))
        entry.sheets += n
        entry.configs.add(row["run__model_config_id"])
        entry.confidences[row["confidence"]] += n
        entry.marked_correct += row["correct"]
        entry.high_wrong = entry.high_wrong or norm in high_wrong.get(item_id, ())
        label = row.get("run__config_snapshot__label")
        if label and label not in entry.labels:
            entry.labels.append(label)
    return tally


def _reasons(key: KeyInForce, disputes, answers: list[ReviewAnswer], marked_correct: int):
    """Why an item is in the queue (codes of REASONS), in the order the page lists them."""
    reasons = []
    if key.snapshot_flagged:
        reasons.append("flagged")
    if disputes:
        reasons.append("disputed")
    if any(a.suspect for a in answers):
        reasons.append("shared_wrong")
    if marked_correct == 0 and any(a.high_wrong and a.marked_correct == 0 for a in answers):
        reasons.append("high_wrong")
    return reasons


def review_filter(entries: list[ReviewEntry], *, reason: str = "", state: str = "open"):
    """The entries with that reason (any when empty) in that state (open, decided or all)."""
    return [
        e
        for e in entries
        if (not reason or reason in e.reasons) and (state == "all" or e.state == state)
    ]


@dataclass
class BankReviewEntry:
    item: Item
    entry: KeyEntry | None
    experiment_entries: list[
        tuple[Experiment, ReviewEntry]
    ]  # open ones, from collected experiments
    revisions: list[KeyEntryRevision]
    # Decisions already taken on this item in the experiments made from the bank, newest first.
    experiment_decisions: list[KeyDecision] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        return self.entry is not None and self.entry.flagged

    @property
    def is_open(self) -> bool:
        return self.flagged or bool(self.experiment_entries)


def bank_review_queue(bank: Bank, *, user, membership) -> list[BankReviewEntry]:
    """The bank's (!) entries, and the open reviews of the collected experiments made from it."""
    by_item: dict[int, list[tuple[Experiment, ReviewEntry]]] = defaultdict(list)
    for experiment in bank.experiments.filter(status=Experiment.Status.COLLECTED).order_by(
        "-created"
    ):
        for review in review_queue(experiment, user=user, membership=membership):
            if review.is_open and review.item.source_item_id is not None:
                by_item[review.item.source_item_id].append((experiment, review))
    items = list(
        Item.objects.filter(block__bank=bank)
        .filter(Q(pk__in=list(by_item)) | Q(key_entry__flagged=True, retired=False))
        .select_related("block", "key_entry")
        .order_by("block__order", "block_id", "order", "pk")
    )
    revisions: dict[int, list[KeyEntryRevision]] = defaultdict(list)
    for revision in KeyEntryRevision.objects.filter(item__in=items).select_related("changed_by"):
        revisions[revision.item_id].append(revision)
    taken: dict[int, list[KeyDecision]] = defaultdict(list)
    for decision in (
        KeyDecision.objects.filter(item__source_item__in=items)
        .select_related("experiment", "decided_by", "item")
        .order_by("-created", "-pk")
    ):
        taken[decision.item.source_item_id].append(decision)
    return [
        BankReviewEntry(
            item=item,
            entry=item.key_entry_or_none,
            experiment_entries=by_item.get(item.pk, []),
            revisions=revisions.get(item.pk, [])[:5],
            experiment_decisions=taken.get(item.pk, []),
        )
        for item in items
    ]
