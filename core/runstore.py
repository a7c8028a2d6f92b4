"""RunStore: every run, step and event, written before the work moves on (SQLite by default).

A killed process loses no run: `recover()` at start-up marks what was in flight `interrupted`,
and interrupted or paused runs can be resumed. Arguments and outputs arrive here already
redacted; the raw outputs that later steps of an unfinished run still need live in `vars` and
are deleted as soon as the run ends.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from core.errors import RUN_NOT_FOUND, InputError
from core.models import ErrorInfo, Plan, Request, RunRecord, StepId, StepRun, utcnow
from core.sqlite_open import open_sqlite
from core.store_upkeep import BACKSTOP_PAGES, StoreUpkeep

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, trace_id TEXT NOT NULL, status TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, user TEXT, channel TEXT, thread TEXT, surface TEXT,
  request_text TEXT NOT NULL, rule TEXT, tool TEXT, environment TEXT, attempts INTEGER NOT NULL DEFAULT 0,
  latency_ms REAL, request_json TEXT NOT NULL, plan_json TEXT NOT NULL, error_json TEXT, owner TEXT);
CREATE INDEX IF NOT EXISTS runs_created ON runs(created_at);
CREATE INDEX IF NOT EXISTS runs_status ON runs(status);
CREATE INDEX IF NOT EXISTS runs_user ON runs(user);
CREATE TABLE IF NOT EXISTS steps (
  run_id TEXT NOT NULL, position INTEGER NOT NULL, step_id TEXT NOT NULL, tool_name TEXT NOT NULL,
  status TEXT NOT NULL, attempts INTEGER NOT NULL, arguments_json TEXT, output_json TEXT, error_json TEXT,
  started_at TEXT, ended_at TEXT, skip_reason TEXT, PRIMARY KEY (run_id, step_id));
-- events are never deleted, so a plain rowid key is monotonic (AUTOINCREMENT would cost a page per commit)
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, at TEXT NOT NULL, kind TEXT NOT NULL,
  step_id TEXT, data_json TEXT);
CREATE INDEX IF NOT EXISTS events_run ON events(run_id);
CREATE TABLE IF NOT EXISTS requests (
  trace_id TEXT PRIMARY KEY, at TEXT NOT NULL, user TEXT, surface TEXT, channel TEXT, text TEXT NOT NULL,
  status TEXT NOT NULL, rule TEXT, tool TEXT, environment TEXT, planner TEXT, fallback TEXT, cache TEXT,
  llm_calls INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL, latency_ms REAL, error_code TEXT, run_id TEXT,
  llm_output TEXT);
-- covering: monitoring reads time buckets, outcomes, cache, latency and LLM use from the index alone
CREATE INDEX IF NOT EXISTS requests_at_cover ON requests(
  at, status, cache, latency_ms, llm_calls, prompt_tokens, completion_tokens, cost_usd);
CREATE INDEX IF NOT EXISTS requests_status ON requests(status, at);
CREATE TABLE IF NOT EXISTS vars (run_id TEXT NOT NULL, step_id TEXT NOT NULL, value_json TEXT NOT NULL,
  PRIMARY KEY (run_id, step_id));
-- the executor's step changes, one row per DAG layer, committed before that layer's calls begin;
-- folded into steps, events and vars soon after (store_upkeep.py) and before anything reads them
CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY, body TEXT NOT NULL);
-- who did what outside a run's own events (console edits, executes, resumes): never deleted
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY, at TEXT NOT NULL, actor TEXT NOT NULL, surface TEXT NOT NULL, action TEXT NOT NULL,
  target TEXT, detail_json TEXT);
CREATE INDEX IF NOT EXISTS audit_at ON audit(at);
"""

IN_FLIGHT = ("pending", "running")
INSERT_EVENT = "INSERT INTO events(run_id, at, kind, step_id, data_json) VALUES (?,?,?,?,?)"
UPSERT_VAR = "INSERT OR REPLACE INTO vars VALUES (?,?,?)"
RUN_UPDATE = "UPDATE runs SET status=?, updated_at=?, attempts=?, latency_ms=?, error_json=?, owner=? WHERE run_id=?"
STEP_UPDATE = ("UPDATE steps SET status=?, attempts=?, arguments_json=?, output_json=?, error_json=?, started_at=?,"
               " ended_at=?, skip_reason=? WHERE run_id=? AND step_id=?")
# The executor's hot path touches only what a start or an end changes.
STEP_STARTED = ("UPDATE steps SET status=?, attempts=?, arguments_json=?, error_json=NULL, started_at=?"
                " WHERE run_id=? AND step_id=?")
STEP_ENDED = ("UPDATE steps SET status=?, attempts=?, output_json=?, error_json=?, ended_at=?, skip_reason=?"
              " WHERE run_id=? AND step_id=?")
OWNER = f"{socket.gethostname()}:{os.getpid()}"  # which process drives a run


@dataclass
class StepChange:
    """One step's new state for the RunStore: the event kind, its data, and the raw output to keep."""

    step: StepRun
    kind: str
    data: Any = None
    var: Any = None
    save: bool = False


def _fold(db: sqlite3.Connection) -> int:
    """Apply journal rows, oldest first, to steps, events and vars, and delete them; inside the
    caller's write transaction, so a row is applied exactly once whoever folds it (any process)."""
    rows = db.execute("SELECT seq, body FROM journal ORDER BY seq").fetchall()
    for _, body in rows:
        run_id, at, changes = json.loads(body)
        started, ended, events, saved = [], [], [], []
        for c in changes:
            if c[0] == "s":
                _, sid, status, attempts, arguments, started_at = c
                args = _dump(arguments)
                started.append((status, attempts, args, started_at, run_id, sid))
                events.append((run_id, at, "step_started", sid, '{"arguments": %s}' % (args or "null")))
            else:
                _, sid, kind, status, attempts, output, error, ended_at, skip_reason, data, save, var = c
                out = _dump(output)
                ended.append((status, attempts, out, _dump(error), ended_at, skip_reason, run_id, sid))
                events.append((run_id, at, kind, sid, _dump(data)))
                if save:
                    saved.append((run_id, sid, (out if save == 1 else _dump(var)) or "null"))
        if ended:  # a step ends in a later row than the one that started it: rows apply in order
            db.executemany(STEP_ENDED, ended)
        if started:
            db.executemany(STEP_STARTED, started)
        db.executemany(INSERT_EVENT, events)
        if saved:
            db.executemany(UPSERT_VAR, saved)
    if rows:
        db.execute("DELETE FROM journal WHERE seq <= ?", (rows[-1][0],))
    return len(rows)


def _owner_alive(owner: str | None) -> bool:
    """Whether the process that drives a run still lives (only knowable on this host)."""
    host, _, pid = (owner or "").rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if owner == OWNER:
        return False  # this process is starting: nothing it drove before can still be running
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class RequestRecord(BaseModel):
    """One handled request, whatever its outcome (monitoring: rates, cache, LLM use, what is missing)."""

    trace_id: str
    at: datetime = Field(default_factory=utcnow)
    user: str | None = None
    surface: str | None = None
    channel: str | None = None
    text: str  # PII arguments already redacted
    status: str  # planned / needs_input / no_match / error / a run status
    rule: str | None = None
    tool: str | None = None
    environment: str | None = None
    planner: str | None = None
    fallback: str | None = None
    cache: str | None = None  # hit / miss / bypass
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: float | None = None
    error_code: str | None = None
    run_id: str | None = None
    llm_output: str | None = None  # how the model was asked for JSON (json_schema, tool_call, json_object, prompt)


class RunSummary(BaseModel):
    run_id: str
    trace_id: str
    status: str
    created_at: datetime
    updated_at: datetime
    user: str | None
    surface: str | None
    request_text: str
    rule: str | None
    tool: str | None
    environment: str | None
    attempts: int
    latency_ms: float | None


_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)  # one encoder, not one per json.dumps call


def _dump(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return _ENCODER.encode(value)


def _sid(step_id: StepId) -> str:
    # JSON keeps int vs str across the round trip; ints (nearly every step id) need no encoder
    return str(step_id) if type(step_id) is int else json.dumps(step_id)


# (table, TEXT column) added after the first release: runs got owners, requests the LLM's output mode
ADDED_COLUMNS = (("runs", "owner"), ("requests", "llm_output"))


def _set_up(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable at each checkpoint, no fsync per step
    db.execute("PRAGMA secure_delete=ON")  # deleted vars (raw outputs, PII) are zeroed, not left in pages
    db.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}")  # checkpoints run on the upkeep thread
    db.executescript(SCHEMA)
    for table, column in ADDED_COLUMNS:  # stores created before these columns existed
        if column in {r[1] for r in db.execute(f"PRAGMA table_info({table})")}:
            continue
        try:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
        except sqlite3.OperationalError as exc:  # another process migrated it between our two statements
            if "duplicate column" not in str(exc):
                raise


class RunStore:
    """SQLite-backed store; safe to share between threads (one connection, one lock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = open_sqlite(path, _set_up, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._upkeep = StoreUpkeep(path, self.fold)

    def close(self) -> None:
        self._upkeep.close()
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self, begin: str = "BEGIN") -> Iterator[None]:
        """Committed when the block ends, rolled back if it raises; the caller holds the lock.
        BEGIN IMMEDIATE where the block reads before it writes (another writer cannot slip in between)."""
        self._db.execute(begin)
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _write(self, sql: str, args: tuple[Any, ...] | list[Any]) -> None:
        with self._lock:
            self._fold_pending()  # a later change never lands before an earlier one still in the journal
            self._db.execute(sql, args)
        self._upkeep.poke()

    # ------------------------------------------------------------------ writes

    def create_run(self, run: RunRecord, *, created: Any = None, keep: dict[StepId, Any] | None = None) -> None:
        """A new run, its steps, its `created` event (data: `created`) and values a resume will need
        (`keep`, as vars): one transaction."""
        r = run.request
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT INTO runs (run_id, trace_id, status, created_at, updated_at, user, channel, thread, surface,"
                " request_text, rule, tool, environment, attempts, latency_ms, request_json, plan_json, error_json,"
                " owner) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (run.run_id, run.trace_id, run.status, run.created_at.isoformat(), run.updated_at.isoformat(), r.user,
                 r.channel, r.thread, r.surface, r.text, run.plan.rule, run.plan.tool, run.plan.environment, 0, None,
                 r.model_dump_json(exclude={"previous"}), run.plan.model_dump_json(), _dump(run.error), OWNER),
            )
            self._db.executemany(
                "INSERT INTO steps VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [(run.run_id, pos, _sid(step.step_id), step.tool_name, step.status, step.attempts,
                  _dump(step.arguments), _dump(step.output), _dump(step.error), None, None, step.skip_reason)
                 for pos, step in enumerate(run.steps)],
            )
            self._db.execute(INSERT_EVENT, (run.run_id, run.created_at.isoformat(), "created", None, _dump(created)))
            if keep:
                self._db.executemany(UPSERT_VAR,
                                     [(run.run_id, _sid(k), _dump(v) or "null") for k, v in keep.items()])
        self._upkeep.poke()

    def _run_row(self, run: RunRecord) -> tuple[Any, ...]:
        run.updated_at = utcnow()
        attempts = sum(s.attempts for s in run.steps)
        return (run.status, run.updated_at.isoformat(), attempts, run.latency_ms, _dump(run.error), OWNER, run.run_id)

    def update_run(self, run: RunRecord) -> None:
        self._write(RUN_UPDATE, self._run_row(run))  # whoever updates a run (a resume, too) now drives it

    def finish_run(self, run: RunRecord, *, clear_vars: bool) -> None:
        """A run's end state, its `run_<status>` event, and (when it is over for good) its vars gone:
        one transaction."""
        row = self._run_row(run)
        event = (run.run_id, utcnow().isoformat(), f"run_{run.status}", None,
                 _dump({"error": run.error.code if run.error else None}))
        with self._lock, self._transaction("BEGIN IMMEDIATE"):
            _fold(self._db)  # the run's last layers first: their vars must not outlive the run
            self._db.execute(RUN_UPDATE, row)
            self._db.execute(INSERT_EVENT, event)
            if clear_vars:
                self._db.execute("DELETE FROM vars WHERE run_id=?", (run.run_id,))
        self._upkeep.poke()

    @staticmethod
    def _step_row(run_id: str, step: StepRun) -> tuple[Any, ...]:
        return (step.status, step.attempts, _dump(step.arguments), _dump(step.output), _dump(step.error),
                step.started_at.isoformat() if step.started_at else None,
                step.ended_at.isoformat() if step.ended_at else None, step.skip_reason, run_id, _sid(step.step_id))

    def update_step(self, run_id: str, step: StepRun) -> None:
        self._write(STEP_UPDATE, self._step_row(run_id, step))

    def steps_changed(self, run_id: str, changes: list[StepChange]) -> None:
        """Steps' new states, their events and (on success) raw outputs for later steps. The
        executor writes what ended, was skipped and is about to start together, before any
        dependent call begins: one journal row, one commit per DAG layer. The row is folded into
        steps, events and vars by the upkeep thread, and before any read or other write."""
        body = []
        for c in changes:
            step = c.step
            if c.kind == "step_started":
                body.append(("s", _sid(step.step_id), step.status, step.attempts, step.arguments,
                             step.started_at.isoformat() if step.started_at else None))
            else:
                # the raw output is kept for later steps; when nothing was redacted it is the output itself
                save = 0 if not c.save else 1 if c.var is step.output else 2
                body.append(("e", _sid(step.step_id), c.kind, step.status, step.attempts, step.output,
                             step.error.model_dump(mode="json") if step.error else None,
                             step.ended_at.isoformat() if step.ended_at else None, step.skip_reason, c.data,
                             save, c.var if save == 2 else None))
        line = _ENCODER.encode((run_id, utcnow().isoformat(), body))
        with self._lock:
            self._db.execute("INSERT INTO journal (body) VALUES (?)", (line,))
        self._upkeep.poke()

    def fold(self) -> int:
        """Apply the journal to steps, events and vars now; how many rows were folded."""
        with self._lock:
            return self._fold_pending()

    def _fold_pending(self) -> int:
        """Under the lock, outside a transaction: fold what the journal holds (usually nothing)."""
        if self._db.execute("SELECT 1 FROM journal LIMIT 1").fetchone() is None:
            return 0
        with self._transaction("BEGIN IMMEDIATE"):
            return _fold(self._db)

    def add_event(self, run_id: str, kind: str, step_id: StepId | None = None, data: Any = None) -> None:
        self._write(INSERT_EVENT,
                    (run_id, utcnow().isoformat(), kind, _sid(step_id) if step_id is not None else None, _dump(data)))

    # ------------------------------------------------------------------ reads

    def load_vars(self, run_id: str) -> dict[StepId, Any]:
        with self._lock:
            self._fold_pending()
            rows = self._db.execute("SELECT step_id, value_json FROM vars WHERE run_id=?", (run_id,)).fetchall()
        return {json.loads(r["step_id"]): json.loads(r["value_json"]) for r in rows}

    def get(self, run_id: str) -> RunRecord:
        with self._lock:
            self._fold_pending()
            row = self._db.execute("SELECT * FROM runs WHERE run_id=?", (run_id,)).fetchone()
            steps = self._db.execute("SELECT * FROM steps WHERE run_id=? ORDER BY position", (run_id,)).fetchall()
        if row is None:
            raise InputError(f"no run {run_id!r}", message_zh=f"找不到运行 {run_id!r}", code=RUN_NOT_FOUND)
        return RunRecord(
            run_id=row["run_id"], trace_id=row["trace_id"], status=row["status"],
            created_at=datetime.fromisoformat(row["created_at"]), updated_at=datetime.fromisoformat(row["updated_at"]),
            request=Request.model_validate_json(row["request_json"]), plan=Plan.model_validate_json(row["plan_json"]),
            error=ErrorInfo.model_validate_json(row["error_json"]) if row["error_json"] else None,
            steps=[_step(s) for s in steps],
        )

    def events(self, run_id: str) -> list[dict[str, Any]]:
        with self._lock:
            self._fold_pending()
            rows = self._db.execute("SELECT at, kind, step_id, data_json FROM events WHERE run_id=? ORDER BY id",
                                    (run_id,)).fetchall()
        return [{"at": r["at"], "kind": r["kind"], "step_id": json.loads(r["step_id"]) if r["step_id"] else None,
                 "data": json.loads(r["data_json"]) if r["data_json"] else None} for r in rows]

    @staticmethod
    def _filters(status: str | None, user: str | None, surface: str | None, name: str | None,
                 text: str | None, channel: str | None = None) -> tuple[str, list[Any]]:
        clauses, args = [], []
        for col, val in (("status", status), ("user", user), ("surface", surface), ("channel", channel)):
            if val:
                clauses.append(f"{col} = ?")
                args.append(val)
        if name:  # a rule or a single tool
            clauses.append("(rule = ? OR tool = ?)")
            args += [name, name]
        if text:
            clauses.append("request_text LIKE ? ESCAPE '\\'")
            args.append("%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        return (f"WHERE {' AND '.join(clauses)}" if clauses else ""), args

    def list(self, *, limit: int = 50, offset: int = 0, status: str | None = None, user: str | None = None,
             surface: str | None = None, name: str | None = None, text: str | None = None,
             channel: str | None = None) -> list[RunSummary]:
        where, args = self._filters(status, user, surface, name, text, channel)
        with self._lock:
            self._fold_pending()
            rows = self._db.execute(
                f"SELECT run_id, trace_id, status, created_at, updated_at, user, surface, request_text, rule, tool,"
                f" environment, attempts, latency_ms FROM runs {where} ORDER BY created_at DESC LIMIT ? OFFSET ?",
                [*args, limit, offset],
            ).fetchall()
        return [RunSummary.model_validate(dict(r)) for r in rows]

    def count(self, *, status: str | None = None, user: str | None = None, surface: str | None = None,
              name: str | None = None, text: str | None = None) -> int:
        where, args = self._filters(status, user, surface, name, text)
        with self._lock:
            self._fold_pending()
            return int(self._db.execute(f"SELECT COUNT(*) FROM runs {where}", args).fetchone()[0])

    def read(self, sql: str, args: list[Any] | tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """A read-only query for reports (monitoring); writes go through the methods above."""
        if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
            raise ValueError("RunStore.read runs SELECT queries only")
        with self._lock:
            self._fold_pending()
            return self._db.execute(sql, args).fetchall()

    def record_request(self, rec: RequestRecord) -> None:
        cols = list(RequestRecord.model_fields)
        row = rec.model_dump()
        row["at"] = rec.at.isoformat()
        self._write(f"INSERT OR REPLACE INTO requests ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                    [row[c] for c in cols])

    def audit(self, actor: str, surface: str, action: str, target: str | None = None, detail: Any = None) -> None:
        """Record who did what (a knowledge edit, an execute, a resume) from a surface."""
        self._write("INSERT INTO audit(at, actor, surface, action, target, detail_json) VALUES (?,?,?,?,?,?)",
                    (utcnow().isoformat(), actor, surface, action, target, _dump(detail)))

    def audit_log(self, *, limit: int = 100) -> list[dict[str, Any]]:
        """The newest audit entries first."""
        with self._lock:
            rows = self._db.execute("SELECT at, actor, surface, action, target, detail_json FROM audit"
                                    " ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [{**dict(r), "detail": json.loads(r["detail_json"]) if r["detail_json"] else None} for r in rows]

    def requests(self, *, limit: int = 100, since: datetime | None = None) -> list[RequestRecord]:
        where, args = ("WHERE at >= ?", [since.isoformat()]) if since else ("", [])
        with self._lock:
            rows = self._db.execute(f"SELECT * FROM requests {where} ORDER BY at DESC LIMIT ?",  # noqa: S608
                                    [*args, limit]).fetchall()
        return [RequestRecord.model_validate(dict(r)) for r in rows]

    def expire_vars(self, older_than: datetime) -> list[str]:
        """Forget the kept values (raw outputs, PII arguments) of unfinished runs untouched since
        `older_than`: a resume of theirs then fails clearly instead of PII lingering for good."""
        cutoff = older_than.isoformat()
        with self._lock, self._transaction("BEGIN IMMEDIATE"):
            _fold(self._db)
            ids = [r[0] for r in self._db.execute(
                "SELECT DISTINCT v.run_id FROM vars v JOIN runs r ON r.run_id = v.run_id"
                " WHERE r.status IN ('paused', 'interrupted', 'awaiting_confirmation') AND r.updated_at < ?",
                (cutoff,)).fetchall()]
            for run_id in ids:
                self._db.execute("DELETE FROM vars WHERE run_id=?", (run_id,))
                self._db.execute("INSERT INTO events(run_id, at, kind, data_json) VALUES (?,?,'vars_expired',?)",
                                 (run_id, utcnow().isoformat(), json.dumps({"older_than": cutoff})))
        return ids

    def recover(self) -> list[str]:
        """Mark runs a dead process left in flight as `interrupted`; return their ids. Runs driven by
        a live process (a bot beside this CLI) are left alone."""
        with self._lock, self._transaction("BEGIN IMMEDIATE"):
            _fold(self._db)  # what a killed process committed but had not folded yet
            ids = [r[0] for r in self._db.execute(
                f"SELECT run_id, owner FROM runs WHERE status IN {IN_FLIGHT}").fetchall()  # noqa: S608 - constant
                if not _owner_alive(r[1])]
            for run_id in ids:
                self._db.execute("UPDATE runs SET status='interrupted', updated_at=? WHERE run_id=?",
                                 (utcnow().isoformat(), run_id))
                self._db.execute("UPDATE steps SET status='interrupted' WHERE run_id=? AND status='running'", (run_id,))
                self._db.execute("INSERT INTO events(run_id, at, kind) VALUES (?,?,'interrupted')",
                                 (run_id, utcnow().isoformat()))
        return ids


def _step(row: sqlite3.Row) -> StepRun:
    return StepRun(
        step_id=json.loads(row["step_id"]), tool_name=row["tool_name"], status=row["status"],
        attempts=row["attempts"],
        arguments=json.loads(row["arguments_json"]) if row["arguments_json"] else None,
        output=json.loads(row["output_json"]) if row["output_json"] else None,
        error=ErrorInfo.model_validate_json(row["error_json"]) if row["error_json"] else None,
        started_at=datetime.fromisoformat(row["started_at"]) if row["started_at"] else None,
        ended_at=datetime.fromisoformat(row["ended_at"]) if row["ended_at"] else None,
        skip_reason=row["skip_reason"],
    )
