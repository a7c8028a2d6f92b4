"""What the bot must remember across messages and restarts, beside the RunStore (SQLite, or the
PostgreSQL replicas share: then a delivery or a button press is taken by exactly one replica,
because a primary key or a conditional update decides, not a process-local set).

- seen: deliveries already taken (Slack retries an event it thinks we missed, and a mention in a
  channel arrives both as `app_mention` and as `message`): claimed by message identity.
- pending: the question a thread is waiting on (a `needs_input` plan and who asked).
- confirmations: a plan shown with Run / Cancel, run exactly as shown when Run is pressed.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from core.database import Database, open_database
from core.models import Plan, Request

SCHEMA = """
CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS pending (
    channel TEXT NOT NULL, thread TEXT NOT NULL, "user" TEXT, plan_json TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (channel, thread));
CREATE TABLE IF NOT EXISTS confirmations (
    id TEXT PRIMARY KEY, channel TEXT NOT NULL, thread TEXT, "user" TEXT, request_json TEXT NOT NULL,
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


class BotMemory:
    def __init__(self, target: Path | str) -> None:
        self._db: Database = open_database(target, SCHEMA, _set_up, lock_name="bot")
        now = time.time()
        self._db.execute("DELETE FROM seen WHERE at < ?", (now - SEEN_TTL_S,))
        self._db.execute("DELETE FROM pending WHERE at < ?", (now - PENDING_TTL_S,))
        self._db.execute("DELETE FROM confirmations WHERE at < ?", (now - PENDING_TTL_S,))

    def close(self) -> None:
        self._db.close()

    def claim(self, key: str) -> bool:
        """True the first time a key is claimed, False for every repeat (atomic across threads,
        processes and replicas: the primary key decides)."""
        return self._db.execute("INSERT INTO seen (key, at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                                (key, time.time())).rowcount == 1

    # ------------------------------------------------------------------ a thread's open question

    def pending(self, channel: str, thread: str) -> tuple[str | None, Plan] | None:
        rows = self._db.execute('SELECT "user", plan_json FROM pending WHERE channel=? AND thread=?',
                                (channel, thread)).rows
        return (rows[0][0], Plan.model_validate_json(rows[0][1])) if rows else None

    def set_pending(self, channel: str, thread: str, user: str | None, plan: Plan) -> None:
        self._db.execute('INSERT INTO pending (channel, thread, "user", plan_json, at) VALUES (?,?,?,?,?)'
                         ' ON CONFLICT (channel, thread) DO UPDATE SET "user" = excluded."user",'
                         " plan_json = excluded.plan_json, at = excluded.at",
                         (channel, thread, user, plan.model_dump_json(), time.time()))

    def clear_pending(self, channel: str, thread: str) -> None:
        self._db.execute("DELETE FROM pending WHERE channel=? AND thread=?", (channel, thread))

    # ------------------------------------------------------------------ Run / Cancel

    def add_confirmation(self, channel: str, thread: str | None, request: Request, plan: Plan) -> str:
        cid = uuid.uuid4().hex[:16]
        self._db.execute(
            'INSERT INTO confirmations (id, channel, thread, "user", request_json, plan_json, status, at)'
            " VALUES (?,?,?,?,?,?,'pending',?)",
            (cid, channel, thread, request.user, request.model_dump_json(), plan.model_dump_json(), time.time()))
        return cid

    def confirmation(self, cid: str) -> Confirmation | None:
        rows = self._db.execute('SELECT id, channel, thread, "user", request_json, plan_json, status'
                                " FROM confirmations WHERE id=?", (cid,)).rows
        if not rows:
            return None
        row = rows[0]
        return Confirmation(row[0], row[1], row[2], row[3], Request.model_validate_json(row[4]),
                            Plan.model_validate_json(row[5]), row[6])

    def decide(self, cid: str, decision: str) -> bool:
        """Move a pending confirmation to `decision` (run/cancel); False if it was already decided
        (a double click, or two people at once). `forget_confirmation` deletes it once handled."""
        return self._db.execute("UPDATE confirmations SET status=?, at=? WHERE id=? AND status='pending'",
                                (decision, time.time(), cid)).rowcount == 1

    def forget_confirmation(self, cid: str) -> None:
        self._db.execute("DELETE FROM confirmations WHERE id=?", (cid,))
