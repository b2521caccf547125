"""The audit's corrected figures cover the all-human figure: many simulated routed experiments
with fixed seeds, each with a known human bucket per answer and a simulated grader of a set
accuracy and habit, routed as grading.routing routes (rules certain, the model above a cut
calibrated on a judged experiment, (!) items and parse failures to people, a 10 % audit of at
least 30 answers), and the PPI interval of each figure checked against the figure people would
have given had they judged every answer. The measured coverage is in docs/grader.md."""

import numpy as np
import pytest

from grading.ppi import audit_draw, audit_size, lowest_cut, ppi_combine, ppi_rate

CORRECT, CONFIDENT_WRONG, HEDGED_WRONG, ABSTAINED = range(4)
EXPERIMENTS = 1000
ITEMS, CONFIGS = 120, 3
# (correct, confidently wrong, hedged wrong, abstained) per configuration
TRUTH = np.array([[0.55, 0.25, 0.1, 0.1], [0.4, 0.35, 0.1, 0.15], [0.7, 0.1, 0.1, 0.1]])


def _world(rng, accuracy: float, habit: str):
    """One experiment: each answer's human bucket, the grader's bucket, how it decided
    (rules: certain), its confidence, its parse failures, and the (!) items."""
    config = np.repeat(np.arange(CONFIGS), ITEMS)
    human = np.concatenate([rng.choice(4, size=ITEMS, p=TRUTH[c]) for c in range(CONFIGS)])
    n = human.size
    flagged_items = rng.random(ITEMS) < 0.05
    flagged = np.tile(flagged_items, CONFIGS)
    # The rules decide exact matches and abstentions, always as a person would.
    rules = (human == ABSTAINED) | ((human == CORRECT) & (rng.random(n) < 0.3))
    right = rng.random(n) < accuracy
    wrong_answer = (human == CONFIDENT_WRONG) | (human == HEDGED_WRONG)
    if habit == "lenient":  # errs only by passing a wrong answer
        right |= ~wrong_answer
    elif habit == "strict":  # errs only by failing a right one
        right |= human != CORRECT
    grader = human.copy()
    stated_high = rng.random(n) < 0.7  # the answer's own confidence, for a failed right one
    grader[~right & wrong_answer] = CORRECT
    failed_right = ~right & (human == CORRECT)
    grader[failed_right] = np.where(stated_high[failed_right], CONFIDENT_WRONG, HEDGED_WRONG)
    grader[rules] = human[rules]
    # The model's stated confidence: higher, on the whole, where it is right.
    confidence = np.where(right, rng.uniform(0.55, 1.0, n), rng.uniform(0.3, 0.85, n))
    confidence[rules] = 1.0
    unreadable = ~rules & (rng.random(n) < 0.03)
    return config, human, grader, confidence, unreadable, flagged


def _calibrated_cut(rng, accuracy, habit, target=0.95) -> float:
    """The lowest cut at which the grader agrees with people on a judged experiment at least as
    often as ``target`` (the trust threshold's point here, for speed)."""
    _config, human, grader, confidence, unreadable, _flagged = _world(rng, accuracy, habit)
    readable = ~unreadable
    conf = np.where(readable, confidence, np.nan)

    def meets(mask):
        return mask.sum() >= 100 and (human[mask] == grader[mask]).mean() >= target

    cut = lowest_cut(conf, meets)
    assert cut is not None
    return cut


def _shares(buckets: np.ndarray) -> dict[int, np.ndarray]:
    return {bucket: (buckets == bucket).astype(float) for bucket in range(4)}


def _one_experiment(rng, cut, accuracy, habit):
    config, human, grader, confidence, unreadable, flagged = _world(rng, accuracy, habit)
    decided = ~unreadable & ~flagged & (confidence >= cut)
    audit = np.zeros(human.size, dtype=bool)
    drawn = audit_draw(np.flatnonzero(decided).tolist(), 0.10, 30, int(rng.integers(2**31)))
    audit[drawn] = True
    assert audit.sum() == audit_size(int(decided.sum()), 0.10, 30) >= 30
    outcomes = {"these": [], "beyond": []}
    for scope in [np.ones(human.size, dtype=bool)] + [config == c for c in range(CONFIGS)]:
        truth, seen = _shares(human[scope]), _shares(grader[scope])
        d, a = decided[scope], audit[scope]
        figures = {}
        for bucket in truth:
            figures[bucket] = ppi_rate(
                truth[bucket][~d], seen[bucket][d], truth[bucket][a], seen[bucket][a]
            )
            everyone = truth[bucket].mean()
            figure = figures[bucket]
            outcomes["these"].append(figure.low <= everyone <= figure.high)
            outcomes["beyond"].append(figure.low_beyond <= everyone <= figure.high_beyond)
        # Net usable per answer, w = 1: correct minus confidently wrong.
        net = ppi_combine(figures[CORRECT], figures[CONFIDENT_WRONG], 1.0)
        everyone = truth[CORRECT].mean() - truth[CONFIDENT_WRONG].mean()
        assert net.value == pytest.approx(figures[CORRECT].value - figures[CONFIDENT_WRONG].value)
        outcomes["these"].append(net.low <= everyone <= net.high)
        outcomes["beyond"].append(net.low_beyond <= everyone <= net.high_beyond)
    return outcomes, decided.mean()


@pytest.mark.parametrize(
    ("accuracy", "habit", "seed"),
    [(0.9, "", 1), (0.85, "lenient", 2), (0.85, "strict", 3), (0.75, "", 4)],
)
def test_the_audit_corrected_interval_covers_the_all_human_figure(accuracy, habit, seed):
    rng = np.random.default_rng(seed)
    cut = _calibrated_cut(rng, accuracy, habit)
    covered, beyond, shares = [], [], []
    for _ in range(EXPERIMENTS):
        outcomes, share = _one_experiment(rng, cut, accuracy, habit)
        covered.append(outcomes["these"])
        beyond.append(outcomes["beyond"])
        shares.append(share)
    covered = np.array(covered)  # experiments x intervals (whole experiment, then per config)
    coverage, whole = float(covered.mean()), float(covered[:, :5].mean())
    worst = float(covered.mean(axis=0).min())
    print(
        f"{habit or 'both ways'} {accuracy}: cut {cut:.2f}, grader decides "
        f"{np.mean(shares):.0%}, coverage {coverage:.4f} over {covered.size} intervals "
        f"(whole experiment {whole:.4f}, worst figure {worst:.4f}; beyond these answers "
        f"{np.mean(beyond):.4f})"
    )
    assert np.mean(shares) > 0.3, "the grader decides a real share, or the test means nothing"
    assert coverage >= 0.94 and whole >= 0.94
    assert worst >= 0.92, "no single figure far below the mark"


def test_people_alone_is_exact_and_no_audit_gives_no_figure():
    exact = ppi_rate(np.array([1, 0, 1, 1]), np.array([]), np.array([]), np.array([]))
    assert (exact.value, exact.low, exact.high) == (0.75, 0.75, 0.75)
    blind = ppi_rate(np.array([1, 0]), np.array([1, 1, 1]), np.array([]), np.array([]))
    assert blind.value is None, "without an audit nothing corrects the grader: no figure"


def test_an_interval_never_leaves_the_feasible_range():
    """A grader that decides 90 answers, all correct, with an audit of 30 where people agree:
    knowledge 1 and confidently wrong 0, their arms reaching past 1 and below 0 unclipped (the
    tester's "0.9, 0.719 - 1.081" and "0, -0.183 - 0.183"); a share's interval stays in [0, 1]
    and net usable's in [-w, 1]."""
    people = np.zeros(0)
    right = ppi_rate(people, np.ones(90), np.ones(30), np.ones(30))
    wrong = ppi_rate(people, np.zeros(90), np.zeros(30), np.zeros(30))
    assert right.value == 1.0 and wrong.value == 0.0
    assert right.delta_up > 0 and wrong.delta_down > 0, "the arms reach out: clipping matters"
    assert right.high == right.high_beyond == 1.0
    assert 0.85 < right.low_beyond < right.low < 1.0
    assert (wrong.low, wrong.low_beyond) == (0.0, 0.0) and 0 < wrong.high < 0.1
    for w in (1.0, 2.0):
        net = ppi_combine(right, wrong, w)
        assert net.value == 1.0 and net.high == net.high_beyond == 1.0
        assert -w <= net.low_beyond <= net.low < 1.0
        worst = ppi_combine(wrong, right, w)  # no answer correct, every one confidently wrong
        assert worst.value == -w and worst.low == worst.low_beyond == -w
    # People alone (no grader stratum): 9 of 10 correct, the first term's interval clipped.
    alone = ppi_rate(np.array([1] * 9 + [0]), np.zeros(0), np.zeros(0), np.zeros(0))
    assert alone.value == 0.9 and alone.high_beyond == 1.0 and alone.low_beyond > 0.7
    # Every interval of a mixed case lies in the range too, and still holds its value.
    rng = np.random.default_rng(7)
    for _ in range(200):
        grader = (rng.random(60) < 0.97).astype(float)
        audit = grader[:30].copy()
        flip = rng.random(30) < 0.05  # people disagree with the grader now and then
        audit[flip] = 1 - audit[flip]
        f = ppi_rate(np.ones(5), grader, audit, grader[:30])
        for x in (f.low, f.high, f.low_beyond, f.high_beyond):
            assert 0.0 <= x <= 1.0


def test_the_estimate_by_hand():
    # People: 1, 0 (known). Grader decides 4: 1, 1, 0, 1; the audit holds the first two,
    # where people said 1 and 0: mean(human - grader) = (0 + -1) / 2 = -0.5.
    figure = ppi_rate(np.array([1, 0]), np.array([1, 1, 0, 1]), np.array([1, 0]), np.array([1, 1]))
    assert figure.value == pytest.approx((1 + 0 + 3 + 4 * -0.5) / 6)
    assert (figure.n_total, figure.n_people, figure.n_grader, figure.n_audit) == (6, 2, 4, 2)
    # The audit: 0 of 2 above the grader, 1 of 2 below; Wilson intervals of 0/2 and 1/2,
    # square and add, the FPC sqrt(1 - 2/4), times the grader's share 4/6.
    z = 1.959963984540054
    up0 = z * z / 2 / (1 + z * z / 2)  # Wilson's upper end of 0 of 2 (its lower end is 0)
    half = z * np.sqrt(0.25 / 2 + z * z / 16) / (1 + z * z / 2)  # Wilson's arm of 1 of 2
    below = np.sqrt(0**2 + half**2)  # p_up - low_up = 0; high_down - p_down = half
    above = np.sqrt(up0**2 + half**2)
    fpc = np.sqrt(1 - 2 / 4)
    assert figure.value - figure.low == pytest.approx(4 / 6 * below * fpc)
    assert figure.high - figure.value == pytest.approx(4 / 6 * above * fpc)
    everyone = ppi_rate(np.array([1, 0]), np.array([1, 0]), np.array([1, 0]), np.array([1, 0]))
    assert everyone.low == everyone.value == everyone.high, "an audit of all of them is exact"


def test_the_audit_draw_is_uniform_reproducible_and_at_least_thirty():
    candidates = list(range(1000, 1200))
    assert audit_size(200, 0.1, 30) == 30 and audit_size(1000, 0.1, 30) == 100
    assert audit_size(12, 0.1, 30) == 12, "never more than the grader decided"
    first = audit_draw(candidates, 0.1, 30, seed=7)
    assert first == audit_draw(list(reversed(candidates)), 0.1, 30, seed=7)
    assert len(first) == 30 and set(first) <= set(candidates)
    # Uniform: over many seeds every answer is drawn about as often (30 of 200 = 15 %).
    counts = np.zeros(200)
    for seed in range(2000):
        for pk in audit_draw(candidates, 0.1, 30, seed=seed):
            counts[pk - 1000] += 1
    assert np.allclose(counts / 2000, 0.15, atol=0.04)
