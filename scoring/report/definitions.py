"""Every definition side by side: this probe's figures, AA-Omniscience's and SimpleQA's.

Each figure has its own name, its formula and its source, so that no two different formulas
share a name (the probe's hallucination rate is confidently wrong / attempted; AA-Omniscience's
is incorrect / every answer that is not correct). ``definition_values`` computes them for one
configuration from the sums over its items (means over its repeats). Formulas and the mapping
between the schemes: docs/figures.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.utils.translation import gettext_lazy as _

from scoring.metrics import simpleqa_figures
from scoring.report.stats import Interval

__all__ = [
    "Definition",
    "DefinitionValue",
    "definition_values",
    "definitions",
    "figures_from_sums",
    "share_terms",
]


@dataclass(frozen=True)
class DefinitionValue:
    key: str
    value: float | None
    ci: Interval | None


@dataclass(frozen=True)
class Definition:
    key: str
    name: str
    formula: str
    source: str
    kind: str  # "pct", "num" (items) or "points"


def definitions() -> list[Definition]:
    """Every figure shown side by side, each under its own name, with its formula and source."""
    probe, aa, sqa = _("this probe"), _("AA-Omniscience"), _("SimpleQA")
    return [
        Definition("knowledge", _("Knowledge"), _("correct / N"), probe, "pct"),
        Definition(
            "hallucination_rate_probe",
            _("Hallucination rate (probe)"),
            _("confidently wrong / attempted, attempted = N − abstained"),
            probe,
            "pct",
        ),
        Definition(
            "net_usable", _("Net usable"), _("correct − w × confidently wrong"), probe, "num"
        ),
        Definition(
            "aa_index", _("Omniscience index"), _("100 × (correct − incorrect) / N"), aa, "points"
        ),
        Definition("aa_accuracy", _("Accuracy"), _("correct / N"), aa, "pct"),
        Definition(
            "aa_attempt_rate",
            _("Attempt rate"),
            _("(correct + incorrect + partial) / N"),
            aa,
            "pct",
        ),
        Definition(
            "aa_hallucination_rate",
            _("Hallucination rate (AA-Omniscience)"),
            _("incorrect / (incorrect + partial + not attempted)"),
            aa,
            "pct",
        ),
        Definition(
            "sqa_correct_given_attempted",
            _("Correct given attempted"),
            _("correct / (correct + incorrect)"),
            sqa,
            "pct",
        ),
        Definition(
            "sqa_f_score",
            _("F-score"),
            _("2 × overall correct × correct given attempted / (their sum)"),
            sqa,
            "pct",
        ),
    ]


def figures_from_sums(report, c, pen, att, n):
    """Net usable (AA: index), the Omniscience index and the SimpleQA F-score from sums (arrays
    or floats): c correct, pen confidently wrong (AA: incorrect), att attempted, over n items."""
    scheme = report.scheme_obj
    incorrect_all = scheme.incorrect_from_sums(c, pen, att)  # AA's: every wrong attempt
    with np.errstate(divide="ignore", invalid="ignore"):
        index = 100 * (c - incorrect_all) / n if n else np.full_like(c, np.nan)
        net = scheme.net_from_sums(c, pen, n, report.w)
        overall = c / n if n else np.full_like(c, np.nan)
        given = np.where(att > 0, c / np.where(att > 0, att, 1), np.nan)
        total = overall + given
        f = np.where(total > 0, 2 * overall * given / np.where(total > 0, total, 1), 0.0)
        f = np.where(np.isnan(given) | np.isnan(overall), np.nan, f)
    return net, index, f


def _none_if_nan(value) -> float | None:
    value = float(value)
    return None if np.isnan(value) else value


def share_terms(scheme) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each share's numerator and denominator as buckets of the scheme ("n": N). AA-Omniscience's
    and SimpleQA's incorrect is every attempt neither correct nor partial; not attempted is the
    scheme's abstention bucket, never an unscored response (that is in no bucket)."""
    attempted = tuple(b for b in scheme.buckets if b != scheme.abstain)
    partial = tuple(b for b in attempted if b == scheme.partial)
    incorrect = tuple(b for b in attempted if b != scheme.correct and b not in partial)
    not_attempted = (scheme.abstain,) if scheme.abstain else ()
    terms = {
        "knowledge": ((scheme.correct,), ("n",)),
        "aa_accuracy": ((scheme.correct,), ("n",)),
        "aa_attempt_rate": (attempted, ("n",)),
        "aa_hallucination_rate": (incorrect, incorrect + partial + not_attempted),
        "sqa_correct_given_attempted": ((scheme.correct,), attempted),
    }
    if scheme.defines_probe_figures:
        terms["hallucination_rate_probe"] = ((scheme.penalised,), attempted)
    return terms


def _total(config, fields: tuple[str, ...]) -> int:
    """The whole count of ``fields`` (buckets, or "n") summed over the configuration's runs."""
    return sum(
        run.figures.n if name == "n" else getattr(run.counts, name, 0)
        for run in config.runs
        for name in fields
    )


def definition_values(report, definitions, config, items, boot_ci) -> list[DefinitionValue]:
    """Every definition's value for one configuration, with its interval.

    A share is the ratio of the means over repeats, from whole counts summed over the runs (the
    same arithmetic as the summary's, so a figure shown under two names is the same number),
    with its Wilson interval over the items and their repeats (``items``, a
    report_shares.ItemShares); net usable, the index and the F-score are figures of the mean
    counts, with their bootstrap intervals (``boot_ci``)."""
    scheme = report.scheme_obj
    values: dict = {key: (None, None) for key in boot_ci}
    for key, (numerator, denominator) in share_terms(scheme).items():
        total = _total(config, denominator)
        value = _total(config, numerator) / total if total else None
        values[key] = (value, items.wilson(numerator, denominator))
    repeats = max(len(config.runs), 1)
    c, n = _total(config, (scheme.correct,)) / repeats, report.n_items
    attempted = _total(config, tuple(b for b in scheme.buckets if b != scheme.abstain)) / repeats
    simpleqa = simpleqa_figures(c, attempted - c, max(n - attempted, 0))
    if scheme.defines_probe_figures:
        values["net_usable"] = (config.summary[scheme.compared_figure].mean, None)
    if "index" in config.summary:  # the scheme's own index: the summary's number
        values["aa_index"] = (config.summary["index"].mean, None)
    else:
        incorrect = _total(config, share_terms(scheme)["aa_hallucination_rate"][0]) / repeats
        values["aa_index"] = (100 * (c - incorrect) / n if n else None, None)
    values["sqa_f_score"] = (simpleqa.f_score, None)
    out = []
    for d in definitions:
        value, ci = values.get(d.key, (None, None))
        out.append(DefinitionValue(d.key, value, boot_ci.get(d.key, ci)))
    return out
