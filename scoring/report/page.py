"""What the two report pages share (one scorer's report, and the team's final report): w from
the query string, the gaps the page lists, and the figures' part of the page's context."""

import copy
import dataclasses

from django.http import HttpResponse, HttpResponseBadRequest
from django.utils.translation import gettext as _

from scoring.report import chart_sweep, charts
from scoring.report.build import Report, parse_weight

# Every pair is listed up to 12 configurations (66 pairs); beyond, neighbours in the ranking.
PAGE_GAPS = 66
# The tables and charts with a row, a column or a bar per configuration show this many on the
# page, and the pair comparisons the pairs among them, unless the reader asks for every row
# (?rows=all); every row is in the figures export. At 125 configurations (250 runs) the page
# would otherwise be 1.8 MB of HTML.
PAGE_CONFIGS = 30
ALL_ROWS = "all"


def request_weight(request) -> tuple[float, str]:
    """w from the query string, and an error message when it was not usable (w is then 1)."""
    raw = request.GET.get("w")
    try:
        return parse_weight(raw), ""
    except ValueError:
        return 1.0, _("w must be a number from 0 to 100; 1 is used instead.")


def export_weight(request) -> tuple[float, HttpResponse | None]:
    """w for a download: a script that asked for an unusable w is told so (400, the reason in
    plain text) rather than given the figures at w = 1 without a word, as the page may."""
    raw = request.GET.get("w")
    try:
        return parse_weight(raw), None
    except ValueError:
        message = _("w must be a number from 0 to 100.")
        return 1.0, HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


def page_gaps(result: Report) -> tuple[list, bool]:
    """The gaps the page lists, best pair first, and whether some were left to the exports."""
    rank = {c.key: -(c.net.mean or 0) for c in result.configs}
    gaps = sorted(result.gaps, key=lambda g: (rank[g.a.key], rank[g.b.key]))
    if len(gaps) <= PAGE_GAPS:
        return gaps, False
    ranked = sorted(
        (c for c in result.configs if c.net.mean is not None), key=lambda c: rank[c.key]
    )
    neighbours = {frozenset((a.key, b.key)) for a, b in zip(ranked, ranked[1:], strict=False)}
    return [g for g in gaps if frozenset((g.a.key, g.b.key)) in neighbours], True


def page_report(request, result: Report) -> Report:
    """The report as the page's tables list it: its first PAGE_CONFIGS configurations, unless
    it has no more than that or the reader asked for every row (the figures are the same)."""
    if len(result.configs) <= PAGE_CONFIGS or request.GET.get("rows") == ALL_ROWS:
        return result
    shown = copy.copy(result)
    shown.configs = result.configs[:PAGE_CONFIGS]
    keys = {c.key for c in shown.configs}
    shown.gaps = [g for g in result.gaps if g.a.key in keys and g.b.key in keys]

    def cut(row):  # a block's or a slice's row: its cells of the configurations shown
        return dataclasses.replace(row, cells=[c for c in row.cells if c.config.key in keys])

    shown.blocks = [cut(block) for block in result.blocks]
    shown.facets = [
        dataclasses.replace(facet, rows=[cut(row) for row in facet.rows]) for facet in result.facets
    ]
    return shown


def figures_context(request, result: Report, w_error: str) -> dict:
    """The report, the w field, the gaps and the charts, as both report pages show them.

    ``report`` is what the tables and charts show (page_report: past PAGE_CONFIGS
    configurations, the first of them and the pairs among them); the counts in the headings are
    of the whole report (``report_all``)."""
    shown = page_report(request, result)
    gaps, gaps_cut = page_gaps(shown)
    query = request.GET.copy()
    query["rows"] = ALL_ROWS
    return {
        "report": shown,
        "report_all": result,
        "rows_cut": len(result.configs) - len(shown.configs),
        "rows_shown": len(shown.configs),
        "rows_all_url": f"?{query.urlencode()}",
        "w_input": request.GET.get("w", "1") if not w_error else "1",
        "w_error": w_error,
        "gaps": gaps,
        "gaps_cut": gaps_cut,
        "repeat_measured": sum(g.within_repeat_noise is not None for g in result.gaps),
        "repeat_within": sum(bool(g.within_repeat_noise) for g in result.gaps),
        "bucket_chart": charts.bucket_chart(shown),
        "calibration_chart": charts.calibration_chart(shown),
        "net_chart": charts.net_chart(shown),
        "sweep_chart": chart_sweep.sweep_chart(result),
    }
