"""LLM-path benchmark: cache hit latency, limiter rate under 200 concurrent calls, planner overhead.
Not a test: machines are noisy. An OpenAI-compatible stub on loopback stands in for the provider.

    python benchmarks/bench_llm.py
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from core.assistant import Assistant  # noqa: E402
from core.knowledge import load_knowledge  # noqa: E402
from core.models import Request  # noqa: E402
from core.settings import BUNDLED_KNOWLEDGE, Settings  # noqa: E402
from tests.fixtures.llm_stub import Answer, LLMStub  # noqa: E402
from tests.fixtures.stats import max_in_window, pct  # noqa: E402
from tests.llm.conftest import answer_for  # noqa: E402


async def main() -> None:
    kn = load_knowledge([BUNDLED_KNOWLEDGE / "shop"])
    stub = LLMStub().start()
    answer = Answer(answer_for(kn, "给商品123456生成一笔退货退款的订单"))
    stub.default = lambda body: answer
    home = Path(tempfile.mkdtemp(prefix="datasmith-bench-llm-"))
    settings = Settings(home=home, planner="llm", llm_model="openai/stub", llm_api_base=stub.api_base,
                        llm_api_key="sk-bench", llm_peak_concurrency=10, llm_requests_per_minute=3000)
    a = Assistant(settings, kn)

    # 1. LLM planner end to end against the stub (prompt, litellm, parse, checks), cache bypassed
    plan_ms = []
    for i in range(30):
        t0 = time.perf_counter()
        plan, _, _ = await a.aplan(Request(text=f"我想要个退了钱也退了货的单子,商品是123456 #{i}", bypass_cache=True))
        plan_ms.append((time.perf_counter() - t0) * 1000)
        assert plan.planner == "llm", plan.fallback
    # 2. cache hit path
    request = Request(text="我想要个退了钱也退了货的单子,商品是123456")
    await a.aplan(request)
    hit_ms = []
    for _ in range(2000):
        t0 = time.perf_counter()
        _, cache, _ = await a.aplan(request)
        hit_ms.append((time.perf_counter() - t0) * 1000)
        assert cache == "hit"
    # 3. the limiter under 200 concurrent calls through litellm
    client = a.llm.client
    client.bucket.granted.clear()
    t0 = time.monotonic()
    await asyncio.gather(*[client.complete([{"role": "user", "content": f"q{i}"}]) for i in range(200)])
    grants = list(client.bucket.granted)
    span = max(grants) - min(grants)
    rate, cap = settings.llm_rate_per_s, settings.llm_capacity
    print(f"LLM planner via litellm to a loopback stub (prompt + call + checks): p50 {statistics.median(plan_ms):.0f} ms"
          f"  p95 {pct(plan_ms, 95):.0f} ms")
    print(f"plan cache hit: p50 {statistics.median(hit_ms):.2f} ms  p99 {pct(hit_ms, 99):.2f} ms  (bar <= 5 ms)")
    print(f"limiter, 200 concurrent calls, configured {rate:.0f}/s with a bucket of {cap:.0f}: long-run "
          f"{(200 - cap) / span:.1f}/s, busiest 1 s window {max_in_window(grants, 1.0)} calls "
          f"(bound {cap + rate:.0f}); all done in {time.monotonic() - t0:.1f} s")
    a.close()
    stub.stop()


if __name__ == "__main__":
    asyncio.run(main())
