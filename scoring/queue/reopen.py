"""Answers a grader decided (a routed experiment) that go back to people: every answer of an
item whose key is doubted after routing. Routing sends every answer of a (!) item, of a disputed
key and of a key suspect to people when it is set (before the first scorer starts); this is the
same rule for what happens later:

- a scorer disputes the item's key (``dispute_raise``);
- the key review amends it (``key_decide``);
- the item becomes a key suspect on people's word: an answer that two configurations or more
  gave (once normalised) is put by a person in a bucket that is neither correct nor the
  abstention. The (!) flag is the snapshot's and never changes after routing.

The item's ``graded`` judgements are removed from every scorer's assignment (the answers are
open in every queue again, and counted in every scorer's progress as still to judge), and the
decider is told (``decided.tell_reopened``) so that it decides them no more, for scorers who
start later too, and its figures count them as people's. Once returned, an answer stays with
people."""

from __future__ import annotations

from collections import defaultdict
from functools import partial

from django.db import transaction

from probe.models import Experiment, Response
from probe.sheetparser import normalise_answer
from scoring.models import Judgement, Reconciliation
from scoring.queue import decided
from scoring.queue.progress import progress_forget
from scoring.reconciliation.finals import final_buckets_sync

DISPUTED, AMENDED, SUSPECT = "disputed", "amended", "suspect"


@transaction.atomic
def graded_reopen(*, experiment: Experiment, item_ids: set[int], why: str) -> int:
    """Send the grader-decided answers of these items back to people; how many judgements went."""
    if not item_ids or not decided.routed(experiment):
        return 0
    decided.tell_reopened(experiment, set(item_ids), why)
    removed, _kinds = Judgement.objects.filter(
        assignment__experiment=experiment,
        response__item_id__in=item_ids,
        verdict=Judgement.Verdict.GRADED,
    ).delete()
    if removed:
        progress_forget(experiment=experiment)
        if Reconciliation.objects.filter(experiment=experiment).exists():
            final_buckets_sync(experiment=experiment)
    return removed


def people_suspects(experiment: Experiment, item_ids: set[int]) -> set[int]:
    """The items among ``item_ids`` where a person put an answer that two configurations or
    more gave in a bucket that is neither correct nor the abstention."""
    scheme = experiment.scheme_obj
    text_of: dict[int, tuple[int, str]] = {}
    configs: dict[tuple[int, str], set[int]] = defaultdict(set)
    for pk, item_id, answer, config in Response.objects.filter(
        item_id__in=item_ids, abstained=False, answer__isnull=False
    ).values_list("pk", "item_id", "answer", "run__model_config_id"):
        text = normalise_answer(answer)
        if text:
            text_of[pk] = (item_id, text)
            configs[(item_id, text)].add(config)
    wrong = (
        Judgement.objects.filter(response__in=list(text_of))
        .exclude(verdict__in=Judgement.NOT_BY_PEOPLE)
        .exclude(bucket__in=[scheme.correct, scheme.abstain])
        .values_list("response_id", flat=True)
    )
    return {text_of[pk][0] for pk in wrong if len(configs[text_of[pk]]) >= 2}


def wrong_decided(assignment, judgements, responses: dict) -> None:
    """Judgements a scorer's decisions just wrote (``Ledger.flush``): once they are committed,
    the items where one is in a wrong bucket are checked for a key suspect."""
    scheme = assignment.experiment.scheme_obj
    items = {
        responses[j.response_id].item_id
        for j in judgements
        if j.bucket not in (scheme.correct, scheme.abstain) and j.response_id in responses
    }
    if items:
        transaction.on_commit(partial(suspects_reopen, assignment.experiment, items))


def suspects_reopen(experiment: Experiment, item_ids: set[int]) -> int:
    """The grader-decided answers of the items among ``item_ids`` that became key suspects go
    back to people."""
    if not decided.routed(experiment):
        return 0
    suspects = people_suspects(experiment, item_ids)
    return graded_reopen(experiment=experiment, item_ids=suspects, why=SUSPECT)
