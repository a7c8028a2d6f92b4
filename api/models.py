"""The API's request and response bodies beyond the published output object (which is
core/schemas/ask-output.schema.json, served as is)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.output_contract import SCHEMA_PATH

MAX_WAIT_S = 600.0


class PlanBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(description="the request, one sentence", examples=["给商品id为123456的商品生成一笔退货退款的订单"])
    environment: str | None = Field(None, description="environment (default: named in the text, else the pack's)")
    planner: Literal["auto", "rules", "llm"] | None = Field(None, description="default: the service's planner")
    user: str | None = Field(None, description="who asks; with tokens: the token's name or one of its `act_as`")
    no_cache: bool = Field(False, description="plan afresh, bypassing the plan cache")


class AskBody(PlanBody):
    wait: float = Field(60.0, ge=0, le=MAX_WAIT_S,
                        description="seconds to wait for the run; still going then: 202 with the run id to poll")
    confirmed: bool = Field(False, description="run writes in a `confirm: true` environment (a token that may write)")


class ResumeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["retry", "skip", "abort"]
    force: bool = Field(False, description="retry a write that may already have happened (DS-307), after checking")
    wait: float = Field(60.0, ge=0, le=MAX_WAIT_S)


class ApiErrorDetail(BaseModel):
    code: str = Field(pattern=r"^DS-[1-5][0-9]{2}$", examples=["DS-110"])
    message: str
    message_zh: str | None = None
    retryable: bool = False


class ApiError(BaseModel):
    """Every answer that is not the output object: 401, 403, 404, 409, 422, 429, 503."""

    error: ApiErrorDetail
    trace_id: str | None = None


class Accepted(BaseModel):
    """202: the run goes on; poll `location` (GET /v1/runs/{run_id}) until it answers 200. For a
    request with copies `run_id` names the batch: its 200 is the output object with every copy's
    run under `runs`."""

    run_id: str
    status: Literal["planning", "pending", "running"]
    location: str
    retry_after_s: int = 1
    copies: int | None = Field(None, description="copies: how many runs the batch makes")
    copies_ended: int | None = Field(None, description="copies: how many of them have ended")
    run_ids: list[str] | None = Field(None, description="copies: every copy's run id, in copy order")


class RunSummaryOut(BaseModel):
    run_id: str
    trace_id: str
    status: str
    created_at: str
    updated_at: str
    user: str | None
    request_text: str
    rule: str | None
    tool: str | None
    environment: str | None
    latency_ms: float | None


class RunList(BaseModel):
    runs: list[RunSummaryOut]
    limit: int
    offset: int


class EnvironmentOut(BaseModel):
    name: str
    aliases: list[str]
    confirm: bool
    default: bool


class NamedOut(BaseModel):
    name: str
    description: str
    side_effects: bool | None = None


class PackOut(BaseModel):
    name: str
    description: str
    environments: list[EnvironmentOut]
    rules: list[NamedOut]
    tools: list[NamedOut]


class KnowledgeOut(BaseModel):
    version: str
    packs: list[PackOut]


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    authentication: Literal["tokens", "none (loopback only)"]
    runs_in_flight: int


def output_schema() -> dict[str, Any]:
    """The published output schema with its `$defs` inlined, for OpenAPI (its refs point into itself)."""
    import json

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    defs = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return inline(defs[ref.removeprefix("#/$defs/")])
            return {k: inline(v) for k, v in node.items() if k not in ("$schema", "$id")}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    return inline(schema)
