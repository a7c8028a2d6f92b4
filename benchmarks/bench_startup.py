"""Start-up of CLI commands that only read or plan: wall time of a fresh `python -m core.cli ...`
process, median and min of N runs, in a throw-away data dir whose index is already built.

    python benchmarks/bench_startup.py [--runs 7] [--root CHECKOUT]

`--root` measures another checkout of datasmith (e.g. an older commit) with the same commands.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAID = "给商品123456生成一笔已支付的订单"
COMMANDS = [
    ("--help", ["--help"]),
    ("runs list", ["runs", "list"]),
    ("plan (plan cache hit)", ["plan", PAID]),
    ("plan --no-cache", ["plan", "--no-cache", PAID]),
]


def once(root: Path, args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=root, env=env, capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as home:
        env = {**os.environ, "DATASMITH_HOME": home, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        once(args.root, ["plan", PAID], env)  # builds the index and caches the plan: not measured
        for name, argv in COMMANDS:
            times = [once(args.root, argv, env) for _ in range(args.runs)]
            print(f"{name:24} median {statistics.median(times) * 1000:6.0f} ms   min {min(times) * 1000:6.0f} ms")


if __name__ == "__main__":
    main()
