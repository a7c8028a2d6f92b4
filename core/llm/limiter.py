"""A leaky bucket (aiolimiter) in front of every LLM call, that tells waiters where they stand.

capacity = expected peak x 1.2 calls may go at once; the bucket then drains at
provider limit per minute / 60 x 0.8 calls a second. A caller that would wait longer than
`max_wait_s` is refused at once with DS-401 instead of hanging.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from aiolimiter import AsyncLimiter

from core.errors import RATE_LIMITED, LimitError

OnWait = Callable[[int, float], None]  # (position in the queue, expected wait in seconds)


@dataclass(frozen=True)
class Ticket:
    position: int  # 0 = went straight through
    waited_s: float


class LeakyBucket:
    def __init__(self, capacity: float, rate_per_s: float, max_wait_s: float) -> None:
        self.capacity = capacity
        self.rate_per_s = rate_per_s
        self.max_wait_s = max_wait_s
        self._limiter = AsyncLimiter(max_rate=capacity, time_period=capacity / rate_per_s)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting = 0
        self.granted: deque[float] = deque(maxlen=10_000)  # monotonic grant times: the measured rate

    def _bucket(self) -> AsyncLimiter:
        """aiolimiter binds to one event loop; a caller on another loop (the CLI runs one per
        request) gets a fresh limiter that carries the level over, so the rate still holds."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._loop is not None:
                old = self._limiter
                self._limiter = AsyncLimiter(max_rate=self.capacity, time_period=self.capacity / self.rate_per_s)
                self._limiter._level, self._limiter._last_check = old._level, old._last_check  # noqa: SLF001
            self._loop = loop
        return self._limiter

    def expected_wait(self, position: int) -> float:
        """Seconds until the `position`-th waiter (1-based) gets a drop, from the bucket's level now."""
        level = self._limiter._level  # noqa: SLF001 - aiolimiter exposes no public level
        elapsed = time.monotonic() - self._limiter._last_check  # noqa: SLF001
        level = max(0.0, level - elapsed * self.rate_per_s)
        overflow = level + position - self.capacity
        return max(0.0, overflow / self.rate_per_s)

    async def acquire(self, on_wait: OnWait | None = None) -> Ticket:
        limiter = self._bucket()
        if self._waiting == 0 and limiter.has_capacity():
            await limiter.acquire()
            self.granted.append(time.monotonic())
            return Ticket(0, 0.0)
        position = self._waiting + 1
        wait = self.expected_wait(position)
        if wait > self.max_wait_s:
            raise LimitError(
                f"the LLM is rate limited: {position} request(s) ahead would make this wait ~{wait:.0f} s "
                f"(bound {self.max_wait_s:.0f} s); try again shortly",
                message_zh=f"LLM 调用限流:前面还有 {position} 个请求,预计等待约 {wait:.0f} 秒(上限 {self.max_wait_s:.0f} 秒),请稍后再试",
                code=RATE_LIMITED)
        if on_wait is not None:
            on_wait(position, wait)
        self._waiting += 1
        start = time.monotonic()
        try:
            async with asyncio.timeout(self.max_wait_s + 1):
                await limiter.acquire()
        except TimeoutError as exc:
            raise LimitError(f"the LLM rate limit queue did not move within {self.max_wait_s:.0f} s",
                             message_zh="LLM 限流队列长时间未前进,请稍后再试", code=RATE_LIMITED) from exc
        finally:
            self._waiting -= 1
        self.granted.append(time.monotonic())
        return Ticket(position, time.monotonic() - start)
