"""Console benchmark: page render time (script run, AppTest) on a RunStore of 100,000 runs and
100,000 request records spread over 30 days. Not a test: machines are noisy.

    python benchmarks/bench_console.py [--runs 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LANCE_LOG", "error")

from streamlit.testing.v1 import AppTest  # noqa: E402

from core.models import Plan, PlanStep, Request, utcnow  # noqa: E402
from core.runstore import RunStore  # noqa: E402
from core.settings import BUNDLED_KNOWLEDGE  # noqa: E402

TEXTS = ["给商品id为123456的商品生成一笔退货退款的订单", "给商品123456下一单", "今天天气怎么样", "帮我造一笔退货退款的订单",
         "create a shipped order for item 123456", "线上给商品123456下一单"]
RULES = [("return_refund", None), (None, "create_order"), ("order_lifecycle", None), ("refund_only", None)]


def seed(home: Path, n: int) -> None:
    RunStore(home / "runs.sqlite3").close()  # the schema
    db = sqlite3.connect(home / "runs.sqlite3")
    now = utcnow()
    plan = Plan(status="planned", rule="order_lifecycle", environment="pre", pack="shop",
                steps=[PlanStep(step_id=1, tool_name="create_order"), PlanStep(step_id=2, tool_name="pay_order",
                                                                            dependencies=[1])]).model_dump_json()
    runs, steps, reqs = [], [], []
    rnd = random.Random(7)
    for _ in range(n):
        at = now - timedelta(seconds=rnd.uniform(0, 30 * 86400))
        rid, tid = uuid.uuid4().hex[:12], uuid.uuid4().hex
        status = rnd.choices(["succeeded", "failed", "paused"], [90, 8, 2])[0]
        rule, tool = rnd.choice(RULES)
        text = rnd.choice(TEXTS)
        user = f"U{rnd.randint(1, 200)}"
        lat = rnd.lognormvariate(6, 0.6)
        runs.append((rid, tid, status, at.isoformat(), (at + timedelta(milliseconds=lat)).isoformat(), user, "C1",
                     None, rnd.choice(["slack", "cli", "console"]), text, rule, tool, "pre", 2, lat,
                     Request(text=text, user=user).model_dump_json(), plan, None))
        for pos, (sid, t) in enumerate([(1, "create_order"), (2, "pay_order")]):
            st = "failed" if status == "failed" and pos == 1 else "succeeded"
            steps.append((rid, pos, json.dumps(sid), t, st, 1, '{"order_id": "O1"}', '{"status": "paid"}', None,
                          at.isoformat(), (at + timedelta(milliseconds=lat / 2)).isoformat(), None))
        rstatus = rnd.choices([status, "no_match", "needs_input"], [85, 10, 5])[0]
        reqs.append((tid, at.isoformat(), user, "slack", "C1", text, rstatus, rule, tool, "pre", "rules", None,
                     rnd.choice(["hit", "miss", "miss"]), rnd.choice([0, 0, 1]), 900, 120, None, lat, None, rid))
    db.executemany(f"INSERT INTO runs (run_id, trace_id, status, created_at, updated_at, user, channel, thread, "
                   f"surface, request_text, rule, tool, environment, attempts, latency_ms, request_json, plan_json, "
                   f"error_json) VALUES ({','.join('?' * 18)})", runs)
    db.executemany(f"INSERT INTO steps VALUES ({','.join('?' * 12)})", steps)
    db.executemany(f"INSERT INTO requests VALUES ({','.join('?' * 20)})", reqs)
    db.commit()
    db.close()


def timed(at: AppTest, action) -> float:  # noqa: ANN001
    t0 = time.perf_counter()
    action(at)
    assert not at.exception, [e.message for e in at.exception]
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="datasmith-bench-console-"))
    t0 = time.perf_counter()
    seed(home, args.runs)
    print(f"seeded {args.runs:,} runs, {2 * args.runs:,} steps, {args.runs:,} requests in {time.perf_counter() - t0:.1f} s")
    os.environ["DATASMITH_HOME"] = str(home)
    os.environ["DATASMITH_KNOWLEDGE"] = str(BUNDLED_KNOWLEDGE / "shop")
    at = AppTest.from_file(str(ROOT / "console" / "app.py"), default_timeout=300)
    at.run()  # first load: knowledge + index, outside the figures
    cases = {
        "knowledge": lambda a: a.run(),
        "runs: first page": lambda a: (a.switch_page("screens/runs.py"), a.run()),
        "runs: filter by status": lambda a: a.selectbox(key="rn_status").set_value("failed").run(),
        "runs: page 200 of the filter": lambda a: a.number_input(key="rn_page").set_value(200).run(),
        "runs: text search": lambda a: (a.selectbox(key="rn_status").set_value("any"),
                                        a.text_input(key="rn_text").set_value("退货退款").run()),
        "monitoring: last 24 hours": lambda a: (a.switch_page("screens/monitoring.py"), a.run()),
        "monitoring: last 30 days": lambda a: a.selectbox(key="mo_range").set_value("last 30 days").run(),
        "playground (empty)": lambda a: (a.switch_page("screens/playground.py"), a.run()),
    }
    print(f"page render (script run) on {args.runs:,} runs, median of {args.repeat}; bar <= 1 s:")
    for label, action in cases.items():
        samples = []
        for _ in range(args.repeat):
            samples.append(timed(at, action))
        print(f"  {label:32} {statistics.median(samples):7.0f} ms  (max {max(samples):.0f})")


if __name__ == "__main__":
    main()
