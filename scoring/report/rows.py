"""A bucket source read once: one row per bucket, as numpy arrays.

Every count the report shows (per run, block, confidence level, topic and answer format) and
everything that needs the items themselves (the paired bootstrap, McNemar, how often two repeats
agree) come from the same rows: (run, item, bucket, confidence level, changed after the reveal),
read in one query that scoring.report.db_arrays turns into arrays without a Python object per row; each
item's block, topic and answer format come from the experiment's items, one row per item.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db.models import F, Value

from probe.models import ExperimentItem
from scoring.metrics import CONFIDENCE_LEVELS
from scoring.report.db_arrays import grouped_int_rows
from scoring.report.source import BucketSource
from scoring.schemes import buckets_registered

__all__ = ["NO_CONFIDENCE", "BucketRows", "bucket_rows", "level_code"]

NO_CONFIDENCE = len(CONFIDENCE_LEVELS)  # the level code of an answer with no confidence
# The item facts the report slices by, as the experiment's items store them.
ITEM_FIELDS = ("block_code", "topic", "answer_kind")


@dataclass(frozen=True)
class BucketRows:
    """One row per bucket of a source; arrays of equal length, in no particular order.

    ``run``: the run's pk; ``item``: an index into ``items``; ``bucket``: an index into
    ``bucket_names`` (-1 for a value no bucket has); ``level``: an index into CONFIDENCE_LEVELS
    (NO_CONFIDENCE when the answer has none); ``unblinded``: changed after the reveal.
    ``items``: the experiment's items (every one, with or without a row), each a dict of pk and
    ITEM_FIELDS, in pk order."""

    bucket_names: tuple[str, ...]
    run: np.ndarray
    item: np.ndarray
    bucket: np.ndarray
    level: np.ndarray
    unblinded: np.ndarray
    items: list[dict]

    def __len__(self) -> int:
        return len(self.run)

    def item_codes(self, field: str, values: list[str]) -> np.ndarray:
        """Each row's item ``field`` as an index into ``values`` (-1 when not among them)."""
        index = {value: k for k, value in enumerate(values)}
        per_item = np.array([index.get(item[field], -1) for item in self.items], dtype=np.int64)
        return per_item[self.item] if len(per_item) else np.zeros(0, dtype=np.int64)

    def run_codes(self, run_pks: list[int]) -> np.ndarray:
        """Each row's run as an index into ``run_pks`` (-1 for a run not among them)."""
        pks = np.array(run_pks, dtype=np.int64)
        if not len(pks):
            return np.full(len(self.run), -1, dtype=np.int64)
        order = np.argsort(pks, kind="stable")
        place = np.minimum(np.searchsorted(pks[order], self.run), len(pks) - 1)
        return np.where(pks[order][place] == self.run, order[place], -1)

    def tally(self, *codes: tuple[np.ndarray, int]) -> np.ndarray:
        """Rows counted by the given codes and by bucket: an array of shape (size, ..., buckets).

        Each of ``codes`` is (a code per row, how many codes there are); a row with a negative
        code anywhere (or a bucket no scheme has) is counted nowhere."""
        shape = (*(size for _, size in codes), len(self.bucket_names))
        keep = self.bucket >= 0
        flat = np.zeros(len(self.run), dtype=np.int64)
        for values, size in codes:
            keep &= (values >= 0) & (values < size)
            flat = flat * size + values
        flat = flat * len(self.bucket_names) + self.bucket
        total = int(np.prod(shape))
        return np.bincount(flat[keep], minlength=total)[:total].reshape(shape)


def bucket_rows(source: BucketSource) -> BucketRows:
    """The source's rows, read in one query (and the experiment's items in another).

    The database groups the rows by bucket, confidence (as stored) and the unblinded mark, a
    dozen groups at most, and hands each group's (run, item) pairs over packed
    (scoring.report.db_arrays); the groups' keys are coded here."""
    names = tuple(buckets_registered())
    bucket_code = {name: k for k, name in enumerate(names)}
    query = source.scoped().annotate(
        g_bucket=F("bucket"),
        g_confidence=F("response__confidence"),
        g_unblinded=F(source.unblinded_field) if source.unblinded_field else Value(False),
        i_run=F("response__run_id"),
        i_item=F("response__item_id"),
    )
    groups = grouped_int_rows(
        query, ["g_bucket", "g_confidence", "g_unblinded"], ["i_run", "i_item"]
    )
    items = list(
        ExperimentItem.objects.filter(experiment=source.experiment)
        .order_by("pk")
        .values("pk", *ITEM_FIELDS)
    )
    item_pks = np.array([item["pk"] for item in items], dtype=np.int64)
    pairs = [values for _key, values in groups]
    pairs = np.concatenate(pairs) if pairs else np.zeros((0, 2), dtype=np.int64)
    sizes = [len(values) for _key, values in groups]
    codes = [
        (bucket_code.get(bucket, -1), level_code(confidence), bool(unblinded))
        for (bucket, confidence, unblinded), _values in groups
    ]
    return BucketRows(
        bucket_names=names,
        run=pairs[:, 0],
        item=np.searchsorted(item_pks, pairs[:, 1]),
        bucket=np.repeat(np.array([c[0] for c in codes], dtype=np.int64), sizes),
        level=np.repeat(np.array([c[1] for c in codes], dtype=np.int64), sizes),
        unblinded=np.repeat(np.array([c[2] for c in codes], dtype=bool), sizes),
        items=items,
    )


def level_code(confidence: str | None) -> int:
    """An answer's confidence as an index into CONFIDENCE_LEVELS; NO_CONFIDENCE when it has none
    (or one the report does not know)."""
    level = (confidence or "").strip().upper()
    return CONFIDENCE_LEVELS.index(level) if level in CONFIDENCE_LEVELS else NO_CONFIDENCE
