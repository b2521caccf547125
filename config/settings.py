"""Settings, read from environment variables with django-environ.

With none set, the embedded default needs no server: an SQLite file and Celery's filesystem
broker under ``var/`` (a real worker process still runs the tasks). With DATABASE_URL and
CELERY_BROKER_URL set, the same code runs on PostgreSQL and Redis. PRODUCTION=1 requires
SECRET_KEY and turns on the HTTPS settings (Secure cookies, HSTS, the proxy's TLS header,
redirect to HTTPS); each can still be set on its own. docs/deploy.md lists every variable.
"""

import secrets
from datetime import timedelta
from pathlib import Path

import environ
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
DATA_DIR = Path(env.str("DATA_DIR", default=str(BASE_DIR / "var")))
DATA_DIR.mkdir(parents=True, exist_ok=True)

PRODUCTION = env.bool("PRODUCTION", default=False)


def env_list(name: str) -> list[str]:
    """A comma-separated variable, each entry stripped ("a, b" is ["a", "b"])."""
    return [part.strip() for part in env.list(name, default=[]) if part.strip()]


def _embedded_secret_key() -> str:
    # A laptop install keeps one random key in var/ so sessions survive restarts; production
    # must set SECRET_KEY (env.str without a default raises ImproperlyConfigured).
    path = DATA_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = env.str("SECRET_KEY") if PRODUCTION else env.str("SECRET_KEY", default="")
SECRET_KEY = SECRET_KEY or _embedded_secret_key()
DEBUG = env.bool("DEBUG", default=False) and not PRODUCTION
# Loopback names are always allowed: container health checks call /healthz through them.
ALLOWED_HOSTS = sorted(set(env_list("ALLOWED_HOSTS")) | {"127.0.0.1", "localhost", "[::1]"})
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "csp",
    "axes",
    "ninja",
    "probe",
    "scoring",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Compresses pages, fragments and streamed exports (static files come precompressed from
    # WhiteNoise, above it). BREACH: Django adds random bytes to every gzip header and masks
    # the CSRF token anew in each response; see docs/deploy.md.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "probe.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "probe.middleware.LoginRequiredMiddleware",
    "probe.middleware.PrivatePagesNotCachedMiddleware",
    # Last, as django-axes asks: it turns a refused login into the "try again later" page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "probe.context_processors.teams",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

_sqlite_path = DATA_DIR / "db.sqlite3"
DATABASES = {"default": env.db_url("DATABASE_URL", default=f"sqlite:///{_sqlite_path}")}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web process and the worker write at once: WAL and a busy timeout keep them apart.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    DATABASES["default"].setdefault("TEST", {})["NAME"] = str(DATA_DIR / "test.sqlite3")
else:
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    # First, so a locked-out username or address is refused before its password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Interface languages: the browser's Accept-Language picks one until the user chooses in the
# switcher (a cookie, and remembered on the user). Dates follow the language's formats in
# config/formats/; docs/i18n.md has the catalogue workflow.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("ja", _("Japanese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
FORMAT_MODULE_PATH = ["config.formats"]
LANGUAGE_COOKIE_SAMESITE = "Lax"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns about a missing one
STATICFILES_DIRS = [BASE_DIR / "static"]
# Static files: collectstatic (run by `dev.py install` and `dev.py run`, and in the Dockerfile)
# writes each file under a name with its content hash, plus a gzip copy; pages link the hashed
# names and WhiteNoise serves them with a year-long "immutable" Cache-Control, so the stylesheets
# and scripts cost nothing after the first page. With DEBUG on, plain names and no manifest.
# The test suite uses the plain storage (tests/conftest.py); one test runs collectstatic.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Serve static files from the app directories too (a file added since the last collectstatic).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# HTTPS. In production the app sits behind a TLS-terminating proxy that sets X-Forwarded-Proto
# (and overwrites any the client sent); every switch below can be set on its own.
if env.bool("SECURE_PROXY_SSL_HEADER", default=PRODUCTION):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=PRODUCTION)
# The container health check calls /healthz over plain HTTP on loopback.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000 if PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=PRODUCTION)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=PRODUCTION)
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=PRODUCTION)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"

# Content-Security-Policy (django-csp): everything from this origin, nothing inline, no eval,
# never framed. Templates carry no inline script, handler or style attribute; htmx is told
# not to inject its indicator style (the meta tag in base.html).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
        "object-src": ["'none'"],
    }
}

# Login throttling (django-axes): after LOGIN_FAILURE_LIMIT failed logins for one username, or
# from one address, logins from there are refused for LOGIN_LOCKOUT_MINUTES (a page says how
# long; the audit log of the user's teams records it). Attempts live in the database, so
# every web process shares them.
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_LOCKOUT_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_LOCKOUT_CALLABLE = "probe.views.accounts.locked_out"
AXES_CLIENT_IP_CALLABLE = "probe.middleware.client_ip"
AXES_RESET_ON_SUCCESS = True
AXES_USERNAME_FORM_FIELD = "username"
# How many proxies in front of the app append to X-Forwarded-For (0: use the socket address).
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=1 if PRODUCTION else 0)

# Mail: only when EMAIL_URL is set (smtp+tls://user:password@host:587); without it the app
# sends nothing and shows owners the one-time links to hand over themselves.
EMAIL_ENABLED = bool(env.str("EMAIL_URL", default=""))
if EMAIL_ENABLED:
    globals().update(env.email_url("EMAIL_URL"))  # EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT, ...
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="blind-probe@localhost")
# How long a password-reset link stays valid (Django's own token), and an invitation link.
PASSWORD_RESET_TIMEOUT = env.int("PASSWORD_RESET_HOURS", default=72) * 3600
INVITATION_DAYS = env.int("INVITATION_DAYS", default=7)

# Hosts a model configuration may send requests to: the public provider APIs and loopback
# (local servers such as Ollama, vLLM or llama.cpp). ALLOWED_PROVIDER_HOSTS adds more, as host
# names or *.suffix patterns; only whoever sets the server's environment can widen it, so no
# team member can point a configuration at the server's internal network.
DEFAULT_PROVIDER_HOSTS = [
    "api.openai.com",
    "api.anthropic.com",
    "generativelanguage.googleapis.com",
    "api.x.ai",
    "api.groq.com",
    "api.mistral.ai",
    "api.deepseek.com",
    "api.together.xyz",
    "api.fireworks.ai",
    "openrouter.ai",
    "localhost",
    "127.0.0.1",
    "::1",
]
ALLOWED_PROVIDER_HOSTS = DEFAULT_PROVIDER_HOSTS + env_list("ALLOWED_PROVIDER_HOSTS")

# Uploads: bank files are refused above their own limit (probe.bankformat.MAX_BYTES, 16 MiB);
# Django's own ceiling sits a little above it so the user gets our message, not a 400. A file
# upload above FILE_UPLOAD_MAX_MEMORY_SIZE goes to a temporary file rather than memory.
DATA_UPLOAD_MAX_MEMORY_SIZE = 17 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
# The most items one bank may have: a bank file with more is refused with its count, never cut
# (docs/bank-format.md, "The file itself").
BANK_MAX_ITEMS = env.int("BANK_MAX_ITEMS", default=50_000)

# Celery: filesystem broker by default (no server), Redis in production.
_broker_dir = DATA_DIR / "broker"
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    for sub in ("queue", "processed", "control"):
        (_broker_dir / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 15 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 14 * 60
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --- Collection: self-healing and pace (probe/services/collection/, docs/collection.md) ------
# One task collects one run, holding the run's lease (renewed every third of its term); the
# sweep (Celery beat) queues again any active run with no live lease, no task sent and no
# attempt for PROBE_REQUEUE_AFTER_SECONDS. Each may be set from the environment.
PROBE_RUN_LEASE_SECONDS = env.float("PROBE_RUN_LEASE_SECONDS", default=30)
PROBE_REQUEUE_AFTER_SECONDS = env.float("PROBE_REQUEUE_AFTER_SECONDS", default=60)
PROBE_STALL_SECONDS = env.float("PROBE_STALL_SECONDS", default=120)
PROBE_SWEEP_SECONDS = env.float("PROBE_SWEEP_SECONDS", default=15)
# A task works on a run this long, then hands the rest to a fresh task (other runs get a turn).
PROBE_RUN_SLICE_SECONDS = env.float("PROBE_RUN_SLICE_SECONDS", default=600)
# A message held by a dead worker comes back after the visibility timeout; it must outlast the
# longest task (a slice plus one provider call at the adapters' 600 s read timeout), or a live
# task's message would be handed to a second worker. The sweep recovers dead workers' runs
# long before that.
if not CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] = int(PROBE_RUN_SLICE_SECONDS) + 900
# The broker going away (a restart) is waited out, never a reason to stop.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_BEAT_SCHEDULE = {
    "sweep-collection": {
        "task": "probe.tasks.sweep_collection",
        "schedule": PROBE_SWEEP_SECONDS,
        # Sweeps that piled up while no worker ran are pointless: the next one does it all.
        "options": {"expires": PROBE_SWEEP_SECONDS},
    }
}
# --- end of collection settings ------------------------------------------------------------------

# The local simulator that the demo and the integration tests collect from (runapp starts it).
SIMULATOR_URL = env.str("SIMULATOR_URL", default="http://127.0.0.1:8765/v1")

# Redis for limits shared by every worker (per-provider concurrency); None on a laptop.
REDIS_URL = env.str("REDIS_URL", default="") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # django-axes logs every login at INFO; lockouts come at WARNING.
    "loggers": {"django.db.backends": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}
# Collection: the adapters log one line per provider request (with its request id); httpx's
# own line per request would say the same again.
LOGGING["loggers"]["httpx"] = {"level": "WARNING"}

# The JSON API (api/): requests per token, as "count/period" (s, m, h, d).
API_THROTTLE_RATE = env.str("API_THROTTLE_RATE", default="600/m")
