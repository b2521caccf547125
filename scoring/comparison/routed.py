"""The gate on a routed experiment (grading's routing, through scoring.queue.decided): the
answers a grader decided keep its bucket, corrected per configuration by the mean difference
between people and grader on the audit, so that the gate never counts the grader's labels raw.

Each grader-decided answer's (correct, confidently wrong, attempted) gets the audit's mean
(human - grader) of its configuration added: the mean over a configuration's answers of these
values is then the corrected (prediction-powered) figure of grading.ppi, item by item."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from probe.models import Experiment, Response
from scoring.queue.decided import audit_of, routed
from scoring.report.source import grader_decided

CORRECTED, HUMAN = "corrected", "human"
FIGURES = (CORRECTED, HUMAN)


@dataclass(frozen=True)
class Corrections:
    graded: np.ndarray  # sorted ids of the responses a grader decided (the audit not included)
    delta: dict[int, np.ndarray]  # configuration id -> the mean (human - grader) of 3 flags


def _flags(scheme, bucket: str) -> np.ndarray:
    return np.array(
        [bucket == scheme.correct, bucket == scheme.penalised, bucket != scheme.abstain],
        dtype=float,
    )


def corrections(experiment: Experiment, buckets: dict[int, str]) -> Corrections | None:
    """None for an experiment that is not routed."""
    if not routed(experiment):
        return None
    scheme = experiment.scheme_obj
    graded = np.array(
        sorted(grader_decided(experiment).values_list("response_id", flat=True)), dtype=np.int64
    )
    audit = audit_of(experiment)
    differences = defaultdict(list)
    for pk, config in Response.objects.filter(pk__in=list(audit)).values_list(
        "pk", "run__model_config_id"
    ):
        if pk in buckets:
            differences[config].append(_flags(scheme, buckets[pk]) - _flags(scheme, audit[pk]))
    delta = {config: np.mean(rows, axis=0) for config, rows in differences.items()}
    return Corrections(graded=graded, delta=delta)


def human_only(buckets: dict[int, str], fix: Corrections | None) -> dict[int, str]:
    """The buckets without the answers a grader decided (for a routed experiment)."""
    if fix is None:
        return buckets
    graded = set(fix.graded.tolist())
    return {pk: b for pk, b in buckets.items() if pk not in graded}


def corrected_sums(
    sums: np.ndarray, response_ids: np.ndarray, item_rows: np.ndarray, fix: Corrections, config
) -> np.ndarray:
    """``sums`` (items, 4: the three flags and the answers counted) with each grader-decided answer's correction added; ``response_ids``
    and ``item_rows``: the configuration's answers and the row of its item in ``sums``."""
    delta = fix.delta.get(config)
    if delta is None or not len(fix.graded):
        return sums
    mask = np.isin(response_ids, fix.graded)
    out = sums.astype(float)
    np.add.at(out, (item_rows[mask], slice(0, 3)), delta)
    return out
