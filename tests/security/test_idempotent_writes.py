"""Writes carry a key stable per (run, step); the sandbox answers a repeated key with its first
answer; a write cut off mid-call is repeated only when that is known to be safe."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from core.assistant import Assistant
from core.errors import OUTCOME_UNKNOWN
from core.knowledge import load_knowledge
from core.models import Request
from core.runstore import RunStore
from core.settings import BUNDLED_KNOWLEDGE, Settings
from sandbox.server import BackgroundServer
from tests.conftest import write_pack
from tests.e2e.test_shop_over_http import faults

ROOT = Path(__file__).parents[2]
ORDER = {"item_id": "123456", "buyer_id": "B2001", "quantity": 1}


def orders(sandbox: BackgroundServer, env: str = "pre") -> int:
    db = sqlite3.connect(sandbox._server.config.app.state.store.path(env))  # type: ignore[attr-defined]
    try:
        return int(db.execute("SELECT COUNT(*) FROM orders").fetchone()[0])
    finally:
        db.close()


def test_the_sandbox_answers_a_repeated_key_with_its_first_answer(sandbox: BackgroundServer) -> None:
    before = orders(sandbox)
    key = {"Idempotency-Key": f"test-{time.time_ns()}"}
    first = httpx.post(f"{sandbox.url}/pre/orders", json=ORDER, headers=key)
    again = httpx.post(f"{sandbox.url}/pre/orders", json=ORDER, headers=key)
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert again.headers["idempotent-replayed"] == "true" and orders(sandbox) == before + 1
    other = httpx.post(f"{sandbox.url}/pre/orders", json={**ORDER, "quantity": 2}, headers=key)
    assert other.status_code == 422 and orders(sandbox) == before + 1
    plain = [httpx.post(f"{sandbox.url}/pre/orders", json=ORDER) for _ in range(2)]  # no key: two orders
    assert {r.status_code for r in plain} == {201} and orders(sandbox) == before + 3


LAB = {
    "pack.yaml": "name: lab\nenvironments: {default: dev, dev: {}}\n",
    "lab_tools.py": '''
CALLS = []
def flaky_write(n: int) -> dict:
    CALLS.append(n)
    if len(CALLS) == 1:
        raise TimeoutError("no answer")          # it may have happened
    return {"n": n}
def keyed_write(n: int, idempotency_key: str) -> dict:
    CALLS.append(idempotency_key)
    if len(CALLS) == 1:
        raise TimeoutError("no answer")
    return {"key": idempotency_key}
''',
    "tools/t.yaml": """
        - tool_name: flaky_write
          description: 写一条
          parameters: [{name: n, type: integer, required: true}]
          examples: [{user_query: 写一条, extracted_params: {n: 1}}]
          call: {python: "lab_tools:flaky_write"}
        - tool_name: keyed_write
          description: 带幂等键写一条
          parameters: [{name: n, type: integer, required: true}]
          examples: [{user_query: 幂等写一条, extracted_params: {n: 1}}]
          call: {python: "lab_tools:keyed_write"}
          idempotent: true
    """,
}


def _plan_one(tool: str):  # type: ignore[no-untyped-def]
    from core.models import Plan, PlanStep
    return Plan(status="planned", pack="lab", environment="dev", tool=tool,
                steps=[PlanStep(step_id=1, tool_name=tool, arguments={"n": 1})])


def test_a_write_cut_off_mid_call_is_not_retried_blindly(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "lab", LAB)
    a = Assistant(Settings(home=tmp_path / "home", backoff_base_s=0.001), load_knowledge([pack]))
    try:
        report = asyncio.run(a.execute(Request(text="写一条"), _plan_one("flaky_write")))
        run = report.run
        assert run is not None and run.status == "paused" and run.error.code == OUTCOME_UNKNOWN
        assert run.steps[0].attempts == 1  # not repeated on its own
        refused = asyncio.run(a.resume(run.run_id, "retry"))
        assert refused.error is not None and refused.error.code == OUTCOME_UNKNOWN
        assert "may already have happened" in refused.error.message
        forced = asyncio.run(a.resume(run.run_id, "retry", force=True))
        assert forced.run is not None and forced.run.status == "succeeded"
    finally:
        a.close()


def test_an_idempotent_write_is_retried_with_the_same_key(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "lab", LAB)
    a = Assistant(Settings(home=tmp_path / "home", backoff_base_s=0.001), load_knowledge([pack]))
    try:
        run = asyncio.run(a.execute(Request(text="幂等写一条"), _plan_one("keyed_write"))).run
        assert run is not None and run.status == "succeeded" and run.steps[0].attempts == 2
        assert run.steps[0].output == {"key": f"{run.run_id}-1"}  # the same key on the retry
    finally:
        a.close()


CHILD = """
import asyncio, sys
from pathlib import Path
from core.assistant import Assistant
from core.knowledge import load_knowledge
from core.models import Request
from core.settings import Settings
a = Assistant(Settings(home=Path(sys.argv[2]), environ={"SHOP_SANDBOX_PORT": sys.argv[3]}), load_knowledge([Path(sys.argv[1])]))
asyncio.run(a.handle(Request(text="给商品id为123456的商品生成一笔退货退款的订单")))
"""


@pytest.mark.slow
def test_five_kills_at_random_moments_each_resumed_with_retry_make_one_order_each(
        tmp_path: Path, sandbox: BackgroundServer) -> None:
    """The issue's bar: kill -9 during the 8-step chain, resume with retry: all succeed, one order a run."""
    rng = random.Random(20261123)
    home = tmp_path / "home"
    outcomes = []
    with faults(sandbox, method="POST", path=r"/pre/orders", status=200, delay_ms=250, times=10_000):
        for _ in range(5):
            before = orders(sandbox)
            child = subprocess.Popen([sys.executable, "-c", CHILD, str(BUNDLED_KNOWLEDGE / "shop"), str(home),
                                      str(sandbox.port)], cwd=ROOT, env=dict(os.environ))
            run_id = None
            deadline = time.monotonic() + 60
            while run_id is None and time.monotonic() < deadline:
                time.sleep(0.05)
                if (home / "runs.sqlite3").exists():
                    store = RunStore(home / "runs.sqlite3")
                    fresh = [r for r in store.list(limit=50) if r.status == "running"]
                    store.close()
                    run_id = fresh[0].run_id if fresh else None
            assert run_id, "the child never started its run"
            time.sleep(rng.uniform(0.0, 1.6))  # somewhere in the chain, often inside a write
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
            a = Assistant(Settings(home=home, environ={"SHOP_SANDBOX_PORT": str(sandbox.port)}),
                          load_knowledge([BUNDLED_KNOWLEDGE / "shop"]))
            try:
                run = a.store.get(run_id)
                if run.status == "interrupted":
                    run = asyncio.run(a.resume(run_id, "retry")).run
                outcomes.append(run.status if run else "error")
                assert run is not None and run.status == "succeeded", run.error if run else None
                assert run.steps[-1].output["status"] == "refunded"
            finally:
                a.close()
            assert orders(sandbox) == before + 1  # exactly one order per run, however the kill fell
    assert outcomes == ["succeeded"] * 5
