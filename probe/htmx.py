"""The request type every view takes: Django's, with django-htmx's details of the htmx request
(``request.htmx``, set by ``django_htmx.middleware.HtmxMiddleware``), so that a type checker
and a reader both know what ``request.htmx.current_url`` or ``request.htmx.target`` are."""

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

__all__ = ["HtmxDetails", "HtmxHttpRequest"]


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
