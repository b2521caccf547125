"""The report's long tables, written out in Python.

The templates ``scoring/partials/_report_*.html`` hold each table's frame (heading, help,
caption, column heads); what repeats once per configuration, run, block or definition (thousands
of cells at 125 configurations, a few variables each) is written here in one pass of string
formatting, as scoring.report.chart_svg does for the charts: the same markup, character for character,
as the template loops it replaces wrote, with the same message ids and the same escaping
(scoring.report.html_out), at a fraction of the template engine's cost per cell.
"""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from scoring.report.html_out import out, words
from scoring.report.numbers import Numbers, numbers
from scoring.templatetags.report_tags import config_label, level_ci

__all__ = [
    "block_body",
    "calibration_body",
    "slice_heads",
    "definitions_body",
    "risk_body",
    "facet_body",
    "summary_body",
]


def _repeat(run) -> str:
    return gettext("Repeat %(n)s") % {"n": out(run.repeat)}


# --- figures per configuration ------------------------------------------------------------------


def _summary_run(report, run, f: Numbers) -> str:
    scheme = report.scheme_obj
    mark = ""
    if run.unblinded:
        title = ngettext(
            "%(n)s decision changed after the reveal",
            "%(n)s decisions changed after the reveal",
            run.unblinded,
        ) % {"n": out(run.unblinded)}
        mark = f' <span class="unblinded-mark" title="{title}">† {out(run.unblinded)}</span>'
    if run.status == "closed":
        closed = words(gettext("closed as failed"))
        mark += f' <span class="tag warn-tag">{closed}</span>'
    counts = "".join(
        f'<td class="num">{out(getattr(run.counts, b, None))}</td>' for b in report.bucket_names
    )
    figures = _figure_cells(
        scheme, f, [getattr(run.figures, col.name, None) for col in scheme.summary_columns], run.ci
    )
    return (
        f'\n    <tr data-run="{out(run.repeat)}">\n'
        f'      <th scope="row" class="sub">{_repeat(run)}{mark}</th>\n'
        f"      {counts}\n      {figures}\n    </tr>\n    "
    )


def _summary_spread(report, config, f: Numbers) -> str:
    """The mean and range rows of a configuration with several repeats."""
    scheme, summary = report.scheme_obj, config.summary
    means = "".join(
        f'<td class="num">{out(f.num(_mean(summary.get(b)), 1))}</td>' for b in report.bucket_names
    )
    figures = _figure_cells(
        scheme, f, [_mean(summary.get(col.name)) for col in scheme.summary_columns], config.ci
    )
    ranges = "".join(
        f'<td class="num">{out(f.span(summary.get(b)))}</td>' for b in report.bucket_names
    )
    range_figures = "".join(
        f'<td class="{out(col.css)}">{out(f.span(summary.get(col.name), col.span))}</td>'
        for col in scheme.summary_columns
    )
    mean, spread = words(gettext("Mean")), words(gettext("Range"))
    return (
        '\n    <tr class="mean-row">\n'
        f'      <th scope="row" class="sub">{mean}</th>\n'
        f"      {means}\n      {figures}\n    </tr>\n"
        '    <tr class="range-row">\n'
        f'      <th scope="row" class="sub">{spread}</th>\n'
        f"      {ranges}\n      {range_figures}\n    </tr>\n    "
    )


def _figure_cells(scheme, f: Numbers, values: list, intervals) -> str:
    """A summary row's figure cells: each column's value, then its interval from ``intervals``."""
    return "".join(
        f'<td class="{out(col.css)}">{out(f.figure(value, col.fmt))}'
        f"{f.ci(intervals.get(col.ci) if intervals else None, col.interval_fmt)}</td>"
        for col, value in zip(scheme.summary_columns, values, strict=True)
    )


def _mean(summary):
    return getattr(summary, "mean", None) if summary is not None else None


def summary_body(report) -> SafeString:
    """The summary table's body: per configuration a head row, a row per repeat, and (with
    several repeats) the mean and the range."""
    f = numbers()
    if not report.configs:
        empty = words(gettext("No runs."))
        return mark_safe(
            f'\n  <tbody><tr><td class="empty" colspan="8">{empty}</td></tr></tbody>\n  '
        )
    width = out(report.scheme_obj.summary_width)
    parts = []
    for config in report.configs:
        runs = "".join(_summary_run(report, run, f) for run in config.runs)
        spread = _summary_spread(report, config, f) if len(config.runs) > 1 else ""
        parts.append(
            '\n  <tbody class="config-group">\n'
            f'    <tr class="config-head"><th scope="rowgroup" colspan="{width}">\n'
            f"      {config_label(config)}\n    </th></tr>\n    {runs}\n    {spread}\n"
            "  </tbody>\n  "
        )
    return mark_safe("".join(parts))


# --- calibration and risk-coverage --------------------------------------------------------------


def _levels(calibration, intervals, f: Numbers) -> str:
    return "".join(
        f'<td class="num">{out(level.count)}</td><td class="num">{out(f.pct(level.accuracy, 0))}'
        f"{f.ci(level_ci(intervals, level.level), 'pct:0')}</td>"
        for level in calibration.levels
    )


def calibration_body(report) -> SafeString:
    """The calibration table's body: per configuration its pooled row, then (with several
    repeats) a row per repeat."""
    f = numbers()
    all_repeats = words(gettext("all repeats"))
    parts = []
    for config in report.configs:
        several = len(config.runs) > 1
        calibration = config.calibration
        warning = ""
        if calibration.single_level:
            said = gettext("Every rated answer at %(level)s: the ratings carry no information") % {
                "level": out(calibration.single_level_name)
            }
            warning = f'<span class="tag warn-tag calibration-warning">{said}</span>'
        label = config_label(config, short=True)
        if several:
            label += f' <span class="muted small">{all_repeats}</span>'
        repeats = ""
        if several:
            repeats = "".join(_calibration_run(run, f) for run in config.runs)
        parts.append(
            '\n  <tbody class="config-group">\n    <tr class="pooled-row">\n'
            f'      <th scope="row">{label}</th>\n'
            f"      {_levels(calibration, config.ci, f)}\n"
            f'      <td class="num">{out(calibration.unrated)}</td>\n'
            f"      <td>{warning}</td>\n    </tr>\n    {repeats}\n  </tbody>\n  "
        )
    return mark_safe("".join(parts))


def _calibration_run(run, f: Numbers) -> str:
    calibration = run.calibration
    warning = ""
    if calibration.single_level:
        said = gettext("all at %(level)s") % {"level": out(calibration.single_level_name)}
        warning = f'<span class="tag warn-tag">{said}</span>'
    return (
        "\n    <tr>\n"
        f'      <th scope="row" class="sub">{_repeat(run)}</th>\n'
        f"      {_levels(calibration, run.ci, f)}\n"
        f'      <td class="num">{out(calibration.unrated)}</td>\n'
        f"      <td>{warning}</td>\n    </tr>\n    "
    )


def risk_body(report) -> SafeString:
    """The risk-coverage table's body: per configuration a row per threshold."""
    f = numbers()
    thresholds = (
        words(gettext("HIGH only")),
        words(gettext("HIGH and MEDIUM")),
        words(gettext("every answer")),
    )
    parts = []
    for config in report.configs:
        rows = []
        for k, row in enumerate(config.risk_coverage):
            head = ""
            if k == 0:
                head = f'<th scope="rowgroup" rowspan="3">{config_label(config, short=True)}</th>'
            point = row.point
            rows.append(
                f'\n    <tr data-levels="{"+".join(out(level) for level in point.levels)}">\n'
                f"      {head}\n"
                f"      <td>{thresholds[min(k, 2)]}</td>\n"
                f'      <td class="num">{out(f.num(point.answered, 1))}</td>\n'
                f'      <td class="num">{out(f.pct(point.coverage))}{f.ci(row.coverage_ci, "pct")}</td>\n'
                f'      <td class="num">{out(f.pct(point.risk))}{f.ci(row.risk_ci, "pct")}</td>\n'
                f'      <td class="num net">{out(f.num(point.score, 1))}{f.ci(row.score_ci, "num:1")}'
                "</td>\n    </tr>\n    "
            )
        parts.append(f'\n  <tbody class="config-group">\n    {"".join(rows)}\n  </tbody>\n  ')
    return mark_safe("".join(parts))


# --- every definition side by side ----------------------------------------------------------------


def definitions_body(report, definitions) -> SafeString:
    """The definitions table's body: per definition its name, source and formula, and its value
    in every configuration."""
    f = numbers()
    undefined = words(gettext("Not defined for these answers"))
    values = [{v.key: v for v in config.definitions or ()} for config in report.configs]
    parts = []
    for d in definitions:
        cells = []
        for by_key in values:
            v = by_key.get(d.key)
            value = v.value if v is not None else ""
            interval = v.ci if v is not None else None
            if value is None:
                text = f'<span class="muted" title="{undefined}">–</span>'
            elif d.kind == "pct":
                text = f"{out(f.pct(value))}{f.ci(interval, 'pct')}"
            else:
                text = f"{out(f.num(value, 1))}{f.ci(interval, 'num:1')}"
            cells.append(f'<td class="num config-col">{text}</td>')
        parts.append(
            f'\n    <tr data-definition="{out(d.key)}">\n'
            f'      <th scope="row">{out(d.name)}</th>\n'
            f'      <td class="muted small">{out(d.source)}</td>\n'
            f'      <td class="formula">{out(d.formula)}</td>\n'
            f"      {''.join(cells)}\n    </tr>\n  "
        )
    return mark_safe("".join(parts))


# --- per block and per facet ------------------------------------------------------------------


def slice_heads(report) -> SafeString:
    """The two head rows' cells of a slice table: a column group per configuration, then each
    group's figures."""
    scheme = report.scheme_obj
    width = out(len(scheme.slice_columns))
    groups = "".join(
        f'<th scope="colgroup" colspan="{width}" class="num config-col">'
        f"{config_label(config, short=True)}</th>"
        for config in report.configs
    )
    labels = "".join(
        f'<th scope="col" class="num">{out(col.label)}</th>' for col in scheme.slice_columns
    )
    columns = "".join(f"\n      {labels}\n    " for _config in report.configs)
    return mark_safe(f"{groups}</tr>\n    <tr>{columns}")


def _slice_cells(report, cells, f: Numbers, with_ci: bool) -> str:
    columns = report.scheme_obj.slice_columns
    parts = []
    for cell in cells:
        tds = []
        for col in columns:
            summary = cell.summary.get(col.name) if cell.summary else None
            interval = ""
            if with_ci:
                interval = f.ci(cell.ci.get(col.ci) if cell.ci else None, col.interval_fmt)
            tds.append(
                f'<td class="{out(col.css)}">{out(f.figure(_mean(summary), col.fmt))}{interval}</td>'
            )
        parts.append(f"\n        {''.join(tds)}\n      ")
    return "".join(parts)


def block_body(report) -> SafeString:
    """The block table's body: per block its items and each configuration's figures."""
    f = numbers()
    parts = []
    for block in report.blocks:
        parts.append(
            f'\n    <tr data-block="{out(block.code)}">\n'
            f'      <th scope="row"><strong>{out(block.code)}</strong> {out(block.title)}</th>\n'
            f'      <td class="num">{out(block.n_items)}</td>\n'
            f"      {_slice_cells(report, block.cells, f, with_ci=True)}\n    </tr>\n  "
        )
    return mark_safe("".join(parts))


def facet_body(report, facet) -> SafeString:
    """A facet table's body: per value its items and each configuration's figures."""
    f = numbers()
    parts = []
    for row in facet.rows:
        parts.append(
            f'\n    <tr data-slice="{out(row.value)}">\n'
            f'      <th scope="row">{out(row.label)}</th>\n'
            f'      <td class="num">{out(row.n_items)}</td>\n'
            f"      {_slice_cells(report, row.cells, f, with_ci=False)}\n    </tr>\n  "
        )
    return mark_safe("".join(parts))
