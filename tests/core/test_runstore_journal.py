"""The executor's per-layer journal: committed before calls begin, folded later, never lost or reordered."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from core.execution import new_run
from core.models import ErrorInfo, Plan, PlanStep, Request, RunRecord, utcnow
from core.runstore import RunStore, StepChange

PLAN = Plan(status="planned", pack="lab", environment="dev", rule="two",
            steps=[PlanStep(step_id=1, tool_name="a"), PlanStep(step_id=2, tool_name="b", dependencies=[1])])


def started(run: RunRecord, index: int, arguments: dict) -> StepChange:
    step = run.steps[index]
    step.status, step.started_at, step.arguments = "running", utcnow(), arguments
    return StepChange(step, "step_started", {"arguments": arguments})


def succeeded(run: RunRecord, index: int, output: dict, raw: dict | None = None) -> StepChange:
    step = run.steps[index]
    step.status, step.attempts, step.output, step.ended_at = "succeeded", 1, output, utcnow()
    return StepChange(step, "step_succeeded", {"attempts": 1, "code": None}, var=raw or output, save=True)


def unfolded(store: RunStore) -> RunStore:
    store._b._upkeep.poke = lambda: None  # noqa: SLF001 - stands for a process that dies before its upkeep runs
    return store


def raw(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


CHILD = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from tests.core.test_runstore_journal import PLAN, started, succeeded, unfolded
from core.execution import new_run
from core.models import Request
from core.runstore import RunStore
store = unfolded(RunStore(Path(sys.argv[1])))
run = new_run(Request(text="two steps"), PLAN)
run.status = "running"
store.create_run(run)
store.steps_changed(run.run_id, [started(run, 0, {"card": "****"})])
store.steps_changed(run.run_id, [succeeded(run, 0, {"order": "O1", "card": "****"}, raw={"order": "O1", "card": "4111"}),
                                 started(run, 1, {"order": "O1"})])
print(run.run_id, flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # killed with both layers in the journal, nothing folded
"""


def test_layers_a_killed_process_never_folded_are_recovered(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    child = subprocess.run([sys.executable, "-c", CHILD, str(path), str(Path(__file__).parents[2])],
                           capture_output=True, text=True, timeout=120)
    run_id = child.stdout.strip()
    assert run_id, child.stderr
    # what the dead process left: its steps still pending, its two layers in the journal
    assert raw(path, "SELECT status FROM steps ORDER BY position") == [("pending",), ("pending",)]
    assert raw(path, "SELECT COUNT(*) FROM journal") == [(2,)]

    store = RunStore(path)
    try:
        assert store.recover() == [run_id]
        run = store.get(run_id)
        assert run.status == "interrupted"
        assert [s.status for s in run.steps] == ["succeeded", "interrupted"]
        assert run.steps[0].output == {"order": "O1", "card": "****"}
        assert run.steps[1].arguments == {"order": "O1"}
        assert store.load_vars(run_id) == {1: {"order": "O1", "card": "4111"}}, "a resume needs the raw output"
        kinds = [(e["kind"], e["step_id"]) for e in store.events(run_id)]
        assert kinds == [("created", None), ("step_started", 1), ("step_succeeded", 1), ("step_started", 2),
                         ("interrupted", None)]
        assert raw(path, "SELECT COUNT(*) FROM journal") == [(0,)]
    finally:
        store.close()


def test_journal_and_direct_writes_land_in_the_order_they_happened(tmp_path: Path) -> None:
    store = unfolded(RunStore(tmp_path / "runs.sqlite3"))
    try:
        run = new_run(Request(text="two steps"), PLAN)
        run.status = "running"
        store.create_run(run)
        store.steps_changed(run.run_id, [started(run, 0, {"x": 1})])
        store.add_event(run.run_id, "attempt_failed", 1, {"attempt": 1})  # direct, after the journalled start
        store.steps_changed(run.run_id, [succeeded(run, 0, {"card": "****"}, raw={"card": "4111"})])
        step = run.steps[1]
        step.status, step.error = "failed", ErrorInfo(code="DS-302", message="refused", trace_id=run.trace_id)
        store.steps_changed(run.run_id, [StepChange(step, "step_failed", {"attempts": 1, "code": "DS-302"})])
        run.status, run.error = "failed", step.error
        store.finish_run(run, clear_vars=True)

        kinds = [e["kind"] for e in store.events(run.run_id)]
        assert kinds == ["created", "step_started", "attempt_failed", "step_succeeded", "step_failed", "run_failed"]
        got = store.get(run.run_id)
        assert [s.status for s in got.steps] == ["succeeded", "failed"]
        assert got.steps[1].error and got.steps[1].error.code == "DS-302"
        # the raw output (PII) went into the journal before the run ended; ending the run removes it
        assert store.load_vars(run.run_id) == {}
        assert raw(store.path, "SELECT COUNT(*) FROM vars") == [(0,)]
    finally:
        store.close()


def test_the_upkeep_thread_folds_soon_after_a_write(tmp_path: Path) -> None:
    # another process (the console) sees a run's progress without anyone reading through this store
    store = RunStore(tmp_path / "runs.sqlite3")
    try:
        run = new_run(Request(text="two steps"), PLAN)
        run.status = "running"
        store.create_run(run)
        store.steps_changed(run.run_id, [started(run, 0, {"x": 1})])
        deadline = time.monotonic() + 5
        while raw(store.path, "SELECT COUNT(*) FROM journal") != [(0,)] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert raw(store.path, "SELECT status FROM steps WHERE step_id='1'") == [("running",)]
    finally:
        store.close()
