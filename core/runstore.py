"""RunStore: every run, step and event, written before the work moves on (SQLite by default,
PostgreSQL when replicas share one: `DATASMITH_DATABASE_URL`).

A killed process loses no run: `recover()` at start-up marks what was in flight `interrupted`,
and interrupted or paused runs can be resumed. On a shared database each process keeps a lease
(a heartbeat) and `reap()` interrupts the runs of a replica that stopped beating. Arguments and outputs arrive here already
redacted; the raw outputs that later steps of an unfinished run still need live in `vars` and
are deleted as soon as the run ends.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import socket
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from core.database import PG_NOW, Conn, PostgresDatabase, SqliteDatabase, is_postgres
from core.errors import RUN_NOT_FOUND, InputError
from core.models import ErrorInfo, Plan, Request, RunRecord, StepId, StepRun, utcnow
from core.store_upkeep import BACKSTOP_PAGES, StoreUpkeep

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, trace_id TEXT NOT NULL, status TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, "user" TEXT, channel TEXT, thread TEXT, surface TEXT,
  request_text TEXT NOT NULL, rule TEXT, tool TEXT, environment TEXT, attempts INTEGER NOT NULL DEFAULT 0,
  latency_ms REAL, request_json TEXT NOT NULL, plan_json TEXT NOT NULL, error_json TEXT, owner TEXT);
CREATE INDEX IF NOT EXISTS runs_created ON runs(created_at);
CREATE INDEX IF NOT EXISTS runs_status ON runs(status);
CREATE INDEX IF NOT EXISTS runs_user ON runs("user");
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
  trace_id TEXT PRIMARY KEY, at TEXT NOT NULL, "user" TEXT, surface TEXT, channel TEXT, text TEXT NOT NULL,
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
-- which process is alive, by its own heartbeat (the database's clock): runs whose owner stopped
-- beating are interrupted by whichever replica notices first (shared databases only)
CREATE TABLE IF NOT EXISTS leases (owner TEXT PRIMARY KEY, beat_at REAL NOT NULL);
"""

IN_FLIGHT = ("pending", "running")
INSERT_EVENT = "INSERT INTO events(run_id, at, kind, step_id, data_json) VALUES (?,?,?,?,?)"
UPSERT_VAR = ("INSERT INTO vars (run_id, step_id, value_json) VALUES (?,?,?)"
              " ON CONFLICT (run_id, step_id) DO UPDATE SET value_json = excluded.value_json")
RUN_UPDATE = "UPDATE runs SET status=?, updated_at=?, attempts=?, latency_ms=?, error_json=?, owner=? WHERE run_id=?"
STEP_UPDATE = ("UPDATE steps SET status=?, attempts=?, arguments_json=?, output_json=?, error_json=?, started_at=?,"
               " ended_at=?, skip_reason=? WHERE run_id=? AND step_id=?")
# The executor's hot path touches only what a start or an end changes.
STEP_STARTED = ("UPDATE steps SET status=?, attempts=?, arguments_json=?, error_json=NULL, started_at=?"
                " WHERE run_id=? AND step_id=?")
STEP_ENDED = ("UPDATE steps SET status=?, attempts=?, output_json=?, error_json=?, ended_at=?, skip_reason=?"
              " WHERE run_id=? AND step_id=?")
# Which process drives a run: "<replica>:<pid>". The replica is the host name unless
# DATASMITH_REPLICA names it (pods and containers whose host names repeat); on the same replica
# a pid check says whether a driver lives, across replicas only its lease can.
REPLICA = os.environ.get("DATASMITH_REPLICA") or socket.gethostname()
# the token tells this process from an earlier one with the same name and pid (pid 1 in containers)
OWNER = f"{REPLICA}:{os.getpid()}:t{secrets.token_hex(4)}"  # "t": a token of digits is never read as the pid
_OWNER = re.compile(r"(?P<name>.*):(?P<pid>\d+)(?::t[0-9a-f]+)?")
LEASE_BEAT_S = 3.0  # a process driving runs on a shared database beats this often
LEASE_STALE_S = 15.0  # ... and is taken for dead after this long without a beat (4 beats missed)
log = logging.getLogger("datasmith")


@dataclass
class StepChange:
    """One step's new state for the RunStore: the event kind, its data, and the raw output to keep."""

    step: StepRun
    kind: str
    data: Any = None
    var: Any = None
    save: bool = False


def _apply(db: Conn, run_id: str, at: str, changes: list[Any]) -> None:
    """One layer's step changes (see `RunStore.steps_changed`) on steps, events and vars."""
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
    if ended:  # a step ends in a later layer than the one that started it: layers apply in order
        db.executemany(STEP_ENDED, ended)
    if started:
        db.executemany(STEP_STARTED, started)
    db.executemany(INSERT_EVENT, events)
    if saved:
        db.executemany(UPSERT_VAR, saved)


def _fold(db: Conn) -> int:
    """Apply journal rows, oldest first, and delete them; inside the caller's write transaction,
    so a row is applied exactly once whoever folds it (any process)."""
    rows = db.execute("SELECT seq, body FROM journal ORDER BY seq").fetchall()
    for _, body in rows:
        _apply(db, *json.loads(body))
    if rows:
        db.execute("DELETE FROM journal WHERE seq <= ?", (rows[-1][0],))
    return len(rows)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def owner_alive(owner: str | None, beats: dict[str, float], *, starting: bool, shared: bool) -> bool:
    """Whether the process driving a run still lives. On a shared database its lease says so
    (`beats`: seconds since each owner's last heartbeat), whatever its name; on SQLite every driver
    is on this machine and its pid says so. A process that is `starting` drives nothing yet."""
    if owner == OWNER:
        return not starting
    if shared:
        age = beats.get(owner or "")
        return age is not None and age < LEASE_STALE_S
    m = _OWNER.fullmatch(owner or "")
    if m is None:
        return False
    pid = int(m["pid"])
    return pid != os.getpid() and _pid_alive(pid)  # our own pid under another name: a predecessor's


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


REQUEST_COLUMNS = list(RequestRecord.model_fields)
_QUOTED = [f'"{c}"' for c in REQUEST_COLUMNS]  # "user" is a reserved word in PostgreSQL
RECORD_REQUEST = (f"INSERT INTO requests ({', '.join(_QUOTED)}) VALUES ({', '.join('?' * len(_QUOTED))})"
                  " ON CONFLICT (trace_id) DO UPDATE SET "
                  + ", ".join(f"{q} = excluded.{q}" for q in _QUOTED if q != '"trace_id"'))


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


class _SqliteBackend:
    """The default: one file, one connection and lock. The executor's step changes go to a
    journal (one INSERT per DAG layer) folded by the upkeep thread, before anything reads."""

    shared = False
    now_epoch = "((julianday('now') - 2440587.5) * 86400.0)"
    same = "IS"  # NULL-safe equality (runs from before owners were recorded have none)
    like = "LIKE"  # case-insensitive for ASCII already

    def __init__(self, path: Path) -> None:
        self._db = SqliteDatabase(path, _set_up)
        self._upkeep = StoreUpkeep(path, self.fold)

    def _fold_pending(self) -> int:
        """Under the lock, outside a transaction: fold what the journal holds (usually nothing)."""
        if self._db.conn.execute("SELECT 1 FROM journal LIMIT 1").fetchone() is None:
            return 0
        with self._db.begun(immediate=True) as conn:
            return _fold(conn)

    def fold(self) -> int:
        with self._db.lock:
            return self._fold_pending()

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        return self.reads((sql, args))[0]

    def reads(self, *queries: tuple[str, Sequence[Any]]) -> list[list[Any]]:
        """Several selects as of one moment (nothing of ours writes in between)."""
        with self._db.lock:
            self._fold_pending()
            return [self._db.conn.execute(sql, args).fetchall() for sql, args in queries]

    def write(self, sql: str, args: Sequence[Any] = ()) -> int:
        with self._db.lock:
            self._fold_pending()  # a later change never lands before an earlier one still in the journal
            n = self._db.conn.execute(sql, args).rowcount
        self._upkeep.poke()
        return n

    @contextmanager
    def transaction(self, *, fold: bool = True) -> Iterator[Conn]:
        """One write transaction; with `fold`, the journal is applied first (IMMEDIATE: nobody
        writes between that read and ours)."""
        with self._db.transaction(immediate=fold) as conn:
            if fold:
                _fold(conn)
            yield conn
        self._upkeep.poke()

    def journal(self, run_id: str, at: str, body: list[Any]) -> None:
        line = _ENCODER.encode((run_id, at, body))
        with self._db.lock:
            self._db.conn.execute("INSERT INTO journal (body) VALUES (?)", (line,))
        self._upkeep.poke()

    def close(self) -> None:
        self._upkeep.close()
        self._db.close()


class _PostgresBackend:
    """A database shared by replicas: every change is applied at once, in its own transaction."""

    shared = True
    now_epoch = PG_NOW
    same = "IS NOT DISTINCT FROM"
    like = "ILIKE"  # as SQLite's LIKE: the runs filter ignores case

    def __init__(self, url: str) -> None:
        self._db = PostgresDatabase(url, SCHEMA, lock_name="runstore", migrate=_pg_migrate)

    def fold(self) -> int:
        return 0

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        return self._db.execute(sql, args).rows

    def reads(self, *queries: tuple[str, Sequence[Any]]) -> list[list[Any]]:
        with self._db.transaction() as conn:
            return [conn.execute(sql, args).fetchall() for sql, args in queries]

    def write(self, sql: str, args: Sequence[Any] = ()) -> int:
        return self._db.execute(sql, args).rowcount

    @contextmanager
    def transaction(self, *, fold: bool = True) -> Iterator[Conn]:
        with self._db.transaction() as conn:
            yield conn

    def journal(self, run_id: str, at: str, body: list[Any]) -> None:
        with self._db.transaction(pipeline=True) as conn:  # one round trip per DAG layer
            _apply(conn, run_id, at, body)

    def close(self) -> None:
        self._db.close()


def _pg_migrate(db: Conn) -> None:
    for table, column in ADDED_COLUMNS:  # ALTER locks the table even when the column exists: ask first
        if not db.execute("SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
                          " AND table_name=? AND column_name=?", (table, column)).fetchall():
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")


class RunStore:
    """Runs, steps, events, vars, requests and the audit log, in SQLite (a path) or PostgreSQL (a
    `postgresql://` URL); safe to share between threads."""

    def __init__(self, target: Path | str) -> None:
        pg = is_postgres(str(target))
        self.path: Path | None = None if pg else Path(target)  # the SQLite file
        self._b: _SqliteBackend | _PostgresBackend = _PostgresBackend(str(target)) if pg else _SqliteBackend(Path(target))
        self.shared = self._b.shared
        self._beat: Heartbeat | None = None
        self._beat_lock = threading.Lock()

    def close(self) -> None:
        if self._beat is not None:
            self._beat.stop()  # our lease goes: what we still drive is interrupted by the next reaper
        self._b.close()

    def _driving(self) -> None:
        """This process drives runs: on a shared database it keeps a lease (the first beat now, so
        no replica can take the run for an orphan before the heartbeat thread's first beat)."""
        if self.shared and self._beat is None:
            with self._beat_lock:
                if self._beat is None:
                    self._beat = Heartbeat(self._b)

    # ------------------------------------------------------------------ writes

    def create_run(self, run: RunRecord, *, created: Any = None, keep: dict[StepId, Any] | None = None) -> None:
        """A new run, its steps, its `created` event (data: `created`) and values a resume will need
        (`keep`, as vars): one transaction."""
        self._driving()
        r = run.request
        with self._b.transaction(fold=False) as db:
            db.execute(
                'INSERT INTO runs (run_id, trace_id, status, created_at, updated_at, "user", channel, thread, surface,'
                " request_text, rule, tool, environment, attempts, latency_ms, request_json, plan_json, error_json,"
                " owner) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (run.run_id, run.trace_id, run.status, run.created_at.isoformat(), run.updated_at.isoformat(), r.user,
                 r.channel, r.thread, r.surface, r.text, run.plan.rule, run.plan.tool, run.plan.environment, 0, None,
                 r.model_dump_json(exclude={"previous"}), run.plan.model_dump_json(), _dump(run.error), OWNER),
            )
            db.executemany(
                "INSERT INTO steps VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [(run.run_id, pos, _sid(step.step_id), step.tool_name, step.status, step.attempts,
                  _dump(step.arguments), _dump(step.output), _dump(step.error), None, None, step.skip_reason)
                 for pos, step in enumerate(run.steps)],
            )
            db.execute(INSERT_EVENT, (run.run_id, run.created_at.isoformat(), "created", None, _dump(created)))
            if keep:
                db.executemany(UPSERT_VAR, [(run.run_id, _sid(k), _dump(v) or "null") for k, v in keep.items()])

    def _run_row(self, run: RunRecord) -> tuple[Any, ...]:
        run.updated_at = utcnow()
        attempts = sum(s.attempts for s in run.steps)
        return (run.status, run.updated_at.isoformat(), attempts, run.latency_ms, _dump(run.error), OWNER, run.run_id)

    def update_run(self, run: RunRecord) -> None:
        self._driving()
        self._b.write(RUN_UPDATE, self._run_row(run))  # whoever updates a run (a resume, too) now drives it

    def take_over(self, run_id: str, status: str) -> bool:
        """A resume's claim on a paused or interrupted run: True for exactly one of several
        (double clicks, replicas), which then drives it."""
        self._driving()
        return self._b.write("UPDATE runs SET status='running', updated_at=?, owner=? WHERE run_id=? AND status=?",
                             (utcnow().isoformat(), OWNER, run_id, status)) == 1

    def finish_run(self, run: RunRecord, *, clear_vars: bool) -> None:
        """A run's end state, its `run_<status>` event, and (when it is over for good) its vars gone:
        one transaction."""
        row = self._run_row(run)
        event = (run.run_id, utcnow().isoformat(), f"run_{run.status}", None,
                 _dump({"error": run.error.code if run.error else None}))
        with self._b.transaction() as db:  # the run's last layers first: their vars must not outlive the run
            db.execute(RUN_UPDATE, row)
            db.execute(INSERT_EVENT, event)
            if clear_vars:
                db.execute("DELETE FROM vars WHERE run_id=?", (run.run_id,))

    @staticmethod
    def _step_row(run_id: str, step: StepRun) -> tuple[Any, ...]:
        return (step.status, step.attempts, _dump(step.arguments), _dump(step.output), _dump(step.error),
                step.started_at.isoformat() if step.started_at else None,
                step.ended_at.isoformat() if step.ended_at else None, step.skip_reason, run_id, _sid(step.step_id))

    def update_step(self, run_id: str, step: StepRun) -> None:
        self._b.write(STEP_UPDATE, self._step_row(run_id, step))

    def steps_changed(self, run_id: str, changes: list[StepChange]) -> None:
        """Steps' new states, their events and (on success) raw outputs for later steps. The
        executor writes what ended, was skipped and is about to start together, before any
        dependent call begins: one commit per DAG layer (on SQLite one journal row, folded into
        steps, events and vars by the upkeep thread and before any read or other write)."""
        body: list[Any] = []
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
        self._b.journal(run_id, utcnow().isoformat(), body)

    def fold(self) -> int:
        """Apply the journal to steps, events and vars now; how many rows were folded."""
        return self._b.fold()

    def add_event(self, run_id: str, kind: str, step_id: StepId | None = None, data: Any = None) -> None:
        self._b.write(INSERT_EVENT,
                      (run_id, utcnow().isoformat(), kind, _sid(step_id) if step_id is not None else None, _dump(data)))

    # ------------------------------------------------------------------ reads

    def load_vars(self, run_id: str) -> dict[StepId, Any]:
        rows = self._b.read("SELECT step_id, value_json FROM vars WHERE run_id=?", (run_id,))
        return {json.loads(r["step_id"]): json.loads(r["value_json"]) for r in rows}

    def get(self, run_id: str) -> RunRecord:
        runs, steps = self._b.reads(("SELECT * FROM runs WHERE run_id=?", (run_id,)),
                                    ("SELECT * FROM steps WHERE run_id=? ORDER BY position", (run_id,)))
        row = runs[0] if runs else None
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
        rows = self._b.read("SELECT at, kind, step_id, data_json FROM events WHERE run_id=? ORDER BY id", (run_id,))
        return [{"at": r["at"], "kind": r["kind"], "step_id": json.loads(r["step_id"]) if r["step_id"] else None,
                 "data": json.loads(r["data_json"]) if r["data_json"] else None} for r in rows]

    def _filters(self, status: str | None, user: str | None, surface: str | None, name: str | None,
                 text: str | None, channel: str | None = None) -> tuple[str, list[Any]]:
        clauses, args = [], []
        for col, val in (("status", status), ('"user"', user), ("surface", surface), ("channel", channel)):
            if val:
                clauses.append(f"{col} = ?")
                args.append(val)
        if name:  # a rule or a single tool
            clauses.append("(rule = ? OR tool = ?)")
            args += [name, name]
        if text:
            clauses.append(f"request_text {self._b.like} ? ESCAPE '\\'")
            args.append("%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        return (f"WHERE {' AND '.join(clauses)}" if clauses else ""), args

    def list(self, *, limit: int = 50, offset: int = 0, status: str | None = None, user: str | None = None,
             surface: str | None = None, name: str | None = None, text: str | None = None,
             channel: str | None = None) -> list[RunSummary]:
        where, args = self._filters(status, user, surface, name, text, channel)
        rows = self._b.read(
            f'SELECT run_id, trace_id, status, created_at, updated_at, "user", surface, request_text, rule, tool,'
            f" environment, attempts, latency_ms FROM runs {where} ORDER BY created_at DESC LIMIT ? OFFSET ?",
            [*args, limit, offset])
        return [RunSummary.model_validate(dict(r)) for r in rows]

    def count(self, *, status: str | None = None, user: str | None = None, surface: str | None = None,
              name: str | None = None, text: str | None = None) -> int:
        where, args = self._filters(status, user, surface, name, text)
        return int(self._b.read(f"SELECT COUNT(*) FROM runs {where}", args)[0][0])

    def read(self, sql: str, args: list[Any] | tuple[Any, ...] = ()) -> list[Any]:
        """A read-only query for reports (monitoring); writes go through the methods above. Rows
        read by position or column name."""
        if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
            raise ValueError("RunStore.read runs SELECT queries only")
        return self._b.read(sql, args)

    def record_request(self, rec: RequestRecord) -> None:
        row = rec.model_dump()
        row["at"] = rec.at.isoformat()
        self._b.write(RECORD_REQUEST, [row[c] for c in REQUEST_COLUMNS])

    def audit(self, actor: str, surface: str, action: str, target: str | None = None, detail: Any = None) -> None:
        """Record who did what (a knowledge edit, an execute, a resume) from a surface."""
        self._b.write("INSERT INTO audit(at, actor, surface, action, target, detail_json) VALUES (?,?,?,?,?,?)",
                      (utcnow().isoformat(), actor, surface, action, target, _dump(detail)))

    def audit_log(self, *, limit: int = 100) -> list[dict[str, Any]]:
        """The newest audit entries first."""
        rows = self._b.read("SELECT at, actor, surface, action, target, detail_json FROM audit"
                            " ORDER BY id DESC LIMIT ?", (limit,))
        return [{**dict(r), "detail": json.loads(r["detail_json"]) if r["detail_json"] else None} for r in rows]

    def requests(self, *, limit: int = 100, since: datetime | None = None) -> list[RequestRecord]:
        where, args = ("WHERE at >= ?", [since.isoformat()]) if since else ("", [])
        rows = self._b.read(f"SELECT * FROM requests {where} ORDER BY at DESC LIMIT ?", [*args, limit])  # noqa: S608
        return [RequestRecord.model_validate(dict(r)) for r in rows]

    def expire_vars(self, older_than: datetime) -> list[str]:
        """Forget the kept values (raw outputs, PII arguments) of unfinished runs untouched since
        `older_than`: a resume of theirs then fails clearly instead of PII lingering for good."""
        cutoff = older_than.isoformat()
        expired = []
        with self._b.transaction() as db:
            ids = [r[0] for r in db.execute(
                "SELECT DISTINCT v.run_id FROM vars v JOIN runs r ON r.run_id = v.run_id"
                " WHERE r.status IN ('paused', 'interrupted', 'awaiting_confirmation') AND r.updated_at < ?",
                (cutoff,)).fetchall()]
            for run_id in ids:
                # a replica expiring the same run at the same moment deleted nothing: one event
                if db.execute("DELETE FROM vars WHERE run_id=?", (run_id,)).rowcount:
                    db.execute("INSERT INTO events(run_id, at, kind, data_json) VALUES (?,?,'vars_expired',?)",
                               (run_id, utcnow().isoformat(), json.dumps({"older_than": cutoff})))
                    expired.append(run_id)
        return expired

    # ------------------------------------------------------------------ runs nobody drives any more

    def recover(self) -> list[str]:
        """At start-up: mark runs a dead process left in flight `interrupted`; return their ids.
        Runs driven by a live process (a bot beside this CLI, another replica) are left alone."""
        return self._interrupt_orphans(starting=True)

    def reap(self) -> list[str]:
        """The same, while running (bots and API replicas call it every few seconds): a replica
        that died mid-run has its runs interrupted within `LEASE_STALE_S` plus the period."""
        return self._interrupt_orphans(starting=False)

    def _interrupt_orphans(self, *, starting: bool) -> list[str]:
        runs = self._b.read(f"SELECT run_id, owner FROM runs WHERE status IN {IN_FLIGHT}")  # noqa: S608 - constant
        if not runs:
            return []
        beats = {r[0]: float(r[1]) for r in self._b.read(f"SELECT owner, {self._b.now_epoch} - beat_at FROM leases")}
        ids = []
        dead = [(r[0], r[1]) for r in runs if not owner_alive(r[1], beats, starting=starting, shared=self.shared)]
        for run_id, owner in dead:
            at = utcnow().isoformat()
            with self._b.transaction() as db:  # first replica to flip it owns the announcement
                if db.execute(f"UPDATE runs SET status='interrupted', updated_at=? WHERE run_id=? AND owner {self._b.same}"
                              f" ? AND status IN {IN_FLIGHT}", (at, run_id, owner)).rowcount != 1:  # noqa: S608
                    continue
                db.execute("UPDATE steps SET status='interrupted' WHERE run_id=? AND status='running'", (run_id,))
                db.execute("INSERT INTO events(run_id, at, kind, data_json) VALUES (?,?,'interrupted',?)",
                           (run_id, at, _dump({"owner": owner, "by": OWNER})))
            ids.append(run_id)
        return ids


class Heartbeat:
    """This process's lease on a shared database: a beat every `LEASE_BEAT_S` on a daemon thread.
    A process that stops beating for `LEASE_STALE_S` is taken for dead by the other replicas."""

    def __init__(self, backend: _SqliteBackend | _PostgresBackend) -> None:
        self._b = backend
        self._stop = threading.Event()
        self.beat()
        self._thread = threading.Thread(target=self._loop, name="runstore-lease", daemon=True)
        self._thread.start()

    def beat(self) -> None:
        self._b.write(f"INSERT INTO leases (owner, beat_at) VALUES (?, {self._b.now_epoch}) ON CONFLICT (owner)"
                      f" DO UPDATE SET beat_at = excluded.beat_at", (OWNER,))

    def _loop(self) -> None:
        while not self._stop.wait(LEASE_BEAT_S):
            try:
                self.beat()
            except Exception:  # noqa: BLE001 - a database blip: the next beat tries again, well within the lease
                log.warning("lease heartbeat failed; retrying in %ss", LEASE_BEAT_S, exc_info=True)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        try:
            self._b.write("DELETE FROM leases WHERE owner=?", (OWNER,))
        except Exception:  # noqa: BLE001 - closing: the lease then simply goes stale
            log.warning("could not drop this process's lease", exc_info=True)


def _step(row: Any) -> StepRun:
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
