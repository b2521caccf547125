"""Simulated experiments with a known truth, for the tests of the paired tests and the gate.

Each item has its own profile, the chance of each of the four buckets (a Dirichlet draw: items
differ in difficulty and in how willing a model is to guess), and every configuration that is
"the same" answers each item from that same profile, repeat after repeat. A configuration made
better moves ``shift`` of the chance of a confident error to a correct answer on every item.
"""

import numpy as np

# correct, confidently wrong, hedged wrong, abstained
PROFILE = (3.0, 1.5, 0.5, 1.0)


def profiles(rng, n_items: int) -> np.ndarray:
    return rng.dirichlet(PROFILE, size=n_items)


def shifted(profile: np.ndarray, shift: float) -> np.ndarray:
    """The profile with ``shift`` of the chance of a confident error moved to a correct answer
    (negative: the other way), capped so that no chance goes below 0."""
    out = profile.copy()
    move = np.minimum(out[:, 1], shift) if shift >= 0 else -np.minimum(out[:, 0], -shift)
    out[:, 0] += move
    out[:, 1] -= move
    return out


def answers(rng, profile: np.ndarray, repeats: int) -> np.ndarray:
    """(repeats, items) bucket codes 0-3, each repeat drawn afresh from the profile."""
    cumulative = np.cumsum(profile, axis=1)
    u = rng.random((repeats, profile.shape[0], 1))
    return (u > cumulative[None, :, :]).sum(axis=2).clip(0, 3)


def net(buckets: np.ndarray, w: float = 1.0) -> np.ndarray:
    """Each answer's contribution to net usable: 1 correct, -w confidently wrong, else 0."""
    return (buckets == 0) - w * (buckets == 1)


def item_rows(buckets: np.ndarray) -> np.ndarray:
    """(items, 3): correct, confidently wrong and attempted, means over the repeats."""
    return np.stack(
        [(buckets == 0).mean(axis=0), (buckets == 1).mean(axis=0), (buckets != 3).mean(axis=0)],
        axis=1,
    )
