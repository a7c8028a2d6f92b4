"""Open a SQLite store that several processes may open at the same moment.

SQLite's busy timeout does not cover everything done while opening: switching a store to WAL
and recovering another process's WAL index can answer SQLITE_BUSY at once ("database is
locked") without waiting. The bot, the console and a CLI starting together on one data dir hit
exactly that, so the set-up is retried until the connection's own timeout has passed. The set-up
must be idempotent (pragmas, CREATE ... IF NOT EXISTS, tolerant migrations).
"""
from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path


def private(path: Path, mode: int = 0o600) -> None:
    """Owner-only permissions on a file or folder we own (runs, requests and PII live in them)."""
    try:
        if path.exists() and path.stat().st_uid == os.getuid() and path.stat().st_mode & 0o077:
            os.chmod(path, mode)
    except OSError:
        pass  # a filesystem without permissions (some mounts): nothing to tighten


def _busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc)
    return "locked" in text or "busy" in text


def open_sqlite(path: Path, setup: Callable[[sqlite3.Connection], None], *, timeout: float = 30,
                **connect: object) -> sqlite3.Connection:
    """A connection to `path` on which `setup` has run to the end; `connect` goes to sqlite3.connect.
    The file is readable by its owner only (its -wal and -shm files take the same mode)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    db = sqlite3.connect(path, timeout=timeout, **connect)  # type: ignore[arg-type]
    private(path)
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
