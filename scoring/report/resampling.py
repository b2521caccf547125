"""The bootstrap's resampling table, made once and shared.

A table of how often each item is drawn in each resample (scoring.report.stats.bootstrap_weights)
depends only on the number of items, their blocks, the number of resamples, the seed and what
is resampled. Every configuration, block and slice of a report, the final report, the API and
the exports ask for the same few tables: each is drawn once and kept, read-only, in this
process (8 MB at 1,000 items and 2,000 resamples; the last WEIGHTS_KEPT of them).
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence

import numpy as np

from scoring.report.stats import ITEMS, RESAMPLES, SEED, bootstrap_weights

__all__ = ["WEIGHTS_KEPT", "resampling_weights"]

WEIGHTS_KEPT = 6


def resampling_weights(
    n_items: int,
    blocks: Sequence[Hashable] | None = None,
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    target: str = ITEMS,
) -> np.ndarray:
    """bootstrap_weights(n_items, blocks, ...), the same values, from the shared tables."""
    key = None if blocks is None else tuple(np.asarray(blocks, dtype=object).tolist())
    return _weights(int(n_items), key, int(resamples), int(seed), target)


@functools.lru_cache(maxsize=WEIGHTS_KEPT)
def _weights(n_items, blocks, resamples, seed, target) -> np.ndarray:
    table = bootstrap_weights(n_items, blocks, resamples=resamples, seed=seed, target=target)
    table.flags.writeable = False
    return table
