"""Report and export URLs (included into the ``scoring`` namespace by scoring/urls.py)."""

from django.urls import path

from scoring.report import final_views, views

urlpatterns = [
    path("score/<str:assignment_token>/report/", views.report, name="report"),
    path(
        "score/<str:assignment_token>/export/<str:what>.<str:fmt>",
        views.report_export,
        name="export",
    ),
    path(
        "experiments/<int:experiment_pk>/final-report/",
        final_views.final_report,
        name="final_report",
    ),
    path(
        "experiments/<int:experiment_pk>/final-report/export/<str:what>.<str:fmt>",
        final_views.final_export,
        name="final_export",
    ),
]
