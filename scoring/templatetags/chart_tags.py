"""The repeated parts of the report's charts (scoring.report.chart_svg), as template filters."""

from django import template

from scoring.report import chart_svg

register = template.Library()

register.filter("bucket_desc", chart_svg.bucket_desc)
register.filter("bucket_rows", chart_svg.bucket_rows)
register.filter("calibration_desc", chart_svg.calibration_desc)
register.filter("calibration_groups", chart_svg.calibration_groups)
register.filter("net_desc", chart_svg.net_desc)
register.filter("net_rows", chart_svg.net_rows)
