"""One item's reconciliation page: its disagreements, anonymous and shuffled for each viewer.

No sheet or model is named: an answer is addressed by an opaque token, different for every user
(``reconcile.response_token``), and the rows come in an order drawn from the server's secret.
Identical answers with identical scorers' buckets make one row, settled by one decision.
"""

from __future__ import annotations

import hmac
from collections import defaultdict
from dataclasses import dataclass, field

from django.utils.crypto import salted_hmac

from probe.models import Experiment, ExperimentItem, Response
from scoring.models import Assignment, FinalBucket, KeyDecision
from scoring.queue.selectors import group_key
from scoring.reconciliation.selectors import (
    DISAGREEMENT,
    UNANIMOUS,
    Standing,
    participants,
    reconciliation_of,
    response_token,
    scorer_labels,
    standings,
)
from scoring.review.keys import KeyInForce, key_in_force
from scoring.review.selectors import latest_decisions


@dataclass
class ScorerBucket:
    label: str
    bucket: str | None
    recheck: bool
    notes: list[str] = field(default_factory=list)  # the scorer's own notes on these answers


@dataclass
class Disagreement:
    """Identical answers with identical scorers' buckets: one decision settles them all."""

    tokens: list[str]
    responses: list[Response]
    scorers: list[ScorerBucket]
    standings: list[Standing]
    state: str
    stale: bool = False  # decided before the item's key was last amended

    @property
    def token(self) -> str:
        return ",".join(self.tokens)

    @property
    def first_token(self) -> str:
        return self.tokens[0]

    @property
    def response(self) -> Response:
        return self.responses[0]

    @property
    def size(self) -> int:
        return len(self.responses)

    @property
    def confidences(self) -> list[str]:
        return [r.confidence or "–" for r in self.responses]

    @property
    def decided(self) -> bool:
        return all(s.decided for s in self.standings)

    @property
    def final(self) -> FinalBucket | None:
        """The lead's final bucket (a unanimous row left over from before a change is not one)."""
        finals = [s.final for s in self.standings if s.decided]
        if len(finals) == len(self.standings) and len({f.bucket for f in finals}) == 1:
            return finals[0]
        return None


@dataclass
class ReconcileItem:
    item: ExperimentItem
    key_info: KeyInForce
    dropped: bool
    rows: list[Disagreement]  # disagreements and waits, shuffled for this viewer
    unanimous: int
    n_items: int
    previous: int | None  # the previous item with something to settle
    next: int | None

    @property
    def key(self) -> str:
        return self.key_info.answer

    @property
    def open(self) -> int:
        return sum(1 for r in self.rows if r.state == DISAGREEMENT and not r.decided)


def reconcile_item(experiment: Experiment, position: int, *, user) -> ReconcileItem | None:
    """One item's disagreements, answers anonymous (no sheet or model), shuffled per viewer."""
    reconciliation = reconciliation_of(experiment)
    item = ExperimentItem.objects.filter(experiment=experiment, position=position).first()
    if reconciliation is None or item is None:
        return None
    parts = participants(experiment)
    labels = scorer_labels(parts, named=reconciliation.name_scorers)
    item_standings = standings(experiment, parts, item=item)
    responses = {
        r.pk: r
        for r in Response.objects.filter(item=item).only(
            "pk", "answer", "confidence", "abstained", "hedged", "issues", "item_id"
        )
    }
    latest = latest_decisions(experiment).get(item.pk)
    amended_at = None
    if latest is not None:
        last_amendment = (
            KeyDecision.objects.filter(item=item, outcome=KeyDecision.Outcome.AMENDED)
            .order_by("-pk")
            .first()
        )
        amended_at = last_amendment.created if last_amendment else None
    rows: dict[tuple, Disagreement] = {}
    unanimous = 0
    for pk in sorted(item_standings):
        standing = item_standings[pk]
        state = standing.state(len(parts))
        if state == UNANIMOUS and not standing.decided:
            unanimous += 1
            continue
        response = responses[pk]
        buckets = tuple((standing.buckets.get(a.pk), a.pk in standing.recheck) for a in parts)
        final = standing.final.bucket if standing.decided else None
        group = (group_key(response), buckets, state, final)
        row = rows.get(group)
        if row is None:
            row = rows[group] = Disagreement(
                tokens=[],
                responses=[],
                scorers=[
                    ScorerBucket(labels[a.pk], bucket, recheck)
                    for a, (bucket, recheck) in zip(parts, buckets, strict=True)
                ],
                standings=[],
                state=state,
            )
        row.tokens.append(response_token(user, pk))
        row.responses.append(response)
        row.standings.append(standing)
        for scorer, a in zip(row.scorers, parts, strict=True):
            note = standing.notes.get(a.pk)
            if note and note not in scorer.notes:
                scorer.notes.append(note)
        if standing.decided and amended_at and standing.final.updated < amended_at:
            row.stale = True
    rows = list(rows.values())
    # Shuffled per viewer (under the server's secret), so no order points at a sheet.
    rows.sort(
        key=lambda r: salted_hmac(
            "reconcile.order", f"{user.pk}:{experiment.pk}:{r.response.pk}"
        ).hexdigest()
    )
    # Disagreements first (open ones on top), then responses waiting for a re-check.
    rows.sort(key=lambda r: (r.state != DISAGREEMENT, r.decided))
    to_settle = list(_positions_to_settle(experiment, parts))
    return ReconcileItem(
        item=item,
        key_info=key_in_force(item),
        dropped=latest is not None and latest.outcome == KeyDecision.Outcome.AMBIGUOUS,
        rows=rows,
        unanimous=unanimous,
        n_items=ExperimentItem.objects.filter(experiment=experiment).count(),
        previous=max((p for p in to_settle if p < position), default=None),
        next=min((p for p in to_settle if p > position), default=None),
    )


def _positions_to_settle(experiment: Experiment, parts: list[Assignment]) -> dict[int, int]:
    """Item position -> responses that are not unanimous (disagreements and waits)."""
    counts: dict[int, int] = defaultdict(int)
    positions = dict(
        ExperimentItem.objects.filter(experiment=experiment).values_list("pk", "position")
    )
    for standing in standings(experiment, parts).values():
        if standing.state(len(parts)) != UNANIMOUS or standing.decided:
            counts[positions[standing.item_id]] += 1
    return dict(sorted(counts.items()))


def resolve_response(experiment: Experiment, position: int, token: str, *, user) -> Response | None:
    """The response of an item named by this user's opaque token."""
    found = resolve_responses(experiment, position, [token], user=user)
    return found[0] if found else None


def resolve_responses(
    experiment: Experiment, position: int, tokens: list[str], *, user
) -> list[Response]:
    """The responses of an item named by this user's opaque tokens (unknown ones ignored)."""
    wanted = [t for t in tokens if t]
    found = []
    for response in Response.objects.filter(item__experiment=experiment, item__position=position):
        token = response_token(user, response.pk)
        if any(hmac.compare_digest(token, t) for t in wanted):
            found.append(response)
    return found
