"""Bearer tokens `NAME.SECRET`, checked against the hashed secret in the tokens file.

PBKDF2 costs ~0.3 s a check on purpose, so a token is looked up by its name (one check, never one
per configured token) and a check that passed is remembered by a SHA-256 of the presented token
for the life of the process; the secret itself is never kept. A wrong token must not buy CPU
either: a presented token that failed is remembered for a while (its repeats answer 401 without a
hash), the checks of secrets not seen yet pass a leaky bucket per token name first (over it: 429
with Retry-After, before any hashing), and at most `MAX_HASHING` checks run at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict

from api.admission import TokenBuckets
from api.config import ApiConfig, TokenSpec
from core.passwords import verify_secret

MAX_REMEMBERED = 10_000
FAILURE_TTL_S = 300.0  # a wrong token is answered from memory this long
MAX_HASHING = 2  # PBKDF2 checks at once, whatever the names: the rest of the service keeps its cores


class ChecksThrottled(Exception):
    """Too many secrets not seen before were presented for one token name: retry after `wait_s`."""

    def __init__(self, name: str, wait_s: float) -> None:
        super().__init__(f"too many token checks for {name}")
        self.name, self.wait_s = name, wait_s


class Authenticator:
    def __init__(self, config: ApiConfig) -> None:
        self.config = config
        self._known: dict[str, str] = {}  # sha256(presented) -> token name, bounded
        self._failed: OrderedDict[str, float] = OrderedDict()  # sha256(presented) -> when it failed, bounded
        self._checks = TokenBuckets()
        self._hashing = asyncio.Semaphore(MAX_HASHING)
        self.hashed = 0  # PBKDF2 checks made (the metrics and the tests read it)

    @property
    def open(self) -> bool:
        """No token configured: the loopback-only, unauthenticated mode."""
        return not self.config.tokens

    async def token(self, authorization: str | None) -> TokenSpec | None:
        """The token an `Authorization` header carries, or None when it carries no valid one.
        Raises ChecksThrottled when its name had too many checks of new secrets lately."""
        scheme, _, presented = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or "." not in presented:
            return None
        digest = hashlib.sha256(presented.encode()).hexdigest()
        if (name := self._known.get(digest)) is not None:
            return self.config.token(name)
        if self._failed_lately(digest):
            return None
        name, _, secret = presented.partition(".")
        spec = self.config.token(name)
        if spec is None:
            return None
        if (wait := await self._checks.admit(name, self.config.secret_checks)) is not None:
            raise ChecksThrottled(name, wait)
        async with self._hashing:
            self.hashed += 1
            ok = await asyncio.to_thread(verify_secret, secret, spec.hash)
        if not ok:
            self._remember_failure(digest)
            return None
        if len(self._known) < MAX_REMEMBERED:
            self._known[digest] = name
        return spec

    def _failed_lately(self, digest: str) -> bool:
        at = self._failed.get(digest)
        if at is None:
            return False
        if time.monotonic() - at > FAILURE_TTL_S:
            del self._failed[digest]
            return False
        return True

    def _remember_failure(self, digest: str) -> None:
        self._failed[digest] = time.monotonic()
        self._failed.move_to_end(digest)
        while len(self._failed) > MAX_REMEMBERED:
            self._failed.popitem(last=False)
