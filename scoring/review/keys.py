"""The key in force: an item's key as it stands in one experiment, read everywhere from here.

The snapshot copied from the bank never changes; the newest key decision (key review) gives the
text in force, and each judgement records the decision in force when it was made.
"""

from dataclasses import dataclass

from probe.models import Experiment, ExperimentItem
from scoring.models import Assignment, Judgement, KeyDecision

# --------------------------------------------------------------------------------------------
# The key in force
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyInForce:
    """An item's key as it stands in one experiment: the snapshot, then its key decisions.

    Every page and export that shows or uses a key reads it from here, so that an amendment in
    key review is the key every later judgement is made against.
    """

    item_id: int
    answer: str  # the text in force
    snapshot: str  # the text copied from the bank when the experiment was created
    snapshot_flagged: bool
    flag_note: str
    sources: tuple[str, ...]
    decision: KeyDecision | None = None  # the newest decision, if any
    amendment: KeyDecision | None = None  # the newest amendment, if any

    @property
    def amended(self) -> bool:
        return self.amendment is not None and self.answer != self.snapshot

    @property
    def was(self) -> str:
        """The text the newest amendment replaced."""
        return self.amendment.previous_answer if self.amendment is not None else self.snapshot

    @property
    def checked(self) -> bool:
        """A (!) entry settled against a primary source (confirmed or amended) in this experiment."""
        return self.decision is not None and self.decision.outcome in (
            KeyDecision.Outcome.CONFIRMED,
            KeyDecision.Outcome.AMENDED,
        )

    @property
    def flagged(self) -> bool:
        """The (!) warning still stands: flagged in the snapshot and not checked since."""
        return self.snapshot_flagged and not self.checked

    @property
    def confirmed(self) -> bool:
        return self.snapshot_flagged and self.checked

    @property
    def dropped(self) -> bool:
        return self.decision is not None and self.decision.outcome == KeyDecision.Outcome.AMBIGUOUS

    @property
    def decision_id(self) -> int | None:
        return self.decision.pk if self.decision is not None else None

    @property
    def all_sources(self) -> list[str]:
        """The snapshot's references, then the source the newest decision was checked against."""
        found = list(self.sources)
        if self.decision is not None and self.decision.source not in found:
            found.append(self.decision.source)
        return found


def key_texts_judged_against(experiment: Experiment) -> dict[int, str]:
    """Key decision id -> the key text in force once it was taken (for "judged against")."""
    return {
        d.pk: _key_text_after(d)
        for d in KeyDecision.objects.filter(experiment=experiment).only(
            "pk", "outcome", "new_answer", "previous_answer"
        )
    }


def _key_text_after(decision: KeyDecision) -> str:
    if decision.outcome == KeyDecision.Outcome.AMENDED:
        return decision.new_answer
    return decision.previous_answer


def keys_decided(decisions) -> dict[int, tuple[str, bool]]:
    """Item id -> (the text in force after the item's newest decision, whether that decision
    dropped the item as ambiguous), for the items with a decision among `decisions` (a queryset
    of KeyDecision); an item without one has its snapshot's key. Reads tuples only: for the
    callers that go through every item of large experiments."""
    found: dict[int, tuple[str, bool]] = {}
    rows = decisions.order_by("item_id", "-pk").values_list(
        "item_id", "outcome", "new_answer", "previous_answer"
    )
    for item_id, outcome, new_answer, previous_answer in rows:
        if item_id not in found:
            text = new_answer if outcome == KeyDecision.Outcome.AMENDED else previous_answer
            found[item_id] = (text, outcome == KeyDecision.Outcome.AMBIGUOUS)
    return found


def keys_in_force(
    experiment: Experiment | None, *, item_ids: list[int] | None = None
) -> dict[int, KeyInForce]:
    """Item id -> the key in force, for the experiment's items (two queries). With no
    experiment, for the items ``item_ids`` of any experiments (the carry looks across them)."""
    items = ExperimentItem.objects.only(
        "pk", "key_answer", "key_flagged", "key_flag_note", "key_sources"
    )
    decisions = KeyDecision.objects.select_related("decided_by")
    if experiment is not None:
        items = items.filter(experiment=experiment)
        decisions = decisions.filter(experiment=experiment)
    if item_ids is not None:
        items = items.filter(pk__in=item_ids)
        decisions = decisions.filter(item_id__in=item_ids)
    newest: dict[int, KeyDecision] = {}
    amendment: dict[int, KeyDecision] = {}
    for decision in decisions.order_by("item_id", "-pk"):
        newest.setdefault(decision.item_id, decision)
        if decision.outcome == KeyDecision.Outcome.AMENDED:
            amendment.setdefault(decision.item_id, decision)
    return {item.pk: _key_of(item, newest.get(item.pk), amendment.get(item.pk)) for item in items}


def _key_of(item: ExperimentItem, newest, amendment) -> KeyInForce:
    return KeyInForce(
        item_id=item.pk,
        answer=item.key_answer if newest is None else _key_text_after(newest),
        snapshot=item.key_answer,
        snapshot_flagged=item.key_flagged,
        flag_note=item.key_flag_note,
        sources=tuple(item.key_sources or ()),
        decision=newest,
        amendment=amendment,
    )


def key_in_force(item: ExperimentItem) -> KeyInForce:
    """One item's key in force (one query for its decisions)."""
    newest, amendment = None, None
    for decision in (
        KeyDecision.objects.filter(item=item).select_related("decided_by").order_by("-pk")
    ):
        newest = newest or decision
        if decision.outcome == KeyDecision.Outcome.AMENDED:
            amendment = decision
            break
    return _key_of(item, newest, amendment)


@dataclass
class KeyJudged:
    """One item whose key changed in key review, and which key this scorer's judgements used."""

    position: int
    key: KeyInForce
    against_current: int = 0  # judgements made against the key in force
    against_earlier: int = 0  # made against an earlier key: back for a re-check


def judgements_by_key(assignment: Assignment) -> list[KeyJudged]:
    """For each amended item: how many of the scorer's judgements used which key (3 queries)."""
    keys = {pk: k for pk, k in keys_in_force(assignment.experiment).items() if k.amended}
    if not keys:
        return []
    positions = dict(ExperimentItem.objects.filter(pk__in=list(keys)).values_list("pk", "position"))
    rows = {pk: KeyJudged(position=positions[pk], key=key) for pk, key in keys.items()}
    judged = Judgement.objects.filter(
        assignment=assignment,
        response__item_id__in=list(keys),
        verdict__in=(Judgement.Verdict.CORRECT, Judgement.Verdict.WRONG, Judgement.Verdict.DIRECT),
    ).values_list("response__item_id", "key_decision_id", "needs_recheck")
    for item_id, decision_id, recheck in judged:
        amendment = keys[item_id].amendment
        current = not recheck and decision_id is not None and decision_id >= amendment.pk
        if current:
            rows[item_id].against_current += 1
        else:
            rows[item_id].against_earlier += 1
    return sorted(rows.values(), key=lambda r: r.position)
