"""The RunStore on SQLite beside PostgreSQL: prints the figures the README reports (not a test).

    python benchmarks/bench_store.py [--database-url postgresql://...]

Without a URL a throw-away PostgreSQL is started from the local server binaries (as the tests
do, but with fsync and synchronous commits on, as a real server runs). For each backend:
1. the executor bar: a 100-step DAG (width 4) of 10 ms tools, wall time vs its critical path;
2. store writes a run makes, alone: create + 4 layer commits + finish, p50/p95 per run;
3. the same from 8 threads at once (replicas' worth of concurrent runs): runs per second.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_core import bench_executor  # noqa: E402
from core.execution import new_run  # noqa: E402
from core.models import Plan, PlanStep, Request, utcnow  # noqa: E402
from core.runstore import RunStore, StepChange  # noqa: E402
from tests.fixtures import postgres  # noqa: E402
from tests.fixtures.stats import pct  # noqa: E402

PLAN = Plan(status="planned", pack="lab", environment="dev", rule="four",
            steps=[PlanStep(step_id=i, tool_name="t", dependencies=[i - 1] if i > 1 else []) for i in range(1, 5)])


def one_run(store: RunStore) -> float:
    start = time.perf_counter()
    run = new_run(Request(text="four steps", user="U1"), PLAN)
    run.status = "running"
    store.create_run(run)
    previous = None
    for step in run.steps:
        changes = []
        if previous is not None:
            previous.status, previous.attempts, previous.output, previous.ended_at = "succeeded", 1, {"id": 1}, utcnow()
            changes.append(StepChange(previous, "step_succeeded", {"attempts": 1}, var={"id": 1}, save=True))
        step.status, step.started_at, step.arguments = "running", utcnow(), {"x": 1}
        changes.append(StepChange(step, "step_started", {"arguments": {"x": 1}}))
        store.steps_changed(run.run_id, changes)
        previous = step
    run.status = "succeeded"
    store.finish_run(run, clear_vars=True)
    return time.perf_counter() - start


def bench_writes(store: RunStore, label: str, runs: int = 300, threads: int = 8) -> None:
    for _ in range(20):
        one_run(store)  # warm-up
    alone = [one_run(store) * 1000 for _ in range(runs)]
    print(f"  store writes of one run (create + 4 layers + finish), alone: p50 {statistics.median(alone):.2f} ms"
          f"   p95 {pct(alone, 95):.2f} ms")
    per_thread = runs // threads
    start = time.perf_counter()
    workers = [threading.Thread(target=lambda: [one_run(store) for _ in range(per_thread)]) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    took = time.perf_counter() - start
    print(f"  {threads} threads at once: {per_thread * threads / took:.0f} runs/s ({label})")


@contextmanager
def database(url: str | None) -> Iterator[str]:
    if url:
        yield url
        return
    reason = postgres.skip_reason()
    if reason:
        raise SystemExit(f"no PostgreSQL to measure: {reason}; pass --database-url")
    gen = postgres.server_url(durable=True)  # fsync on, as a real server
    server = next(gen)
    assert server
    try:
        yield postgres.fresh_database(server)
    finally:
        gen.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", help="a PostgreSQL to measure (default: start a throw-away one)")
    parser.add_argument("--work", type=Path, default=Path(tempfile.mkdtemp(prefix="datasmith-bench-store-")))
    args = parser.parse_args()
    print("== SQLite (the default: one file under DATASMITH_HOME)")
    bench_executor(args.work, store=args.work / "dag-runs.sqlite3")
    sqlite = RunStore(args.work / "writes.sqlite3")
    bench_writes(sqlite, "SQLite")
    sqlite.close()
    with database(args.database_url) as url:
        print("== PostgreSQL (DATASMITH_DATABASE_URL, loopback)")
        bench_executor(args.work, store=url)
        pg = RunStore(url)
        bench_writes(pg, "PostgreSQL")
        pg.close()


if __name__ == "__main__":
    main()
