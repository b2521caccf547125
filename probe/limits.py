"""Per-provider concurrency limits shared by every worker: lease semaphores in Redis.

A provider's limit is per API key, not per process: several worker machines must together stay
under it. A slot is a lease: a token in a Redis sorted set scored by its expiry time. Taking a
slot drops the expired tokens and adds ours if fewer than `limit` remain, in one Lua script so
two workers cannot both take the last slot. A holder renews its lease while its request runs;
a worker that crashes stops renewing, and its slot frees itself when the lease runs out.

Without Redis (settings.REDIS_URL is None: the embedded default, one worker process) the same
leases live in a dictionary in this process.

Callers never block on a full limit: `try_acquire` answers at once, and the caller looks again
shortly. The collector's asyncio loop takes its leases through `limiter.session()`, whose calls
are awaited on an asyncio Redis client: a round trip to Redis never stalls the requests in flight
(a blocking call in the loop would hold every one of them for its duration, capping a run at
about 1 / (2 x RTT) requests a second with a remote Redis). The session renews all its leases
in one call.
"""

from __future__ import annotations

import itertools
import os
import secrets
import threading
import time
from urllib.parse import urlsplit

from django.conf import settings

# A lease lasts this long unless renewed; it is renewed every third of it while the request runs.
LEASE_SECONDS = 60.0
KEY_PREFIX = "blindprobe:limit:"

# Takes a slot: KEYS[1] the set; ARGV: token, limit, lease seconds. Redis's own clock, so the
# clocks of the worker machines do not matter.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[3])) + 60)
  return 1
end
return 0
"""
# Renews a lease that is still held (XX: never re-adds one that expired and was taken over).
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
return redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1])
"""
# Renews many leases of one set at once: ARGV[1] the seconds, then the tokens.
_RENEW_MANY = """
local t = redis.call('TIME')
local expiry = tonumber(t[1]) + tonumber(t[2]) / 1000000 + tonumber(ARGV[1])
local renewed = 0
for i = 2, #ARGV do
  renewed = renewed + redis.call('ZADD', KEYS[1], 'XX', 'CH', expiry, ARGV[i])
end
return renewed
"""


# Lease tokens: unique per process (a random prefix drawn once) and per lease (a counter), so
# taking a slot needs no system entropy.
_token_prefix = secrets.token_hex(6)
_token_pid = os.getpid()
_token_counter = itertools.count()


def new_token() -> str:
    global _token_prefix, _token_pid
    if os.getpid() != _token_pid:  # a forked worker process draws its own prefix
        _token_prefix, _token_pid = secrets.token_hex(6), os.getpid()
    return f"{_token_prefix}{next(_token_counter):x}"


def limit_key(snapshot: dict, default_base_url: str | None = None) -> str:
    """provider + base URL host + API key variable: the unit a provider's rate limit counts in."""
    base = snapshot.get("base_url") or default_base_url or ""
    host = urlsplit(base).netloc.lower() if base else ""
    return f"{snapshot.get('provider', '')}|{host}|{snapshot.get('api_key_env') or ''}"


class Lease:
    """A held slot. Release it when the request is over (it also runs out by itself)."""

    def __init__(self, limiter, key: str, token: str, seconds: float):
        self.limiter, self.key, self.token, self.seconds = limiter, key, token, seconds
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def keep_alive(self) -> Lease:
        """Renew the lease in the background until it is released (for long requests)."""
        if self._renewer is None:
            self._renewer = threading.Thread(target=self._renew_loop, daemon=True, name="lease")
            self._renewer.start()
        return self

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.seconds / 3):
            try:
                self.limiter.renew(self.key, self.token, self.seconds)
            except Exception:  # a Redis hiccup: the lease may lapse early, which only frees a slot
                pass

    def release(self) -> None:
        self._stop.set()
        self.limiter.release(self.key, self.token)

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class LocalLimiter:
    """Leases in this process only: the fallback when there is no Redis."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._leases: dict[str, dict[str, float]] = {}

    def try_acquire(self, key: str, limit: int, seconds: float = LEASE_SECONDS) -> Lease | None:
        now = time.monotonic()
        with self._lock:
            held = self._leases.setdefault(key, {})
            for token, expiry in list(held.items()):
                if expiry <= now:
                    del held[token]
            if len(held) >= max(1, limit):
                return None
            token = new_token()
            held[token] = now + seconds
        return Lease(self, key, token, seconds)

    def renew(self, key: str, token: str, seconds: float) -> None:
        with self._lock:
            held = self._leases.get(key, {})
            if token in held:
                held[token] = time.monotonic() + seconds

    def release(self, key: str, token: str) -> None:
        with self._lock:
            self._leases.get(key, {}).pop(token, None)

    def held(self, key: str) -> int:
        now = time.monotonic()
        with self._lock:
            return sum(1 for expiry in self._leases.get(key, {}).values() if expiry > now)

    def session(self) -> LocalSession:
        return LocalSession(self)


class LocalSession:
    """The in-process leases as an asyncio loop takes them: no I/O, so nothing to wait for."""

    def __init__(self, limiter: LocalLimiter) -> None:
        self.limiter = limiter

    async def acquire(self, key: str, limit: int, seconds: float) -> Lease | None:
        return self.limiter.try_acquire(key, limit, seconds)

    async def release(self, lease: Lease) -> None:
        self.limiter.release(lease.key, lease.token)

    async def renew(self, leases: list[Lease]) -> None:
        for lease in leases:
            self.limiter.renew(lease.key, lease.token, lease.seconds)

    async def aclose(self) -> None:
        pass


class RedisLimiter:
    """Leases in Redis, shared by every worker on every machine."""

    def __init__(self, url: str) -> None:
        import redis  # installed with celery[redis]; only needed when REDIS_URL is set

        self.url = url
        self._redis = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        self._acquire = self._redis.register_script(_ACQUIRE)
        self._renew = self._redis.register_script(_RENEW)

    def try_acquire(self, key: str, limit: int, seconds: float = LEASE_SECONDS) -> Lease | None:
        token = new_token()
        taken = self._acquire(keys=[KEY_PREFIX + key], args=[token, max(1, limit), seconds])
        return Lease(self, key, token, seconds) if taken else None

    def renew(self, key: str, token: str, seconds: float) -> None:
        self._renew(keys=[KEY_PREFIX + key], args=[token, seconds])

    def release(self, key: str, token: str) -> None:
        self._redis.zrem(KEY_PREFIX + key, token)

    def held(self, key: str) -> int:
        now = self._redis.time()
        return self._redis.zcount(KEY_PREFIX + key, f"({now[0] + now[1] / 1e6}", "+inf")

    def session(self) -> RedisSession:
        """Leases for the running asyncio loop, on a client of its own (a client belongs to one
        loop). Close it with `await session.aclose()`."""
        return RedisSession(self.url)


class RedisSession:
    """The same leases in Redis, taken with awaited calls on an asyncio client: a slow or far
    Redis delays only the request waiting for its slot, never the others in flight."""

    def __init__(self, url: str) -> None:
        import redis.asyncio  # installed with celery[redis]; only needed when REDIS_URL is set

        self._redis = redis.asyncio.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        self._acquire = self._redis.register_script(_ACQUIRE)
        self._renew_many = self._redis.register_script(_RENEW_MANY)

    async def acquire(self, key: str, limit: int, seconds: float) -> Lease | None:
        token = new_token()
        taken = await self._acquire(keys=[KEY_PREFIX + key], args=[token, max(1, limit), seconds])
        return Lease(self, key, token, seconds) if taken else None

    async def release(self, lease: Lease) -> None:
        await self._redis.zrem(KEY_PREFIX + lease.key, lease.token)

    async def renew(self, leases: list[Lease]) -> None:
        by_key: dict[tuple[str, float], list[str]] = {}
        for lease in leases:
            by_key.setdefault((lease.key, lease.seconds), []).append(lease.token)
        for (key, seconds), tokens in by_key.items():
            await self._renew_many(keys=[KEY_PREFIX + key], args=[seconds, *tokens])

    async def aclose(self) -> None:
        await self._redis.aclose()


_local = LocalLimiter()
_redis_limiters: dict[str, RedisLimiter] = {}
_redis_lock = threading.Lock()


def get_limiter() -> LocalLimiter | RedisLimiter:
    """Redis when settings.REDIS_URL is set, else the in-process fallback."""
    url = getattr(settings, "REDIS_URL", None)
    if not url:
        return _local
    with _redis_lock:
        if url not in _redis_limiters:
            _redis_limiters[url] = RedisLimiter(url)
        return _redis_limiters[url]
