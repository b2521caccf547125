"""The probe project: teams, banks, experiments and collection; the Celery app lives here too."""

from .celery import app as celery_app

__all__ = ("celery_app",)
