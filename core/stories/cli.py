"""`datasmith stories record | replay | export`."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what the commands run is imported when they run: `datasmith --help` stays fast
    from core.knowledge import Knowledge
    from core.settings import Settings
    from core.stories.models import Story
    from core.stories.runner import StoryResult


def add_parser(sub: argparse._SubParsersAction, common: object) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("stories", help="record / replay conversation stories (regression tests for packs)")
    common(p)  # type: ignore[operator]
    stories = p.add_subparsers(dest="stories_command", required=True)
    for name, text in (("record", "live: the real assistant and tools; saves fixtures"),
                       ("replay", "regression: the fixtures' plans through the tools; no planner, no LLM")):
        s = stories.add_parser(name, help=text)
        s.add_argument("--story", action="append", help="only these story ids (repeatable)")
        s.add_argument("--fixtures", type=Path, default=Path("tests/fixtures"), help="fixture root (default tests/fixtures)")
        s.add_argument("--in-place", action="store_true",
                       help="use the configured data dir and running services (default: a throw-away copy of both)")
    e = stories.add_parser("export", help="turn a stored run into a story and its fixture")
    e.add_argument("run_id")
    e.add_argument("--out", type=Path, help="story file to append to (default: <pack>/stories/exported.yaml)")
    e.add_argument("--fixtures", type=Path, default=Path("tests/fixtures"))
    for child in stories.choices.values():
        common(child, nested=True)  # type: ignore[operator]


def print_result(r: StoryResult) -> None:
    mark = "✓" if r.ok else "✗"
    print(f"{mark} {r.story_id}  {r.mode}  {r.seconds * 1000:.0f} ms" + (f"  → {r.fixture_path}" if r.fixture_path else "  (fixture unchanged)" if r.mode == "record" and r.ok else ""))
    for f in r.failures:
        print("    " + f.replace("\n", "\n    "))


def run(args: argparse.Namespace, settings: Settings) -> int:
    from core.isolation import isolated
    from core.knowledge import load_knowledge
    from core.stories.loader import load_stories

    knowledge = load_knowledge(settings.knowledge, settings.code_policy)
    if args.stories_command == "export":
        from core.assistant import Assistant
        from core.stories.export import export_run

        assistant = Assistant(settings, knowledge)
        try:
            story_file, fixture = export_run(assistant, args.run_id, args.out, args.fixtures)
        finally:
            assistant.close()
        print(f"story → {story_file}\nfixture → {fixture}")
        return 0
    stories = load_stories(knowledge)
    chosen = [stories[s] for s in args.story] if args.story else list(stories.values())
    if not chosen:
        print("no stories: write some in <pack>/stories/*.yaml (README, 'Stories')", file=sys.stderr)
        return 1
    if args.in_place:
        return _play(args, settings, knowledge, stories, chosen)
    with isolated(settings, knowledge) as private:  # the user's sandbox and runs stay as they are
        return _play(args, private, knowledge, stories, chosen)


def _play(args: argparse.Namespace, settings: Settings, knowledge: Knowledge, stories: dict[str, Story],
          chosen: list[Story]) -> int:
    from core.stories.runner import StoryRunner

    assistant = None
    if args.stories_command == "record":  # replay never plans: no index, no embedder, no LLM client
        from core.assistant import Assistant

        assistant = Assistant.from_settings(settings)
    runner = StoryRunner(knowledge, settings, stories, args.fixtures, assistant=assistant)

    async def go() -> list[StoryResult]:
        out = []
        for story in chosen:
            r = await (runner.record(story) if assistant else runner.replay(story))
            print_result(r)
            out.append(r)
        return out

    try:
        results = asyncio.run(go())
    finally:
        runner.close()
        if assistant:
            assistant.close()
    failed = [r for r in results if not r.ok]
    total = sum(r.seconds for r in results)
    print(f"{len(results) - len(failed)}/{len(results)} stories passed ({args.stories_command}, {total:.2f} s)")
    return 1 if failed else 0
