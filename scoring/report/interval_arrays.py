"""The report's bucket rows as the arrays its intervals are computed from.

scoring.report.intervals reads the source's rows (scoring.report.rows) once as per-run arrays
of bucket and confidence codes over the items in a fixed order, and the 0/1 arrays its
bootstrap columns and paired tests are sums of.
"""

from __future__ import annotations

import numpy as np

from scoring.report.rows import NO_CONFIDENCE, BucketRows

__all__ = ["HIGH", "LOW", "MEDIUM", "load_arrays", "load_rows"]

HIGH, MEDIUM, LOW = range(3)


def load_rows(rows: BucketRows, report):
    """Per-run (n_items,) arrays of bucket codes and confidence codes, and each item's block.

    From the source's rows (scoring.report.rows), with the buckets numbered as the report's
    scheme numbers them. An item no run has a bucket for appears in no row; the report's block
    sizes say how many such items each block has, and they are added as items with no bucket
    (they count nowhere, as in the figures, but are drawn in the bootstrap like any other item).
    Items are ordered by block, then primary key, so the same data always give the same
    resamples.
    """
    block_codes = [block.code for block in report.blocks]
    scheme_buckets = list(report.bucket_names)
    to_scheme = np.array(
        [scheme_buckets.index(b) if b in scheme_buckets else -1 for b in rows.bucket_names] + [-1],
        dtype=np.int8,
    )
    row_blocks = rows.item_codes("block_code", block_codes)
    row_buckets = to_scheme[rows.bucket]  # -1 (no bucket of the source's) reads the last entry
    runs = report.runs
    run_rows = rows.run_codes([run.pk for run in runs])
    run_index = {run.pk: r for r, run in enumerate(runs)}
    # Items: unique (block, item) pairs in that order; index = rank among them (the items are
    # numbered in primary key order).
    span = len(rows.items) + 1
    keys, inverse = np.unique((row_blocks + 1) * span + rows.item, return_inverse=True)
    item_blocks = keys // span - 1
    blocks = [block_codes[k] if k >= 0 else "" for k in item_blocks.tolist()]
    item_index = (keys % span).tolist()  # into rows.items; -1 for an item with no row
    seen = np.bincount(item_blocks[item_blocks >= 0], minlength=len(block_codes))
    for k, block in enumerate(report.blocks):
        padding = max(block.n_items - int(seen[k]), 0)
        blocks.extend([block.code] * padding)
        item_index.extend([-1] * padding)
    n = len(blocks)
    buckets = np.full((len(runs), n), -1, dtype=np.int8)
    confidence = np.full((len(runs), n), NO_CONFIDENCE, dtype=np.int8)
    known = run_rows >= 0
    if known.any():
        r = run_rows[known]
        i = inverse.reshape(-1)[known]
        buckets[r, i] = row_buckets[known]
        confidence[r, i] = rows.level[known]
    return blocks, buckets, confidence, run_index, item_index


def load_arrays(report, rows: BucketRows):
    """load_rows, and the (runs, items) arrays: correct, penalised, attempted (0/1 floats),
    rated HIGH and rated HIGH or MEDIUM (attempted answers only)."""
    blocks, buckets, confidence, run_index, item_index = load_rows(rows, report)
    scheme = report.scheme_obj
    names = list(report.bucket_names)
    correct_b, pen_b = names.index(scheme.correct), names.index(scheme.penalised)
    abstain_b = names.index(scheme.abstain) if scheme.abstain in names else -1
    attempted_mask = (buckets >= 0) & (buckets != abstain_b)
    is_correct = (buckets == correct_b).astype(float)
    is_pen = (buckets == pen_b).astype(float)
    high = (confidence == HIGH) & attempted_mask
    high_medium = ((confidence == HIGH) | (confidence == MEDIUM)) & attempted_mask
    arrays = (is_correct, is_pen, attempted_mask.astype(float), high, high_medium)
    return blocks, buckets, confidence, run_index, item_index, arrays
