"""Agreement between the scorers of an experiment, from their judgements (scoring.agreement.figures
has the measures): overall, per block, and a confusion table per pair of scorers."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

from probe.models import Experiment
from scoring.agreement import figures as agreement
from scoring.allocation.selectors import allocation_of
from scoring.models import Judgement
from scoring.reconciliation.selectors import participants, reconciliation_of, scorer_labels


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
    # With the items shared out (each to k of the pool): the responses judged by two or more
    # scorers, the only ones agreement is computed on; None when every scorer judged all.
    overlap: int | None = None
    per_item: int | None = None


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
    shared = allocation_of(experiment)
    if shared is not None:
        # Agreement needs two judgements of the same response: the overlapping items only.
        judged = {u for u in judged if len(triples[u]) >= 2}
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
        # Both scorers judged the response (always so when every scorer judges every item).
        both = [
            (x, y) for x, y in zip(col_a, col_b, strict=True) if x is not None and y is not None
        ]
        if not both:
            continue  # two scorers who share no item: nothing to compare
        col_a, col_b = [x for x, _y in both], [y for _x, y in both]
        pair_rows = both
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
        left_out=len(triples) - len(units) if shared is None else 0,
        awaiting=awaiting,
        overlap=len(units) if shared is not None else None,
        per_item=shared.per_item if shared is not None else None,
    )
