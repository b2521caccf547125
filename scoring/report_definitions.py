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

from . import stats
from .metrics import simpleqa_figures
from .stats import Interval

__all__ = ["Definition", "DefinitionValue", "definition_values", "definitions", "figures_from_sums"]


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


def definition_values(report, definitions, config, sums, n, boot_ci) -> list[DefinitionValue]:
    """Every definition's value for one configuration (means over repeats), with its interval:
    Wilson for a proportion, the bootstrap (``boot_ci``) for the others."""
    c, p, a = sums
    scheme = report.scheme_obj
    incorrect, partial, not_attempted = scheme.aa_terms(c, p, a, n, config.summary)
    net, index, _f = figures_from_sums(report, np.array(c), np.array(p), np.array(a), n)
    # SimpleQA grades correct, incorrect (every other attempt) and not attempted.
    simpleqa = simpleqa_figures(c, a - c, n - a)
    values = {
        "knowledge": (c / n if n else None, stats.wilson(c, n)),
        "hallucination_rate_probe": (p / a if a else None, stats.wilson(p, a))
        if scheme.defines_probe_figures
        else (None, None),
        "net_usable": (float(net), None) if scheme.defines_probe_figures else (None, None),
        "aa_index": (_none_if_nan(index), None),
        "aa_accuracy": (c / n if n else None, stats.wilson(c, n)),
        "aa_attempt_rate": (a / n if n else None, stats.wilson(a, n)),
        "aa_hallucination_rate": (
            incorrect / (incorrect + partial + not_attempted)
            if incorrect + partial + not_attempted
            else None,
            stats.wilson(incorrect, incorrect + partial + not_attempted),
        ),
        "sqa_correct_given_attempted": (simpleqa.correct_given_attempted, stats.wilson(c, a)),
        "sqa_f_score": (simpleqa.f_score, None),
    }
    out = []
    for d in definitions:
        value, ci = values[d.key]
        out.append(DefinitionValue(d.key, value, ci if d.key not in boot_ci else boot_ci[d.key]))
    return out
