"""The API's rates: per token, per address, and per address for failed authentications, counted
in the shared cache; a refusal is a 429 with Retry-After and a JSON body."""

import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from api.cache import SharedFileCache
from api.models import ApiToken
from api.throttle import parse_rate

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def get(token: str | None, address: str = "127.0.0.1", **headers):
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return Client().get("/api/me", headers=headers, REMOTE_ADDR=address)


def issue(world, role="viewer") -> str:
    return ApiToken.issue(user=world.users[role], team=world.team, access="read", name="t")[1]


def assert_throttled(response):
    assert response.status_code == 429
    assert response["Content-Type"].startswith("application/json")
    assert 0 < int(response["Retry-After"]) <= 3600
    body = response.json()
    assert body["detail"] and body["problems"] == []


def test_requests_are_throttled_per_token(world, settings):
    settings.API_THROTTLE_RATE = "5/h"
    busy, other = issue(world), issue(world)
    statuses = [get(busy).status_code for _ in range(5)]
    assert statuses == [200] * 5
    assert_throttled(get(busy))
    # Another token of the same user has its own allowance.
    assert get(other).status_code == 200


def test_bad_and_missing_tokens_are_throttled_per_address(world, settings):
    settings.API_FAILED_AUTH_THROTTLE_RATE = "3/h"
    attempts = [get("bp_guess1"), get(None), get("bp_guess2")]
    assert [r.status_code for r in attempts] == [401, 401, 401]
    assert_throttled(get("bp_guess3"))
    assert_throttled(get(None))
    # A valid token from the same address is not locked out by someone else's guesses ...
    assert get(issue(world)).status_code == 200
    # ... and another address has its own count.
    assert get("bp_guess4", address="10.0.0.9").status_code == 401


def test_a_forged_forwarded_header_gives_no_fresh_address(world, settings):
    settings.API_FAILED_AUTH_THROTTLE_RATE = "2/h"
    settings.TRUSTED_PROXY_COUNT = 0
    statuses = [get("bp_guess", HTTP_X_FORWARDED_FOR=f"10.1.{n}.1").status_code for n in range(4)]
    assert statuses == [401, 401, 429, 429]


def test_every_request_of_an_address_counts_against_its_rate(world, settings):
    settings.API_ADDRESS_THROTTLE_RATE = "4/h"
    first, second = issue(world, "viewer"), issue(world, "editor")
    statuses = [get(token).status_code for token in (first, second, first, second)]
    assert statuses == [200] * 4
    assert_throttled(get(first))
    assert_throttled(get(second))
    assert get(first, address="10.0.0.7").status_code == 200


def test_a_malformed_rate_is_named():
    assert (parse_rate("600/m").count, parse_rate("600/m").seconds) == (600, 60)
    for bad in ("600", "0/m", "ten/m", "5/w"):
        with pytest.raises(ImproperlyConfigured, match="count/period"):
            parse_rate(bad)


# The embedded default's cache ----------------------------------------------------------------


def count_up(location: str, times: int) -> None:
    cache = SharedFileCache(location, {})
    for _ in range(times):
        cache.add("hits", 0, 60)
        cache.incr("hits")


def test_the_file_cache_adds_up_increments_from_several_processes(tmp_path):
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=count_up, args=(str(tmp_path), 150)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    assert SharedFileCache(str(tmp_path), {}).get("hits") == 600


def test_the_file_cache_keeps_an_entrys_expiry_when_it_increments(tmp_path):
    cache = SharedFileCache(str(tmp_path), {})
    cache.add("n", 0, 1)
    time.sleep(0.6)
    assert cache.incr("n") == 1  # Django's own incr would have set it for 300 s more
    time.sleep(0.6)
    assert cache.get("n") is None
    with pytest.raises(ValueError):
        cache.incr("n")


def test_without_redis_the_cache_is_the_shared_file_cache(tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CELERY_BROKER_URL")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATA_DIR": str(tmp_path),
    }
    code = "import django; django.setup(); from django.conf import settings as s; " + (
        "print(s.CACHES['default']['BACKEND'], s.CACHES['default']['LOCATION'])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["api.cache.SharedFileCache", str(tmp_path / "cache")]
    env["REDIS_URL"] = "redis://127.0.0.1:6379/9"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.stdout.split()[0] == "django.core.cache.backends.redis.RedisCache"
