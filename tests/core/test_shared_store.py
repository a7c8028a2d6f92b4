"""Replicas on one PostgreSQL (a real server, started by the test session): the RunStore, the
bot's memory and the API's keys behave as on SQLite, set up at once by several processes, and a
replica killed mid-run has its runs interrupted by another and resumed with nothing run twice."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from api.store import ApiStore
from bot.memory import BotMemory
from core import monitoring
from core.assistant import Assistant
from core.execution import new_run
from core.knowledge import load_knowledge
from core.models import Plan, PlanStep, Request
from core.orphans import OrphanWatch
from core.runstore import LEASE_STALE_S, RunStore
from core.settings import Settings
from tests.conftest import write_pack
from tests.core.test_crash_recovery import SLOW_PACK

ROOT = Path(__file__).parents[2]


def test_a_return_refund_chain_runs_and_reads_back_from_postgres(pg_url: str,
                                                                  settings_for: Callable[..., Settings],
                                                                  shop_knowledge: Any) -> None:
    assistant = Assistant(settings_for(database_url=pg_url), shop_knowledge)
    try:
        report = asyncio.run(assistant.handle(Request(text="给商品123456造一笔退货退款的订单", user="U7",
                                                      surface="cli")))
        assert report.run is not None and report.run.status == "succeeded"
        assert len(report.run.steps) == 8 and {s.status for s in report.run.steps} == {"succeeded"}
        run = assistant.store.get(report.run.run_id)  # read back from the database, not the object
        assert [s.status for s in run.steps] == ["succeeded"] * 8
        assert run.steps[0].output and run.steps[0].output.get("order_id")
        kinds = [e["kind"] for e in assistant.store.events(run.run_id)]
        assert kinds[0] == "created" and kinds[-1] == "run_succeeded" and kinds.count("step_succeeded") == 8
        assert assistant.store.load_vars(run.run_id) == {}  # raw outputs gone once the run ended
        assert [r.run_id for r in assistant.store.list(user="U7")] == [run.run_id]
        assert assistant.store.count(status="succeeded") == 1
        overview = monitoring.overview(assistant.store)
        assert overview.requests == 1 and overview.success_rate == 1.0
    finally:
        assistant.close()
    assert RunStore(pg_url).list()[0].status == "succeeded"  # another process's view


def _open_all(url: str, barrier: Any) -> None:
    barrier.wait(timeout=60)
    for store in (RunStore(url), BotMemory(url), ApiStore(url)):
        store.close()


def test_replicas_starting_at_the_same_moment_all_get_the_schema(pg_url: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(6)
    procs = [ctx.Process(target=_open_all, args=(pg_url, barrier)) for _ in range(6)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * 6
    store = RunStore(pg_url)
    assert store.list() == [] and store.count() == 0
    store.close()


def _foreign_runs(store: RunStore, n: int, owner: str) -> list[str]:
    plan = Plan(status="planned", pack="lab", environment="dev", tool="a", steps=[PlanStep(step_id=1, tool_name="a")])
    ids = []
    for _ in range(n):
        run = new_run(Request(text="x", surface="slack", channel="C1", thread="1.1"), plan)
        run.status = "running"
        store.create_run(run)
        ids.append(run.run_id)
    store._b.write("UPDATE runs SET owner=?", (owner,))  # noqa: SLF001 - as if another replica drove them
    return ids


def test_runs_of_a_replica_that_stopped_beating_are_interrupted_once(pg_url: str) -> None:
    first, second = RunStore(pg_url), RunStore(pg_url)
    try:
        ids = _foreign_runs(first, 20, "replica-b:4242")
        first._b.write("INSERT INTO leases VALUES ('replica-b:4242', 0)")  # noqa: SLF001 - its last beat: long ago
        got: list[list[str]] = [[], []]
        threads = [threading.Thread(target=lambda i=i, s=s: got[i].extend(s.reap()))
                   for i, s in enumerate((first, second))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(got[0] + got[1]) == sorted(ids)  # every run once, by one replica or the other
        assert {r.status for r in first.list()} == {"interrupted"}
        events = [e["kind"] for e in first.events(ids[0])]
        assert events.count("interrupted") == 1
    finally:
        first.close()
        second.close()


def test_runs_of_a_replica_that_still_beats_are_left_alone(pg_url: str) -> None:
    store = RunStore(pg_url)
    try:
        _foreign_runs(store, 3, "replica-c:77")
        store._b.write(f"INSERT INTO leases VALUES ('replica-c:77', {store._b.now_epoch})")  # noqa: SLF001
        assert store.reap() == [] and store.recover() == []
        assert {r.status for r in store.list()} == {"running"}
        # a replica that never held a lease (or whose lease is gone after a clean stop) is not alive
        store._b.write("DELETE FROM leases")  # noqa: SLF001
        assert len(store.reap()) == 3
    finally:
        store.close()


def test_a_delivery_and_a_button_press_are_taken_by_one_replica(pg_url: str) -> None:
    a, b = BotMemory(pg_url), BotMemory(pg_url)
    try:
        keys = [f"msg:C1:{i}.0001" for i in range(100)]
        taken: list[list[str]] = [[], []]

        def take(i: int, memory: BotMemory) -> None:
            taken[i].extend(k for k in keys if memory.claim(k))

        threads = [threading.Thread(target=take, args=(i, m)) for i, m in enumerate((a, b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(taken[0] + taken[1]) == sorted(keys)
        plan = Plan(status="planned", pack="shop", environment="test", tool="t", steps=[])
        cid = a.add_confirmation("C1", "1.1", Request(text="x", user="U1"), plan)
        assert b.confirmation(cid) is not None and b.confirmation(cid).status == "pending"  # type: ignore[union-attr]
        assert [a.decide(cid, "run"), b.decide(cid, "run")].count(True) == 1  # a confirm pressed on two replicas
        b.set_pending("C1", "1.1", "U1", plan)
        assert a.pending("C1", "1.1") == ("U1", plan)
    finally:
        a.close()
        b.close()


def test_one_idempotency_key_is_owned_by_one_replica(pg_url: str) -> None:
    a, b = ApiStore(pg_url), ApiStore(pg_url)
    try:
        claims = [a.claim("tok", "k1", "fp", "r1"), b.claim("tok", "k1", "fp", "r2")]
        assert [c.outcome for c in claims] == ["new", "pending"] and claims[1].run_id == "r1"
        assert b.claim("tok", "k1", "other body", None).outcome == "conflict"
        a.complete("tok", "k1", 200, {"status": "succeeded"})
        done = b.claim("tok", "k1", "fp", None)
        assert done.outcome == "done" and done.body == {"status": "succeeded"}
    finally:
        a.close()
        b.close()


REPLICA_CHILD = """
import asyncio, sys
from pathlib import Path
from core.assistant import Assistant
from core.knowledge import load_knowledge
from core.models import Request
from core.settings import Settings
settings = Settings(home=Path(sys.argv[2]), database_url=sys.argv[3])
assistant = Assistant(settings, load_knowledge([Path(sys.argv[1])]))
asyncio.run(assistant.handle(Request(text="连续三步", surface="cli")))
"""

COUNTED_PACK = {**SLOW_PACK, "slow_tools.py": '''
import os, time
def step(n: int) -> dict:
    with open(os.environ["STEP_LOG"], "a") as log:
        log.write(f"{n}\\n")
    if n == 2 and os.environ.get("SLOW_STEP_2"):
        time.sleep(120)  # long enough to be killed in the middle
    return {"n": n}
'''}


def test_a_replica_killed_mid_run_is_taken_over_within_30_s_and_resumes_without_repeats(
        tmp_path: Path, pg_url: str) -> None:
    pack = write_pack(tmp_path / "slowlab", COUNTED_PACK)
    calls = tmp_path / "calls.log"
    env = {**os.environ, "SLOW_STEP_2": "1", "STEP_LOG": str(calls), "DATASMITH_REPLICA": "replica-a"}
    child = subprocess.Popen([sys.executable, "-c", REPLICA_CHILD, str(pack), str(tmp_path / "home-a"), pg_url],
                             env=env, cwd=ROOT)
    os.environ["STEP_LOG"] = str(calls)  # this process resumes the run: its calls go to the same log
    store = RunStore(pg_url)
    try:
        deadline = time.monotonic() + 60
        running = None
        while running is None and time.monotonic() < deadline:
            time.sleep(0.2)
            runs = store.list()
            if runs and store.get(runs[0].run_id).steps[1].status == "running":
                running = runs[0].run_id
        assert running, "the replica never got to step 2"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        killed = time.monotonic()

        watch = OrphanWatch(store)  # what the other replica runs every few seconds
        interrupted: list[str] = []
        while not interrupted and time.monotonic() - killed < 40:
            interrupted = watch.check()
            time.sleep(0.5)
        took = time.monotonic() - killed
        assert interrupted == [running] and took < 30, f"taken over after {took:.1f} s"
        assert took > LEASE_STALE_S - 5  # by the lease, not by a pid check (another replica's pid means nothing)

        other = Assistant(Settings(home=tmp_path / "home-b", database_url=pg_url), load_knowledge([pack]))
        try:
            resumed = asyncio.run(other.resume(running, "retry", by="U1"))
            assert resumed.run is not None and resumed.run.status == "succeeded"
        finally:
            other.close()
        # step 1 ran once (not repeated by the resume); step 2 was cut off and retried; step 3 once
        assert calls.read_text().split() == ["1", "2", "2", "3"]
    finally:
        os.environ.pop("STEP_LOG", None)
        child.kill()
        store.close()


def test_a_database_that_cannot_be_reached_is_one_clear_error(tmp_path: Path) -> None:
    from sandbox.server import free_port
    out = subprocess.run([sys.executable, "-m", "core.cli", "runs", "list"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "DATASMITH_HOME": str(tmp_path / "h"),
                                           "DATASMITH_DATABASE_URL": f"postgresql://u:hunter2@127.0.0.1:{free_port()}/x"})
    assert out.returncode != 0 and "DS-504" in out.stderr and "Traceback" not in out.stderr
    assert "hunter2" not in out.stderr + out.stdout  # the password never reaches a log


@pytest.mark.parametrize("url", ["mysql://x@y/z", "sqlite:///tmp/x.db"])
def test_only_postgres_urls_are_taken(url: str) -> None:
    with pytest.raises(ValueError, match="postgresql://"):
        Settings(database_url=url)


def test_a_token_s_bucket_is_shared_by_the_replicas(pg_url: str) -> None:
    a, b = ApiStore(pg_url), ApiStore(pg_url)
    try:
        # capacity 5, one call every 10 s: the burst is 5 however the calls are spread over replicas
        answers = [(a, b)[i % 2].admit("ci", 10.0, 5) for i in range(12)]
        assert answers[:5] == [None] * 5 and all(w is not None for w in answers[5:])
        assert 5 < answers[5] <= 10.0  # come back when one interval has leaked out
        assert a.admit("other", 10.0, 5) is None  # another token's bucket is its own
    finally:
        a.close()
        b.close()


def test_runs_left_without_an_owner_by_an_old_version_are_recovered(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite3")
    try:
        ids = _foreign_runs(store, 1, "x")
        store._b.write("UPDATE runs SET owner=NULL")  # noqa: SLF001 - as a store from before owners were kept
        assert store.recover() == ids and store.get(ids[0]).status == "interrupted"
    finally:
        store.close()


def test_of_two_resumes_of_one_run_exactly_one_takes_it(pg_url: str) -> None:
    a, b = RunStore(pg_url), RunStore(pg_url)
    try:
        (run_id,) = _foreign_runs(a, 1, "gone:1")
        a._b.write("UPDATE runs SET status='interrupted'")  # noqa: SLF001
        assert sorted([a.take_over(run_id, "interrupted"), b.take_over(run_id, "interrupted")]) == [False, True]
        assert a.get(run_id).status == "running"
    finally:
        a.close()
        b.close()


def test_a_rejected_database_url_never_prints_its_password() -> None:
    with pytest.raises(ValueError) as err:
        Settings(database_url="postgresql+psycopg://app:S3cretPw@db/x")
    assert "S3cretPw" not in str(err.value)


def test_an_owner_whose_token_is_all_digits_is_still_read_by_its_pid() -> None:
    from core.runstore import owner_alive
    me = os.getppid()  # a live process on this machine that is not this one
    assert owner_alive(f"elsewhere:{me}:t12345678", {}, starting=True, shared=False)
    assert not owner_alive(f"elsewhere:{os.getpid()}:t00000000", {}, starting=True, shared=False)  # a predecessor
