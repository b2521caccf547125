"""The bank file format needs no database, only gettext.

Under pytest-django (the project's pytest config) the settings are already configured. When the
plugin is switched off (``-p no:django``) the project's settings are used if they import; only
when they cannot be imported are minimal settings configured here, so that gettext works.
"""

import importlib
import os

import django
from django.conf import settings


def _ensure_settings() -> None:
    if settings.configured:
        return
    module = os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings")
    try:
        importlib.import_module(module)
    except Exception:
        settings.configure(USE_I18N=True, LANGUAGE_CODE="en", INSTALLED_APPS=[])
    else:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", module)
    django.setup()


_ensure_settings()
