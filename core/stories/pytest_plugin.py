"""pytest plugin: the `datasmith` fixture (test data for a consumer's own tests), and every story in a pack's `stories/*.yaml` is a test item, replayed from its fixture
(no LLM, no planner). `pytest --stories-live` runs them live instead (and refreshes the fixtures).

Registered through the `pytest11` entry point, so plain `pytest` collects packs' stories when
their folder is under the test paths, and any test may ask for `datasmith`:

    def test_refund(datasmith):
        order_id = datasmith.ask("一笔已发货的订单", item_id=123456).outputs["order_id"]

It talks to the HTTP API when DATASMITH_API_URL is set (DATASMITH_API_TOKEN), else to an Assistant
in the test process; override `datasmith_settings` to point it elsewhere.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from core.isolation import isolated
from core.knowledge import load_knowledge
from core.settings import Settings
from core.stories.loader import load_stories
from core.stories.models import Story
from core.stories.runner import StoryResult, StoryRunner

RUNNERS = pytest.StashKey[dict[Path, StoryRunner]]()
WORLDS = pytest.StashKey[ExitStack]()  # the throw-away data dirs and services, closed at the end


@pytest.fixture(scope="session")
def datasmith_settings() -> Settings:
    """The settings the `datasmith` fixture uses (the environment's DATASMITH_*): override to change them."""
    return Settings()


@pytest.fixture(scope="session")
def datasmith(datasmith_settings: Settings) -> Iterator[Any]:
    """A datasmith client (`core.client.Datasmith` or `InProcess`): `.ask(...)`, `.plan(...)`."""
    from core.client import connect  # imported here: a plain pytest run pays nothing for it

    client = connect(datasmith_settings)
    yield client
    client.close()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("datasmith stories")
    group.addoption("--stories-fixtures", default="tests/fixtures", help="fixture root (default tests/fixtures)")
    group.addoption("--stories-live", action="store_true",
                    help="run stories live through the assistant and re-record their fixtures")
    group.addoption("--stories-in-place", action="store_true",
                    help="use the configured data dir and running services (default: a throw-away copy of both)")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[RUNNERS] = {}
    config.stash[WORLDS] = ExitStack()


def pytest_unconfigure(config: pytest.Config) -> None:
    for runner in config.stash.get(RUNNERS, {}).values():
        runner.close()
        if runner.assistant is not None:
            runner.assistant.close()
    if WORLDS in config.stash:
        config.stash[WORLDS].close()


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.suffix in (".yaml", ".yml") and file_path.parent.name == "stories" \
            and (file_path.parent.parent / "pack.yaml").exists():
        return StoryFile.from_parent(parent, path=file_path)
    return None


def runner_for(config: pytest.Config, pack_dir: Path) -> StoryRunner:
    runners = config.stash[RUNNERS]
    if pack_dir not in runners:
        settings = Settings().with_overrides(knowledge=[pack_dir])
        knowledge = load_knowledge([pack_dir])
        if not config.getoption("--stories-in-place"):  # the user's sandbox and runs stay as they are
            settings = config.stash[WORLDS].enter_context(isolated(settings, knowledge))
        live = config.getoption("--stories-live")
        assistant = None
        if live:  # imported here: a plain pytest run in any project pays nothing for the assistant
            from core.assistant import Assistant

            assistant = Assistant.from_settings(settings)
        fixtures = Path(config.getoption("--stories-fixtures"))
        if not fixtures.is_absolute():
            fixtures = config.rootpath / fixtures
        runners[pack_dir] = StoryRunner(knowledge, settings, load_stories(knowledge), fixtures, assistant=assistant)
    return runners[pack_dir]


class StoryFile(pytest.File):
    def collect(self) -> Any:
        runner = runner_for(self.config, self.path.parent.parent)
        for story in runner.stories.values():
            if Path(story.source_file) == self.path:
                yield StoryItem.from_parent(self, name=story.id, story=story)


class StoryFailed(Exception):
    def __init__(self, result: StoryResult) -> None:
        super().__init__(result.story_id)
        self.result = result


class StoryItem(pytest.Item):
    def __init__(self, *, story: Story, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.story = story

    def runtest(self) -> None:
        runner = runner_for(self.config, self.path.parent.parent)
        live = runner.assistant is not None
        result = asyncio.run(runner.record(self.story) if live else runner.replay(self.story))
        if not result.ok:
            raise StoryFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, StoryFailed):
            r = excinfo.value.result
            lines = [f"story {r.story_id} ({r.mode}) failed — {self.story.description}"]
            lines += [f"  - {f}" for f in r.failures]
            return "\n".join(lines)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"story {self.story.id}"
