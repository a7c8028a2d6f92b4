"""Stories benchmark: all shop stories live (the assistant with the rule planner and its index,
real tools) vs replayed from fixtures (no planner, no LLM). Two views:

1. in one process, warm (each mode runs once before it is timed): the stories alone;
2. the CLI as CI runs it, `datasmith stories record` vs `datasmith stories replay`, each a fresh
   process with a fresh DATASMITH_HOME (so live builds its index; both start the sandbox).

Not a test: machines are noisy.

    python benchmarks/bench_stories.py
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LANCE_LOG", "error")

from core.assistant import Assistant  # noqa: E402
from core.knowledge import load_knowledge  # noqa: E402
from core.settings import BUNDLED_KNOWLEDGE, Settings  # noqa: E402
from core.stories.loader import load_stories  # noqa: E402
from core.stories.runner import StoryRunner  # noqa: E402
from sandbox.server import free_port  # noqa: E402


async def timed(runner: StoryRunner, live: bool) -> float:
    t0 = time.perf_counter()
    for story in runner.stories.values():
        result = await (runner.record(story, save=False) if live else runner.replay(story))
        assert result.ok, (story.id, result.failures)
    return time.perf_counter() - t0


def main() -> None:
    home = Path(tempfile.mkdtemp(prefix="datasmith-bench-stories-"))
    settings = Settings(home=home, knowledge=[BUNDLED_KNOWLEDGE / "shop"], planner="rules",
                        environ={**os.environ, "SHOP_SANDBOX_PORT": str(free_port())})
    kn = load_knowledge(settings.knowledge, settings.code_policy)
    stories = load_stories(kn)
    assistant = Assistant.from_settings(settings)
    live = StoryRunner(kn, settings, stories, ROOT / "tests" / "fixtures", assistant=assistant)
    replay = StoryRunner(kn, settings, stories, ROOT / "tests" / "fixtures")
    try:
        asyncio.run(timed(live, True))
        asyncio.run(timed(replay, False))
        live_s = min(asyncio.run(timed(live, True)) for _ in range(3))
        replay_s = min(asyncio.run(timed(replay, False)) for _ in range(3))
    finally:
        live.close()
        replay.close()
        assistant.close()
    n = len(stories)
    print(f"{n} stories, {sum(len(s.steps) for s in stories.values())} steps (best of 3, warm)")
    print(f"live (rule planner + index + tools):   {live_s:.2f} s  ({live_s / n * 1000:.0f} ms a story)")
    print(f"replay (fixtures, no planner, no LLM): {replay_s:.2f} s  ({replay_s / n * 1000:.0f} ms a story)")
    print(f"replay takes {replay_s / live_s:.2f} of live's time ({live_s / replay_s:.1f}x faster; bar: 10x)")
    bench_cli()


def cli_seconds(mode: str, fixtures: Path) -> float:
    home = Path(tempfile.mkdtemp(prefix=f"datasmith-bench-{mode}-"))
    env = {**os.environ, "DATASMITH_HOME": str(home), "SHOP_SANDBOX_PORT": str(free_port())}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "core.cli", "stories", mode, "--knowledge", str(BUNDLED_KNOWLEDGE / "shop"),
                    "--fixtures", str(fixtures)], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def bench_cli() -> None:
    fixtures = Path(tempfile.mkdtemp(prefix="datasmith-bench-fixtures-")) / "fixtures"
    shutil.copytree(ROOT / "tests" / "fixtures", fixtures)  # record rewrites fixtures: never the repo's
    live_s, replay_s = cli_seconds("record", fixtures), cli_seconds("replay", fixtures)
    print("the CLI as CI runs it (fresh process, fresh home: live builds its index; both start the sandbox):")
    print(f"  datasmith stories record {live_s:.1f} s   datasmith stories replay {replay_s:.1f} s   "
          f"({live_s / replay_s:.1f}x faster)")


if __name__ == "__main__":
    main()
