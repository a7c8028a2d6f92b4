"""A process killed mid-run loses no run: the next start marks it interrupted, and it resumes."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from core.assistant import Assistant
from core.knowledge import load_knowledge
from core.runstore import RunStore
from core.settings import Settings
from tests.conftest import write_pack

SLOW_PACK = {
    "pack.yaml": "name: slowlab\nenvironments: {default: dev, dev: {}}\n",
    "slow_tools.py": '''
import os, time
def step(n: int) -> dict:
    if n == 2 and os.environ.get("SLOW_STEP_2"):
        time.sleep(60)  # long enough to be killed in the middle
    return {"n": n}
''',
    "tools/t.yaml": """
        tool_name: step
        description: 一步操作
        parameters: [{name: n, type: integer, required: true}]
        examples: [{user_query: 做第1步, extracted_params: {n: 1}}]
        returns: {type: object, required: [n]}
        call: {python: "slow_tools:step"}
        idempotent: true          # computing n again changes nothing: a cut-off call may be repeated
    """,
    "rules/r.yaml": """
        rule_name: three_steps
        description: 连续做三步
        trigger_phrases: [连续三步]
        dag_definition:
          - {step_id: 1, tool_name: step, parameter_mapping: {n: {source: constant, value: 1}}}
          - {step_id: 2, tool_name: step, dependencies: [1], parameter_mapping: {n: {source: constant, value: 2}}}
          - {step_id: 3, tool_name: step, dependencies: [2], parameter_mapping: {n: {source: constant, value: 3}}}
    """,
}

CHILD = """
import asyncio, sys
from pathlib import Path
from core.assistant import Assistant
from core.knowledge import load_knowledge
from core.models import Request
from core.settings import Settings
settings = Settings(home=Path(sys.argv[2]))
assistant = Assistant(settings, load_knowledge([Path(sys.argv[1])]))
asyncio.run(assistant.handle(Request(text="连续三步")))
"""


def test_killed_process_leaves_an_interrupted_run_that_resumes(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "slowlab", SLOW_PACK)
    home = tmp_path / "home"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(pack), str(home)],
                             env={**os.environ, "SLOW_STEP_2": "1"}, cwd=Path(__file__).parents[2])
    store_path = home / "runs.sqlite3"
    deadline = time.monotonic() + 30
    running = None
    while time.monotonic() < deadline and running is None:
        time.sleep(0.1)
        if store_path.exists():
            store = RunStore(store_path)
            runs = store.list()
            if runs and store.get(runs[0].run_id).steps[1].status == "running":
                running = runs[0].run_id
            store.close()
    assert running, "the child never got to step 2"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)

    assistant = Assistant(Settings(home=home), load_knowledge([pack]))
    try:
        assert assistant.recovered == [running]
        run = assistant.store.get(running)
        assert run.status == "interrupted"
        assert [s.status for s in run.steps] == ["succeeded", "interrupted", "pending"]
        resumed = asyncio.run(assistant.resume(running, "retry", by="U1"))
        assert resumed.run is not None and resumed.run.status == "succeeded"
        assert [s.output for s in resumed.run.steps] == [{"n": 1}, {"n": 2}, {"n": 3}]
    finally:
        assistant.close()


def test_runs_of_a_live_process_are_not_marked_interrupted(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "slowlab", SLOW_PACK)
    home = tmp_path / "home"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(pack), str(home)],
                             env={**os.environ, "SLOW_STEP_2": "1"}, cwd=Path(__file__).parents[2])
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            time.sleep(0.1)
            if (home / "runs.sqlite3").exists():
                store = RunStore(home / "runs.sqlite3")
                started = bool(store.list())
                store.close()
                if started:
                    break
        second = Assistant(Settings(home=home), load_knowledge([pack]))  # e.g. a CLI call beside a bot
        try:
            assert second.recovered == []
            assert second.store.list()[0].status == "running"
        finally:
            second.close()
    finally:
        child.kill()
        child.wait(timeout=10)


def _open_stores(paths: list[str], barrier: Any) -> None:
    for path in paths:  # every process opens each store at the same moment
        barrier.wait(timeout=60)  # a crashed peer breaks the barrier instead of hanging the rest
        RunStore(Path(path)).close()


def test_processes_opening_a_store_at_once_all_get_it(tmp_path: Path) -> None:
    # the console, the bot and a CLI may all start on one data dir at once: on a fresh store they
    # race to switch it to WAL, on a store made before runs had owners they race to migrate it.
    # SQLite answers some of those races "database is locked" at once, without waiting; no
    # process may crash on them (about one round in eight failed before the set-up was retried)
    import multiprocessing
    import sqlite3

    paths = []
    for i in range(12):
        path = tmp_path / f"runs{i}.sqlite3"
        paths.append(str(path))
        if i % 2:
            continue  # a fresh store
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, trace_id TEXT NOT NULL, status TEXT NOT NULL,"
                       " created_at TEXT NOT NULL, updated_at TEXT NOT NULL, user TEXT, channel TEXT, thread TEXT,"
                       " surface TEXT, request_text TEXT NOT NULL, rule TEXT, tool TEXT, environment TEXT,"
                       " attempts INTEGER NOT NULL DEFAULT 0, latency_ms REAL, request_json TEXT NOT NULL,"
                       " plan_json TEXT NOT NULL, error_json TEXT)")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(6)
    procs = [ctx.Process(target=_open_stores, args=(paths, barrier)) for _ in range(6)]
    for p in procs:
        p.start()
    try:
        for p in procs:
            p.join(timeout=120)
    finally:
        for p in procs:
            p.kill()
    assert [p.exitcode for p in procs] == [0] * 6
    for path in paths:
        store = RunStore(Path(path))
        assert store.list() == []
        assert "owner" in {r[1] for r in store.read("SELECT * FROM pragma_table_info('runs')")}
        store.close()
