"""What the bot must remember across messages and restarts, in SQLite beside the RunStore.

- seen: deliveries already taken (Slack retries an event it thinks we missed, and a mention in a
  channel arrives both as `app_mention` and as `message`): claimed by message identity.
- pending: the question a thread is waiting on (a `needs_input` plan and who asked).
- confirmations: a plan shown with Run / Cancel, run exactly as shown when Run is pressed.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from core.models import Plan, Request
from core.sqlite_open import open_sqlite

SCHEMA = """
CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS pending (
    channel TEXT NOT NULL, thread TEXT NOT NULL, user TEXT, plan_json TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (channel, thread));
CREATE TABLE IF NOT EXISTS confirmations (
    id TEXT PRIMARY KEY, channel TEXT NOT NULL, thread TEXT, user TEXT, request_json TEXT NOT NULL,
    plan_json TEXT NOT NULL, status TEXT NOT NULL, at REAL NOT NULL);
"""
SEEN_TTL_S = 24 * 3600
PENDING_TTL_S = 7 * 24 * 3600


@dataclass(frozen=True)
class Confirmation:
    id: str
    channel: str
    thread: str | None
    user: str | None
    request: Request
    plan: Plan
    status: str


def _set_up(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA secure_delete=ON")  # pending plans may hold PII arguments
    db.executescript(SCHEMA)
    now = time.time()
    db.execute("DELETE FROM seen WHERE at < ?", (now - SEEN_TTL_S,))
    db.execute("DELETE FROM pending WHERE at < ?", (now - PENDING_TTL_S,))
    db.execute("DELETE FROM confirmations WHERE at < ?", (now - PENDING_TTL_S,))


class BotMemory:
    def __init__(self, path: Path) -> None:
        self._lock = threading.Lock()
        self._db = open_sqlite(path, _set_up, check_same_thread=False, isolation_level=None)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def claim(self, key: str) -> bool:
        """True the first time a key is claimed, False for every repeat (atomic across threads)."""
        with self._lock:
            cur = self._db.execute("INSERT OR IGNORE INTO seen (key, at) VALUES (?, ?)", (key, time.time()))
            return cur.rowcount == 1

    # ------------------------------------------------------------------ a thread's open question

    def pending(self, channel: str, thread: str) -> tuple[str | None, Plan] | None:
        with self._lock:
            row = self._db.execute("SELECT user, plan_json FROM pending WHERE channel=? AND thread=?",
                                   (channel, thread)).fetchone()
        return (row[0], Plan.model_validate_json(row[1])) if row else None

    def set_pending(self, channel: str, thread: str, user: str | None, plan: Plan) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO pending (channel, thread, user, plan_json, at) VALUES (?,?,?,?,?)",
                             (channel, thread, user, plan.model_dump_json(), time.time()))

    def clear_pending(self, channel: str, thread: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM pending WHERE channel=? AND thread=?", (channel, thread))

    # ------------------------------------------------------------------ Run / Cancel

    def add_confirmation(self, channel: str, thread: str | None, request: Request, plan: Plan) -> str:
        cid = uuid.uuid4().hex[:16]
        with self._lock:
            self._db.execute(
                "INSERT INTO confirmations (id, channel, thread, user, request_json, plan_json, status, at)"
                " VALUES (?,?,?,?,?,?,'pending',?)",
                (cid, channel, thread, request.user, request.model_dump_json(), plan.model_dump_json(), time.time()))
        return cid

    def confirmation(self, cid: str) -> Confirmation | None:
        with self._lock:
            row = self._db.execute("SELECT id, channel, thread, user, request_json, plan_json, status"
                                   " FROM confirmations WHERE id=?", (cid,)).fetchone()
        if row is None:
            return None
        return Confirmation(row[0], row[1], row[2], row[3], Request.model_validate_json(row[4]),
                            Plan.model_validate_json(row[5]), row[6])

    def decide(self, cid: str, decision: str) -> bool:
        """Move a pending confirmation to `decision` (run/cancel); False if it was already decided
        (a double click, or two people at once). `forget_confirmation` deletes it once handled."""
        with self._lock:
            cur = self._db.execute("UPDATE confirmations SET status=?, at=? WHERE id=? AND status='pending'",
                                   (decision, time.time(), cid))
            return cur.rowcount == 1

    def forget_confirmation(self, cid: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM confirmations WHERE id=?", (cid,))
