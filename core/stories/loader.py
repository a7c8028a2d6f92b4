"""Find and validate the stories of the loaded packs (`<pack>/stories/*.yaml`)."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from core.errors import PackError
from core.knowledge import Knowledge
from core.stories.models import Story
from core.yaml_text import load_yaml


def load_story_file(path: Path, pack: str) -> list[Story]:
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PackError(f"not valid YAML: {exc}", file=str(path)) from exc
    out = []
    for i, raw in enumerate(data if isinstance(data, list) else [data]):
        try:
            story = Story.model_validate(raw)
        except ValidationError as exc:
            where = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()[:3])
            sid = raw.get("id") if isinstance(raw, dict) else None
            raise PackError(f"story {sid or f'#{i + 1}'}: {where}", file=str(path)) from exc
        story.pack, story.source_file = pack, str(path)
        out.append(story)
    return out


def load_stories(knowledge: Knowledge) -> dict[str, Story]:
    """Every story of every pack, checked against the knowledge (tools, environments, dependencies)."""
    stories: dict[str, Story] = {}
    for pack in knowledge.packs.values():
        for path in sorted((Path(pack.path) / "stories").glob("*.yaml")):
            for story in load_story_file(path, pack.name):
                if story.id in stories:
                    raise PackError(f"story {story.id} is defined twice (also in {stories[story.id].source_file})",
                                    file=str(path))
                stories[story.id] = story
    for story in stories.values():
        validate_story(story, knowledge, stories)
    for story in stories.values():
        order(story, stories)  # raises on a dependency cycle
    return stories


def validate_story(story: Story, knowledge: Knowledge, stories: dict[str, Story]) -> None:
    envs = knowledge.packs[story.pack].environments if story.pack in knowledge.packs else {}
    if story.environment and story.environment not in envs:
        raise PackError(f"story {story.id}: environment {story.environment!r} is not one of {list(envs)}",
                        file=story.source_file)
    for dep in story.depends_on:
        if dep not in stories:
            raise PackError(f"story {story.id}: depends on unknown story {dep!r}", file=story.source_file)
    for n, step in enumerate(story.steps, 1):
        for call in step.tool_calls:
            if call.tool not in knowledge.tools:
                raise PackError(f"story {story.id}, step {n}: unknown tool {call.tool!r}", file=story.source_file)


def order(story: Story, stories: dict[str, Story], trail: tuple[str, ...] = ()) -> list[Story]:
    """The stories to run before this one, dependencies first."""
    if story.id in trail:
        raise PackError(f"story dependency cycle: {' -> '.join([*trail, story.id])}", file=story.source_file)
    out: list[Story] = []
    for dep in story.depends_on:
        for s in [*order(stories[dep], stories, (*trail, story.id)), stories[dep]]:
            if s not in out:
                out.append(s)
    return out
