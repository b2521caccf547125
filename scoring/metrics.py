"""The report's figures, as pure functions over counts.

Nothing here touches the database or Django: the counting is done by queries elsewhere, and these
functions turn the counts into the figures of docs/design.md ("The figures"): the four-bucket
figures and calibration, the repeat spread, the rule-of-thumb noise floor and the gaps between
configurations, the second scheme's figures and SimpleQA's. Every definition, denominator and
degenerate case is written out in docs/figures.md.

Conventions:

- counts are non-negative ints; fractions are floats in [0, 1]; a figure whose denominator is zero
  is ``None`` (the page shows a dash), never 0 and never an exception;
- ``N`` is the number of items the figure is over. It defaults to the number of scored responses;
  when some responses are missing or unscored, the caller passes ``n_items`` (see
  ``four_bucket_figures``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, fields
from itertools import combinations
from typing import ClassVar, NamedTuple

__all__ = [
    "ABSTAINED",
    "CONFIDENCE_LEVELS",
    "CONFIDENT_WRONG",
    "CORRECT",
    "DEFAULT_NOISE_ITEMS",
    "DEFAULT_NOISE_PER_ITEMS",
    "HEDGED_WRONG",
    "HIGH",
    "INCORRECT",
    "LOW",
    "MEDIUM",
    "NOISE_TOLERANCE",
    "NOT_ATTEMPTED",
    "PARTIAL",
    "AACounts",
    "AAFigures",
    "BucketCounts",
    "Calibration",
    "CalibrationLevel",
    "FourBucketFigures",
    "Gap",
    "RepeatSummary",
    "aa_figures",
    "calibration",
    "four_bucket_figures",
    "noise_floor",
    "pairwise_gaps",
    "repeat_summary",
    "SimpleQAFigures",
    "simpleqa_figures",
]

# Four-bucket scheme (the values are those of scoring.models.Bucket). The lists of a scheme's
# buckets are the registry's (``scoring.schemes``, ``Scheme.buckets``); a counts class below has a
# field per bucket, and tests/scoring/test_schemes.py checks the two agree.
CORRECT = "correct"
CONFIDENT_WRONG = "confident_wrong"
HEDGED_WRONG = "hedged_wrong"
ABSTAINED = "abstained"

# Second scheme, AA-Omniscience style.
INCORRECT = "incorrect"
PARTIAL = "partial"
NOT_ATTEMPTED = "not_attempted"

# Confidence levels, spelt as the answer-sheet parser and Response.confidence spell them.
HIGH, MEDIUM, LOW = "HIGH", "MEDIUM", "LOW"
CONFIDENCE_LEVELS = (HIGH, MEDIUM, LOW)

# The rule of thumb of docs/design.md: a gap under 3 items of 30 is noise (shown, not judging).
DEFAULT_NOISE_ITEMS = 3
DEFAULT_NOISE_PER_ITEMS = 30
# A gap this close to the floor counts as on the floor (net usable with a fractional w is a float).
NOISE_TOLERANCE = 1e-9


def _check_count(name: str, value: object) -> int:
    # bool is an int subclass; True as a count is almost certainly a bug in the caller.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must not be negative (got {value})")
    return value


def _ratio(numerator: float, denominator: float) -> float | None:
    return None if denominator == 0 else numerator / denominator


def _resolve_n(n_items: int | None, counted: int) -> int:
    if n_items is None:
        return counted
    _check_count("n_items", n_items)
    if n_items < counted:
        raise ValueError(
            f"n_items ({n_items}) is smaller than the number of counted responses ({counted})"
        )
    return n_items


def _counts_from_labels(cls, fields: tuple[str, ...], labels: Iterable[Hashable]):
    tally = Counter(labels)
    unknown = set(tally) - set(fields)
    if unknown:
        raise ValueError(
            f"unknown bucket(s) {sorted(map(str, unknown))}; expected one of {list(fields)}"
        )
    return cls(**{name: tally.get(name, 0) for name in fields})


def _counts_from_mapping(cls, fields: tuple[str, ...], mapping: Mapping[str, int]):
    unknown = set(mapping) - set(fields)
    if unknown:
        raise ValueError(
            f"unknown bucket(s) {sorted(map(str, unknown))}; expected one of {list(fields)}"
        )
    return cls(**{name: mapping.get(name, 0) for name in fields})


def _names(counts) -> tuple[str, ...]:
    """The buckets a counts class (or instance) counts: its fields, in order."""
    return tuple(f.name for f in fields(counts))


# --------------------------------------------------------------------------------------------
# Four-bucket scheme
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BucketCounts:
    """How many responses fell in each bucket of the four-bucket scheme."""

    correct: int = 0
    confident_wrong: int = 0
    hedged_wrong: int = 0
    abstained: int = 0

    def __post_init__(self) -> None:
        for name in _names(self):
            _check_count(name, getattr(self, name))

    @property
    def n(self) -> int:
        """Responses counted (scored), whatever their bucket."""
        return self.correct + self.confident_wrong + self.hedged_wrong + self.abstained

    @property
    def attempted(self) -> int:
        """Counted responses that were not abstentions: n - abstained."""
        return self.n - self.abstained

    @classmethod
    def from_buckets(cls, buckets: Iterable[str]) -> BucketCounts:
        """Count an iterable of bucket values ("correct", "confident_wrong", ...)."""
        return _counts_from_labels(cls, _names(cls), buckets)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, int]) -> BucketCounts:
        """From ``{bucket: count}``, e.g. a GROUP BY result; absent buckets count 0."""
        return _counts_from_mapping(cls, _names(cls), mapping)

    def __add__(self, other: BucketCounts) -> BucketCounts:
        if not isinstance(other, BucketCounts):
            return NotImplemented
        return BucketCounts(*(getattr(self, f) + getattr(other, f) for f in _names(self)))


@dataclass(frozen=True)
class FourBucketFigures:
    """The figures of one run, one configuration (pooled) or one block slice."""

    n: int  # N: the items the figures are over
    correct: int
    confident_wrong: int
    hedged_wrong: int
    abstained: int
    attempted: int  # hallucination denominator: correct + confident_wrong + hedged_wrong
    unscored: int  # N minus the counted responses (0 unless n_items was passed)
    w: float
    knowledge: float | None  # correct / N; None when N is 0
    hallucination_rate: float | None  # confident_wrong / attempted; None when nothing attempted
    net_usable: float  # correct - w * confident_wrong, in items

    # The figures that are ratios of counts: name -> (numerator, denominator) fields, each a
    # count above ("n" is N). Over repeats such a figure is pooled (scoring/report/repeat_figures.py)
    # and has a Wilson interval over the items and their repeats.
    RATIOS: ClassVar[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
        "knowledge": (("correct",), ("n",)),
        "hallucination_rate": (("confident_wrong",), ("attempted",)),
    }


def four_bucket_figures(
    counts: BucketCounts, n_items: int | None = None, w: float = 1.0
) -> FourBucketFigures:
    """Knowledge, hallucination rate and net usable for one set of counts.

    - knowledge = correct / N;
    - hallucination rate = confidently wrong / attempted, where attempted = N - abstained
      (abstentions are left out of the denominator: dividing by N would reward abstaining twice);
      None when nothing was attempted;
    - net usable = correct - w x confidently wrong (an item count, not a fraction).

    N defaults to ``counts.n``. Pass ``n_items`` when some responses are missing or not yet
    scored: knowledge is then over all N items (an unscored item is not known), while the
    hallucination denominator stays the *counted* attempts, correct + confidently wrong + hedged
    wrong (an unscored response is no known attempt, and counting it would dilute the rate). With
    every response scored the two readings coincide: attempted = N - abstained.
    """
    if not isinstance(counts, BucketCounts):
        raise TypeError("counts must be a BucketCounts")
    n = _resolve_n(n_items, counts.n)
    w = _check_weight(w)
    attempted = counts.attempted
    return FourBucketFigures(
        n=n,
        correct=counts.correct,
        confident_wrong=counts.confident_wrong,
        hedged_wrong=counts.hedged_wrong,
        abstained=counts.abstained,
        attempted=attempted,
        unscored=n - counts.n,
        w=w,
        knowledge=_ratio(counts.correct, n),
        hallucination_rate=_ratio(counts.confident_wrong, attempted),
        net_usable=counts.correct - w * counts.confident_wrong,
    )


def _check_weight(w: float) -> float:
    if isinstance(w, bool) or not isinstance(w, int | float):
        raise TypeError(f"w must be a number, not {type(w).__name__}")
    w = float(w)
    if not (w >= 0 and w != float("inf")):  # also rejects NaN
        raise ValueError(f"w must be a finite number >= 0 (got {w})")
    return w


# --------------------------------------------------------------------------------------------
# Calibration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CalibrationLevel:
    level: str  # HIGH, MEDIUM or LOW
    count: int  # attempted answers rated at this level
    correct: int  # of which correct
    accuracy: float | None  # correct / count; None when count is 0


@dataclass(frozen=True)
class Calibration:
    levels: tuple[CalibrationLevel, ...]  # HIGH, MEDIUM, LOW, in that order
    attempted: int  # attempted answers, rated or not
    unrated: int  # attempted answers with no confidence
    unrated_correct: int
    # True when at least 2 rated attempted answers exist and all of them sit at one level:
    # that model's ratings carry no information.
    single_level: bool
    single_level_name: str | None  # the level, when single_level

    def __getitem__(self, level: str) -> CalibrationLevel:
        for entry in self.levels:
            if entry.level == level:
                return entry
        raise KeyError(level)

    @property
    def rated(self) -> int:
        return self.attempted - self.unrated


def _confidence(value: str | None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"confidence must be a string or None, not {type(value).__name__}")
    value = value.strip().upper()
    if value == "":
        return None
    if value not in CONFIDENCE_LEVELS:
        raise ValueError(f"unknown confidence {value!r}; expected one of {CONFIDENCE_LEVELS}")
    return value


def calibration(rows: Iterable[tuple[str | None, bool, bool]]) -> Calibration:
    """Accuracy at each confidence level, over attempted answers.

    ``rows`` holds one ``(confidence, is_correct, abstained)`` per response. Abstentions are left
    out entirely. Confidence is "HIGH", "MEDIUM" or "LOW" (case and surrounding spaces ignored);
    None or "" means no confidence was given, and such answers are counted apart (``unrated``).

    ``single_level`` is True when the model put every *rated* attempted answer at one level and
    there are at least two of them; with fewer than two rated answers nothing can be said and it
    is False. Unrated answers carry no rating, so they neither cause nor prevent the warning.
    """
    per_level = {level: [0, 0] for level in CONFIDENCE_LEVELS}
    attempted = unrated = unrated_correct = 0
    for confidence, is_correct, abstained in rows:
        if abstained:
            continue
        attempted += 1
        level = _confidence(confidence)
        if level is None:
            unrated += 1
            unrated_correct += bool(is_correct)
        else:
            per_level[level][0] += 1
            per_level[level][1] += bool(is_correct)
    levels = tuple(
        CalibrationLevel(level, count, correct, _ratio(correct, count))
        for level, (count, correct) in per_level.items()
    )
    used = [entry.level for entry in levels if entry.count]
    rated = attempted - unrated
    single = rated >= 2 and len(used) == 1
    return Calibration(
        levels=levels,
        attempted=attempted,
        unrated=unrated,
        unrated_correct=unrated_correct,
        single_level=single,
        single_level_name=used[0] if single else None,
    )


# --------------------------------------------------------------------------------------------
# Repeats and noise
# --------------------------------------------------------------------------------------------


class RepeatSummary(NamedTuple):
    """A figure across the repeats of one configuration. All None when no repeat has a value."""

    mean: float | None
    min: float | None
    max: float | None
    spread: float | None  # max - min


def repeat_summary(values: Iterable[float | None]) -> RepeatSummary:
    """Mean, minimum, maximum and spread (max - min) of a figure across repeats, ignoring None
    (a repeat whose figure is undefined, such as a hallucination rate with nothing attempted)."""
    present = [float(v) for v in values if v is not None]
    if not present:
        return RepeatSummary(None, None, None, None)
    low, high = min(present), max(present)
    return RepeatSummary(sum(present) / len(present), low, high, high - low)


def noise_floor(n_items: int, floor: float | None = None) -> float:
    """The gap in net usable (in items) under which a difference is noise.

    ``floor`` is the experiment's own setting, used as given when not None. Otherwise 3 items per
    30, scaled to the experiment: 3 x N / 30 (0.0 for an empty experiment).
    """
    if floor is not None:
        if isinstance(floor, bool) or not isinstance(floor, int | float):
            raise TypeError(f"floor must be a number, not {type(floor).__name__}")
        floor = float(floor)
        if not (floor >= 0 and floor != float("inf")):
            raise ValueError(f"floor must be a finite number >= 0 (got {floor})")
        return floor
    _check_count("n_items", n_items)
    return DEFAULT_NOISE_ITEMS * n_items / DEFAULT_NOISE_PER_ITEMS


class Gap(NamedTuple):
    a: Hashable  # the configuration with the larger (or equal) net usable
    b: Hashable
    gap: float  # net[a] - net[b], never negative
    is_noise: bool  # gap under the noise floor


def pairwise_gaps(net_by_config: Mapping[Hashable, float | None], floor: float) -> list[Gap]:
    """Every pair of configurations, larger net usable first, with its gap and a noise mark.

    Pairs come in the mapping's order (for labels x, y, z: x-y, x-z, y-z), each turned so that
    ``a`` is the larger; on a tie the mapping's order is kept. A configuration whose value is
    None (no figures yet) is left out. ``is_noise`` is ``gap < floor``, where a gap within
    NOISE_TOLERANCE of the floor counts as on it (not noise): with w = 0.1, 3 items may come out
    as 2.9999999999999996.
    """
    if isinstance(floor, bool) or not isinstance(floor, int | float):
        raise TypeError(f"floor must be a number, not {type(floor).__name__}")
    if not floor >= 0:  # also rejects NaN
        raise ValueError(f"floor must be >= 0 (got {floor})")
    present = [(label, float(value)) for label, value in net_by_config.items() if value is not None]
    gaps = []
    for (x, vx), (y, vy) in combinations(present, 2):
        a, va, b, vb = (x, vx, y, vy) if vx >= vy else (y, vy, x, vx)
        gap = va - vb
        gaps.append(Gap(a, b, gap, gap < floor - NOISE_TOLERANCE))
    return gaps


# --------------------------------------------------------------------------------------------
# Second scheme: AA-Omniscience style
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AACounts:
    correct: int = 0
    incorrect: int = 0
    partial: int = 0
    not_attempted: int = 0

    def __post_init__(self) -> None:
        for name in _names(self):
            _check_count(name, getattr(self, name))

    @property
    def n(self) -> int:
        return self.correct + self.incorrect + self.partial + self.not_attempted

    @classmethod
    def from_buckets(cls, buckets: Iterable[str]) -> AACounts:
        return _counts_from_labels(cls, _names(cls), buckets)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, int]) -> AACounts:
        return _counts_from_mapping(cls, _names(cls), mapping)


@dataclass(frozen=True)
class AAFigures:
    n: int
    correct: int
    incorrect: int
    partial: int
    not_attempted: int
    unscored: int
    index: float | None  # 100 x (correct - incorrect) / N, in [-100, 100]
    accuracy: float | None  # correct / N
    attempt_rate: float | None  # (correct + incorrect + partial) / N
    partial_rate: float | None  # partial / N
    abstention_rate: float | None  # not_attempted / N
    hallucination_rate: float | None  # incorrect / (incorrect + partial + not_attempted)

    RATIOS: ClassVar[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
        "accuracy": (("correct",), ("n",)),
        "attempt_rate": (("correct", "incorrect", "partial"), ("n",)),
        "partial_rate": (("partial",), ("n",)),
        "abstention_rate": (("not_attempted",), ("n",)),
        "hallucination_rate": (("incorrect",), ("incorrect", "partial", "not_attempted")),
    }


def aa_figures(
    correct: int, incorrect: int, partial: int, not_attempted: int, n_items: int | None = None
) -> AAFigures:
    """The AA-Omniscience-style figures (Jackson et al. 2025, arXiv:2511.13029).

    - index = 100 x (correct - incorrect) / N: +1 per correct answer, -1 per incorrect one,
      0 for partial and not attempted;
    - accuracy = correct / N; attempt rate = (correct + incorrect + partial) / N;
      partial rate = partial / N; abstention rate = not attempted / N;
    - hallucination rate = incorrect / (incorrect + partial + not attempted): of the answers that
      were not correct, the share where the model gave a wrong answer instead of abstaining or
      answering partly. None when every answer was correct (or there are none).

    N defaults to the sum of the counts; with ``n_items`` larger than the sum, the N-based
    fractions are over n_items and the unscored remainder counts in none of the buckets.
    """
    counts = AACounts(correct, incorrect, partial, not_attempted)
    n = _resolve_n(n_items, counts.n)
    return AAFigures(
        n=n,
        correct=correct,
        incorrect=incorrect,
        partial=partial,
        not_attempted=not_attempted,
        unscored=n - counts.n,
        index=None if n == 0 else 100 * (correct - incorrect) / n,
        accuracy=_ratio(correct, n),
        attempt_rate=_ratio(correct + incorrect + partial, n),
        partial_rate=_ratio(partial, n),
        abstention_rate=_ratio(not_attempted, n),
        hallucination_rate=_ratio(incorrect, incorrect + partial + not_attempted),
    )


# --------------------------------------------------------------------------------------------
# SimpleQA's figures
# --------------------------------------------------------------------------------------------


class SimpleQAFigures(NamedTuple):
    overall_correct: float | None  # correct / N
    correct_given_attempted: float | None  # correct / (correct + incorrect)
    f_score: float | None  # harmonic mean of the two


def simpleqa_figures(correct: float, incorrect: float, not_attempted: float) -> SimpleQAFigures:
    """SimpleQA (Wei et al. 2024): overall correct, correct given attempted, and their F-score.

    SimpleQA grades each answer correct, incorrect or not attempted; a partial answer (AA
    scheme) or a hedged wrong one (four buckets) is an attempted, incorrect answer here.
    """
    n = correct + incorrect + not_attempted
    attempted = correct + incorrect
    overall = correct / n if n else None
    given = correct / attempted if attempted else None
    if overall is None or given is None:
        f = None
    elif overall + given == 0:
        f = 0.0
    else:
        f = 2 * overall * given / (overall + given)
    return SimpleQAFigures(overall, given, f)
