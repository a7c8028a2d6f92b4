"""What the API must remember across a restart, beside the RunStore (the data dir's SQLite, or
the PostgreSQL replicas share): Idempotency-Key records (24 h) and the final answers of asks that
ended without a run (needs_input, no_match, a refusal), so a 202 is always pollable to its end.
Of two calls with one key, on one replica or two, the primary key lets exactly one in."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from core.database import PG_NOW, Database, open_database
from core.models import utcnow

KEEP = timedelta(hours=24)

SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency (
  scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, state TEXT NOT NULL,
  status INTEGER, body TEXT, run_id TEXT, created_at TEXT NOT NULL, PRIMARY KEY (scope, key));
CREATE INDEX IF NOT EXISTS idempotency_created ON idempotency(created_at);
-- per-token leaky buckets, shared by the replicas of a PostgreSQL deployment (GCRA: one time a token)
CREATE TABLE IF NOT EXISTS buckets (name TEXT PRIMARY KEY, tat REAL NOT NULL);
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
    def __init__(self, target: Path | str) -> None:
        self._db: Database = open_database(target, SCHEMA, _set_up, lock_name="api")
        self.expire()

    @property
    def shared(self) -> bool:
        return self._db.shared

    def close(self) -> None:
        self._db.close()

    def admit(self, name: str, interval_s: float, capacity: float) -> float | None:
        """GCRA on the shared database: None when the call is let in, else the seconds until the
        token's bucket has room. PostgreSQL only (one process on SQLite keeps its buckets in memory)."""
        rows = self._db.execute(
            f"INSERT INTO buckets AS b (name, tat) VALUES (?, {PG_NOW} + ?) ON CONFLICT (name) DO UPDATE"
            " SET tat = GREATEST(b.tat + ?, excluded.tat) WHERE GREATEST(b.tat + ?, excluded.tat)"
            " - (excluded.tat - ?) <= ? RETURNING tat",
            (name, interval_s, interval_s, interval_s, interval_s, capacity * interval_s)).rows
        if rows:
            return None
        late = self._db.execute(f"SELECT tat - {PG_NOW} FROM buckets WHERE name=?", (name,)).rows
        return max(float(late[0][0]) + interval_s - capacity * interval_s, interval_s) if late else interval_s

    def expire(self) -> None:
        cutoff = (utcnow() - KEEP).isoformat()
        self._db.execute("DELETE FROM idempotency WHERE created_at < ?", (cutoff,))
        self._db.execute("DELETE FROM answers WHERE created_at < ?", (cutoff,))

    def claim(self, scope: str, key: str, fingerprint: str, run_id: str | None) -> Claim:
        """Take the key for this call, or say what the first call with it left. Atomic: of two
        concurrent calls with one key exactly one gets `new` (an insert the primary key lets in,
        or an update of an expired record that only one can make)."""
        now = utcnow().isoformat()
        cutoff = (utcnow() - KEEP).isoformat()
        if self._db.execute("INSERT INTO idempotency VALUES (?,?,?,'pending',NULL,NULL,?,?)"
                            " ON CONFLICT (scope, key) DO NOTHING",
                            (scope, key, fingerprint, run_id, now)).rowcount == 1:
            return Claim("new")
        if self._db.execute("UPDATE idempotency SET fingerprint=?, state='pending', status=NULL, body=NULL, run_id=?,"
                            " created_at=? WHERE scope=? AND key=? AND created_at < ?",
                            (fingerprint, run_id, now, scope, key, cutoff)).rowcount == 1:
            return Claim("new")  # the old record had expired
        rows = self._db.execute("SELECT fingerprint, state, status, body, run_id FROM idempotency"
                                " WHERE scope=? AND key=?", (scope, key)).rows
        if not rows:  # released between our insert and this read: try again
            return self.claim(scope, key, fingerprint, run_id)
        row = rows[0]
        if row[0] != fingerprint:
            return Claim("conflict")
        if row[1] == "done":
            return Claim("done", row[2], json.loads(row[3]), row[4])
        return Claim("pending", run_id=row[4])

    def complete(self, scope: str, key: str, status: int, body: dict[str, Any]) -> None:
        self._db.execute("UPDATE idempotency SET state='done', status=?, body=? WHERE scope=? AND key=?",
                         (status, json.dumps(body, ensure_ascii=False), scope, key))

    def release(self, scope: str, key: str) -> None:
        """Forget a claim whose call was turned away before it did anything (429, 503)."""
        self._db.execute("DELETE FROM idempotency WHERE scope=? AND key=? AND state='pending'", (scope, key))

    def save_answer(self, run_id: str, owner: str | None, status: int, body: dict[str, Any]) -> None:
        self._db.execute("INSERT INTO answers VALUES (?,?,?,?,?) ON CONFLICT (run_id) DO UPDATE SET"
                         " owner = excluded.owner, status = excluded.status, body = excluded.body,"
                         " created_at = excluded.created_at",
                         (run_id, owner, status, json.dumps(body, ensure_ascii=False), utcnow().isoformat()))

    def answer(self, run_id: str) -> tuple[str | None, int, dict[str, Any]] | None:
        rows = self._db.execute("SELECT owner, status, body FROM answers WHERE run_id=?", (run_id,)).rows
        return (rows[0][0], rows[0][1], json.loads(rows[0][2])) if rows else None
