"""Reads for the blind queue: what one scorer sees of one item, and nothing that names a model."""

import hashlib
import hmac
import random
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Q

from probe.models import Experiment, ExperimentItem, Response
from probe.sheetparser import normalise_answer

from .models import Assignment, Judgement, KeyDispute


def answer_token(assignment: Assignment, response_pk: int) -> str:
    """An opaque name for a response, different for every scorer (never a response or run id)."""
    message = f"answer:{assignment.pk}:{response_pk}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:20]


def sheet_token(assignment: Assignment, run_pk: int) -> str:
    """An opaque, per-scorer name for a sheet, for the reveal."""
    message = f"sheet:{assignment.pk}:{run_pk}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:6].upper()


@dataclass
class Member:
    token: str
    response: Response
    judgement: Judgement | None

    @property
    def confidence(self) -> str:
        return self.response.confidence


@dataclass
class AnswerGroup:
    answer: str | None
    members: list[Member] = field(default_factory=list)

    @property
    def tokens(self) -> str:
        return ",".join(m.token for m in self.members)

    @property
    def first_token(self) -> str:
        return self.members[0].token

    @property
    def size(self) -> int:
        return len(self.members)

    @property
    def decided(self) -> bool:
        return all(m.judgement is not None and not m.judgement.needs_recheck for m in self.members)

    @property
    def buckets(self) -> list[str]:
        """The distinct buckets of the group's judgements, in member order."""
        seen: list[str] = []
        for m in self.members:
            if m.judgement is not None and m.judgement.bucket not in seen:
                seen.append(m.judgement.bucket)
        return seen

    @property
    def confidences(self) -> list[str]:
        return [m.response.confidence or "–" for m in self.members]

    @property
    def any_high(self) -> bool:
        return any(m.response.confidence == "HIGH" for m in self.members)

    @property
    def abstained(self) -> bool:
        return all(m.response.abstained or m.response.answer is None for m in self.members)

    @property
    def missing(self) -> bool:
        return all(m.response.answer is None for m in self.members)

    @property
    def open_bucket(self) -> bool:
        """The parse leaves the bucket open for a wrong answer (no confidence, or a hedge)."""
        return any(
            not (m.response.abstained or m.response.answer is None)
            and (m.response.hedged or not m.response.confidence)
            for m in self.members
        )

    @property
    def issues(self) -> list[str]:
        seen: list[str] = []
        for m in self.members:
            for issue in m.response.issues:
                if issue not in seen:
                    seen.append(issue)
        return seen

    @property
    def needs_recheck(self) -> bool:
        return any(m.judgement is not None and m.judgement.needs_recheck for m in self.members)


@dataclass
class QueueItem:
    item: ExperimentItem
    groups: list[AnswerGroup]
    n_items: int
    judged: int
    total: int
    disputes: list[KeyDispute]
    rechecks: int = 0

    @property
    def item_done(self) -> bool:
        return all(g.decided for g in self.groups)

    @property
    def previous(self) -> int | None:
        return self.item.position - 1 if self.item.position > 1 else None

    @property
    def next(self) -> int | None:
        return self.item.position + 1 if self.item.position < self.n_items else None

    @property
    def percent(self) -> int:
        return round(100 * self.judged / self.total) if self.total else 100

    @property
    def all_done(self) -> bool:
        return self.judged >= self.total


def shuffled(assignment: Assignment, position: int, responses: list[Response]) -> list[Response]:
    """Shuffle per item and per scorer, stable on reload (seeded by the scorer's token)."""
    ordered = sorted(responses, key=lambda r: r.pk)
    random.Random(f"{assignment.token}:{position}").shuffle(ordered)
    return ordered


def group_responses(
    assignment: Assignment, responses: list[Response], judgements: dict
) -> list[AnswerGroup]:
    groups: dict[str, AnswerGroup] = {}
    for response in responses:
        key = "\x00missing" if response.answer is None else normalise_answer(response.answer)
        if key == "":
            key = "\x00empty"
        group = groups.setdefault(key, AnswerGroup(answer=response.answer))
        group.members.append(
            Member(answer_token(assignment, response.pk), response, judgements.get(response.pk))
        )
    return list(groups.values())


def queue_item(assignment: Assignment, position: int) -> QueueItem | None:
    """Everything one scoring page needs, in a fixed number of queries whatever the sheets."""
    experiment = assignment.experiment
    item = ExperimentItem.objects.filter(experiment=experiment, position=position).first()
    if item is None:
        return None
    # Only the fields the page shows: nothing that reaches a run's identity.
    responses = list(
        Response.objects.filter(item=item).only(
            "pk", "answer", "confidence", "abstained", "hedged", "issues", "item_id"
        )
    )
    judgements = {
        j.response_id: j
        for j in Judgement.objects.filter(assignment=assignment, response__item=item)
    }
    counts = Judgement.objects.filter(assignment=assignment).aggregate(
        judged=Count("pk", filter=Q(needs_recheck=False)),
        rechecks=Count("pk", filter=Q(needs_recheck=True)),
    )
    n_items, total = experiment_size(experiment)
    disputes = list(KeyDispute.objects.filter(assignment=assignment, item=item))
    return QueueItem(
        item=item,
        groups=group_responses(assignment, shuffled(assignment, position, responses), judgements),
        n_items=n_items,
        judged=counts["judged"],
        total=total,
        disputes=disputes,
        rechecks=counts["rechecks"],
    )


def experiment_size(experiment: Experiment) -> tuple[int, int]:
    """(items, responses): fixed once collection is complete, so kept in the cache."""
    finished = experiment.collection_finished.timestamp() if experiment.collection_finished else 0
    key = f"experiment-size:{experiment.pk}:{experiment.status}:{finished:.6f}"
    size = cache.get(key)
    if size is None:
        size = (
            ExperimentItem.objects.filter(experiment=experiment).count(),
            Response.objects.filter(run__experiment_id=experiment.pk).count(),
        )
        if experiment.status == Experiment.Status.COLLECTED:
            cache.set(key, size, 3600)
    return size


def resolve_tokens(assignment: Assignment, position: int, tokens: list[str]) -> list[Response]:
    """The responses of an item named by this scorer's opaque tokens (unknown tokens ignored)."""
    wanted = set(tokens)
    responses = Response.objects.filter(
        item__experiment=assignment.experiment, item__position=position
    )
    return [r for r in responses if answer_token(assignment, r.pk) in wanted]


def first_open_position(assignment: Assignment) -> int:
    """Where to resume: a re-check first, else the first item with an unjudged response."""
    recheck = (
        Judgement.objects.filter(assignment=assignment, needs_recheck=True)
        .order_by("response__item__position")
        .values_list("response__item__position", flat=True)
        .first()
    )
    if recheck:
        return recheck
    undecided = (
        Response.objects.filter(run__experiment=assignment.experiment)
        .exclude(judgements__assignment=assignment)
        .order_by("item__position")
        .values_list("item__position", flat=True)
        .first()
    )
    return undecided or assignment.last_position or 1


def blinded(experiment: Experiment, user, role: str) -> bool:
    """Whether this user must not see which model wrote which sheet of this experiment."""
    assignment = (
        Assignment.objects.filter(experiment=experiment, user=user).only("revealed_at").first()
    )
    if assignment is not None:
        return assignment.revealed_at is None
    return role == "scorer"
