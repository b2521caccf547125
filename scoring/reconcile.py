"""Several scorers on one experiment: invitations, progress as counts, agreement, reconciliation.

Each scorer scores blind and alone. Nobody sees a scorer's buckets beside another's before
reconciliation has begun, which needs two scorers who have judged every response; a lead who is
also a scorer must have finished too. Once it has begun, the *participants* are the scorers who
have judged every response (a scorer who undoes a decision drops out until it is judged again).
A response whose participants agree gets a unanimous final bucket without a step; a disagreement
waits for an owner or editor to set its final bucket with a note; a response with a judgement
sent back for a re-check (the key was amended) waits for the re-check.

Reads (selectors) first, then writes (services), then the two rows sources for the report.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _

from probe.models import ROLE_RANK, Experiment, ExperimentItem, Membership, Response, Role

from . import agreement, selectors
from .models import (
    Assignment,
    FinalBucket,
    Judgement,
    KeyDecision,
    Reconciliation,
)
from .review import dropped_items, latest_decisions
from .selectors import KeyInForce, group_key
from .services import assignment_start, scoring_open

SCORER_ROLES = [r for r in Role.values if ROLE_RANK[Role(r)] >= ROLE_RANK[Role.SCORER]]


# --------------------------------------------------------------------------------------------
# Scorers and their progress (counts only)
# --------------------------------------------------------------------------------------------


@dataclass
class ScorerProgress:
    """How far one scorer is: counts, never buckets."""

    assignment: Assignment
    judgements: int  # every judgement, including those sent back for a re-check
    recheck: int
    total: int

    @property
    def judged(self) -> int:
        """Judged and settled: a judgement awaiting a re-check counts as open."""
        return self.judgements - self.recheck

    @property
    def complete(self) -> bool:
        """Has judged every response (some may await a re-check)."""
        return self.total > 0 and self.judgements >= self.total

    @property
    def finished(self) -> bool:
        return self.complete and self.recheck == 0

    @property
    def revealed(self) -> bool:
        return self.assignment.revealed

    @property
    def percent(self) -> int:
        return round(100 * self.judged / self.total) if self.total else 0


def scorer_progress(experiment: Experiment) -> list[ScorerProgress]:
    """Every scorer of the experiment with their counts, in the order they joined (two queries)."""
    total = Response.objects.filter(run__experiment=experiment).count()
    assignments = (
        Assignment.objects.filter(experiment=experiment)
        .select_related("user", "invited_by")
        .annotate(
            n_judgements=Count("judgements"),
            n_recheck=Count("judgements", filter=Q(judgements__needs_recheck=True)),
        )
        .order_by("created", "pk")
    )
    return [ScorerProgress(a, a.n_judgements, a.n_recheck, total) for a in assignments]


def participants(experiment: Experiment) -> list[Assignment]:
    """The scorers who have judged every response, in the order they joined."""
    return [p.assignment for p in scorer_progress(experiment) if p.complete]


def scorer_candidates(experiment: Experiment) -> QuerySet[Membership]:
    """Team members who may score (role scorer or above) and are not yet scoring it."""
    assigned = Assignment.objects.filter(experiment=experiment).values("user_id")
    return (
        Membership.objects.filter(team_id=experiment.team_id, role__in=SCORER_ROLES)
        .exclude(user_id__in=assigned)
        .select_related("user")
        .order_by("user__username")
    )


def reconciliation_of(experiment: Experiment) -> Reconciliation | None:
    return Reconciliation.objects.filter(experiment=experiment).first()


def own_progress(experiment: Experiment, user) -> ScorerProgress | None:
    for progress in scorer_progress(experiment):
        if progress.assignment.user_id == user.pk:
            return progress
    return None


def decisions_visible(experiment: Experiment, user) -> bool:
    """Whether this user may see scorers' buckets side by side.

    Only once reconciliation has begun, and never for a scorer of the experiment who has not yet
    judged every response (an editor may be a scorer too: their standard must stay their own).
    """
    if reconciliation_of(experiment) is None:
        return False
    own = own_progress(experiment, user)
    return own is None or own.complete


# --------------------------------------------------------------------------------------------
# Scorer labels and opaque answer tokens
# --------------------------------------------------------------------------------------------


def scorer_labels(assignments: list[Assignment], *, named: bool) -> dict[int, str]:
    """Assignment id -> how the lead sees the scorer: their name, or "Scorer A", "Scorer B"."""
    labels = {}
    for index, assignment in enumerate(assignments):
        if named:
            labels[assignment.pk] = assignment.user.get_username()
        else:
            labels[assignment.pk] = _("Scorer %(letter)s") % {"letter": chr(ord("A") + index % 26)}
    return labels


def response_token(user, response_pk: int) -> str:
    """An opaque name for a response on the reconciliation pages, different for every user."""
    message = f"reconcile:{user.pk}:{response_pk}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:20]


# --------------------------------------------------------------------------------------------
# Where every response stands
# --------------------------------------------------------------------------------------------


UNANIMOUS, DISAGREEMENT, AWAITING = "unanimous", "disagreement", "awaiting"


@dataclass
class Standing:
    """One response's judgements by the participants, and its final bucket if any."""

    response_id: int
    item_id: int
    buckets: dict[int, str]  # assignment id -> bucket
    recheck: set[int]  # assignment ids whose judgement awaits a re-check
    final: FinalBucket | None = None
    notes: dict[int, str] = field(default_factory=dict)  # assignment id -> the scorer's note

    def state(self, n_participants: int) -> str:
        if len(self.buckets) < n_participants or self.recheck:
            return AWAITING
        return UNANIMOUS if len(set(self.buckets.values())) == 1 else DISAGREEMENT

    @property
    def decided(self) -> bool:
        """Set by a lead (a unanimous row is not a decision)."""
        return self.final is not None and not self.final.unanimous


def standings(
    experiment: Experiment, assignments: list[Assignment], *, item: ExperimentItem | None = None
) -> dict[int, Standing]:
    """Response id -> Standing, for the whole experiment or one item (three queries)."""
    responses = Response.objects.filter(run__experiment=experiment)
    if item is not None:
        responses = responses.filter(item=item)
    result = {
        pk: Standing(pk, item_id, {}, set())
        for pk, item_id in responses.values_list("pk", "item_id").order_by()
    }
    judgements = Judgement.objects.filter(
        assignment__in=[a.pk for a in assignments], response_id__in=list(result)
    ).values_list("response_id", "assignment_id", "bucket", "needs_recheck", "note")
    for response_id, assignment_id, bucket, recheck, note in judgements.order_by():
        standing = result[response_id]
        standing.buckets[assignment_id] = bucket
        if recheck:
            standing.recheck.add(assignment_id)
        if note:
            standing.notes[assignment_id] = note
    for final in FinalBucket.objects.filter(response_id__in=list(result)).select_related(
        "decided_by"
    ):
        result[final.response_id].final = final
    return result


@dataclass
class ItemSummary:
    position: int
    question: str
    block_code: str
    disagreements: int = 0
    decided: int = 0
    awaiting: int = 0
    dropped: bool = False

    @property
    def open(self) -> int:
        return self.disagreements - self.decided


@dataclass
class ReconcileSummary:
    reconciliation: Reconciliation
    labels: dict[int, str]
    progress: list[ScorerProgress]
    total: int = 0
    unanimous: int = 0
    disagreements: int = 0
    decided: int = 0
    awaiting: int = 0
    items: list[ItemSummary] = field(default_factory=list)  # items with disagreements or waits

    @property
    def open(self) -> int:
        return self.disagreements - self.decided

    @property
    def complete(self) -> bool:
        """Every response has its final bucket."""
        return self.open == 0 and self.awaiting == 0

    @property
    def first_open_position(self) -> int | None:
        for item in self.items:
            if item.open:
                return item.position
        return self.items[0].position if self.items else None


def reconcile_summary(experiment: Experiment) -> ReconcileSummary | None:
    """Where reconciliation stands, item by item; None before it has begun."""
    reconciliation = reconciliation_of(experiment)
    if reconciliation is None:
        return None
    progress = scorer_progress(experiment)
    parts = [p.assignment for p in progress if p.complete]
    summary = ReconcileSummary(
        reconciliation, scorer_labels(parts, named=reconciliation.name_scorers), progress
    )
    items = {
        item.pk: ItemSummary(item.position, item.question, item.block_code)
        for item in ExperimentItem.objects.filter(experiment=experiment).only(
            "pk", "position", "question", "block_code"
        )
    }
    dropped = set(dropped_items(experiment).values_list("pk", flat=True))
    for pk in dropped:
        items[pk].dropped = True
    for standing in standings(experiment, parts).values():
        summary.total += 1
        state = standing.state(len(parts))
        item = items[standing.item_id]
        if state == UNANIMOUS:
            summary.unanimous += 1
        elif state == AWAITING:
            summary.awaiting += 1
            item.awaiting += 1
        else:
            summary.disagreements += 1
            item.disagreements += 1
            if standing.decided:
                summary.decided += 1
                item.decided += 1
    summary.items = sorted(
        (i for i in items.values() if i.disagreements or i.awaiting), key=lambda i: i.position
    )
    return summary


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
        key_info=selectors.key_in_force(item),
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


# --------------------------------------------------------------------------------------------
# Agreement
# --------------------------------------------------------------------------------------------


@dataclass
class PairTable:
    a: str
    b: str
    table: agreement.ConfusionRows
    cohen_kappa: float | None
    percent: float | None


@dataclass
class BlockAgreement:
    code: str
    title: str
    summary: agreement.AgreementSummary


@dataclass
class AgreementReport:
    labels: list[str]  # scorer columns
    overall: agreement.AgreementSummary
    blocks: list[BlockAgreement]
    pairs: list[PairTable]
    bucket_labels: dict[str, str]
    left_out: int  # UNKNOWN answers every scorer left at the preset: nobody judged them
    awaiting: int  # judgements awaiting a re-check (counted with their current bucket)


def agreement_report(experiment: Experiment) -> AgreementReport | None:
    """Agreement between the scorers who have judged every response; None with fewer than two.

    The units are the experiment's responses. UNKNOWN answers that every scorer left at the
    preset Abstained are left out: nobody judged them, and counting them would inflate agreement.
    """
    parts = participants(experiment)
    if len(parts) < 2:
        return None
    reconciliation = reconciliation_of(experiment)
    named = reconciliation.name_scorers if reconciliation else False
    labels = scorer_labels(parts, named=named)
    rows = Judgement.objects.filter(assignment__in=[a.pk for a in parts]).values_list(
        "response_id",
        "assignment_id",
        "bucket",
        "verdict",
        "needs_recheck",
        "response__item__block_code",
        "response__item__block_title",
    )
    triples: dict[int, list[tuple[int, str]]] = defaultdict(list)
    judged: set[int] = set()
    blocks: dict[int, tuple[str, str]] = {}
    awaiting = 0
    for response_id, assignment_id, bucket, verdict, recheck, code, title in rows.order_by():
        triples[response_id].append((assignment_id, bucket))
        blocks[response_id] = (code, title)
        # Presets and carried buckets are the same for every scorer by construction: nobody
        # judged them here, and counting them would inflate agreement.
        if verdict not in (Judgement.Verdict.PRESET, Judgement.Verdict.CARRIED):
            judged.add(response_id)
        awaiting += bool(recheck)
    units = sorted(judged)
    raters = [a.pk for a in parts]

    def table_for(unit_ids):
        return agreement.ratings_table(
            ((u, rater, bucket) for u in unit_ids for rater, bucket in triples[u]), raters=raters
        )

    overall = table_for(units)
    by_block: dict[tuple[str, str], list[int]] = defaultdict(list)
    for unit in units:
        by_block[blocks[unit]].append(unit)
    scheme = experiment.scheme_obj
    order = list(scheme.buckets)
    pairs = []
    for a, b in combinations(parts, 2):
        col_a, col_b = overall.rater_column(a.pk), overall.rater_column(b.pk)
        pair_rows = [(x, y) for x, y in zip(col_a, col_b, strict=True)]
        pairs.append(
            PairTable(
                labels[a.pk],
                labels[b.pk],
                agreement.confusion_rows(col_a, col_b, order),
                agreement.cohen_kappa(col_a, col_b),
                agreement.percent_agreement(pair_rows),
            )
        )
    return AgreementReport(
        labels=[labels[a.pk] for a in parts],
        # AC1's chance agreement depends on how many buckets there were to choose from: the
        # scheme's, not only those someone happened to use.
        overall=agreement.agreement_summary(overall.ratings, categories=order),
        blocks=[
            BlockAgreement(
                code, title, agreement.agreement_summary(table_for(ids).ratings, categories=order)
            )
            for (code, title), ids in sorted(by_block.items())
        ],
        pairs=pairs,
        bucket_labels={b: scheme.bucket_label(b) for b in order},
        left_out=len(triples) - len(units),
        awaiting=awaiting,
    )


# --------------------------------------------------------------------------------------------
# Writes
# --------------------------------------------------------------------------------------------


@transaction.atomic
def scorers_invite(*, experiment: Experiment, users: list, invited_by) -> list[Assignment]:
    """Invite team members (role scorer or above) to score the experiment, each blind and alone."""
    if not users:
        raise ValidationError(_("Choose at least one member to invite."))
    allowed = {m.user_id for m in scorer_candidates(experiment)}
    refused = [u.get_username() for u in users if u.pk not in allowed]
    if refused:
        raise ValidationError(
            _("Not a member who may score, or already scoring: %(names)s.")
            % {"names": ", ".join(sorted(refused))}
        )
    return [
        assignment_start(experiment=experiment, user=user, invited_by=invited_by) for user in users
    ]


@transaction.atomic
def reconciliation_start(*, experiment: Experiment, user) -> Reconciliation:
    """Open the scorers' buckets to the leads; unanimous responses are final at once."""
    experiment = (
        Experiment.objects.select_for_update(of=("self",))
        .select_related("team")
        .get(pk=experiment.pk)
    )
    if reconciliation_of(experiment) is not None:
        raise ValidationError(_("Reconciliation has already begun."))
    if not scoring_open(experiment):
        raise ValidationError(_("Scoring has not opened: every run must be collected first."))
    progress = scorer_progress(experiment)
    own = next((p for p in progress if p.assignment.user_id == user.pk), None)
    if own is not None and not own.finished:
        raise ValidationError(
            _(
                "You are scoring this experiment too: judge every response (and every re-check) first."
            )
        )
    finished = [p for p in progress if p.finished]
    if len(finished) < 2:
        raise ValidationError(
            _("Reconciliation needs two scorers who have judged every response: %(n)s so far.")
            % {"n": len(finished)}
        )
    reconciliation = Reconciliation.objects.create(
        experiment=experiment, started_by=user, name_scorers=experiment.team.show_scorer_names
    )
    final_buckets_sync(experiment=experiment)
    return reconciliation


@transaction.atomic
def final_buckets_sync(*, experiment: Experiment) -> dict[str, int]:
    """Bring the unanimous final buckets in line with the participants' judgements.

    Idempotent. A response on which every participant agrees (none awaiting a re-check) gets a
    unanimous row; a unanimous row whose response is no longer unanimous is removed, so that it
    shows as a disagreement again. A lead's decision is never touched. Does nothing with fewer
    than two participants (one scorer's bucket is not an agreement).
    """
    parts = participants(experiment)
    counts = {"created": 0, "updated": 0, "removed": 0}
    if len(parts) < 2 or reconciliation_of(experiment) is None:
        return counts
    create, update, remove = [], [], []
    for standing in standings(experiment, parts).values():
        final = standing.final
        if final is not None and not final.unanimous:
            continue
        if standing.state(len(parts)) == UNANIMOUS:
            bucket = next(iter(standing.buckets.values()))
            if final is None:
                create.append(
                    FinalBucket(response_id=standing.response_id, bucket=bucket, unanimous=True)
                )
            elif final.bucket != bucket:
                final.bucket = bucket
                update.append(final)
        elif final is not None:
            remove.append(final.pk)
    FinalBucket.objects.bulk_create(create)
    FinalBucket.objects.bulk_update(update, ["bucket"])
    FinalBucket.objects.filter(pk__in=remove, unanimous=True).delete()
    counts.update(created=len(create), updated=len(update), removed=len(remove))
    return counts


@transaction.atomic
def final_bucket_set(
    *, experiment: Experiment, response: Response, user, bucket: str, note: str = ""
) -> FinalBucket:
    """A lead's final bucket for a response, with a note."""
    if reconciliation_of(experiment) is None:
        raise ValidationError(_("Reconciliation has not begun."))
    if response.run.experiment_id != experiment.pk:
        raise ValidationError(_("That response is not in this experiment."))
    if not decisions_visible(experiment, user):
        raise ValidationError(_("Judge every response of your own first."))
    if not experiment.scheme_obj.allows(bucket):
        raise ValidationError(
            {"bucket": _("Choose a bucket of this experiment's scheme (keys 1 to 4).")}
        )
    final, _created = FinalBucket.objects.select_for_update().update_or_create(
        response=response,
        defaults={"bucket": bucket, "unanimous": False, "decided_by": user, "note": note.strip()},
    )
    return final


# --------------------------------------------------------------------------------------------
# For the report: bucket sources of the same shape as a scorer's judgements
# --------------------------------------------------------------------------------------------


def final_bucket_rows(experiment: Experiment) -> QuerySet[FinalBucket]:
    """The team's final buckets: one row per settled response (``response`` FK, ``bucket``).

    Dropped (ambiguous) items are left out. Responses still open (a disagreement no lead has
    settled, or a judgement awaiting a re-check) have no row: ``reconcile_summary(e).complete``
    says whether every response has one. Empty before reconciliation begins.
    """
    return FinalBucket.objects.filter(response__run__experiment=experiment).exclude(
        response__item__in=dropped_items(experiment)
    )


def scorer_bucket_rows(assignment: Assignment) -> QuerySet[Judgement]:
    """One scorer's buckets, dropped items left out, in the same shape as final_bucket_rows."""
    return Judgement.objects.filter(assignment=assignment).exclude(
        response__item__in=dropped_items(assignment.experiment)
    )


def key_changes(experiment: Experiment) -> QuerySet[KeyDecision]:
    """The key decisions that changed something (amended or dropped), for the report."""
    return (
        KeyDecision.objects.filter(experiment=experiment)
        .exclude(outcome=KeyDecision.Outcome.CONFIRMED)
        .select_related("item", "decided_by")
        .order_by("item__position", "pk")
    )
