"""Who gets in now: a leaky bucket per token (refusing at once with a Retry-After instead of
queueing) and a bound on the runs the whole service drives at once."""

from __future__ import annotations

import asyncio
import math

from api.config import Bucket
from api.store import ApiStore
from core.errors import LimitError
from core.llm.limiter import LeakyBucket


class TokenBuckets:
    """One `LeakyBucket` (the LLM limiter) per token, with no queue: an API caller is better told
    when to come back than held on an open connection."""

    def __init__(self) -> None:
        self._buckets: dict[str, LeakyBucket] = {}

    async def admit(self, name: str, spec: Bucket) -> float | None:
        """None when admitted, else the seconds until the bucket has room (Retry-After)."""
        bucket = self._buckets.get(name)
        if bucket is None:
            bucket = self._buckets[name] = LeakyBucket(spec.capacity, spec.rate_per_s, max_wait_s=0.0)
        try:
            await bucket.acquire()
        except LimitError:
            return max(bucket.expected_wait(1), 1.0 / spec.rate_per_s)
        return None

    def granted(self, name: str) -> int:
        bucket = self._buckets.get(name)
        return len(bucket.granted) if bucket else 0


class SharedTokenBuckets:
    """The same buckets kept in the database replicas share, so a token gets its rate from the
    whole service, not once per replica. GCRA (the leaky bucket as one timestamp a token, its
    "theoretical arrival time"): a call is let in when that time, moved on by one interval, is
    within `capacity` intervals of now; one conditional upsert decides, on the database's clock."""

    def __init__(self, store: ApiStore) -> None:
        self.store = store

    async def admit(self, name: str, spec: Bucket) -> float | None:
        return await asyncio.to_thread(self.store.admit, name, 1.0 / spec.rate_per_s, spec.capacity)


def retry_after(seconds: float) -> str:
    """Retry-After is whole seconds: round up, never 0 (a client would come straight back)."""
    return str(max(1, math.ceil(seconds)))


class InFlight:
    """A bound on runs in flight: refused (503 + Retry-After), never queued."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0

    def try_enter(self) -> bool:
        if self.count >= self.limit:
            return False
        self.count += 1
        return True

    def leave(self) -> None:
        self.count -= 1
