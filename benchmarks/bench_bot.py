"""Bot benchmark: Slack's view of the ack under a burst of events. Not a test: machines are noisy.

    python benchmarks/bench_bot.py [--events 50] [--rounds 5]

Three processes, as in production: the bot (`python -m bot --http`, exactly what the Procfile
runs), the sandbox shop its tools call, and a fake Slack Web API recording what the bot posts.
This process plays Slack's Events API: each round fires N signed app_mention events at once
(bodies signed beforehand, one raw connection per event) and measures per event the time to
the HTTP ack (Slack's 3 s rule) and the time until the final answer was posted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from slack_sdk.signature import SignatureVerifier

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sandbox.server import free_port  # noqa: E402
from tests.fixtures.processes import wait_until_up  # noqa: E402
from tests.fixtures.stats import pct  # noqa: E402

SECRET = "bench-secret"
REQUESTS = ["给商品123456下一单", "给商品id为123456的商品生成一笔退货退款的订单", "create a shipped order for item 123456",
            "商品445566造一笔仅退款申请中的订单"]




def signed_event(channel: str, i: int, ts: str) -> tuple[bytes, dict[str, str]]:
    body = json.dumps({
        "token": "legacy", "team_id": "T0TEAM", "api_app_id": "ADATASMITH", "type": "event_callback",
        "event_id": f"Ev{channel}{i}", "event_time": int(time.time()),
        "event": {"type": "app_mention", "user": f"U{i}", "text": f"<@UDSBOT> {REQUESTS[i % len(REQUESTS)]}",
                  "ts": ts, "channel": channel, "event_ts": ts},
        "authorizations": [{"team_id": "T0TEAM", "user_id": "UDSBOT", "is_bot": True}],
    }, ensure_ascii=False)
    now = str(int(time.time()))
    sig = SignatureVerifier(SECRET).generate_signature(timestamp=now, body=body)
    return body.encode(), {"Content-Type": "application/json", "X-Slack-Request-Timestamp": now,
                           "X-Slack-Signature": sig}


def fire_round(port: int, channel: str, n: int) -> list[tuple[float, float, str]]:
    """N events at once; per event (ack ms, sent at monotonic, thread ts)."""
    prepared = [(signed_event(channel, i, f"1900000000.{i:06d}"), f"1900000000.{i:06d}") for i in range(n)]
    barrier = threading.Barrier(n)
    out: list[Any] = [None] * n

    def one(i: int) -> None:
        (body, headers), ts = prepared[i]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.connect()
        barrier.wait()
        sent, t0 = time.monotonic(), time.perf_counter()
        conn.request("POST", "/slack/events", body=body, headers=headers)
        resp = conn.getresponse()
        resp.read()
        out[i] = ((time.perf_counter() - t0) * 1000, sent, ts, resp.status)
        conn.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(o[3] == 200 for o in out), [o[3] for o in out]
    return [(ms, sent, ts) for ms, sent, ts, _ in out]


def finals(fake: str, channel: str) -> dict[str, float]:
    """thread ts → when its final answer landed (the working message's last non-progress edit)."""
    calls = httpx.get(f"{fake}/_calls", timeout=30).json()["calls"]
    thread_of = {c["result"]["ts"]: c["args"]["thread_ts"] for c in calls
                 if c["method"] == "chat.postMessage" and c["args"].get("channel") == channel}
    return {thread_of[c["args"]["ts"]]: c["at"] for c in calls if c["method"] == "chat.update"
            and c["args"]["channel"] == channel and not c["args"]["text"].startswith("⏳")
            and c["args"]["ts"] in thread_of}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="datasmith-bench-bot-"))
    sandbox_port, fake_port, bot_port = free_port(), free_port(), free_port()
    env = {**os.environ, "DATASMITH_HOME": str(work / "home"), "SHOP_SANDBOX_PORT": str(sandbox_port),
           "SLACK_BOT_TOKEN": "xoxb-bench", "SLACK_SIGNING_SECRET": SECRET,
           "SLACK_API_URL": f"http://127.0.0.1:{fake_port}/api/", "LANCE_LOG": "error"}
    procs = [
        subprocess.Popen([sys.executable, "-m", "sandbox", "--port", str(sandbox_port), "--data", str(work / "sb")],
                         cwd=ROOT, env=env),
        subprocess.Popen([sys.executable, "-m", "tests.fixtures.slack_api", str(fake_port)], cwd=ROOT, env=env,
                         stdout=subprocess.DEVNULL),
    ]
    fake = f"http://127.0.0.1:{fake_port}"
    try:
        wait_until_up(f"http://127.0.0.1:{sandbox_port}/health", procs[0], timeout=120)
        wait_until_up(f"{fake}/_calls", procs[1], timeout=120)
        procs.append(subprocess.Popen([sys.executable, "-m", "bot", "--http", "--host", "127.0.0.1", "--port",
                                       str(bot_port)], cwd=ROOT, env=env, stderr=subprocess.DEVNULL))
        wait_until_up(f"http://127.0.0.1:{bot_port}/health", procs[2], timeout=120)
        fire_round(bot_port, "CWARM", 4)  # warm-up: first plans, first tool clients
        while len(finals(fake, "CWARM")) < 4:
            time.sleep(0.2)

        acks: list[float] = []
        answers: list[float] = []
        walls: list[float] = []
        for r in range(args.rounds):
            channel = f"CB{r}"
            results = fire_round(bot_port, channel, args.events)
            acks.extend(ms for ms, _, _ in results)
            while len(done := finals(fake, channel)) < args.events:
                time.sleep(0.2)
            answers.extend((done[ts] - sent) * 1000 for _, sent, ts in results)
            walls.append(max(done.values()) - min(sent for _, sent, _ in results))
        print(f"ack latency, {args.events} concurrent events x {args.rounds} rounds: "
              f"p50 {statistics.median(acks):.1f} ms  p99 {pct(acks, 99):.1f} ms  max {max(acks):.1f} ms"
              f"  (bar: p99 <= 300 ms)")
        print(f"time to final answer (plan + run on the sandbox + post): p50 {statistics.median(answers) / 1000:.2f} s"
              f"  p95 {pct(answers, 95) / 1000:.2f} s; {args.events} requests answered in "
              f"{statistics.median(walls):.2f} s (median round)")
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait(timeout=60)


if __name__ == "__main__":
    main()
