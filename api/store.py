"""What the API must remember across a restart, beside the RunStore in the data dir:
Idempotency-Key records (24 h) and the final answers of asks that ended without a run
(needs_input, no_match, a refusal), so a 202 is always pollable to its end."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from core.models import utcnow
from core.sqlite_open import open_sqlite

KEEP = timedelta(hours=24)

SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency (
  scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, state TEXT NOT NULL,
  status INTEGER, body TEXT, run_id TEXT, created_at TEXT NOT NULL, PRIMARY KEY (scope, key));
CREATE INDEX IF NOT EXISTS idempotency_created ON idempotency(created_at);
CREATE TABLE IF NOT EXISTS answers (
  run_id TEXT PRIMARY KEY, owner TEXT, status INTEGER NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL);
"""


def _set_up(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)


@dataclass
class Claim:
    """What a call with an Idempotency-Key finds: `new` (it owns the key now), `conflict` (another
    body), `done` (the first answer), `pending` (the first call is still going, on `run_id`)."""

    outcome: Literal["new", "conflict", "done", "pending"]
    status: int | None = None
    body: dict[str, Any] | None = None
    run_id: str | None = None


class ApiStore:
    def __init__(self, path: Path) -> None:
        self._lock = threading.Lock()
        self._db = open_sqlite(path, _set_up, check_same_thread=False, isolation_level=None)
        self.expire()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def expire(self) -> None:
        cutoff = (utcnow() - KEEP).isoformat()
        with self._lock:
            self._db.execute("DELETE FROM idempotency WHERE created_at < ?", (cutoff,))
            self._db.execute("DELETE FROM answers WHERE created_at < ?", (cutoff,))

    def claim(self, scope: str, key: str, fingerprint: str, run_id: str | None) -> Claim:
        """Take the key for this call, or say what the first call with it left. Atomic: of two
        concurrent calls with one key exactly one gets `new`."""
        cutoff = (utcnow() - KEEP).isoformat()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT fingerprint, state, status, body, run_id, created_at FROM idempotency"
                                       " WHERE scope=? AND key=?", (scope, key)).fetchone()
                if row is None or row[5] < cutoff:
                    self._db.execute("INSERT OR REPLACE INTO idempotency VALUES (?,?,?,'pending',NULL,NULL,?,?)",
                                     (scope, key, fingerprint, run_id, utcnow().isoformat()))
                    claim = Claim("new")
                elif row[0] != fingerprint:
                    claim = Claim("conflict")
                elif row[1] == "done":
                    claim = Claim("done", row[2], json.loads(row[3]), row[4])
                else:
                    claim = Claim("pending", run_id=row[4])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return claim

    def complete(self, scope: str, key: str, status: int, body: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute("UPDATE idempotency SET state='done', status=?, body=? WHERE scope=? AND key=?",
                             (status, json.dumps(body, ensure_ascii=False), scope, key))

    def release(self, scope: str, key: str) -> None:
        """Forget a claim whose call was turned away before it did anything (429, 503)."""
        with self._lock:
            self._db.execute("DELETE FROM idempotency WHERE scope=? AND key=? AND state='pending'", (scope, key))

    def save_answer(self, run_id: str, owner: str | None, status: int, body: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO answers VALUES (?,?,?,?,?)",
                             (run_id, owner, status, json.dumps(body, ensure_ascii=False), utcnow().isoformat()))

    def answer(self, run_id: str) -> tuple[str | None, int, dict[str, Any]] | None:
        with self._lock:
            row = self._db.execute("SELECT owner, status, body FROM answers WHERE run_id=?", (run_id,)).fetchone()
        return (row[0], row[1], json.loads(row[2])) if row else None
