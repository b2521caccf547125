"""Agreement between scorers, for nominal categories (buckets), as pure functions.

Nothing here touches the database or Django. Labels may be any hashable value (bucket strings in
practice); ``None`` is a missing rating. ``ratings`` is a sequence of units, each a sequence of
one label (or None) per rater, in the same rater order for every unit, e.g.
``[("correct", "correct", None), ("confident_wrong", "hedged_wrong", "hedged_wrong")]``. Gwet's
AC1 and the bootstrap intervals are in scoring.agreement.chance.

Every coefficient is computed with exact rational arithmetic and converted to float at the end, so
a degenerate case is recognised exactly rather than through a float that is nearly 1. When a
coefficient is undefined (no pairable data; every rating in one and the same category, where
chance agreement is 1 and the formula is 0/0) the function returns None: the page shows a dash.

Definitions, degenerate cases and the published examples the tests check are in docs/figures.md.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from scoring.agreement.chance import agreement_intervals, gwet_ac1

__all__ = [
    "AgreementSummary",
    "ConfusionRow",
    "ConfusionRows",
    "RatingsTable",
    "agreement_summary",
    "coincidence_matrix",
    "cohen_kappa",
    "confusion_rows",
    "confusion_table",
    "fleiss_kappa",
    "fleiss_kappa_by_category",
    "fleiss_kappa_by_category_from_table",
    "fleiss_kappa_from_table",
    "krippendorff_alpha_nominal",
    "pairwise_agreement",
    "percent_agreement",
    "ratings_table",
]

Ratings = Sequence[Sequence[Hashable | None]]


def _units(ratings: Ratings) -> list[list[Hashable]]:
    """The present labels of each unit (None dropped), checking the shape."""
    if isinstance(ratings, str | bytes):
        raise TypeError("ratings must be a sequence of units, each a sequence of labels")
    units = []
    for index, unit in enumerate(ratings):
        if isinstance(unit, str | bytes) or not isinstance(unit, Sequence):
            raise TypeError(
                f"unit {index} is {type(unit).__name__}; each unit must be a list or tuple of labels"
            )
        units.append([label for label in unit if label is not None])
    return units


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


# --- Percent agreement ---


def percent_agreement(ratings: Ratings) -> float | None:
    """Share of units on which every present rater gave the same label.

    Only units with at least two present ratings count (a unit rated once cannot agree or
    disagree). None when there is no such unit. With two raters this is plain percent agreement;
    with more it is the strict "all agree" share, which falls as raters are added (see
    ``pairwise_agreement`` for the mean over pairs of raters).
    """
    pairable = [unit for unit in _units(ratings) if len(unit) >= 2]
    if not pairable:
        return None
    agreeing = sum(1 for unit in pairable if len(set(unit)) == 1)
    return agreeing / len(pairable)


def pairwise_agreement(ratings: Ratings) -> float | None:
    """Mean, over pairs of raters, of each pair's percent agreement on the units both rated.

    A pair of raters with no unit in common is left out of the mean; None when no pair has one.
    With two raters this equals ``percent_agreement``.
    """
    rows = [list(unit) for unit in ratings]
    _units(rows)  # shape check
    width = max((len(row) for row in rows), default=0)
    shares = []
    for i, j in combinations(range(width), 2):
        both = [
            (row[i], row[j])
            for row in rows
            if i < len(row) and j < len(row) and row[i] is not None and row[j] is not None
        ]
        if both:
            shares.append(Fraction(sum(1 for x, y in both if x == y), len(both)))
    if not shares:
        return None
    return float(sum(shares) / len(shares))


# --- Cohen's kappa (two raters) ---


def _paired(a: Sequence[Hashable | None], b: Sequence[Hashable | None]) -> list[tuple]:
    if isinstance(a, str | bytes) or isinstance(b, str | bytes):
        raise TypeError("a and b must be sequences of labels, one per unit")
    if len(a) != len(b):
        raise ValueError(
            f"the two raters must rate the same units: got {len(a)} and {len(b)} labels"
        )
    return [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]


def cohen_kappa(a: Sequence[Hashable | None], b: Sequence[Hashable | None]) -> float | None:
    """Cohen's (1960) kappa for two raters: (p_o - p_e) / (1 - p_e).

    ``a[i]`` and ``b[i]`` are the two raters' labels of unit i; units where either is None are
    dropped. p_o is the observed share of agreement, p_e = sum over labels of the product of the
    two raters' own marginal shares. None when no unit is left, or when p_e = 1 (both raters put
    every unit in one and the same category: kappa is 0/0).
    """
    pairs = _paired(a, b)
    n = len(pairs)
    if n == 0:
        return None
    agree = sum(1 for x, y in pairs if x == y)
    count_a = Counter(x for x, _ in pairs)
    count_b = Counter(y for _, y in pairs)
    chance = sum(count_a[label] * count_b.get(label, 0) for label in count_a)  # = n^2 * p_e
    if chance == n * n:
        return None
    return float(Fraction(n * agree - chance, n * n - chance))


# --- Fleiss' kappa (any number of raters, the same number of ratings per unit) ---


def _check_table(table: Sequence[Sequence[int]]) -> tuple[list[list[int]], int]:
    rows = [list(row) for row in table]
    if not rows:
        raise ValueError("Fleiss' kappa needs at least one unit (the table has no rows)")
    width = len(rows[0])
    if width == 0:
        raise ValueError("Fleiss' kappa needs at least one category (the table has no columns)")
    for index, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(
                f"every row must have one count per category: row 0 has {width}, row {index} has {len(row)}"
            )
        for value in row:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"row {index} holds {value!r}; counts must be non-negative ints")
    m = sum(rows[0])
    for index, row in enumerate(rows):
        if sum(row) != m:
            raise ValueError(
                "Fleiss' kappa needs the same number of ratings for every unit: "
                f"row 0 has {m}, row {index} has {sum(row)} "
                "(use krippendorff_alpha_nominal for unequal numbers of ratings)"
            )
    if m < 2:
        raise ValueError(f"Fleiss' kappa needs at least 2 ratings per unit (got {m})")
    return rows, m


def _fleiss(table: Sequence[Sequence[int]]) -> Fraction | None:
    rows, m = _check_table(table)
    n_units = len(rows)
    total = n_units * m
    # P-bar = mean over units of (sum_j n_ij^2 - m) / (m (m - 1))
    observed = Fraction(sum(v * v for row in rows for v in row) - total, total * (m - 1))
    columns = [sum(column) for column in zip(*rows, strict=True)]
    expected = Fraction(sum(c * c for c in columns), total * total)  # P-bar_e = sum_j p_j^2
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def fleiss_kappa_from_table(table: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' (1971) kappa from a count table: one row per unit, one column per category,
    ``table[i][j]`` = how many raters put unit i in category j.

    Every row must sum to the same number of ratings m >= 2 (ValueError otherwise; the raters
    need not be the same people from unit to unit). kappa = (P-bar - P-bar_e) / (1 - P-bar_e),
    with P-bar the mean share of agreeing rater pairs per unit and P-bar_e the sum of squared
    overall category shares. None when P-bar_e = 1 (one category used by everyone).
    """
    return _float(_fleiss(table))


def _count_table(ratings: Ratings) -> tuple[list[list[int]], list[Hashable]]:
    units = _units(ratings)
    labels: list[Hashable] = []
    seen: set = set()
    for unit in units:
        for label in unit:
            if label not in seen:
                seen.add(label)
                labels.append(label)
    sizes = Counter(len(unit) for unit in units)
    if len(sizes) > 1:
        first = len(units[0])
        odd = next(i for i, unit in enumerate(units) if len(unit) != first)
        raise ValueError(
            "Fleiss' kappa needs the same number of ratings for every unit: "
            f"unit 0 has {first}, unit {odd} has {len(units[odd])} "
            "(missing ratings: use krippendorff_alpha_nominal)"
        )
    index = {label: i for i, label in enumerate(labels)}
    table = []
    for unit in units:
        row = [0] * len(labels)
        for label in unit:
            row[index[label]] += 1
        table.append(row)
    return table, labels


def fleiss_kappa(ratings: Ratings) -> float | None:
    """Fleiss' kappa from reliability data (units x raters, None = missing).

    Every unit must carry the same number m >= 2 of present ratings; otherwise ValueError. See
    ``fleiss_kappa_from_table``.
    """
    table, labels = _count_table(ratings)
    if not labels:
        raise ValueError("Fleiss' kappa needs at least one rating")
    return fleiss_kappa_from_table(table)


def fleiss_kappa_by_category_from_table(table: Sequence[Sequence[int]]) -> list[float | None]:
    """Fleiss' (1971) kappa for each category (column) of a count table: the agreement on
    "this category or not". kappa_j = 1 - sum_i n_ij (m - n_ij) / (N m (m - 1) p_j q_j), with
    q_j = 1 - p_j. None for a category that nobody used or that everybody always used."""
    rows, m = _check_table(table)
    n_units = len(rows)
    total = n_units * m
    result: list[float | None] = []
    for j in range(len(rows[0])):
        column = [row[j] for row in rows]
        used = sum(column)
        if used in (0, total):
            result.append(None)
            continue
        p = Fraction(used, total)
        disagreement = sum(v * (m - v) for v in column)
        result.append(float(1 - Fraction(disagreement, total * (m - 1)) / (p * (1 - p))))
    return result


def fleiss_kappa_by_category(ratings: Ratings) -> dict[Hashable, float | None]:
    """Per-category Fleiss' kappa from reliability data, keyed by label."""
    table, labels = _count_table(ratings)
    if not labels:
        raise ValueError("Fleiss' kappa needs at least one rating")
    return dict(zip(labels, fleiss_kappa_by_category_from_table(table), strict=True))


# --- Krippendorff's alpha, nominal ---


def coincidence_matrix(ratings: Ratings) -> dict[tuple[Hashable, Hashable], Fraction]:
    """Krippendorff's coincidence matrix: o[c, k] = sum over units u with m_u >= 2 present
    ratings of (number of ordered pairs of ratings in u valued c and k) / (m_u - 1).

    Symmetric; every pairable rating contributes 1 in total, so the matrix sums to the number of
    pairable ratings. Only non-zero cells are present.
    """
    # Integer pair counts per unit size first, one division per size at the end: exact and fast.
    pairs_by_size: dict[int, Counter] = defaultdict(Counter)
    for unit in _units(ratings):
        m = len(unit)
        if m < 2:
            continue
        counts = Counter(unit)
        pairs = pairs_by_size[m]
        for c, n_c in counts.items():
            for k, n_k in counts.items():
                if c != k:
                    pairs[c, k] += n_c * n_k
                elif n_c > 1:
                    pairs[c, c] += n_c * (n_c - 1)
    matrix: dict[tuple[Hashable, Hashable], Fraction] = defaultdict(Fraction)
    for m, pairs in pairs_by_size.items():
        for cell, count in pairs.items():
            matrix[cell] += Fraction(count, m - 1)
    return dict(matrix)


def krippendorff_alpha_nominal(ratings: Ratings) -> float | None:
    """Krippendorff's alpha for nominal data, any number of raters, missing ratings allowed.

    alpha = 1 - D_o / D_e = 1 - (n - 1) x sum_{c != k} o_ck / sum_{c != k} n_c n_k, with o the
    coincidence matrix, n_c its margins and n the number of pairable ratings (Krippendorff 2011).
    Units with fewer than two present ratings are not pairable and are dropped. None when fewer
    than two pairable ratings remain, or when they all hold one value (D_e = 0: no variation, so
    reliability cannot be assessed).
    """
    matrix = coincidence_matrix(ratings)
    margins: dict[Hashable, Fraction] = defaultdict(Fraction)
    for (c, _k), value in matrix.items():
        margins[c] += value
    n = sum(margins.values(), Fraction(0))
    if n < 2:
        return None
    observed = sum((v for (c, k), v in matrix.items() if c != k), Fraction(0))
    expected = n * n - sum((v * v for v in margins.values()), Fraction(0))  # sum_{c != k} n_c n_k
    if expected == 0:
        return None
    return float(1 - (n - 1) * observed / expected)


# --- Confusion table (two raters, bucket by bucket) ---


def _label_order(pairs: list[tuple], labels: Iterable[Hashable] | None) -> list[Hashable]:
    if labels is not None:
        order = list(labels)
        if len(set(order)) != len(order):
            raise ValueError("labels must not repeat")
        known = set(order)
        unknown = {x for pair in pairs for x in pair if x not in known}
        if unknown:
            raise ValueError(f"label(s) {sorted(map(repr, unknown))} are not in labels {order}")
        return order
    seen: list[Hashable] = []
    for pair in pairs:
        for x in pair:
            if x not in seen:
                seen.append(x)
    try:
        return sorted(seen)
    except TypeError:  # labels of mixed types: keep the order of first appearance
        return seen


def confusion_table(
    a: Sequence[Hashable | None],
    b: Sequence[Hashable | None],
    labels: Iterable[Hashable] | None = None,
) -> dict[tuple[Hashable, Hashable], int]:
    """``{(label of rater a, label of rater b): count}`` over the units both rated, with every
    combination of ``labels`` present (zeros included). ``labels`` fixes the categories and their
    order (e.g. the four buckets); by default the labels seen, sorted. A label outside ``labels``
    is a ValueError."""
    pairs = _paired(a, b)
    order = _label_order(pairs, labels)
    counts = Counter(pairs)
    return {(x, y): counts.get((x, y), 0) for x in order for y in order}


@dataclass(frozen=True)
class ConfusionRow:
    label: Hashable  # rater a's label
    cells: tuple[int, ...]  # counts against rater b's labels, in ConfusionRows.labels order
    total: int


@dataclass(frozen=True)
class ConfusionRows:
    """A confusion table laid out for a template: rows are rater a, columns rater b."""

    labels: tuple[Hashable, ...]
    rows: tuple[ConfusionRow, ...]
    column_totals: tuple[int, ...]
    total: int
    agreements: int  # the diagonal


def confusion_rows(
    a: Sequence[Hashable | None],
    b: Sequence[Hashable | None],
    labels: Iterable[Hashable] | None = None,
) -> ConfusionRows:
    """``confusion_table`` as rows with totals, ready to loop over in a template."""
    pairs = _paired(a, b)
    order = _label_order(pairs, labels)
    table = confusion_table(a, b, order)
    rows = tuple(
        ConfusionRow(x, cells, sum(cells))
        for x in order
        for cells in [tuple(table[x, y] for y in order)]
    )
    columns = tuple(sum(table[x, y] for x in order) for y in order)
    return ConfusionRows(
        labels=tuple(order),
        rows=rows,
        column_totals=columns,
        total=len(pairs),
        agreements=sum(table[x, x] for x in order),
    )


# --- From judgements to reliability data, and everything at once ---


@dataclass(frozen=True)
class RatingsTable:
    units: tuple[Hashable, ...]
    raters: tuple[Hashable, ...]
    ratings: tuple[tuple[Hashable | None, ...], ...]  # one row per unit, one column per rater

    def rater_column(self, rater: Hashable) -> list[Hashable | None]:
        j = self.raters.index(rater)
        return [row[j] for row in self.ratings]


def _sorted_or_seen(values: list[Hashable]) -> tuple[Hashable, ...]:
    try:
        return tuple(sorted(values))
    except TypeError:
        return tuple(values)


def ratings_table(
    triples: Iterable[tuple[Hashable, Hashable, Hashable]],
    raters: Sequence[Hashable] | None = None,
) -> RatingsTable:
    """Reliability data from ``(unit, rater, label)`` triples, e.g. (response id, scorer id,
    bucket). Units and raters are sorted when they can be (else kept in order of appearance);
    ``raters`` fixes the rater columns, so a rater who judged nothing still has a column. A
    unit/rater pair given twice is a ValueError."""
    cells: dict[tuple[Hashable, Hashable], Hashable] = {}
    unit_seen: dict[Hashable, None] = {}
    rater_seen: dict[Hashable, None] = {}
    for unit, rater, label in triples:
        if (unit, rater) in cells:
            raise ValueError(f"rater {rater!r} rated unit {unit!r} twice")
        cells[unit, rater] = label
        unit_seen.setdefault(unit, None)
        rater_seen.setdefault(rater, None)
    if raters is not None:
        columns = tuple(raters)
        stray = set(rater_seen) - set(columns)
        if stray:
            raise ValueError(f"rater(s) {sorted(map(repr, stray))} are not in raters")
    else:
        columns = _sorted_or_seen(list(rater_seen))
    units = _sorted_or_seen(list(unit_seen))
    rows = tuple(tuple(cells.get((u, r)) for r in columns) for u in units)
    return RatingsTable(units, columns, rows)


@dataclass(frozen=True)
class AgreementSummary:
    raters: int
    units: int  # units given
    pairable_units: int  # units with at least two present ratings
    complete_units: int  # units rated by every rater
    percent: float | None
    pairwise: float | None
    cohen_kappa: float | None  # only with exactly two raters
    fleiss_kappa: float | None  # over the complete units
    krippendorff_alpha: float | None  # over every pairable unit
    gwet_ac1: float | None = None  # over every rated unit (scoring.agreement.chance)
    krippendorff_alpha_ci: object = None  # 95 % bootstrap intervals over units
    gwet_ac1_ci: object = None


def agreement_summary(ratings: Ratings, categories=None) -> AgreementSummary:
    """Every coefficient at once, for a page. Missing ratings are handled per coefficient: percent
    agreement, pairwise agreement, alpha and AC1 use every pairable unit; Cohen's kappa (two
    raters only) the units both rated; Fleiss' kappa the units every rater rated. ``categories``:
    AC1's scale (by default the labels seen)."""
    rows = [tuple(unit) for unit in ratings]
    units = _units(rows)
    width = max((len(row) for row in rows), default=0)
    complete = [row for row in rows if len(row) == width and all(x is not None for x in row)]
    cohen = None
    if width == 2:
        cohen = cohen_kappa(
            [row[0] if len(row) > 0 else None for row in rows],
            [row[1] if len(row) > 1 else None for row in rows],
        )
    fleiss = fleiss_kappa(complete) if complete and width >= 2 else None
    intervals = agreement_intervals(rows, categories)
    return AgreementSummary(
        raters=width,
        units=len(rows),
        pairable_units=sum(1 for unit in units if len(unit) >= 2),
        complete_units=len(complete) if width >= 2 else 0,
        percent=percent_agreement(rows),
        pairwise=pairwise_agreement(rows),
        cohen_kappa=cohen,
        fleiss_kappa=fleiss,
        krippendorff_alpha=krippendorff_alpha_nominal(rows),
        gwet_ac1=gwet_ac1(rows, categories),
        krippendorff_alpha_ci=intervals.krippendorff_alpha,
        gwet_ac1_ci=intervals.gwet_ac1,
    )
