"""Production settings: `check --deploy` is clean with the environment docs/deploy.md documents,
production refuses to start without a secret key, and the HTTPS settings do what they say."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]
# What the compose file sets beside the .env (the services' addresses), and what it never needs.
COMPOSE_ONLY = {"POSTGRES_PASSWORD"}


def documented_environment() -> dict[str, str]:
    """The ```env block of docs/deploy.md, with its placeholders filled in."""
    text = (ROOT / "docs" / "deploy.md").read_text()
    block = re.search(r"```env\n(.*?)```", text, re.S)
    assert block, "docs/deploy.md has no ```env block"
    env = {}
    for line in block[1].splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, value = line.partition("=")
        env[name.strip()] = value.strip()
    assert env.get("SECRET_KEY") == "..."  # a placeholder, not a key anybody might copy
    env["SECRET_KEY"] = secrets.token_urlsafe(50)
    return {k: v for k, v in env.items() if k not in COMPOSE_ONLY}


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    base = {
        key: os.environ[key]
        for key in ("PATH", "HOME", "DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL")
        if key in os.environ
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, "DATA_DIR": str(ROOT / "var"), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_the_documented_environment():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=documented_environment())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_warns_without_it():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env={})
    assert result.returncode != 0
    output = result.stdout + result.stderr
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in output


def test_production_refuses_to_start_without_a_secret_key():
    env = documented_environment()
    del env["SECRET_KEY"]
    result = manage("check", env=env)
    assert result.returncode != 0
    assert "Set the SECRET_KEY environment variable" in result.stderr


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("abcde", "it has 5 characters, at least 50 are needed"),
        ("ab" * 40, "it has only 2 different characters, at least 5 are needed"),
        ("django-insecure-" + "x1y2z3" * 10, "generated placeholder"),
    ],
)
def test_production_refuses_a_weak_secret_key_at_start_up(key, says):
    env = {**documented_environment(), "SECRET_KEY": key}
    result = manage("check", env=env)
    assert result.returncode != 0
    assert "SECRET_KEY is too weak for PRODUCTION=1" in result.stderr
    assert says in result.stderr
    assert key not in result.stderr  # the key itself is never printed


def test_a_short_secret_key_is_still_fine_on_a_laptop():
    result = manage("check", env={"SECRET_KEY": "abcde"})
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_settings_come_from_the_environment():
    env = {
        **documented_environment(),
        "SECURE_HSTS_PRELOAD": "0",
        "ALLOWED_PROVIDER_HOSTS": "ollama, *.gpu.example.org",
        "DEBUG": "1",
    }
    code = (
        "from django.conf import settings as s; "
        "print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT,"
        " s.SECURE_PROXY_SSL_HEADER, s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_PRELOAD,"
        " s.TRUSTED_PROXY_COUNT, s.ALLOWED_PROVIDER_HOSTS[-2:], 'probe.example.org' in"
        " s.ALLOWED_HOSTS)"
    )
    result = manage("shell", "-c", code, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[-2] == (
        "False True True True ('HTTP_X_FORWARDED_PROTO', 'https') 31536000 False 1 "
        "['ollama', '*.gpu.example.org'] True"
    )


@pytest.fixture
def https_settings(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    settings.SECURE_HSTS_PRELOAD = True
    return settings


def test_behind_the_proxy_pages_get_hsts_and_plain_http_is_redirected(client, db, https_settings):
    login = reverse("login")
    plain = client.get(login)
    assert plain.status_code == 301 and plain["Location"] == f"https://testserver{login}"
    secure = client.get(login, HTTP_X_FORWARDED_PROTO="https")
    assert secure.status_code == 200
    assert secure["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    # The container health check calls /healthz over plain HTTP on loopback.
    assert client.get(reverse("healthz")).status_code == 200


def test_pages_of_a_logged_in_user_are_never_cached(client, world):
    client.force_login(world.users["editor"])
    bank = reverse("probe:bank_detail", kwargs={"bank_pk": world.bank.pk})
    run_raw = reverse("probe:run_raw", kwargs={"run_pk": world.scored.runs.first().pk})
    for url in (f"{bank}?key=1", run_raw, reverse("probe:team_home", kwargs={"team_slug": "acme"})):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]


def test_api_answers_are_never_cached(world):
    from django.test import Client

    from api.models import ApiToken

    _row, token = ApiToken.issue(
        user=world.users["editor"], team=world.team, access="write", name="cache test"
    )
    client = Client(headers={"Authorization": f"Bearer {token}"})
    for path in ("/api/me", "/api/teams/acme/banks", f"/api/banks/{world.bank.pk}/export"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert "no-store" in response["Cache-Control"], path
