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
from scoring.models import Bucket
from scoring.report.source import BucketSource, grader_decided
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
            route__in=[RoutedAnswer.Route.GRADER, RoutedAnswer.Route.AUDIT]
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
