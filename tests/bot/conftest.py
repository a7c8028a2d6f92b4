"""The bot in HTTP mode on loopback, its WebClient pointed at a fake Slack Web API that records calls."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.app import Bot
from bot.config import BotConfig, SlackSettings
from bot.server import HttpServer
from core.assistant import Assistant
from core.knowledge import Knowledge, load_knowledge
from core.settings import Settings
from tests.fixtures.slack_api import FakeSlack
from tests.fixtures.slack_events import SlackSender

SECRET = "test-signing-secret"


@dataclass
class Harness:
    bot: Bot
    server: HttpServer
    send: SlackSender
    slack: FakeSlack

    def close(self) -> None:
        if self.send.http.is_closed:
            return
        self.send.close()
        self.server.stop()
        self.bot.close(grace_s=20)


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    fake = FakeSlack().start()
    yield fake
    fake.stop()


@pytest.fixture
def start_bot(settings_for: Callable[..., Settings], shop_knowledge: Knowledge,
              slack: FakeSlack) -> Iterator[Callable[..., Harness]]:
    started: list[Harness] = []

    def start(config: BotConfig | None = None, knowledge: Knowledge | None = None, home: Path | None = None,
              api_timeout: float = 30.0, **settings: object) -> Harness:
        s = settings_for(**settings)
        if home is not None:
            s = s.model_copy(update={"home": home})
        core = Assistant(s, knowledge or shop_knowledge)
        bot = Bot(core, SlackSettings(bot_token="xoxb-test", signing_secret=SECRET, api_url=slack.base_url,
                                      api_timeout=api_timeout),
                  config or BotConfig(progress_interval_s=0.05))
        server = HttpServer(bot.app, "127.0.0.1", 0).start()
        h = Harness(bot, server, SlackSender(f"http://127.0.0.1:{server.port}/slack/events", SECRET), slack)
        started.append(h)
        return h

    yield start
    for h in started:
        h.close()


@pytest.fixture
def harness(start_bot: Callable[..., Harness]) -> Harness:
    return start_bot()


def knowledge_with(*paths: Path) -> Knowledge:
    return load_knowledge(list(paths))
