"""The repeated parts of the report's tables (scoring.report.tables), as template filters."""

from django import template

from scoring.report import tables as report_tables

register = template.Library()

register.filter("summary_body", report_tables.summary_body)
register.filter("calibration_body", report_tables.calibration_body)
register.filter("risk_body", report_tables.risk_body)
register.filter("definitions_body", report_tables.definitions_body)
register.filter("slice_heads", report_tables.slice_heads)
register.filter("block_body", report_tables.block_body)
register.filter("facet_body", report_tables.facet_body)
