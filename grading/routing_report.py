"""The figures of a routed experiment, on the final report: human-only and corrected.

Human-only: over the answers people judged (the answers routed to them and the audit). They
are not a random share of the answers (people get the hard ones), so they are shown, never
headlined. Corrected (headlined): prediction-powered, over every answer (``ppi.ppi_rate``): the
people's stratum enters as itself, the grader's stratum as its labels plus the mean
human-minus-grader difference on the audit. A raw count of the grader's labels is never shown
as a figure.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from probe.models import Response
from scoring.comparison.routed import CORRECTED
from scoring.models import Bucket
from scoring.report.final import final_gate
from scoring.report.source import BucketSource, final_source, grader_decided, without_dropped
from scoring.schemes import bucket_style

from .models import RoutedAnswer
from .ppi import PPIFigure, ppi_combine, ppi_rate
from .routing import plan_of, route_counts

NET = "net"


@dataclass(frozen=True)
class RoutedFigure:
    name: str
    human_only: float | None
    n_people: int  # answers people judged (the audit included)
    corrected: PPIFigure


@dataclass
class RoutedConfig:
    label: str
    figures: list[RoutedFigure]


def _values(buckets: list[str], figure: str, w: float) -> np.ndarray:
    if figure == NET:
        return np.array(
            [(b == Bucket.CORRECT) - w * (b == Bucket.CONFIDENT_WRONG) for b in buckets],
            dtype=float,
        )
    return np.array([b == figure for b in buckets], dtype=float)


def routed_figures(experiment, source: BucketSource, w: float = 1.0) -> list[RoutedConfig]:
    """Per configuration, each bucket's share (and net usable per answer, four buckets): the
    human-only figure and the corrected one with its interval."""
    plan = plan_of(experiment)
    human = dict(replace(source, human_only=True).scoped().values_list("response_id", "bucket"))
    graded = set(grader_decided(experiment).values_list("response_id", flat=True))
    routed = dict(
        plan.answers.filter(
            route__in=[RoutedAnswer.Route.GRADER, RoutedAnswer.Route.AUDIT], returned=""
        ).values_list("response_id", "route")
    )
    grader_bucket = dict(plan.answers.values_list("response_id", "grader_bucket"))
    excluded = set()
    if source.excluded_items is not None:
        excluded = set(
            Response.objects.filter(
                run__experiment=experiment, item__in=source.excluded_items
            ).values_list("pk", flat=True)
        )
    by_config: dict[str, list[int]] = defaultdict(list)
    for pk, label in (
        Response.objects.filter(run__experiment=experiment)
        .values_list("pk", "run__model_config__label")
        .order_by("run__model_config__label", "pk")
    ):
        if pk not in excluded:
            by_config[label].append(pk)
    scheme = experiment.scheme_obj
    names = [str(b) for b in scheme.buckets]
    if scheme.has_net_usable:
        names.append(NET)
    result = []
    for label, pks in by_config.items():
        audit = [pk for pk in pks if routed.get(pk) == RoutedAnswer.Route.AUDIT and pk in human]
        decided = [pk for pk in pks if pk in graded or routed.get(pk) == RoutedAnswer.Route.AUDIT]
        decided_set = set(decided)
        people = [pk for pk in pks if pk not in decided_set and pk in human]
        judged = [human[pk] for pk in people + audit]
        figures, shares = [], {}
        for name in names:
            if name == NET:
                corrected = ppi_combine(
                    shares[str(Bucket.CORRECT)], shares[str(Bucket.CONFIDENT_WRONG)], w
                )
            else:
                corrected = shares[name] = ppi_rate(
                    _values([human[pk] for pk in people], name, w),
                    _values([grader_bucket[pk] for pk in decided], name, w),
                    _values([human[pk] for pk in audit], name, w),
                    _values([grader_bucket[pk] for pk in audit], name, w),
                )
            values = _values(judged, name, w)
            figures.append(
                RoutedFigure(
                    name=name,
                    human_only=float(values.mean()) if values.size else None,
                    n_people=len(judged),
                    corrected=corrected,
                )
            )
        result.append(RoutedConfig(label=label, figures=figures))
    return result


def figure_label(name: str) -> str:
    if name == NET:
        return _("Net usable per answer (correct − w × confidently wrong)")
    return str(bucket_style(name).label)


def routing_section(request, experiment, source: BucketSource, w: float) -> str:
    """The final report's section on a routed experiment ("" for one that is not)."""
    plan = plan_of(experiment)
    if plan is None:
        return ""
    configs = routed_figures(experiment, source, w)
    rows = [
        {"config": c.label, "figure": f, "label": figure_label(f.name)}
        for c in configs
        for f in c.figures
    ]
    return render_to_string(
        "grading/partials/_routing_report.html",
        {"plan": plan, "rows": rows, "counts": route_counts(plan), "w": w},
        request=request,
    )


def _pair(low, high) -> list[float] | None:
    return None if low is None else [low, high]


def routed_dict(
    experiment, source: BucketSource, w: float, figures: str = CORRECTED
) -> dict | None:
    """A routed experiment's figures as JSON-ready data (the API's results and the grading
    export), the same numbers as the report's section: the plan (cut, how many answers the
    grader decided, people judged and the audit took, the audit share) and, per configuration
    and figure, ``value`` (the figures asked for: ``corrected``, the report's headline, or
    ``human``) beside both, the corrected one with its two intervals. None when not routed."""
    plan = plan_of(experiment)
    if plan is None:
        return None
    counts = route_counts(plan)
    configs = routed_figures(experiment, source, w)

    def figure(f: RoutedFigure) -> dict:
        c = f.corrected
        return {
            "value": c.value if figures == CORRECTED else f.human_only,
            "corrected": c.value,
            "interval": _pair(c.low, c.high),
            "interval_beyond": _pair(c.low_beyond, c.high_beyond),
            "human_only": f.human_only,
            "judged_by_people": f.n_people,
            "answers": c.n_total,
            "decided_by_grader": c.n_grader,
            "audit": c.n_audit,
        }

    return {
        "figures": figures,
        "w": w,
        "plan": {
            "job": plan.job_id,
            "calibration_job": plan.calibration_job_id,
            "confidence_cut": plan.confidence_cut,
            "calibration_sentence": plan.calibration_sentence,
            "audit_share": plan.audit_share,
            "audit_min": plan.audit_min,
            "seed": plan.seed,
            "decided_by_grader": counts[RoutedAnswer.Route.GRADER],
            "judged_by_people": counts[RoutedAnswer.Route.PEOPLE],
            "audit": counts[RoutedAnswer.Route.AUDIT],
        },
        "configurations": [
            {"label": c.label, "figures": {f.name: figure(f) for f in c.figures}} for c in configs
        ],
    }


def routing_export(request, experiment, w: float = 1.0) -> dict | None:
    """The grading export's routing: the plan always, and the figures of the final report's
    section (corrected headlined, at the download's w) once the final report may show; else
    ``configurations`` is None. None when the experiment is not routed."""
    if plan_of(experiment) is None:
        return None
    source = without_dropped(final_source(experiment))
    out = routed_dict(experiment, source, w)
    if not final_gate(request, experiment).open:
        out["configurations"] = None
    return out
