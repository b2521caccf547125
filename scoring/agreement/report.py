"""Agreement between the scorers of an experiment, from their judgements (scoring.agreement.figures
has the measures): overall, per block, and a confusion table per pair of scorers.

The participants' judgements are read once as numpy arrays (a matrix of bucket codes, responses
x scorers: scoring.agreement.arrays) and every figure is computed from it, a block's from its
rows. The figures are kept in Django's cache under the experiment and a version of its
participants' judgements (who takes part, how many judgements, the newest change, how many
await a re-check), so a page loaded again computes nothing until a judgement changes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from django.core.cache import cache
from django.db.models import Count, F, Max, Q

from probe.models import Experiment, ExperimentItem
from scoring.agreement import arrays
from scoring.agreement import figures as agreement
from scoring.allocation.selectors import allocation_of
from scoring.models import Assignment, Judgement
from scoring.reconciliation.selectors import participants, reconciliation_of, scorer_labels
from scoring.report.db_arrays import grouped_int_rows


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


CACHE_SECONDS = 24 * 3600
PRESETS = (Judgement.Verdict.PRESET, Judgement.Verdict.CARRIED, Judgement.Verdict.GRADED)


@dataclass
class _Figures:
    """What the cache keeps: everything but the labels (translated, and chosen by the team)."""

    overall: agreement.AgreementSummary
    blocks: list[tuple[str, str, agreement.AgreementSummary]]
    pairs: list[tuple[int, int, arrays.PairFigures]]  # rater columns i < j, and their figures
    left_out: int
    awaiting: int
    units: int


def judgements_version(experiment: Experiment, raters: list[int]) -> str:
    """Changes whenever a participant's judgement is made, changed, sent back or removed (one
    aggregate query): the cache key of the agreement figures."""
    state = Judgement.objects.filter(assignment__in=raters).aggregate(
        n=Count("pk"),
        newest=Max("updated"),
        last=Max("pk"),
        recheck=Count("pk", filter=Q(needs_recheck=True)),
    )
    text = repr(
        (experiment.pk, experiment.scheme, raters, sorted((k, str(v)) for k, v in state.items()))
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _figures(
    experiment: Experiment, raters: list[int], order: list[str], shared: bool = False
) -> _Figures:
    """Every figure from the participants' judgements (one query, read as integer arrays).
    ``shared``: the items were shared out, so only responses two or more scorers judged count,
    and a pair of scorers is compared on the responses both judged."""
    query = Judgement.objects.filter(assignment__in=raters).annotate(
        block=F("response__item__block_code"), title=F("response__item__block_title")
    )
    groups = grouped_int_rows(
        query,
        ["bucket", "verdict", "needs_recheck", "block", "title"],
        ["response_id", "assignment_id"],
    )
    q = len(order)
    code_of = {bucket: k for k, bucket in enumerate(order)}
    column_of = {pk: j for j, pk in enumerate(raters)}
    responses = np.unique(
        np.concatenate([ids[:, 0] for _key, ids in groups]) if groups else np.zeros(0, np.int64)
    )
    codes = np.full((len(responses), len(raters)), arrays.MISSING, dtype=np.int64)
    judged = np.zeros(len(responses), dtype=bool)
    block_of = np.zeros(len(responses), dtype=np.int64)
    block_keys: dict[tuple[str, str], int] = {}
    awaiting = 0
    for (bucket, verdict, recheck, code, title), ids in groups:
        if bucket not in code_of:
            raise ValueError(f"label(s) {[repr(bucket)]} are not in categories {order}")
        rows = np.searchsorted(responses, ids[:, 0])
        columns = np.array([column_of[a] for a in ids[:, 1].tolist()], dtype=np.int64)
        codes[rows, columns] = code_of[bucket]
        # Presets and carried buckets are the same for every scorer by construction: nobody
        # judged them here, and counting them would inflate agreement.
        if verdict not in PRESETS:
            judged[rows] = True
        block_of[rows] = block_keys.setdefault((code, title), len(block_keys))
        awaiting += len(ids) if recheck else 0
    if shared:
        # Agreement needs two judgements of the same response: the overlapping items only.
        judged &= (codes != arrays.MISSING).sum(axis=1) >= 2
    units = codes[judged]
    unit_blocks = block_of[judged]
    # The blocks in the order the experiment has them (by their first item), as the report
    # lists them: "A, 2, 3" is not "2, 3, A".
    first_at: dict[tuple[str, str], int] = {}
    for n, pair in enumerate(
        ExperimentItem.objects.filter(experiment=experiment)
        .order_by("position")
        .values_list("block_code", "block_title")
    ):
        first_at.setdefault(pair, n)
    blocks = []
    for (code, title), index in sorted(
        block_keys.items(), key=lambda kv: (first_at.get(kv[0], len(first_at)), kv[0])
    ):
        mask = unit_blocks == index
        if mask.any():
            blocks.append((code, title, arrays.summary(units[mask], q)))
    return _Figures(
        overall=arrays.summary(units, q),
        blocks=blocks,
        pairs=[
            (i, j, pair)
            for i, j in combinations(range(len(raters)), 2)
            # Two scorers who share no judged response have nothing to compare.
            if (pair := arrays.pair_figures(units, i, j, tuple(order))).table.total
        ],
        left_out=0 if shared else int(len(responses) - judged.sum()),
        awaiting=awaiting,
        units=len(units),
    )


def agreement_report(
    experiment: Experiment, parts: list[Assignment] | None = None
) -> AgreementReport | None:
    """Agreement between the scorers who have judged every response; None with fewer than two.
    ``parts``: those scorers when the caller has them already (the final report's gate counted
    them), else counted here.

    The units are the experiment's responses. UNKNOWN answers that every scorer left at the
    preset Abstained are left out: nobody judged them, and counting them would inflate agreement.
    """
    if parts is None:
        parts = participants(experiment)
    if len(parts) < 2:
        return None
    reconciliation = reconciliation_of(experiment)
    named = reconciliation.name_scorers if reconciliation else False
    labels = scorer_labels(parts, named=named)
    raters = [a.pk for a in parts]
    scheme = experiment.scheme_obj
    # AC1's chance agreement depends on how many buckets there were to choose from: the
    # scheme's, not only those someone happened to use.
    order = list(scheme.buckets)
    share = allocation_of(experiment)
    version = judgements_version(experiment, raters)
    key = f"agreement:{experiment.pk}:{version}:{'shared' if share else 'all'}"
    figures = cache.get(key)
    if figures is None:
        figures = _figures(experiment, raters, order, shared=share is not None)
        cache.set(key, figures, CACHE_SECONDS)
    return AgreementReport(
        labels=[labels[a.pk] for a in parts],
        overall=figures.overall,
        blocks=[BlockAgreement(code, title, s) for code, title, s in figures.blocks],
        pairs=[
            PairTable(
                labels[parts[i].pk],
                labels[parts[j].pk],
                pair.table,
                pair.cohen_kappa,
                pair.percent,
            )
            for i, j, pair in figures.pairs
        ],
        bucket_labels={b: scheme.bucket_label(b) for b in order},
        left_out=figures.left_out,
        awaiting=figures.awaiting,
        overlap=figures.units if share is not None else None,
        per_item=share.per_item if share is not None else None,
    )
