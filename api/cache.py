"""The cache of the embedded default (no Redis): files under the data directory, shared by the
web and worker processes, with `add` and `incr` under a lock file so that counts made by
several processes at once add up (Django's file cache reads and writes them without one), and
an increment that keeps the entry's expiry (Django's resets it to the default timeout)."""

import fcntl
import pickle
import time
import zlib
from contextlib import contextmanager
from pathlib import Path

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache


class SharedFileCache(FileBasedCache):
    def __init__(self, location, params):
        super().__init__(location, params)
        self.lock_path = Path(location) / "counters.lock"

    @contextmanager
    def locked(self):
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        with self.locked():
            return super().add(key, value, timeout, version)

    def incr(self, key, delta=1, version=None):
        with self.locked():
            # The file holds the expiry, then the compressed value (FileBasedCache's format).
            try:
                with open(self._key_to_file(key, version), "rb") as handle:
                    expiry = pickle.load(handle)
                    value = pickle.loads(zlib.decompress(handle.read()))
            except FileNotFoundError:
                raise ValueError(f"Key {key!r} not found.") from None
            now = time.time()
            if expiry is not None and expiry < now:
                raise ValueError(f"Key {key!r} not found.")
            value += delta
            left = None if expiry is None else max(expiry - now, 0.001)
            self.set(key, value, timeout=left, version=version)
            return value
