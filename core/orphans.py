"""A long-running process's watch for runs nobody drives any more: every few seconds the
RunStore interrupts the runs of a process that died (`RunStore.reap`), and the surface that can
tell someone (the bot, in the run's thread) is called. On a shared database that is how one
replica picks up after another's `kill -9`; on SQLite it catches a killed CLI on the same host."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from core.runstore import RunStore

log = logging.getLogger("datasmith")

REAP_EVERY_S = 3.0


class OrphanWatch:
    def __init__(self, store: RunStore, then: Callable[[list[str]], None] | None = None, *,
                 every_s: float = REAP_EVERY_S) -> None:
        self.store = store
        self.then = then
        self.every_s = every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="orphan-watch", daemon=True)

    def start(self) -> OrphanWatch:
        self._thread.start()
        return self

    def check(self) -> list[str]:
        """One round: the runs this call interrupted (another replica may have taken others)."""
        ids = self.store.reap()
        for run_id in ids:
            log.warning("run %s: the process driving it stopped; marked interrupted", run_id)
        if self.then is not None:
            self.then(ids)
        return ids

    def _loop(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                self.check()
            except Exception:  # noqa: BLE001 - a database blip: the next round tries again
                log.warning("checking for interrupted runs failed; retrying in %.0f s", self.every_s, exc_info=True)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
