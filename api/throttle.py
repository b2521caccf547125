"""The API's rate limits, counted in Django's cache so that every process sees one count.

Each limit is a number of requests per window of its period (`count/period`, the period `s`,
`m`, `h` or `d`); the windows start on clock boundaries, so every process agrees on which one a
request falls in. A request is counted with one atomic increment (Redis in production; on the
embedded default a file cache that increments under a lock), so N requests at once past the
limit are N refusals, whichever worker each reaches. A refusal is counted too: a client that
keeps asking stays refused until its window ends.
"""

import hashlib
import math
import re
import time
from dataclasses import dataclass
from functools import lru_cache

from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
RATE = re.compile(r"^\s*(\d+)\s*/\s*([smhd])\s*$")


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: int


@lru_cache(maxsize=32)
def parse_rate(text: str) -> Rate:
    match = RATE.match(text or "")
    if match is None or int(match[1]) < 1:
        raise ImproperlyConfigured(
            f"An API rate is count/period with a count of 1 or more and a period of s, m, h "
            f"or d, such as 600/m; not {text!r}."
        )
    return Rate(int(match[1]), PERIODS[match[2]])


def hit(scope: str, ident: str, rate_text: str) -> int | None:
    """Count one request of `ident` against the rate. None while within it, else the whole
    seconds until its window ends (the Retry-After)."""
    rate = parse_rate(rate_text)
    now = time.time()
    window = int(now // rate.seconds)
    # The identity is hashed: an address or a token id never shows in a cache key.
    digest = hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    key = f"api-throttle:{scope}:{rate.count}:{rate.seconds}:{digest}:{window}"
    count = None
    for _attempt in range(2):
        cache.add(key, 0, timeout=rate.seconds + 5)
        try:
            count = cache.incr(key)
            break
        except ValueError:
            continue  # the key expired between add and incr: make it again
    if count is None or count <= rate.count:
        return None
    return max(1, math.ceil((window + 1) * rate.seconds - now))
