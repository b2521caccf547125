"""The parser tests need no database and no project settings.

When pytest-django (or the caller) provides a settings module, it is left alone. Otherwise a
minimal Django is configured, only so that the lazy issue labels can be evaluated.
"""

import importlib
import os

import django
from django.conf import settings


def _ensure_settings() -> None:
    if settings.configured:
        return
    module = os.environ.get("DJANGO_SETTINGS_MODULE")
    if module:
        try:
            importlib.import_module(module)
            return
        except Exception:
            pass
    settings.configure(USE_I18N=True, LANGUAGE_CODE="en-us", INSTALLED_APPS=[])
    django.setup()


_ensure_settings()
