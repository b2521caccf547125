"""The Django project: settings, root URLs, the WSGI entry point and the one Celery app."""

from .celery import app as celery_app

__all__ = ("celery_app",)
