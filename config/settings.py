"""Settings, read from environment variables with django-environ.

With none set, the embedded default needs no server: an SQLite file and Celery's filesystem
broker under ``var/`` (a real worker process still runs the tasks). With DATABASE_URL and
CELERY_BROKER_URL set, the same code runs on PostgreSQL and Redis. PRODUCTION=1 requires
SECRET_KEY and turns on the HTTPS settings (Secure cookies, HSTS, the proxy's TLS header,
redirect to HTTPS); each can still be set on its own. docs/deploy.md lists every variable.
"""

import atexit
import os
import secrets
import shutil
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured
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


def _weak_secret_key(key: str) -> str:
    """Why a key is too weak to sign sessions and reset links, or "" (Django's own rule, from its
    security.W009 check: at least 50 characters, at least 5 different ones, not generated as
    an insecure placeholder)."""
    if len(key) < 50:
        return f"it has {len(key)} characters, at least 50 are needed"
    if len(set(key)) < 5:
        return f"it has only {len(set(key))} different characters, at least 5 are needed"
    if key.startswith("django-insecure"):
        return "it is a generated placeholder (django-insecure-...)"
    return ""


SECRET_KEY = env.str("SECRET_KEY") if PRODUCTION else env.str("SECRET_KEY", default="")
if PRODUCTION and (_weakness := _weak_secret_key(SECRET_KEY)):
    # Refused at start-up, not left to `check --deploy`: with a guessable key anyone can forge
    # a session cookie or a password-reset link.
    raise ImproperlyConfigured(
        f"SECRET_KEY is too weak for PRODUCTION=1: {_weakness}. Generate one with: "
        "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
    )
SECRET_KEY = SECRET_KEY or _embedded_secret_key()
DEBUG = env.bool("DEBUG", default=False) and not PRODUCTION
# Loopback names are always allowed: container health checks call /healthz through them.
ALLOWED_HOSTS = sorted(set(env_list("ALLOWED_HOSTS")) | {"127.0.0.1", "localhost", "[::1]"})
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# A refused form says so in the user's language, with the site's navigation.
CSRF_FAILURE_VIEW = "probe.views.errors.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "csp",
    # Sign-in through an OpenID Connect identity provider, beside local accounts (probe/oidc.py;
    # nothing changes while OIDC_ISSUER_URL is unset).
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "ninja",
    "probe",
    "scoring",
    "grading",
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
    "allauth.account.middleware.AccountMiddleware",
    "probe.middleware.UserLanguageMiddleware",
    "probe.middleware.TimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A bare 405 (a page sent a method it does not take) becomes the site's error page.
    "probe.middleware.MethodNotAllowedPageMiddleware",
    # NUL in a page's query string or form: 400, before the database sees it.
    "probe.middleware.RefusedCharactersMiddleware",
    "probe.middleware.LoginRequiredMiddleware",
    "probe.middleware.PrivatePagesNotCachedMiddleware",
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

# The only backend: Django's, behind the login lockout (the login settings below).
AUTHENTICATION_BACKENDS = ["probe.backends.LockoutModelBackend"]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Sign-in through the team's identity provider (OpenID Connect, through django-allauth), beside
# local accounts; docs/accounts.md has the set-up. Unset OIDC_ISSUER_URL: local accounts only.
# OIDC_ALLOWED_DOMAINS: the e-mail domains that may sign in this way (empty: any the provider
# vouches for). Local password logins, their lockout and password resets are unchanged; staff
# accounts always log in locally.
OIDC_ISSUER_URL = env.str("OIDC_ISSUER_URL", default="").rstrip("/")
OIDC_CLIENT_ID = env.str("OIDC_CLIENT_ID", default="")
OIDC_CLIENT_SECRET = env.str("OIDC_CLIENT_SECRET", default="")
OIDC_PROVIDER_NAME = env.str("OIDC_PROVIDER_NAME", default="")  # on the button; default "SSO"
OIDC_ALLOWED_DOMAINS = [d.lower().lstrip("@") for d in env_list("OIDC_ALLOWED_DOMAINS")]
OIDC_SCOPES = env_list("OIDC_SCOPES") or ["openid", "profile", "email"]


def oidc_providers(issuer: str, client_id: str, secret: str, name: str) -> dict:
    """allauth's provider setting for one OpenID Connect issuer (empty without an issuer)."""
    if not issuer:
        return {}
    app = {
        "provider_id": "oidc",
        "name": name or "SSO",
        "client_id": client_id,
        "secret": secret,
        "settings": {"server_url": issuer, "oauth_pkce_enabled": True},
    }
    return {"openid_connect": {"APPS": [app], "SCOPE": OIDC_SCOPES, "OAUTH_PKCE_ENABLED": True}}


SOCIALACCOUNT_PROVIDERS = oidc_providers(
    OIDC_ISSUER_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_PROVIDER_NAME
)
SOCIALACCOUNT_ADAPTER = "probe.oidc.TeamSocialAccountAdapter"
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"  # the provider vouches for the address
SOCIALACCOUNT_STORE_TOKENS = False  # nothing is asked of the provider after sign-in
SOCIALACCOUNT_LOGIN_ON_GET = False  # the button posts (CSRF); a bare GET shows a confirm page
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*"]
ACCOUNT_UNIQUE_EMAIL = False  # local accounts may share an address, as before
ACCOUNT_RATE_LIMITS = False  # local logins have their own lockout (probe/backends.py)

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


def csp_allow_issuer(policy: dict, issuer: str) -> dict:
    """The policy with the identity provider's origin added to form-action: the sign-in button
    posts here, and the answer redirects the browser to the provider (a redirect a form-action
    of 'self' alone would stop)."""
    if not issuer:
        return policy
    parts = urlsplit(issuer)
    directives = dict(policy["DIRECTIVES"])
    directives["form-action"] = [*directives["form-action"], f"{parts.scheme}://{parts.netloc}"]
    return {**policy, "DIRECTIVES": directives}


CONTENT_SECURITY_POLICY = csp_allow_issuer(CONTENT_SECURITY_POLICY, OIDC_ISSUER_URL)
# The tests' own scoring schemes (scoring/schemes/rightwrong.py) are offered by the experiment
# form and the API only with this on (the test suite's conftest turns it on); never in production.
SCORING_TEST_SCHEMES = env.bool("SCORING_TEST_SCHEMES", default=False) and not PRODUCTION

# --- Login lockout (probe/selectors/logins.py, docs/deploy.md#accounts) -----------------------
# Wrong passwords are counted per (username, address), per address and per username, in the
# database (every web process shares them), and forgotten after the window. A counter at its
# limit pauses logins for LOGIN_DELAY_SECONDS after its last failure, doubling with each
# further failure up to LOGIN_MAX_DELAY_MINUTES; a refused attempt counts nothing. A username
# is paused everywhere only after failures from LOGIN_USERNAME_ADDRESSES addresses, and never
# from an address it logged in from within LOGIN_KNOWN_ADDRESS_DAYS. A reset link lifts it.
LOGIN_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
LOGIN_ADDRESS_FAILURE_LIMIT = env.int("LOGIN_ADDRESS_FAILURE_LIMIT", default=20)
LOGIN_USERNAME_FAILURE_LIMIT = env.int("LOGIN_USERNAME_FAILURE_LIMIT", default=30)
LOGIN_USERNAME_ADDRESSES = env.int("LOGIN_USERNAME_ADDRESSES", default=10)
LOGIN_DELAY_SECONDS = env.int("LOGIN_DELAY_SECONDS", default=60)
LOGIN_MAX_DELAY_MINUTES = env.int("LOGIN_MAX_DELAY_MINUTES", default=60)
LOGIN_FAILURE_WINDOW_HOURS = env.int("LOGIN_FAILURE_WINDOW_HOURS", default=24)
LOGIN_KNOWN_ADDRESS_DAYS = env.int("LOGIN_KNOWN_ADDRESS_DAYS", default=90)
# --- end of login lockout settings -----------------------------------------------------------
# How many proxies in front of the app append to X-Forwarded-For (0: use the socket address).
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=1 if PRODUCTION else 0)

# Mail: only when EMAIL_URL is set (smtp+tls://user:password@host:587); without it the app
# sends nothing and shows owners the one-time links to hand over themselves.
EMAIL_ENABLED = bool(env.str("EMAIL_URL", default=""))
if EMAIL_ENABLED:
    globals().update(env.email_url("EMAIL_URL"))  # EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT, ...
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="blind-probe@localhost")
# The site's address (https://probe.example.org) for the links in notification mails.
SITE_URL = env.str("SITE_URL", default="").rstrip("/")
# How long a password-reset link stays valid (Django's own token), and an invitation link.
PASSWORD_RESET_TIMEOUT = env.int("PASSWORD_RESET_HOURS", default=72) * 3600
INVITATION_DAYS = env.int("INVITATION_DAYS", default=7)

# Hosts a model configuration may send requests to: the public provider APIs. ALLOWED_PROVIDER_HOSTS
# adds more, as host names or *.suffix patterns; only whoever sets the server's environment can
# widen it, so no team member can point a configuration at the server's internal network.
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
]
# Loopback (127.0.0.0/8, ::1, localhost) is where the server's own Redis and PostgreSQL listen,
# so a configuration may call it only on these ports (local model servers such as Ollama on
# 11434): by default the local simulator's port alone (SIMULATOR_URL's, 8765). An empty value
# allows no loopback port.


def _loopback_ports() -> list[int]:
    simulator = urlsplit(env.str("SIMULATOR_URL", default="http://127.0.0.1:8765/v1"))
    # The laptop default serves the simulator on loopback; a production server allows loopback
    # only where its operator says so (this setting, or a SIMULATOR_URL of their own).
    implied = not PRODUCTION or "SIMULATOR_URL" in os.environ
    raw = env.str("PROVIDER_LOOPBACK_PORTS", default=str(simulator.port or 8765) if implied else "")
    ports = [part.strip() for part in raw.split(",") if part.strip()]
    if not all(port.isdigit() and 1 <= int(port) <= 65535 for port in ports):
        raise ImproperlyConfigured(
            f"PROVIDER_LOOPBACK_PORTS must be comma-separated port numbers, not {raw!r}"
        )
    return sorted({int(port) for port in ports})


PROVIDER_LOOPBACK_PORTS = _loopback_ports()
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
# The filesystem broker's folder: DATA_DIR/broker, or CELERY_BROKER_DIR. A test run takes a
# folder of its own, exported so that the worker processes a test starts share it: tests in the
# same checkout as a running `dev.py run` must never write into the folder its worker reads (a
# message read half-written stopped that worker with "Unrecoverable error: JSONDecodeError").
CELERY_BROKER_DIR = env.str("CELERY_BROKER_DIR", default="")
if not CELERY_BROKER_DIR and "pytest" in sys.modules:
    CELERY_BROKER_DIR = os.environ["CELERY_BROKER_DIR"] = tempfile.mkdtemp(prefix="probe-broker-")
    atexit.register(shutil.rmtree, CELERY_BROKER_DIR, ignore_errors=True)
_broker_dir = Path(CELERY_BROKER_DIR) if CELERY_BROKER_DIR else DATA_DIR / "broker"
CELERY_BROKER_DIR = str(_broker_dir)
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
# A message is acknowledged when a worker process starts its task, and a worker takes one only
# when it has a free process (prefetch disabled, a Redis broker's option): a worker killed or cut
# off from the broker leaves nothing unacknowledged behind. What it was doing is recovered by the
# collection sweep from the database (the runs' leases), never by redelivery.
CELERY_TASK_ACKS_LATE = False
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_DISABLE_PREFETCH = CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
CELERY_TASK_TIME_LIMIT = 15 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 14 * 60
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --- Collection: self-healing and pace (probe/services/collection/, docs/collection.md) ------
# One task collects one run, holding the run's lease (renewed every 2 s; it lapses
# PROBE_RUN_LEASE_SECONDS after the last renewal, which should stay at most PROBE_SWEEP_SECONDS);
# the sweep (Celery beat, every PROBE_SWEEP_SECONDS) queues again any active run whose lease
# lapsed after its last task was taken, or that has had no task sent for
# PROBE_REQUEUE_AFTER_SECONDS. A run that has stored nothing for PROBE_STALL_SECONDS shows as
# stalled. A unit failing with retryable errors is retried for PROBE_UNIT_RETRY_SECONDS (backoff
# up to PROBE_UNIT_BACKOFF_MAX_SECONDS), then fails alone. Each may be set from the environment.
PROBE_RUN_LEASE_SECONDS = env.float("PROBE_RUN_LEASE_SECONDS", default=10)
PROBE_REQUEUE_AFTER_SECONDS = env.float("PROBE_REQUEUE_AFTER_SECONDS", default=60)
PROBE_SWEEP_SECONDS = env.float("PROBE_SWEEP_SECONDS", default=15)
PROBE_STALL_SECONDS = env.float("PROBE_STALL_SECONDS", default=4 * PROBE_SWEEP_SECONDS)
PROBE_UNIT_RETRY_SECONDS = env.float("PROBE_UNIT_RETRY_SECONDS", default=600)
PROBE_UNIT_BACKOFF_MAX_SECONDS = env.float("PROBE_UNIT_BACKOFF_MAX_SECONDS", default=30)
# A task works on a run this long, then hands the rest to a fresh task (other runs get a turn).
PROBE_RUN_SLICE_SECONDS = env.float("PROBE_RUN_SLICE_SECONDS", default=600)
# Messages are acknowledged as their task starts, so the visibility timeout only bounds how long
# a message taken by a worker that died before starting it stays invisible; it still outlasts
# the longest task (a slice plus one provider call at the adapters' 600 s read timeout).
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
    },
    # The same for grading jobs (grading.tasks): a job nothing works on is queued again.
    "sweep-grading": {
        "task": "grading.tasks.sweep_grading",
        "schedule": PROBE_SWEEP_SECONDS,
        "options": {"expires": PROBE_SWEEP_SECONDS},
    },
}
# --- end of collection settings ------------------------------------------------------------------

# The local simulator that the demo and the integration tests collect from (runapp starts it).
SIMULATOR_URL = env.str("SIMULATOR_URL", default="http://127.0.0.1:8765/v1")

# Redis for limits shared by every worker (per-provider concurrency); None on a laptop.
REDIS_URL = env.str("REDIS_URL", default="") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None
)

# The cache every process shares: the API's rate limits count in it, so a limit holds across
# gunicorn workers. Redis when there is one; else files under the data directory (never a
# per-process memory cache), with counters incremented under a lock.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "blindprobe",
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "api.cache.SharedFileCache",
            "LOCATION": str(DATA_DIR / "cache"),
            "KEY_PREFIX": "blindprobe",
            "OPTIONS": {"MAX_ENTRIES": 10000},
        }
    }

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
# Collection: the adapters log one line per provider request (with its request id); httpx's
# own line per request would say the same again.
LOGGING["loggers"]["httpx"] = {"level": "WARNING"}

# The JSON API (api/): its rates, as "count/period" (s, m, h, d), counted in the cache below:
# requests per token; every request per client address; requests without a valid token per
# client address.
API_THROTTLE_RATE = env.str("API_THROTTLE_RATE", default="600/m")
API_ADDRESS_THROTTLE_RATE = env.str("API_ADDRESS_THROTTLE_RATE", default="1200/m")
API_FAILED_AUTH_THROTTLE_RATE = env.str("API_FAILED_AUTH_THROTTLE_RATE", default="30/m")
