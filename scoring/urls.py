"""Scoring URLs, one ``scoring`` namespace gathered from the contexts' url modules. A scorer's
pages are addressed by their opaque assignment token only."""

from django.urls import path

from scoring.allocation import urls as allocation_urls
from scoring.bucket_css import bucket_stylesheet
from scoring.comparison import urls as comparison_urls
from scoring.discussion import urls as discussion_urls
from scoring.queue import urls as queue_urls
from scoring.reconciliation import urls as reconciliation_urls
from scoring.report import urls as report_urls
from scoring.review import urls as review_urls

app_name = "scoring"

urlpatterns = [
    path("buckets.css", bucket_stylesheet, name="bucket_css"),
    *queue_urls.urlpatterns,
    *comparison_urls.urlpatterns,
    *report_urls.urlpatterns,
    *review_urls.urlpatterns,
    *reconciliation_urls.urlpatterns,
    *allocation_urls.urlpatterns,
    *discussion_urls.urlpatterns,
]
