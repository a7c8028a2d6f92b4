"""Latency tails of warm `ask`: p50 / p95 / p99 / max, not only medians. Not a test: machines are noisy.

    python benchmarks/bench_tails.py [--requests 200] [--alternating 40]

A throw-away pack of python tools with a 1-step rule and a 100-step rule (a chain). One warm
Assistant on an on-disk data dir (runs journaled to SQLite as in production), requests answered
one after another like `datasmith ask --no-cache -` does with a batch on stdin:
1. ≥ 200 warm asks of each kind: percentiles of the whole ask (plan + execute + store)
2. planning alone over the same texts
3. the issue's bar: 40 requests alternating the two rules, max ≤ 2 × p50, printed per kind and
   for the 40 together
4. planning 500 fuzzed lines (random words of the bundled packs, numbers, ids, emails, random
   unicode; 1 to 800 words, cut at the 4000-character limit) over the bundled knowledge, by length:
   work grows with the values a request holds, so the tail is the longest requests
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.assistant import Assistant  # noqa: E402
from core.models import Request  # noqa: E402
from core.settings import Settings  # noqa: E402
from tests.fixtures.stats import pct  # noqa: E402

TOOLS = "def tick(n: int) -> dict:\n    return {'n': n + 1}\n"


def write_pack(root: Path, steps: int = 100) -> Path:
    pack = root / "ticks"
    (pack / "tools").mkdir(parents=True, exist_ok=True)
    (pack / "rules").mkdir(exist_ok=True)
    (pack / "pack.yaml").write_text("name: ticks\nenvironments: {default: dev, dev: {}}\n", encoding="utf-8")
    (pack / "tick_tools.py").write_text(TOOLS, encoding="utf-8")
    (pack / "tools" / "tick.yaml").write_text(
        "tool_name: tick\ndescription: add one to a counter\n"
        "parameters: [{name: n, type: integer, required: true, description: the counter, patterns: ['counter (\\d+)']}]\n"
        "examples: [{user_query: tick counter 5, extracted_params: {n: 5}}]\n"
        "returns: {type: object, required: [n]}\ncall: {python: 'tick_tools:tick'}\n", encoding="utf-8")
    chain = ["  - {step_id: 1, tool_name: tick, parameter_mapping: {n: {source: initial_query, value: n}}}"]
    chain += [f"  - {{step_id: {i}, tool_name: tick, dependencies: [{i - 1}], "
              f"parameter_mapping: {{n: {{source: step_output, step_id: {i - 1}, value: n}}}}}}"
              for i in range(2, steps + 1)]
    (pack / "rules" / "chain.yaml").write_text(
        "- rule_name: long_chain\n  description: run the long counting chain from a counter\n"
        "  trigger_phrases: [long chain]\n"
        "  examples: [{user_query: run the long chain from counter 3, extracted_params: {n: 3}}]\n"
        "  dag_definition:\n" + "\n".join(chain) + "\n", encoding="utf-8")
    return pack


WORDS = ("给商品 生成 订单 退货 退款 123456 数量 为 2 create order item refund quantity 李娜 年假 还剩 几天 email "
         "a@b.com https://x.io/a 2026-01-02 ￥18000 元 发货 取消 用户 手机 13800138000 身份证 110101199003077777 the "
         "of and 查 造 建 ！ ？ , . ; \t 🚀 𝔘 ١٢٣").split(" ")


def fuzzed_lines(n: int, seed: int = 1) -> list[str]:
    rnd = random.Random(seed)

    def part() -> str:
        r = rnd.random()
        if r < 0.7:
            return rnd.choice(WORDS)
        if r < 0.85:
            return str(rnd.randint(0, 10 ** rnd.randint(1, 12)))
        return "".join(chr(rnd.randint(0x20, 0x9FFF)) for _ in range(rnd.randint(1, 6)))

    return [rnd.choice(["", " "]).join(part() for _ in range(rnd.choice([1, 3, 8, 20, 60, 200, 800])))[:4000]
            for _ in range(n)]


def fuzz_planning(home: Path) -> None:
    assistant = Assistant.from_settings(Settings(home=home))
    try:
        assistant.plan(Request(text="warm up", bypass_cache=True))
        timed: list[tuple[int, float]] = []
        for line in fuzzed_lines(500):
            start = time.perf_counter()
            try:
                assistant.plan(Request(text=line, bypass_cache=True))
            except Exception:  # noqa: BLE001 - an input error (empty line) is an answer too
                pass
            timed.append((len(line), (time.perf_counter() - start) * 1000))
    finally:
        assistant.close()
    print("planning 500 fuzzed lines over the bundled knowledge:")
    print(figures("all", [ms for _, ms in timed]))
    for low, high in ((0, 200), (201, 1000), (1001, 4000)):
        ms = [t for n, t in timed if low <= n <= high]
        if ms:
            print(figures(f"{low}-{high} chars", ms))


def figures(label: str, ms: list[float]) -> str:
    return (f"  {label:<22} n={len(ms):<4} p50 {pct(ms, 50):7.1f}  p95 {pct(ms, 95):7.1f}  "
            f"p99 {pct(ms, 99):7.1f}  max {max(ms):7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200, help="asks of each kind (default 200)")
    parser.add_argument("--alternating", type=int, default=40)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="datasmith-tails-"))
    pack = write_pack(work)
    assistant = Assistant.from_settings(Settings(home=work / "home", knowledge=[pack]))
    kinds = {"1-step": "tick counter {i}", "100-step": "run the long chain from counter {i}"}

    async def ask(text: str) -> float:
        start = time.perf_counter()
        report = await assistant.handle(Request(text=text, surface="cli", bypass_cache=True), execute=True)
        took = (time.perf_counter() - start) * 1000
        want = 100 if "chain" in text else 1
        if report.run is None or report.run.status != "succeeded" or len(report.run.steps) != want:
            raise SystemExit(f"unexpected answer to {text!r}: {report.plan.status if report.plan else None} {report.error}")
        return took

    async def run() -> None:
        for i in range(10):  # warm: index, embedder, imports, store
            await ask(kinds["1-step"].format(i=i))
            await ask(kinds["100-step"].format(i=i))
        print(f"warm ask latency, {args.requests} of each kind, one after another (on-disk store):")
        for name, template in kinds.items():
            print(figures(name, [await ask(template.format(i=1000 + i)) for i in range(args.requests)]))
        print("planning alone:")
        for name, template in kinds.items():
            ms = []
            for i in range(args.requests):
                start = time.perf_counter()
                assistant.plan(Request(text=template.format(i=5000 + i), bypass_cache=True))
                ms.append((time.perf_counter() - start) * 1000)
            print(figures(name, ms))
        alt = {"1-step": [], "100-step": []}
        for i in range(args.alternating):
            name = "1-step" if i % 2 == 0 else "100-step"
            alt[name].append(await ask(kinds[name].format(i=9000 + i)))
        print(f"{args.alternating} requests alternating 1-step and 100-step (bar: max ≤ 2 × p50 of each kind):")
        for name, ms in alt.items():
            print(figures(name, ms) + f"   max/p50 {max(ms) / pct(ms, 50):.2f}")
        both = [*alt["1-step"], *alt["100-step"]]
        print(figures("all 40", both) + f"   max/p50 {max(both) / pct(both, 50):.2f}")

    try:
        asyncio.run(run())
    finally:
        assistant.close()
    fuzz_planning(work / "home-bundled")


if __name__ == "__main__":
    main()
