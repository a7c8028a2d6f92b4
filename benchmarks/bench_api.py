"""The HTTP API under load: N concurrent POST /v1/plan from T tokens. Not a test: machines are noisy.

    python benchmarks/bench_api.py [--tokens 20] [--requests 200] [--capacity 5] [--rate 2]

Starts `python -m api` (a real process, real tokens file with PBKDF2-hashed secrets) on a free
loopback port over a throw-away data dir, warms each token once (the one PBKDF2 check a token
costs per process, and the plan cache), lets the buckets drain, then fires all requests at once
and reports: status codes (no 5xx is the bar), per token accepted vs what its bucket allows
(capacity + rate x elapsed), and latency percentiles of the answers. Then one POST /v1/ask of
the 8-step return-refund chain against a private sandbox, timed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.passwords import hash_secret  # noqa: E402
from sandbox.server import BackgroundServer, free_port  # noqa: E402

TEXTS = ["给商品id为123456的商品生成一笔退货退款的订单", "给商品123456生成一笔已支付的订单",
         "帮我造一笔退货退款的订单", "项目环境给商品223344造一笔已发货的订单"]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def tokens_file(path: Path, n: int, capacity: float, rate: float) -> dict[str, str]:
    tokens = {f"t{i:02d}": secrets.token_urlsafe(16) for i in range(n)}
    blocks = [f"[defaults]\ncapacity = {capacity}\nrate_per_s = {rate}\n"]
    blocks += [f'[[tokens]]\nname = "{name}"\nhash = "{hash_secret(secret)}"\nmay_write = true\n'
               for name, secret in tokens.items()]
    path.write_text("\n".join(blocks), encoding="utf-8")
    return {name: f"{name}.{secret}" for name, secret in tokens.items()}


async def burst(url: str, bearers: dict[str, str], total: int) -> tuple[list[tuple[str, int, float]], float]:
    names = list(bearers)
    limits = httpx.Limits(max_connections=total, max_keepalive_connections=total)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        async def one(i: int) -> tuple[str, int, float]:
            name = names[i % len(names)]
            start = time.perf_counter()
            r = await client.post("/v1/plan", json={"text": TEXTS[i % len(TEXTS)]},
                                  headers={"Authorization": f"Bearer {bearers[name]}"})
            return name, r.status_code, (time.perf_counter() - start) * 1000

        start = time.perf_counter()
        results = await asyncio.gather(*(one(i) for i in range(total)))
        return list(results), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=20)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--capacity", type=float, default=5)
    parser.add_argument("--rate", type=float, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        sandbox = BackgroundServer(home / "sandbox").start()
        bearers = tokens_file(home / "tokens.toml", args.tokens, args.capacity, args.rate)
        port = free_port()
        env = {**os.environ, "DATASMITH_HOME": str(home / "home"), "SHOP_SANDBOX_PORT": str(sandbox.port),
               "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LANCE_LOG": "error"}
        proc = subprocess.Popen([sys.executable, "-m", "api", "--port", str(port), "--tokens", str(home / "tokens.toml")],
                                cwd=ROOT, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            t0 = time.perf_counter()
            while True:
                try:
                    if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.2)
            print(f"API up in {time.perf_counter() - t0:.1f} s (index built, knowledge loaded)")
            for bearer in bearers.values():  # warm: one PBKDF2 check per token, the plan cache
                for text in TEXTS:
                    httpx.post(f"{url}/v1/plan", json={"text": text}, headers={"Authorization": f"Bearer {bearer}"},
                               timeout=60)
            time.sleep(args.capacity / args.rate + 1)  # the buckets drain
            results, elapsed = asyncio.run(burst(url, bearers, args.requests))
            codes = Counter(code for _, code, _ in results)
            accepted: dict[str, int] = defaultdict(int)
            for name, code, _ in results:
                accepted[name] += code == 200
            allowed = args.capacity + args.rate * elapsed
            over = {n: a for n, a in accepted.items() if a > allowed}
            lat = [ms for _, _, ms in results]
            ok = [ms for _, code, ms in results if code == 200]
            print(f"{args.requests} concurrent POST /v1/plan from {args.tokens} tokens in {elapsed:.2f} s: "
                  f"codes {dict(codes)}; 5xx: {sum(v for k, v in codes.items() if k >= 500)}")
            print(f"accepted per token: max {max(accepted.values())}, allowed {allowed:.1f} "
                  f"(capacity {args.capacity:g} + {args.rate:g}/s x {elapsed:.2f} s); over: {over or 'none'}")
            print(f"latency all: p50 {statistics.median(lat):.0f} ms, p99 {pct(lat, 99):.0f} ms, max {max(lat):.0f} ms")
            if ok:
                print(f"latency 200s: p50 {statistics.median(ok):.0f} ms, p99 {pct(ok, 99):.0f} ms")
            bearer = next(iter(bearers.values()))
            time.sleep(args.capacity / args.rate + 1)
            start = time.perf_counter()
            r = httpx.post(f"{url}/v1/ask", json={"text": TEXTS[0]}, headers={"Authorization": f"Bearer {bearer}"},
                           timeout=120)
            body = r.json()
            print(f"POST /v1/ask (8-step return-refund chain): {r.status_code}, run {body['run']['status']}, "
                  f"{(time.perf_counter() - start) * 1000:.0f} ms")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            sandbox.stop()


if __name__ == "__main__":
    main()
