"""Reads for the blind queue: what one scorer sees of one item, and nothing that names a model."""

import hashlib
import hmac
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Q
from django.utils.crypto import salted_hmac

from probe.models import Experiment, ExperimentItem, Response
from probe.sheetparser import normalise_answer
from scoring.allocation import selectors as shares
from scoring.models import Assignment, Judgement, KeyDispute
from scoring.queue.presets import preset_count
from scoring.review.keys import KeyInForce, key_in_force
from scoring.schemes import ask_first_buckets


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
    def state(self) -> str:
        """What the scorer's page believes of the group, sent back with a decision so that the
        server can tell a decision made elsewhere since (another tab): "" undecided, the
        buckets in order of value, or "mixed" when some members are judged and some not."""
        return group_state([m.judgement for m in self.members])

    @property
    def variants(self) -> list[str]:
        """The other ways the group's answers are written (grouped by ``group_key``: the same
        once normalised), each once, in member order: shown beside the answer, so that a
        decision on the group hides no wording the scorer did not see."""
        if self.abstained:
            return []
        seen = [" ".join((self.answer or "").split())]
        for m in self.members:
            text = " ".join((m.response.answer or "").split())
            if text not in seen:
                seen.append(text)
        return seen[1:]

    @property
    def confidences(self) -> list[str]:
        return [m.response.confidence or "–" for m in self.members]

    @property
    def confidence_counts(self) -> list[tuple[str, int]]:
        """Each confidence the group's answers were given with, and how many: one chip each."""
        counts: dict[str, int] = {}
        for m in self.members:
            label = m.response.confidence or "–"
            counts[label] = counts.get(label, 0) + 1
        return list(counts.items())

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

    @property
    def note(self) -> str:
        """The scorer's own note on the group (the same on every member once saved)."""
        return next(
            (m.judgement.note for m in self.members if m.judgement and m.judgement.note), ""
        )


@dataclass
class QueueItem:
    item: ExperimentItem
    key: KeyInForce
    groups: list[AnswerGroup]
    n_items: int
    judged: int
    total: int
    disputes: list[KeyDispute]
    rechecks: int = 0
    carried: int = 0  # answers of this item that carry a bucket: not shown, already decided
    graded: int = 0  # answers of this item a grader decided (routing): not shown either
    preset: int = 0  # of ``judged``, those set before the scorer began (presets.preset_count)
    # With the items shared out: which of the scorer's own items it is, and their neighbours.
    number: int | None = None
    around: tuple[int | None, int | None] = (None, None)
    high_wrong_confirmed: bool = False  # a HIGH answer of this item already marked wrong

    @property
    def item_done(self) -> bool:
        return all(g.decided for g in self.groups)

    @property
    def previous(self) -> int | None:
        if self.number is not None:
            return self.around[0]
        return self.item.position - 1 if self.item.position > 1 else None

    @property
    def next(self) -> int | None:
        if self.number is not None:
            return self.around[1]
        return self.item.position + 1 if self.item.position < self.n_items else None

    @property
    def percent(self) -> int:
        return round(100 * self.judged / self.total) if self.total else 100

    @property
    def all_done(self) -> bool:
        return self.judged >= self.total


def group_state(judgements: list) -> str:
    """A group's decision state from its members' judgements (None: not judged)."""
    judged = [j for j in judgements if j is not None]
    if not judged:
        return ""
    if len(judged) < len(judgements):
        return "mixed"
    return ",".join(sorted({j.bucket for j in judged}))


def key_version(assignment: Assignment, item_pk: int, decision_pk: int | None) -> str:
    """An opaque name for the key in force on an item as one scorer's page showed it: a decision
    sent with an older one was made against a key amended since."""
    value = f"{assignment.pk}:{item_pk}:{decision_pk or 0}"
    return salted_hmac("scoring.key", value, algorithm="sha256").hexdigest()[:16]


def is_confident_wrong(verdict: str, bucket: str) -> bool:
    return verdict == Judgement.Verdict.WRONG or bucket in ask_first_buckets()


def high_wrong_confirmed(assignment: Assignment, *, item_id: int) -> bool:
    """Whether this scorer already put a HIGH-confidence answer of the item in a wrong bucket."""
    return Judgement.objects.filter(
        assignment=assignment,
        response__item_id=item_id,
        response__confidence="HIGH",
        bucket__in=ask_first_buckets(),
    ).exists()


def shuffle_rank(assignment_pk: int, item_pk: int, response_pk: int) -> str:
    """A response's place on one scorer's item: an HMAC under the server's secret.

    Over identifiers the scorer never sees (the assignment's, the item's and the response's
    primary keys, not the URL token), so nothing the scorer can fetch replays it; sorting by it
    does not depend on the order responses were stored in, is stable on reload, and differs
    between scorers and between items.
    """
    value = f"{assignment_pk}:{item_pk}:{response_pk}"
    return salted_hmac("scoring.shuffle", value, algorithm="sha256").hexdigest()


def shuffled(assignment: Assignment, responses: list[Response]) -> list[Response]:
    """The responses of one item in this scorer's order (see ``shuffle_rank``)."""
    return sorted(responses, key=lambda r: shuffle_rank(assignment.pk, r.item_id, r.pk))


def group_key(response: Response) -> str:
    """What the scoring page groups by: the answer normalised (``normalise_answer``: Unicode
    NFKC, so full-width and half-width are one; case folded; whitespace collapsed; markdown
    emphasis, surrounding quotes and brackets, and trailing punctuation dropped: "Paris",
    " paris. " and "ＰＡＲＩＳ" are one group); every abstention ("UNKNOWN", "Unknown.") is
    one group, and a missing answer another."""
    if response.answer is None:
        return "\x00missing"
    if response.abstained:
        return "\x00abstained"
    return normalise_answer(response.answer) or "\x00empty"


def group_responses(
    assignment: Assignment, responses: list[Response], judgements: dict
) -> list[AnswerGroup]:
    groups: dict[str, AnswerGroup] = {}
    for response in responses:
        # The answer as shown: without the blanks around it, which the grouping ignores too.
        shown = response.answer.strip() if response.answer is not None else None
        group = groups.setdefault(group_key(response), AnswerGroup(answer=shown))
        group.members.append(
            Member(answer_token(assignment, response.pk), response, judgements.get(response.pk))
        )
    return list(groups.values())


def progress_stored(assignment: Assignment) -> dict[str, int] | None:
    """The counters kept on the assignment (one lookup by primary key), None when unknown."""
    judged, rechecks = (
        Assignment.objects.filter(pk=assignment.pk)
        .values_list("progress_judged", "progress_rechecks")
        .get()
    )
    if judged is None or rechecks is None:
        return None
    return {"judged": judged, "rechecks": rechecks}


def progress_counted(assignment: Assignment) -> dict[str, int]:
    """The scorer's judgements that stand and those sent back for a re-check, counted."""
    return Judgement.objects.filter(assignment=assignment).aggregate(
        judged=Count("pk", filter=Q(needs_recheck=False)),
        rechecks=Count("pk", filter=Q(needs_recheck=True)),
    )


def assignment_counts(assignment: Assignment) -> dict[str, int]:
    """The scorer's judgements that stand and those sent back for a re-check.

    Read from the counters kept on the assignment (one lookup by primary key, whatever the
    number of judgements); counted when they are unknown. It writes nothing: a decision keeps
    the counters through ``scoring.queue.progress.progress_counts_store``."""
    return progress_stored(assignment) or progress_counted(assignment)


def queue_item(assignment: Assignment, position: int) -> QueueItem | None:
    """Everything one scoring page needs, in a fixed number of queries whatever the sheets."""
    experiment = assignment.experiment
    item = ExperimentItem.objects.filter(experiment=experiment, position=position).first()
    share = shares.allocated_item_ids(assignment)
    if item is None or (share is not None and item.pk not in share):
        return None  # not in this scorer's share of the items
    # Only the fields the page shows: nothing that reaches a run's identity.
    responses = list(
        Response.objects.filter(item=item)
        .exclude(pk__in=shares.skipped_responses(assignment) if share is not None else [])
        .only("pk", "answer", "confidence", "abstained", "hedged", "issues", "item_id")
    )
    judgements = {
        j.response_id: j
        for j in Judgement.objects.filter(
            assignment=assignment, response_id__in=[r.pk for r in responses]
        ).only("pk", "response_id", "bucket", "verdict", "needs_recheck", "note")
    }
    counts = assignment_counts(assignment)
    # Carried buckets are decided already: their answers stay out of the queue.
    carried = {pk for pk, j in judgements.items() if j.verdict == Judgement.Verdict.CARRIED}
    # So are the answers a grader decided when the experiment is routed (an audit answer has
    # no such judgement: it is an open answer like any other).
    graded = {pk for pk, j in judgements.items() if j.verdict == Judgement.Verdict.GRADED}
    responses = [r for r in responses if r.pk not in carried and r.pk not in graded]
    n_items, total = experiment_size(experiment)
    number, around = None, (None, None)
    if share is not None:
        n_items, total = len(share), shares.scorer_total(assignment)
        number, around = shares.share_place(share, position)
    disputes = list(KeyDispute.objects.filter(assignment=assignment, item=item))
    return QueueItem(
        item=item,
        key=key_in_force(item),
        groups=group_responses(assignment, shuffled(assignment, responses), judgements),
        n_items=n_items,
        judged=counts["judged"],
        total=total,
        disputes=disputes,
        rechecks=counts["rechecks"],
        carried=len(carried),
        graded=len(graded),
        preset=preset_count(assignment),
        number=number,
        around=around,
        high_wrong_confirmed=experiment.confirm_wrong == Experiment.ConfirmWrong.ONCE
        and high_wrong_confirmed(assignment, item_id=item.pk),
    )


def experiment_size(experiment: Experiment) -> tuple[int, int]:
    """(items, responses): fixed once collection is complete, so kept in the cache."""
    finished = experiment.collection_finished.timestamp() if experiment.collection_finished else 0
    # The creation time too: a primary key is reused by another database sharing the cache
    # (a benchmark's throwaway one, a test's), and an experiment marked collected by hand has
    # no finishing time.
    key = (
        f"experiment-size:{experiment.pk}:{experiment.created.timestamp():.6f}:"
        f"{experiment.status}:{finished:.6f}"
    )
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
    responses = item_responses(assignment.experiment, position)
    return [r for r in responses if answer_token(assignment, r.pk) in wanted]


def item_responses(experiment: Experiment, position: int):
    """The responses of the experiment's item at ``position``, with what a decision reads."""
    return Response.objects.filter(item__experiment=experiment, item__position=position).only(
        "pk", "item_id", "answer", "confidence", "abstained", "hedged"
    )


def blinded(experiment: Experiment, user, role: str) -> bool:
    """Whether this user must not see which model wrote which sheet of this experiment."""
    assignment = (
        Assignment.objects.filter(experiment=experiment, user=user).only("revealed_at").first()
    )
    if assignment is not None:
        return assignment.revealed_at is None
    return role == "scorer"


def run_bucket_counts(assignment: Assignment) -> dict[int, dict[str, int]]:
    """This scorer's judgements per run and bucket: for the reveal only, once the sheets have names."""
    counts: dict[int, dict[str, int]] = {}
    for run_id, bucket, n in (
        Judgement.objects.filter(assignment=assignment)
        .values("response__run_id", "bucket")
        .annotate(n=Count("pk"))
        .values_list("response__run_id", "bucket", "n")
    ):
        counts.setdefault(run_id, {})[bucket] = n
    return counts
