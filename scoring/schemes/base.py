"""The scheme base class, the bucket values, the report's column type and the registry.

A scheme subclasses ``Scheme``, sets its class attributes (buckets, penalised and abstention
buckets, figure names, columns, headlines, texts) and its ``figures``; ``@register`` makes it the
scheme of every experiment whose ``scheme`` field holds its ``key``. Nothing here reads a model.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.db import models
from django.utils.translation import gettext_lazy

__all__ = [
    "CORRECT_STYLE",
    "Bucket",
    "BucketStyle",
    "Column",
    "Scheme",
    "UnknownScheme",
    "as_scheme",
    "ask_first_buckets",
    "bucket_choices",
    "bucket_label",
    "bucket_style",
    "buckets_registered",
    "offered",
    "register",
    "registered",
    "scheme_choices",
    "scheme_for",
    "unregister",
]

# The verdict "correct" (scoring.models.Judgement.Verdict.CORRECT, which this package cannot import).
VERDICT_CORRECT = "correct"


class Bucket(models.TextChoices):
    """Every bucket value a judgement may carry, whatever its scheme."""

    # Four-bucket scheme
    CORRECT = "correct", gettext_lazy("Correct")
    CONFIDENT_WRONG = "confident_wrong", gettext_lazy("Confidently wrong")
    HEDGED_WRONG = "hedged_wrong", gettext_lazy("Hedged wrong")
    ABSTAINED = "abstained", gettext_lazy("Abstained")
    # AA-Omniscience scheme (Correct is shared)
    INCORRECT = "incorrect", gettext_lazy("Incorrect")
    PARTIAL = "partial", gettext_lazy("Partial")
    NOT_ATTEMPTED = "not_attempted", gettext_lazy("Not attempted")


@dataclass(frozen=True)
class BucketStyle:
    """How a bucket is named and drawn: its label, its badge (background and text colours, any
    CSS colour value) and its colour in the report's charts."""

    label: str
    background: str
    text: str
    chart: str


# The correct bucket, as every scheme shows it.
CORRECT_STYLE = BucketStyle(Bucket.CORRECT.label, "#e6f4ec", "#14532d", "#2f9e5f")


@dataclass(frozen=True)
class Column:
    """One figure in a report table: where its value is, how it reads, and its interval.

    ``name``: the attribute of a run's figures and the key of a configuration's summary;
    ``fmt``: "pct", "pct:0", "num" or "num:1"; ``ci``: the key of the interval in ``ci`` dicts
    ("" for none), written with ``ci_fmt`` (``fmt`` unless given); ``net``: the figure the
    configurations are compared on, drawn as such."""

    name: str
    label: str
    fmt: str
    ci: str = ""
    ci_fmt: str = ""
    net: bool = False

    @property
    def css(self) -> str:
        return "num net" if self.net else "num"

    @property
    def interval_fmt(self) -> str:
        return self.ci_fmt or self.fmt

    @property
    def span(self) -> str:
        """How its range over repeats reads: "pct" or "num"."""
        return self.fmt.partition(":")[0]


class Scheme(abc.ABC):
    """A scoring scheme. Subclasses set the class attributes and the figures; the rest follows.

    Buckets are bucket values (strings: a member of ``Bucket`` or a scheme's own value, styled in
    ``bucket_styles``); the first is the correct one. ``penalised`` is the bucket
    counted against a configuration (its compared figure falls with it) and ``abstain`` the
    bucket of an answer not attempted: the preset of an UNKNOWN answer, left out of "attempted".
    """

    key: str = ""
    # The name the experiment form and the API offer it under, and its help in the form.
    label: str = ""
    help: str = ""
    # A scheme for the tests alone: offered by the form and the API only with the setting
    # SCORING_TEST_SCHEMES on (an experiment already stored in it is shown anyway).
    testing: bool = False
    # Where it comes in the lists of schemes (the form's choices, the API's enum), lowest first.
    order: int = 100
    buckets: tuple[str, ...] = ()
    # Every bucket's label and colours (a ``BucketStyle`` per bucket of ``buckets``): the badges'
    # stylesheet, the charts and the bucket labels are read from here.
    bucket_styles: Mapping[str, BucketStyle] = {}
    correct: str = Bucket.CORRECT
    penalised: str = ""
    abstain: str | None = None
    # The bucket of a partly right answer, if the scheme has one (its figures count it apart).
    partial: str | None = None
    # The buckets of a wrong answer given with confidence: a HIGH-confidence answer put in one
    # asks the scorer first (the experiment's "confirm wrong") and is one the key review shows as
    # a confident disagreement. Empty: the penalised bucket alone.
    confident_wrong: tuple[str, ...] = ()
    # Whether a grader (grading) names the bucket itself, as its value in capitals (CORRECT,
    # PARTIAL, ...); otherwise a grader says CORRECT or INCORRECT and the bucket follows from the
    # answer's parse as a scorer's does (``derive``).
    grader_names_bucket: bool = False
    # The report: its figures (names of the figures' attributes summarised over repeats), the
    # compared figure and its unit, whether it has a weight w (the w form, the sweep, "w" in the
    # exports), the headlines set beside each scorer's figures, the table columns.
    figure_names: tuple[str, ...] = ()
    compared_figure: str = ""
    compared_in: str = "items"  # "items", or "index points" (the floor is then per item)
    uses_weight: bool = False
    headlines: tuple[tuple[str, str, str], ...] = ()  # (summary name, label, "pct"/"items"/...)
    summary_columns: tuple[Column, ...] = ()
    slice_columns: tuple[Column, ...] = ()  # per block and per facet, "correct" first
    # Exports: the name the scheme's hallucination rate goes by, and columns a scheme adds to the
    # figures export (its own figures that no other scheme has).
    hallucination_column: str = "hallucination_rate"
    export_columns: tuple[str, ...] = ()
    # The probe's own definitions (hallucination rate, net usable) need a confidently wrong bucket.
    defines_probe_figures: bool = False
    # Texts of the report (message ids, translated when shown: scoring.templatetags.report_tags
    # scheme_text); a missing one shows nothing.
    texts: Mapping[str, str] = {}

    def __str__(self) -> str:
        return self.key

    # -- Buckets and keys ------------------------------------------------------------------------

    def bucket_label(self, bucket: str) -> str:
        return self.bucket_styles[bucket].label

    @property
    def last_key(self) -> int:
        """The last of the keys 1, 2, ... that choose a bucket (the messages' "keys 1 to N")."""
        return len(self.buckets)

    @property
    def bucket_keys(self) -> list[tuple[str, str, str]]:
        """(keyboard key, bucket, label): keys 1, 2, ... choose the buckets in their order."""
        return [(str(i), b, self.bucket_label(b)) for i, b in enumerate(self.buckets, start=1)]

    @property
    def summary_width(self) -> int:
        """Columns of the report's summary table: the row label, the buckets, the figures."""
        return 1 + len(self.buckets) + len(self.summary_columns)

    @property
    def ask_first_buckets(self) -> tuple[str, ...]:
        """The buckets that ask first for a HIGH-confidence answer (``confident_wrong``)."""
        return tuple(self.confident_wrong) or (self.penalised,)

    @property
    def grader_labels(self) -> dict[str, str]:
        """The labels a grader gives that name a bucket outright (label -> bucket); empty when
        the bucket follows from CORRECT or INCORRECT (``grader_names_bucket``)."""
        if not self.grader_names_bucket:
            return {}
        return {str(b).upper(): str(b) for b in self.buckets}

    def allows(self, bucket: str) -> bool:
        return bucket in self.buckets

    @property
    def preset_bucket(self) -> str:
        """The bucket an UNKNOWN (or missing) answer starts in, before anyone scores it."""
        return self.abstain or self.penalised

    def derive(self, verdict: str, response) -> str | None:
        """The bucket that follows from "correct" or "wrong" and the response's parse, or None
        when the scorer must choose it."""
        if verdict == VERDICT_CORRECT:
            return self.correct
        if response.abstained or response.answer is None:
            return self.preset_bucket
        return self.wrong_bucket(response)

    def wrong_bucket(self, response) -> str | None:
        """The bucket of a wrong answer (attempted), or None when the parse does not settle it."""
        return self.penalised

    def wrong_bucket_unsettled(self, response) -> str:
        """The bucket of a wrong answer whose parse does not settle it (``wrong_bucket`` is
        None), where nobody can be asked (a grader's INCORRECT): the penalised bucket."""
        return self.penalised

    @property
    def has_net_usable(self) -> bool:
        """Whether the scheme has the probe's net usable (correct − w × penalised)."""
        return "net_usable" in self.figure_names

    # -- Figures ---------------------------------------------------------------------------------

    @abc.abstractmethod
    def figures(self, bucket_counts: Mapping[str, int], n_items: int, w: float):
        """(counts, figures) of ``{bucket: count}`` over ``n_items`` items: each scheme says."""

    @property
    def summary_names(self) -> tuple[str, ...]:
        """Every figure summarised over repeats: the buckets, the figures, unscored."""
        return (*self.buckets, *self.figure_names, "unscored")

    def figure_value(self, figures, name: str):
        return getattr(figures, name)

    def summary_values(self, figures) -> dict[str, float | None]:
        return {name: self.figure_value(figures, name) for name in self.summary_names}

    def compared(self, figures) -> float | None:
        return getattr(figures, self.compared_figure)

    def noise_floor(self, floor_items: float, n_items: int) -> float:
        """The rule-of-thumb floor in the unit the configurations are compared in."""
        return floor_items

    def slice_floor(self, report_floor: float, floor_items: float, n: int, n_items: int) -> float:
        """The floor over a slice of ``n`` of the ``n_items`` items (in items it shrinks)."""
        return floor_items * n / n_items if n_items else 0.0

    def weight(self, w: float) -> float | None:
        """w as the exports write it: None for a scheme without one."""
        return w if self.uses_weight else None

    def risk_weight(self, w: float) -> float:
        """The weight of a penalised answer in the risk-coverage score."""
        return w if self.uses_weight else 1.0

    # Sums over items (floats or bootstrap arrays): c correct, pen penalised, att attempted.

    def net_from_sums(self, c, pen, n: int, w: float):
        """The compared figure from sums over ``n`` items."""
        return c - w * pen

    def incorrect_from_sums(self, c, pen, att):
        """AA-Omniscience's "incorrect" (every wrong attempt) from the sums."""
        return att - c

    def aa_terms(self, c, pen, att, n: int, summary: dict) -> tuple[float, float, float]:
        """(incorrect, partial, not attempted) as AA-Omniscience counts them."""
        return att - c, 0.0, n - att

    def run_proportions(self, figures) -> dict[str, tuple[float, float]]:
        """A run's proportions with a Wilson interval: ci key -> (count, denominator)."""
        return {"accuracy": (figures.correct, figures.n)}

    def config_proportions(self, summary: dict, c, pen, att, n) -> dict[str, tuple]:
        """A configuration's (means over repeats): ci key -> (count, denominator)."""
        return {"accuracy": (c, n)}

    # -- Exports ---------------------------------------------------------------------------------

    def export_name(self, name: str) -> str:
        return self.hallucination_column if name == "hallucination_rate" else name

    @property
    def export_intervals(self) -> tuple[tuple[str, str], ...]:
        """(export column, ci key) of the summary's intervals."""
        return tuple((self.export_name(c.name), c.ci) for c in self.summary_columns if c.ci)

    @property
    def export_slice_intervals(self) -> tuple[str, ...]:
        """The ci keys of a block's intervals, each its own export column."""
        return tuple(c.ci for c in self.slice_columns if c.ci)


# ------------------------------------------------------------------------------------------------
# The registry
# ------------------------------------------------------------------------------------------------


class UnknownScheme(KeyError):
    """No scheme is registered under that value."""


_REGISTRY: dict[str, Scheme] = {}


# The stored value's room (``Experiment.scheme``, and a bucket's in scoring.models).
SCHEME_KEY_LENGTH = 8
BUCKET_LENGTH = 16


def register(cls: type[Scheme]) -> type[Scheme]:
    """Register a scheme class (a decorator) under its ``key``."""
    if not cls.key or cls.key in _REGISTRY or len(cls.key) > SCHEME_KEY_LENGTH:
        raise ValueError(f"scheme key {cls.key!r} is empty, taken or too long")
    missing = [b for b in cls.buckets if b not in cls.bucket_styles]
    if missing or any(len(str(b)) > BUCKET_LENGTH for b in cls.buckets):
        raise ValueError(f"scheme {cls.key!r}: bucket(s) without a style or too long: {missing}")
    for bucket in cls.buckets:
        other = _bucket_owner(bucket)
        if other is not None and other.bucket_styles[bucket] != cls.bucket_styles[bucket]:
            raise ValueError(f"bucket {bucket!r} is styled differently by {other.key!r}")
    _REGISTRY[cls.key] = cls()
    ordered = sorted(_REGISTRY.values(), key=lambda s: s.order)  # stable: ties keep their turn
    _REGISTRY.clear()
    _REGISTRY.update((s.key, s) for s in ordered)
    return cls


def _bucket_owner(bucket: str) -> Scheme | None:
    return next((s for s in _REGISTRY.values() if bucket in s.buckets), None)


def unregister(key: str) -> None:
    _REGISTRY.pop(key, None)


def scheme_for(key: str) -> Scheme:
    """The scheme stored as ``key`` (an experiment's ``scheme`` field)."""
    try:
        return _REGISTRY[str(key)]
    except KeyError:
        raise UnknownScheme(key) from None


def as_scheme(scheme: Scheme | str) -> Scheme:
    """A scheme, given as itself or as its stored value."""
    return scheme if isinstance(scheme, Scheme) else scheme_for(scheme)


def registered() -> Iterable[Scheme]:
    return tuple(_REGISTRY.values())


def offered() -> tuple[Scheme, ...]:
    """The schemes a new experiment may take (the form's and the API's): every registered one
    but the tests' own, which only the setting SCORING_TEST_SCHEMES offers."""
    from django.conf import settings

    tests = getattr(settings, "SCORING_TEST_SCHEMES", False)
    return tuple(s for s in _REGISTRY.values() if tests or not s.testing)


def scheme_choices() -> list[tuple[str, str]]:
    """(stored value, label) of every registered scheme: ``Experiment.scheme``'s choices (a
    callable, so a new scheme needs no migration of the field)."""
    return [(s.key, s.label) for s in _REGISTRY.values()]


def buckets_registered() -> dict[str, BucketStyle]:
    """Every bucket of every registered scheme, in the schemes' order, with its style."""
    found: dict[str, BucketStyle] = {}
    for scheme in _REGISTRY.values():
        for bucket in scheme.buckets:
            found.setdefault(str(bucket), scheme.bucket_styles[bucket])
    return found


def ask_first_buckets() -> tuple[str, ...]:
    """Every registered scheme's buckets that ask first (``Scheme.ask_first_buckets``): for a
    query over judgements of any experiment (a bucket value means the same in every scheme)."""
    found: dict[str, None] = {}
    for scheme in _REGISTRY.values():
        found.update(dict.fromkeys(str(b) for b in scheme.ask_first_buckets))
    return tuple(found)


def bucket_choices() -> list[tuple[str, str]]:
    """(value, label) of every bucket a judgement may carry: the buckets' model choices."""
    return [(value, style.label) for value, style in buckets_registered().items()]


def bucket_style(bucket: str) -> BucketStyle:
    """The style of a bucket value (KeyError for a bucket no registered scheme has)."""
    return buckets_registered()[str(bucket)]


def bucket_label(bucket: str) -> str:
    return bucket_style(bucket).label
