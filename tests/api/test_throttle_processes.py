"""The API's limits hold across processes: gunicorn with 3 workers, as docker-compose runs it,
on PostgreSQL and a Redis server of its own, hit by many requests at once."""

import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from django.db import connection

from api.models import ApiToken
from tests.api.served import gunicorn

TOKEN_RATE, FAILED_RATE = 40, 10


@pytest.fixture
def served(world, tmp_path):
    """(base URL, access log) of gunicorn with 3 workers, sharing a Redis server as its cache."""
    if connection.vendor != "postgresql":
        pytest.skip("gunicorn's workers need a database server they share with the test")
    rates = {
        "API_THROTTLE_RATE": f"{TOKEN_RATE}/d",
        "API_FAILED_AUTH_THROTTLE_RATE": f"{FAILED_RATE}/d",
        "API_ADDRESS_THROTTLE_RATE": "100000/d",
    }
    with gunicorn(tmp_path, workers=3, **rates) as base:
        yield base, tmp_path / "access.log"


def at_once(base: str, tokens: list[str | None]) -> list[httpx.Response]:
    def one(token):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.get(f"{base}/api/me", headers=headers, timeout=60)

    with ThreadPoolExecutor(max_workers=24) as pool:
        return list(pool.map(one, tokens))


def day() -> int:
    return int(time.time() // 86400)


@pytest.mark.django_db(transaction=True)
def test_the_limits_hold_across_three_gunicorn_workers(world, served):
    base, log = served
    _row, text = ApiToken.issue(
        user=world.users["viewer"], team=world.team, access="read", name="busy job"
    )
    started = day()
    answers = at_once(base, [text] * (3 * TOKEN_RATE))
    guesses = at_once(base, [f"bp_guess{n}" for n in range(3 * FAILED_RATE)] + [None] * 10)
    same_window = day() == started  # the windows are days: a run across midnight gets two

    statuses = Counter(r.status_code for r in answers)
    assert set(statuses) == {200, 429}
    if same_window:
        assert statuses[200] == TOKEN_RATE, statuses
    else:
        assert TOKEN_RATE <= statuses[200] <= 2 * TOKEN_RATE, statuses
    for refused in (r for r in answers + guesses if r.status_code == 429):
        assert int(refused.headers["Retry-After"]) > 0
        assert refused.headers["content-type"].startswith("application/json")
        assert refused.json()["detail"]

    failed = Counter(r.status_code for r in guesses)
    assert set(failed) == {401, 429}
    if same_window:
        assert failed[401] == FAILED_RATE, failed

    # Every worker answered some of them: the count was one count, not three.
    pids = Counter(line.split()[0] for line in log.read_text().splitlines() if line.strip())
    assert len(pids) == 3, pids
    # Someone else's guesses from the same address do not lock out a valid token.
    _other, fresh = ApiToken.issue(
        user=world.users["editor"], team=world.team, access="read", name="other job"
    )
    assert at_once(base, [fresh])[0].status_code == 200
