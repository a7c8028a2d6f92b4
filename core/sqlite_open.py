"""Open a SQLite store that several processes may open at the same moment.

SQLite's busy timeout does not cover everything done while opening: switching a store to WAL
and recovering another process's WAL index can answer SQLITE_BUSY at once ("database is
locked") without waiting. The bot, the console and a CLI starting together on one data dir hit
exactly that, so the set-up is retried until the connection's own timeout has passed. The set-up
must be idempotent (pragmas, CREATE ... IF NOT EXISTS, tolerant migrations).
"""
from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path


def _busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc)
    return "locked" in text or "busy" in text


def open_sqlite(path: Path, setup: Callable[[sqlite3.Connection], None], *, timeout: float = 30,
                **connect: object) -> sqlite3.Connection:
    """A connection to `path` on which `setup` has run to the end; `connect` goes to sqlite3.connect."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=timeout, **connect)  # type: ignore[arg-type]
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            setup(db)
            return db
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or time.monotonic() + pause > deadline:
                db.close()
                raise
            if db.in_transaction:
                db.rollback()
        except BaseException:
            db.close()
            raise
        time.sleep(pause)
        pause = min(pause * 2, 0.2)
