"""The story format (YAML, in a pack's `stories/` folder) and the fixture a recording leaves."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

StoryStatus = Literal["planned", "needs_input", "no_match", "succeeded", "failed", "paused"]


class ToolCallExpect(BaseModel):
    """`create_order` or {tool: create_order, args: {item_id: "123456"}} (args: a subset that must match)."""

    model_config = ConfigDict(extra="forbid")
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class DbAssert(BaseModel):
    """Rows of `table` matching `where` (column = value): `count` of them, and/or `rows` among them."""

    model_config = ConfigDict(extra="forbid")
    table: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    where: dict[str, Any] = Field(default_factory=dict)
    count: int | None = None
    rows: list[dict[str, Any]] = Field(default_factory=list)

    @field_validator("where")
    @classmethod
    def _columns(cls, v: dict[str, Any]) -> dict[str, Any]:
        bad = [k for k in v if not k.replace("_", "a").isalnum()]
        if bad:
            raise ValueError(f"not column names: {bad}")
        return v


class StoryStep(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user_message: str
    tool_calls: list[ToolCallExpect] = Field(default_factory=list)
    response_contains: list[str] = Field(default_factory=list)  # any of
    db_state: list[DbAssert] = Field(default_factory=list)
    status: StoryStatus | None = None

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _short(cls, v: Any) -> Any:
        return [{"tool": x} if isinstance(x, str) else x for x in v or []]

    @field_validator("response_contains", mode="before")
    @classmethod
    def _one(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v


class Story(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    depends_on: list[str] = Field(default_factory=list)
    db_seed: str | None = None  # SQL run after the reset
    environment: str | None = None
    steps: list[StoryStep] = Field(min_length=1)
    pack: str = Field(default="", exclude=True)
    source_file: str = Field(default="", exclude=True)

    def digest(self) -> str:
        """What the fixture was recorded from: a changed story makes its fixture stale."""
        raw = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


class RecordedCall(BaseModel):
    step_id: Any
    tool: str
    arguments: dict[str, Any] | None = None
    status: str
    output: Any = None
    error: str | None = None


class RecordedStep(BaseModel):
    user_message: str
    status: str
    plan: dict[str, Any]  # the Plan, as the assistant made it
    tool_calls: list[RecordedCall] = Field(default_factory=list)
    response: str


class Fixture(BaseModel):
    story_id: str
    scenario: str
    recorded_at: datetime
    story_digest: str
    knowledge_version: str
    planner: str
    environment: str | None
    steps: list[RecordedStep]
