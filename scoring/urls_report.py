"""Report and export URLs (included into the ``scoring`` namespace by scoring/urls.py)."""

from django.urls import path

from . import views_report

urlpatterns = [
    path("score/<str:assignment_token>/report/", views_report.report, name="report"),
    path(
        "score/<str:assignment_token>/export/<str:what>.<str:fmt>",
        views_report.report_export,
        name="export",
    ),
]
