"""Bot configuration: Slack credentials from the environment, access rules from a YAML file.

    # bot.yaml (DATASMITH_BOT_CONFIG or `python -m bot --config bot.yaml`)
    maintainers: [U012ABC]            # may press anyone's buttons
    channels:
      C0123456: {packs: [shop], environments: [pre, project]}
      dm: {packs: [shop, hr]}         # direct messages and the assistant panel
      "*": {environments: [pre]}      # every other channel
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.errors import InputError
from core.models import Scope
from core.yaml_text import load_yaml


class ChannelAccess(BaseModel):
    """Which packs and environments a channel may use (None = all)."""

    model_config = ConfigDict(extra="forbid")

    packs: list[str] | None = None
    environments: list[str] | None = None

    def scope(self) -> Scope | None:
        if self.packs is None and self.environments is None:
            return None
        return Scope(packs=self.packs, environments=self.environments)


class BotConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    maintainers: list[str] = Field(default_factory=list)
    channels: dict[str, ChannelAccess] = Field(default_factory=dict)
    # At most one progress edit of a message per interval (chat.update is rate-limited per channel).
    progress_interval_s: float = 1.0

    def access(self, channel: str, *, is_dm: bool) -> ChannelAccess:
        if channel in self.channels:
            return self.channels[channel]
        if is_dm and "dm" in self.channels:
            return self.channels["dm"]
        return self.channels.get("*", ChannelAccess())

    def may_act_for(self, user: str, owner: str | None) -> bool:
        return user == owner or user in self.maintainers


def load_bot_config(path: Path | None) -> BotConfig:
    if path is None:
        return BotConfig()
    try:
        data = load_yaml(path.read_text(encoding="utf-8")) or {}
        return BotConfig.model_validate(data)
    except OSError as exc:
        raise InputError(f"cannot read bot config {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise InputError(f"bot config {path} is not valid YAML: {exc}") from exc
    except ValidationError as exc:
        where = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise InputError(f"bot config {path}: {where}") from exc


class SlackSettings(BaseSettings):
    """`SLACK_BOT_TOKEN`, `SLACK_APP_TOKEN` (Socket Mode), `SLACK_SIGNING_SECRET` (HTTP mode),
    `SLACK_API_URL` (Web API base URL: enterprise proxies, tests), `SLACK_API_TIMEOUT` (seconds a Web API
    call may take before it counts as failed)."""

    model_config = SettingsConfigDict(env_prefix="SLACK_", extra="ignore")

    bot_token: str | None = None
    app_token: str | None = None
    signing_secret: str | None = None
    api_url: str | None = None
    api_timeout: float = 30.0

    @property
    def base_url(self) -> str | None:
        # slack_sdk joins method names with urljoin: without the trailing slash a segment is lost.
        if not self.api_url:
            return None
        return self.api_url if self.api_url.endswith("/") else self.api_url + "/"
