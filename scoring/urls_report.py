"""Report and export URLs (included into the ``scoring`` namespace by scoring/urls.py)."""

from django.urls import path

from . import views_final, views_report

urlpatterns = [
    path("score/<str:assignment_token>/report/", views_report.report, name="report"),
    path(
        "score/<str:assignment_token>/export/<str:what>.<str:fmt>",
        views_report.report_export,
        name="export",
    ),
    path(
        "experiments/<int:experiment_pk>/final-report/",
        views_final.final_report,
        name="final_report",
    ),
    path(
        "experiments/<int:experiment_pk>/final-report/export/<str:what>.<str:fmt>",
        views_final.final_export,
        name="final_export",
    ),
]
