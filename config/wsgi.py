"""WSGI entry point for gunicorn (and for runserver, through WSGI_APPLICATION).

Once the application is loaded, what it has made so far (modules, settings, URL patterns, the
apps' registries) lives as long as the process. ``gc.freeze()`` moves those objects out of the
cyclic garbage collector's generations, so that the full collections a large request triggers
(the report of a 250-run experiment makes some 10^5 short-lived objects) no longer scan them
every time: about a tenth of that report's time.
"""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
gc.freeze()
