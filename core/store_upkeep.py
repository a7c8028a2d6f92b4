"""A store's background upkeep: fold the step journal, checkpoint the WAL, off the writer's path.

The executor commits each DAG layer as one journal row (one INSERT) before the layer's calls
begin; this thread folds those rows into the steps, events and vars tables shortly after, while
the calls run. It also checkpoints the WAL: with `synchronous=NORMAL` a commit only appends to
the WAL and the fsyncs happen at checkpoint, which SQLite would otherwise run inside whichever
commit crosses its threshold (a ~25 ms stall of one step write every few runs here). The
writer's connection keeps an automatic checkpoint only as a backstop (`BACKSTOP_PAGES`).
"""
from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("datasmith")

BACKSTOP_PAGES = 10_000  # ~40 MB of WAL: bounds the file should this thread ever fall behind
FOLD_DELAY_S = 0.005  # let the writer start the calls it just recorded before folding
CHECKPOINT_EVERY_S = 1.0


class StoreUpkeep:
    """`fold()` runs on this thread (it takes the store's own lock and connection); checkpoints
    use a connection of their own, so a checkpoint's fsyncs never hold the store's lock."""

    def __init__(self, path: Path, fold: Callable[[], int], *, fold_delay_s: float = FOLD_DELAY_S,
                 checkpoint_every_s: float = CHECKPOINT_EVERY_S) -> None:
        self.path = path
        self._fold = fold
        self.fold_delay_s = fold_delay_s
        self.checkpoint_every_s = checkpoint_every_s
        self._dirty = threading.Event()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def poke(self) -> None:
        """Called after a commit: a fold (and, at most once a second, a checkpoint) follows."""
        if not self._dirty.is_set():  # setting it again would cost a futex call per commit
            self._dirty.set()
        if self._thread is None:
            with self._start_lock:
                if self._thread is None and not self._closed.is_set():
                    self._thread = threading.Thread(target=self._loop, name=f"store-upkeep:{self.path.name}",
                                                    daemon=True)
                    self._thread.start()

    def close(self) -> None:
        """Stop after one last fold and checkpoint of what was written."""
        with self._start_lock:
            self._closed.set()
            self._dirty.set()
            thread = self._thread
        if thread is not None:
            thread.join(timeout=60)

    def _loop(self) -> None:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        last_checkpoint = time.monotonic()
        try:
            while True:
                self._dirty.wait()
                # While writes keep coming, poll every fold_delay_s rather than be woken per commit:
                # waking a blocked thread costs the writer ~60 us (a futex call and an IPI on a VM).
                while True:
                    self._closed.wait(self.fold_delay_s)  # closing cuts the wait short
                    self._dirty.clear()
                    closing = self._closed.is_set()
                    folded = 0
                    try:
                        folded = self._fold()
                        if closing or time.monotonic() - last_checkpoint >= self.checkpoint_every_s:
                            db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                            last_checkpoint = time.monotonic()
                    except Exception:  # noqa: BLE001 - rows stay in the journal; every read and write folds first
                        log.exception("run store upkeep failed (will retry on the next write): %s", self.path)
                    if closing:
                        return
                    if not folded and not self._dirty.is_set():
                        break  # idle: block until the next write
        finally:
            db.close()
