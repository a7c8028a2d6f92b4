"""One asyncio loop in its own thread: where every request runs after Slack has been acked.

Listeners (in bolt's threads) only check, claim and submit, so the ack never waits on work;
runs share the loop, so independent requests and their DAG branches interleave.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

log = logging.getLogger("datasmith.bot")
T = TypeVar("T")


class Worker:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="datasmith-worker", daemon=True)
        self._inflight: set[concurrent.futures.Future[Any]] = set()
        self._lock = threading.Lock()
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        # Registered under the lock before anyone can ask: the job may start (and show in Slack) before
        # this thread runs its next line, and `busy` / `stop()` must already count it.
        with self._lock:
            future = asyncio.run_coroutine_threadsafe(coro, self.loop)
            self._inflight.add(future)
        future.add_done_callback(self._done)
        return future

    def _done(self, future: concurrent.futures.Future[Any]) -> None:
        with self._lock:
            self._inflight.discard(future)
        if not future.cancelled() and future.exception() is not None:
            log.error("worker job failed", exc_info=future.exception())

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run a coroutine on the loop and wait for its result (start-up and tests)."""
        return self.submit(coro).result(timeout)

    @property
    def busy(self) -> int:
        with self._lock:
            return len(self._inflight)

    def stop(self, grace_s: float = 30.0) -> None:
        """Let in-flight requests finish (up to `grace_s`); runs still going are left to the
        RunStore, which marks them interrupted when the bot starts again."""
        with self._lock:
            pending = list(self._inflight)
        if pending:
            log.info("waiting up to %.0f s for %d request(s) in flight", grace_s, len(pending))
            concurrent.futures.wait(pending, timeout=grace_s)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self.loop.close()
