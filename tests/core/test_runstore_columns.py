"""A store made by an older release gains the columns added since, and records with them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from core.runstore import RequestRecord, RunStore


def test_an_old_requests_table_gains_the_llm_output_column(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    with sqlite3.connect(path) as db:  # the requests table as the first release made it
        db.execute("CREATE TABLE requests (trace_id TEXT PRIMARY KEY, at TEXT NOT NULL, user TEXT, surface TEXT,"
                   " channel TEXT, text TEXT NOT NULL, status TEXT NOT NULL, rule TEXT, tool TEXT, environment TEXT,"
                   " planner TEXT, fallback TEXT, cache TEXT, llm_calls INTEGER NOT NULL DEFAULT 0,"
                   " prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,"
                   " cost_usd REAL, latency_ms REAL, error_code TEXT, run_id TEXT)")
        db.execute("INSERT INTO requests (trace_id, at, text, status) VALUES ('t0', '2026-01-01T00:00:00+00:00',"
                   " 'old', 'planned')")
    store = RunStore(path)
    try:
        store.record_request(RequestRecord(trace_id="t1", text="new", status="planned", planner="llm", llm_calls=1,
                                           llm_output="tool_call"))
        rows = {r.trace_id: r for r in store.requests()}
    finally:
        store.close()
    assert rows["t1"].llm_output == "tool_call" and rows["t0"].llm_output is None
