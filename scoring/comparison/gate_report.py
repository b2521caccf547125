"""The gate's answer, one shape for the command line and the API: the verdict, its exit code,
why, and every figure.

``gate_outcome`` reads the request as both give it (strings, as typed), runs the comparison and
sorts every way it can end into one of five verdicts:

| verdict | exit | API | when |
|---|---|---|---|
| pass | 0 | 200 | no configuration (or block) is worse beyond noise |
| fail | 1 | 200 | one is: a regression |
| cannot tell yet | 2 | 409 | collection, scoring or reconciliation unfinished: asking later may answer |
| cannot judge | 2 | 422 | no waiting will answer: other schemes or prompts, too few shared items |
| refused | 3 | 422 (404 for an id) | the request is wrong: an id, a label, w, the metric |

``gate_body`` is the JSON both print; ``gate_text`` the lines the command prints without --json.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from probe.models import Experiment
from scoring.comparison import compare, routed
from scoring.comparison.compare import CannotTellYet, Comparison, NotComparable, Refused
from scoring.comparison.gate_decision import MIN_ITEMS, NET_USABLE
from scoring.report.build import parse_weight
from scoring.report.numbers import level_places

PASS, FAIL, CANNOT_TELL_YET, CANNOT_JUDGE, REFUSED = (
    "pass",
    "fail",
    "cannot tell yet",
    "cannot judge",
    "refused",
)
EXIT = {PASS: 0, FAIL: 1, CANNOT_TELL_YET: 2, CANNOT_JUDGE: 2, REFUSED: 3}
HTTP = {PASS: 200, FAIL: 200, CANNOT_TELL_YET: 409, CANNOT_JUDGE: 422, REFUSED: 422}
METHOD = {
    "test": "one-sided sign-flip permutation test of each gap over the shared items",
    "correction": "Holm over every configuration and block, for worse and for better apart",
    "level": compare.LEVEL,
    "seed": compare.SEED,
}


@dataclass
class Outcome:
    verdict: str
    detail: str
    problems: list[dict] = field(default_factory=list)
    comparison: Comparison | None = None
    experiments: dict[str, Experiment] = field(default_factory=dict)
    metric: str = NET_USABLE
    w: float | None = None
    min_items: int | None = None
    status: int | None = None  # the API's status, when not the verdict's (404 for an id)

    @property
    def exit_code(self) -> int:
        return EXIT[self.verdict]

    @property
    def http_status(self) -> int:
        return self.status or HTTP[self.verdict]


def _refused(error: Refused, **known) -> Outcome:
    return Outcome(REFUSED, str(error), [{"field": error.field, "message": str(error)}], **known)


def _whole(value: str, name: str, message: str) -> int:
    text = str(value).strip()
    if not text.isdigit():
        raise Refused(message, name)
    return int(text)


def parse_pair(value: str | None) -> tuple[str, str] | None:
    if value is None or not str(value).strip():
        return None
    parts = [part.strip() for part in str(value).split("=")]
    if len(parts) != 2 or not all(parts):
        raise Refused(_("pair takes BASELINE_LABEL=CANDIDATE_LABEL."), "pair")
    return parts[0], parts[1]


def parse_flag(value: str, name: str) -> bool | Outcome:
    """A yes/no query parameter as the API takes it, or the refusal to answer with."""
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("", "0", "false", "no", "off"):
        return False
    return _refused(Refused(_("%(name)s takes true or false.") % {"name": name}, name))


def gate_outcome(
    *,
    baseline: str,
    candidate: str,
    find: Callable[[str, int], Experiment],
    metric: str = NET_USABLE,
    w: str | None = "1",
    pair: str | None = None,
    allow_prompt_change: bool = False,
    min_items: str | int | None = MIN_ITEMS,
    figures: str | None = routed.CORRECTED,
) -> Outcome:
    """The gate on the request as typed. ``find(name, id)`` gives the experiment or raises
    Refused (no such experiment for this caller) or CannotTellYet (the caller is blind to it)."""
    known: dict = {"metric": metric}
    figures = figures or routed.CORRECTED
    if figures not in routed.FIGURES:
        return _refused(
            Refused(
                _("figures must be “corrected” or “human” (a routed experiment's figures)."),
                "figures",
            ),
            **known,
        )
    try:
        weight = parse_weight(w)
    except ValueError:
        return _refused(Refused(_("w must be a number from 0 to 100."), "w"), **known)
    known["w"] = weight if metric == NET_USABLE else None
    try:
        minimum = _whole(
            MIN_ITEMS if min_items in (None, "") else min_items,
            "min_items",
            _("The minimum of shared items must be a whole number from 1."),
        )
        known["min_items"] = minimum
        ids = {
            name: _whole(
                value,
                name,
                _("The %(name)s must be an experiment id (a whole number).") % {"name": name},
            )
            for name, value in (("baseline", baseline), ("candidate", candidate))
        }
        labels = parse_pair(pair)
        compare.check_request(metric, weight, minimum)
        known["experiments"] = {}
        for name, pk in ids.items():
            known["experiments"][name] = find(name, pk)
    except Refused as error:
        return _refused(
            error, **known, status=404 if error.field in ("baseline", "candidate") else None
        )
    except CannotTellYet as error:
        return Outcome(CANNOT_TELL_YET, str(error), **known)
    experiments = known["experiments"]
    try:
        result = compare.compare(
            experiments["baseline"],
            experiments["candidate"],
            metric=metric,
            w=weight,
            pair=labels,
            allow_prompt_change=allow_prompt_change,
            min_items=minimum,
            figures=figures,
        )
    except Refused as error:
        return _refused(error, **known)
    except NotComparable as error:
        return Outcome(CANNOT_JUDGE, str(error), **known)
    except CannotTellYet as error:
        return Outcome(CANNOT_TELL_YET, str(error), **known)
    if result.regression:
        detail = _("A configuration is worse beyond noise: the gate fails.")
    else:
        detail = _("No configuration is worse beyond noise: the gate passes.")
    return Outcome(FAIL if result.regression else PASS, detail, comparison=result, **known)


def missing_experiment(name: str, pk: int) -> Refused:
    """The one refusal for an id that is not there, or not the caller's to see."""
    return Refused(_("No experiment with id %(id)s (%(name)s).") % {"id": pk, "name": name}, name)


# ------------------------------------------------------------------------------------------------
# The JSON and the text
# ------------------------------------------------------------------------------------------------


def _verdict(row) -> str:
    return "worse" if row.worse else "better" if row.better else "not separable"


def _gap_dict(row) -> dict:
    test = row.test
    return {
        "baseline_value": row.baseline,
        "candidate_value": row.candidate,
        "gap": row.gap,
        "low": test.low,
        "high": test.high,
        "low_level": test.low_level,
        "high_level": test.high_level,
        "p_worse": test.p_worse,
        "p_worse_holm": test.p_worse_holm,
        "p_better": test.p_better,
        "p_better_holm": test.p_better_holm,
        "verdict": _verdict(row),
    }


def _side(outcome: Outcome, name: str, index: int) -> dict | None:
    experiment = outcome.experiments.get(name)
    if experiment is None:
        return None
    result = outcome.comparison
    return {
        "id": experiment.pk,
        "name": experiment.name,
        "buckets": result.sources[index] if result is not None else None,
    }


def gate_body(outcome: Outcome) -> dict:
    """Every answer of the gate, pass or not, in one shape (the keys are always there)."""
    result = outcome.comparison
    return {
        "verdict": outcome.verdict,
        "exit_code": outcome.exit_code,
        "detail": outcome.detail,
        "problems": outcome.problems,
        "baseline": _side(outcome, "baseline", 0),
        "candidate": _side(outcome, "candidate", 1),
        "metric": outcome.metric,
        "w": outcome.w,
        "min_items": outcome.min_items,
        "items": result.items if result else None,
        "items_left_out": result.left_out if result else [],
        "prompt_differs": result.prompt_differs if result else None,
        "method": METHOD
        | {"swaps": result.swaps if result else None, "exact": result.exact if result else None},
        "configurations": [
            {
                "baseline": row.baseline_label,
                "candidate": row.candidate_label,
                "items": row.items,
                **_gap_dict(row),
                "blocks": [{"block": b.code, "items": b.items, **_gap_dict(b)} for b in row.blocks],
            }
            for row in (result.rows if result else [])
        ],
        "regression": result.regression if result else None,
    }


def _figure(value: float | None, metric: str) -> str:
    if value is None:
        return "-"
    return f"{value:+.2f}" if metric == NET_USABLE else f"{value:.3f}"


def _level(value: float) -> str:
    """A bound's confidence, with the places it needs not to read 100.0% below 1."""
    return f"{value * 100:.{level_places(value)}f}%"


def _line(label: str, row, metric: str, unit: str) -> str:
    test = row.test
    verdict = {"worse": "WORSE", "better": "better"}.get(_verdict(row), "not separable")
    p = test.p_worse_holm
    return (
        f"{label}: {_figure(row.baseline, metric)} -> {_figure(row.candidate, metric)} {unit}, "
        f"gap {_figure(row.gap, metric)} ({_figure(test.low, metric)} at {_level(test.low_level)} "
        f"to {_figure(test.high, metric)} at {_level(test.high_level)}): {verdict}, "
        f"p(worse) = {p:.4f} after Holm"
    )


def gate_text(outcome: Outcome) -> str:
    """The gate's report for a terminal or a CI log."""
    result = outcome.comparison
    if result is None:
        lead = {
            CANNOT_TELL_YET: _("Cannot tell yet"),
            CANNOT_JUDGE: _("Cannot judge"),
            REFUSED: _("Refused"),
        }[outcome.verdict]
        return f"{lead}: {outcome.detail}"
    metric = result.metric
    unit = "items" if metric == NET_USABLE else "(rate)"
    how = "exact" if result.exact else f"{result.swaps:,} swaps"
    lines = [
        f"Baseline:  {result.baseline.name} (#{result.baseline.pk}, {result.sources[0]} buckets)",
        f"Candidate: {result.candidate.name} (#{result.candidate.pk}, {result.sources[1]} buckets)",
        f"Metric: {metric}"
        + (f" (w = {result.w:g})" if metric == NET_USABLE else "")
        + f", on {result.items} shared items; one-sided permutation tests ({how}), "
        "Holm over every configuration and block",
    ]
    if result.prompt_differs:
        lines.append("Note: the prompt versions differ (accepted with --allow-prompt-change).")
    if result.left_out:
        lines.append(f"{len(result.left_out)} items left out:")
        lines += [f"  - {why}" for why in result.left_out[:20]]
    for row in result.rows:
        lines.append(_line(f"{row.baseline_label} -> {row.candidate_label}", row, metric, unit))
        for block in row.blocks:
            label = f"  block {block.code} ({block.items} items)"
            lines.append(_line(label, block, metric, unit))
    lines.append(outcome.detail)
    return "\n".join(lines)
