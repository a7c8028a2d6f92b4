"""A run from the RunStore (e.g. a bad case seen in Slack) as a story and its fixture: one command
turns it into a regression test. Stored runs are redacted, so the story is too."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from core.models import Plan, Request, RunRecord
from core.stories.models import Fixture, RecordedStep, Story, StoryStep, ToolCallExpect
from core.stories.runner import calls_of, response_text
from core.yaml_text import load_yaml

if TYPE_CHECKING:
    from core.assistant import Assistant


def _earlier_turns(assistant: Assistant, run: RunRecord) -> list[tuple[str, Plan]]:
    """The turns before the run's own (a question it answered), as today's planner answers them:
    the store keeps their words (plan.conversation), not their plans."""
    turns: list[tuple[str, Plan]] = []
    previous: Plan | None = None
    for text in run.plan.conversation[:-1]:
        plan = assistant.plan(Request(text=text, environment=run.request.environment, previous=previous,
                                      surface="stories", bypass_cache=True))
        turns.append((text, plan))
        previous = plan if plan.status == "needs_input" else None
    return turns


def export_run(assistant: Assistant, run_id: str, out: Path | None, fixtures_dir: Path) -> tuple[Path, Path]:
    run = assistant.store.get(run_id)
    plan, pack = run.plan, run.plan.pack or ""
    calls = calls_of(run)
    earlier = _earlier_turns(assistant, run)
    story = Story(id=f"run-{run_id}", environment=plan.environment,
                  description=f"exported from run {run_id} ({run.request.surface}, {run.created_at:%Y-%m-%d %H:%M})",
                  steps=[*(StoryStep(user_message=text, status=p.status) for text, p in earlier),
                         StoryStep(user_message=run.request.text, status=run.status if run.status in (
                             "succeeded", "failed", "paused") else None,
                             tool_calls=[ToolCallExpect(tool=c.tool) for c in calls])])
    story.pack = pack
    story_file = out or Path(assistant.knowledge.packs[pack].path) / "stories" / "exported.yaml"
    story_file.parent.mkdir(parents=True, exist_ok=True)
    existing = load_yaml(story_file.read_text(encoding="utf-8")) if story_file.exists() else []
    existing = [s for s in (existing or []) if s.get("id") != story.id]
    data = story.model_dump(mode="json", exclude_defaults=True)
    story_file.write_text(yaml.safe_dump([*existing, data], allow_unicode=True, sort_keys=False), encoding="utf-8")
    fixture = Fixture(story_id=story.id, scenario=plan.environment or "default", recorded_at=datetime.now(UTC),
                      story_digest=Story.model_validate(data).digest(), knowledge_version=assistant.knowledge.version,
                      planner=plan.planner, environment=plan.environment,
                      steps=[*(RecordedStep(user_message=text, status=p.status, plan=p.model_dump(mode="json"),
                                            response=response_text(p, None)) for text, p in earlier),
                             RecordedStep(user_message=run.request.text, status=run.status,
                                          plan=plan.model_dump(mode="json"), tool_calls=calls,
                                          response=response_text(plan, run))])
    path = fixtures_dir / pack / story.id / f"{fixture.scenario}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(fixture.model_dump_json(indent=2), encoding="utf-8")
    return story_file, path
