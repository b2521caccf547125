"""The per-provider concurrency limit: lease semaphores in Redis, or in this process without it."""

import asyncio
import concurrent.futures
import os
import time
import uuid

import pytest

from probe import limits

BACKENDS = ["local"] + (["redis"] if os.environ.get("REDIS_URL") else [])


def run_loop(coroutine) -> None:
    """Run a coroutine on an event loop of its own, in a thread of its own: the browser tests'
    Playwright leaves a loop running in the main thread, where asyncio.run would refuse."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, coroutine).result()


@pytest.fixture(params=BACKENDS)
def limiter(request):
    if request.param == "local":
        return limits.LocalLimiter()
    return limits.RedisLimiter(os.environ["REDIS_URL"])


def _key() -> str:
    return f"openai_chat|test-{uuid.uuid4().hex}|KEY_VAR"


def test_the_second_lease_waits_for_the_first_to_be_released(limiter):
    key = _key()
    first = limiter.try_acquire(key, 1)
    assert first is not None
    assert limiter.try_acquire(key, 1) is None
    assert limiter.held(key) == 1
    first.release()
    second = limiter.try_acquire(key, 1)
    assert second is not None
    second.release()
    assert limiter.held(key) == 0


def test_a_lease_runs_out_when_its_holder_stops_renewing(limiter):
    key = _key()
    crashed = limiter.try_acquire(key, 1, seconds=0.3)  # never released: a worker died
    assert crashed is not None
    assert limiter.try_acquire(key, 1, seconds=0.3) is None
    time.sleep(0.45)
    after = limiter.try_acquire(key, 1, seconds=0.3)
    assert after is not None
    after.release()


def test_a_renewed_lease_outlives_its_first_term(limiter):
    key = _key()
    held = limiter.try_acquire(key, 1, seconds=0.45).keep_alive()
    time.sleep(0.7)
    assert limiter.try_acquire(key, 1) is None, "renewed every third of its term"
    held.release()
    assert limiter.try_acquire(key, 1) is not None


def test_limits_count_per_key_and_up_to_the_limit(limiter):
    key, other = _key(), _key()
    leases = [limiter.try_acquire(key, 3) for _ in range(3)]
    assert all(leases)
    assert limiter.try_acquire(key, 3) is None
    assert limiter.try_acquire(other, 1) is not None, "another provider/key is not affected"
    for lease in leases:
        lease.release()


def test_the_limit_key_is_provider_host_and_key_variable():
    snapshot = {
        "provider": "openai_chat",
        "base_url": "https://OpenRouter.ai/api/v1",
        "api_key_env": "OR_KEY",
    }
    assert limits.limit_key(snapshot) == "openai_chat|openrouter.ai|OR_KEY"
    assert (
        limits.limit_key({"provider": "anthropic"}, "https://api.anthropic.com")
        == "anthropic|api.anthropic.com|"
    )


def test_the_limiter_follows_settings(settings):
    settings.REDIS_URL = None
    assert isinstance(limits.get_limiter(), limits.LocalLimiter)
    if os.environ.get("REDIS_URL"):
        settings.REDIS_URL = os.environ["REDIS_URL"]
        assert isinstance(limits.get_limiter(), limits.RedisLimiter)


# The collector's asyncio loop takes the same leases without blocking -----------------------


def test_a_loops_session_shares_the_limit_with_every_other_holder(limiter):
    """A slot taken in the loop counts against a holder outside it, and the other way round:
    the limit is shared by every worker, whichever way each takes its leases."""
    key = _key()
    outside = limiter.try_acquire(key, 2)

    async def inside():
        session = limiter.session()
        try:
            first = await session.acquire(key, 2, 5)
            assert first is not None and limiter.held(key) == 2
            assert await session.acquire(key, 2, 5) is None, "full: one outside, one here"
            outside.release()
            second = await session.acquire(key, 2, 5)
            assert second is not None
            await session.release(first)
            await session.release(second)
        finally:
            await session.aclose()

    run_loop(inside())
    assert limiter.held(key) == 0


def test_a_loops_lease_runs_out_unless_renewed_and_renews_in_one_call(limiter):
    key = _key()

    async def inside():
        session = limiter.session()
        try:
            kept = [await session.acquire(key, 3, 0.4) for _ in range(2)]
            dropped = await session.acquire(key, 3, 0.4)  # its holder dies: never renewed
            assert all(kept) and dropped is not None
            for _ in range(3):
                await asyncio.sleep(0.2)
                await session.renew(kept)
            assert limiter.held(key) == 2, "the renewed two are held; the third ran out"
            assert limiter.try_acquire(key, 3) is not None
            assert limiter.try_acquire(key, 3) is None
        finally:
            await session.aclose()

    run_loop(inside())
