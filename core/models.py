"""pydantic models: the contracts between layers.

Knowledge (what packs declare): ParamSpec, ToolSpec, RuleSpec, PackSpec...
Planning (what a planner answers): Plan, PlanStep, StepRef.
Running (what the executor records): StepRun, RunRecord, ErrorInfo; and the facade's
Request and RunReport.
Spec models accept extra keys ("extend only with optional keys") and keep them.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

StepId = int | str
JsonType = Literal["string", "integer", "number", "boolean", "array", "object"]
NAME_RE = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")


def utcnow() -> datetime:
    return datetime.now(UTC)


# --------------------------------------------------------------------------- knowledge


class ParamSpec(BaseModel):
    """One tool parameter; any extra JSON Schema keyword (minimum, format...) is kept."""

    model_config = ConfigDict(extra="allow")

    name: str
    type: JsonType = "string"
    description: str = ""
    required: bool = False
    default: Any = None
    enum: list[Any] | None = None
    synonyms: dict[str, list[str]] = Field(default_factory=dict)
    patterns: list[str] = Field(default_factory=list)
    _check: Any = PrivateAttr(default=None)  # the planner's compiled validator (core/planning/typed.py)
    _shapes: Any = PrivateAttr(default=None)  # what its patterns capture, compiled (core/planning/typed.py)

    @property
    def has_default(self) -> bool:
        return "default" in self.model_fields_set

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of this parameter (our vocabulary keys removed)."""
        schema: dict[str, Any] = {"type": self.type}
        if self.description:
            schema["description"] = self.description
        if self.enum is not None:
            schema["enum"] = self.enum
        if self.has_default:
            schema["default"] = self.default
        schema.update(self.model_extra or {})
        return schema


class Example(BaseModel):
    model_config = ConfigDict(extra="allow")

    user_query: str
    extracted_params: dict[str, Any] = Field(default_factory=dict)


class HttpBinding(BaseModel):
    model_config = ConfigDict(extra="allow")

    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "POST"
    path: str

    @field_validator("method", mode="before")
    @classmethod
    def _upper(cls, v: Any) -> Any:
        return v.upper() if isinstance(v, str) else v


class McpBinding(BaseModel):
    server: str
    tool: str


class CallSpec(BaseModel):
    """Exactly one binding: http, python ("module:function") or mcp."""

    model_config = ConfigDict(extra="forbid")

    http: HttpBinding | None = None
    python: str | None = None
    mcp: McpBinding | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> CallSpec:
        bound = [k for k in ("http", "python", "mcp") if getattr(self, k) is not None]
        if len(bound) != 1:
            raise ValueError(f"call needs exactly one of http, python, mcp (got {bound or 'none'})")
        if self.python is not None and not re.match(r"^[\w.]+:\w+$", self.python):
            raise ValueError(f"call.python must be 'module:function', got {self.python!r}")
        return self

    @property
    def kind(self) -> str:
        return "http" if self.http else "python" if self.python else "mcp"


class ToolSpec(BaseModel):
    """An atomic tool (one entry of the atomic tool library)."""

    model_config = ConfigDict(extra="allow")

    tool_name: str
    description: str
    parameters: list[ParamSpec] = Field(default_factory=list)
    examples: list[Example] = Field(default_factory=list)
    returns: dict[str, Any] | None = None
    call: CallSpec
    side_effects: bool = True
    timeout_s: float | None = None
    pii: list[str] = Field(default_factory=list)
    version: str | None = None
    external: bool = False  # (ext.) calls leave the company: no PII or secret may go in its arguments
    # (ext.) repeating a call with the same idempotency key is safe (the backend honours the key, or
    # the call sets a state): None = the pack's `idempotent_writes`
    idempotent: bool | None = None
    # Set by the loader, never read from YAML.
    pack: str = Field(default="", exclude=True)
    source_file: str = Field(default="", exclude=True)
    _validators: dict[str, Any] = PrivateAttr(default_factory=dict)

    @field_validator("tool_name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not NAME_RE.match(v):
            raise ValueError(f"tool_name {v!r} must match [a-zA-Z_][a-zA-Z0-9_]*")
        return v

    def param(self, name: str) -> ParamSpec | None:
        return next((p for p in self.parameters if p.name == name), None)


class ValueMapping(BaseModel):
    """Where a step parameter's value comes from."""

    model_config = ConfigDict(extra="allow")

    source: Literal["initial_query", "defaults", "constant", "step_output"]
    value: Any = None
    step_id: StepId | None = None

    @model_validator(mode="after")
    def _step_output_needs_step(self) -> ValueMapping:
        if self.source == "step_output" and self.step_id is None:
            raise ValueError("source step_output needs step_id")
        if self.source != "constant" and not isinstance(self.value, str):
            raise ValueError(f"source {self.source} needs a string value (a name or a path)")
        return self


class StateSpec(BaseModel):
    name: str
    aliases: list[str] = Field(default_factory=list)

    @property
    def words(self) -> list[str]:
        return [self.name, *self.aliases]


class DagStep(BaseModel):
    model_config = ConfigDict(extra="allow")

    step_id: StepId
    tool_name: str
    description: str = ""
    dependencies: list[StepId] = Field(default_factory=list)
    parameter_mapping: dict[str, ValueMapping] = Field(default_factory=dict)
    condition: str | None = None
    reaches_state: StateSpec | None = None


class RuleSpec(BaseModel):
    """A recipe: a DAG of tool calls (one entry of the tool-call rule library)."""

    model_config = ConfigDict(extra="allow")

    rule_name: str
    description: str
    trigger_phrases: list[str] = Field(default_factory=list)
    examples: list[Example] = Field(default_factory=list)
    dag_definition: list[DagStep]
    pack: str = Field(default="", exclude=True)
    source_file: str = Field(default="", exclude=True)

    @field_validator("rule_name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not NAME_RE.match(v):
            raise ValueError(f"rule_name {v!r} must match [a-zA-Z_][a-zA-Z0-9_]*")
        return v

    def step(self, step_id: StepId) -> DagStep | None:
        return next((s for s in self.dag_definition if s.step_id == step_id), None)


class EnvironmentSpec(BaseModel):
    model_config = ConfigDict(extra="allow")

    base_url: str | None = None
    aliases: list[str] = Field(default_factory=list)
    confirm: bool = False
    allowed_users: list[str] | None = None
    # (ext.) contracts: the tools callable here (None = all); writes may be verified here (test data only).
    allowed_tools: list[str] | None = None
    isolated: bool = False


class McpServerSpec(BaseModel):
    model_config = ConfigDict(extra="allow")

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    url: str | None = None

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSpec:
        if bool(self.command) == bool(self.url):
            raise ValueError("an MCP server needs exactly one of command (stdio) or url (streamable HTTP)")
        return self


class LocalService(BaseModel):
    """Optional (ext.): a local service the pack's tools call, started on demand when
    its health URL does not answer (the zero set-up demo path)."""

    command: list[str]
    health_url: str
    startup_timeout_s: float = 20.0
    # The variable that sets its port (used in its command, health_url and the base_urls): stories
    # and `contracts verify` start a private copy on a free port, never touching the user's data.
    port_env: str | None = None


class HttpHook(BaseModel):
    method: Literal["GET", "POST", "PUT", "DELETE"] = "POST"
    path: str  # relative to the environment's base_url


class TestHooks(BaseModel):
    """Optional (ext.): how `datasmith stories` resets, seeds and inspects an environment's data.
    `sql` takes {"script": ...} or {"query": ..., "params": [...]} and answers {"rows": [...]}."""

    __test__ = False  # not a pytest class
    reset: HttpHook | None = None
    sql: HttpHook | None = None


class PackSpec(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    description: str = ""
    default_environment: str | None = None
    environments: dict[str, EnvironmentSpec] = Field(default_factory=dict)
    mcp_servers: dict[str, McpServerSpec] = Field(default_factory=dict)
    local_service: LocalService | None = None
    test_hooks: TestHooks | None = None
    # (ext.) every write call carries a key stable per (run, step), in this header (http) or as the
    # keyword `idempotency_key` (python functions that accept it); `idempotent_writes`: the
    # backend answers a repeated key with its first answer, so a retry after a crash is safe
    idempotency_header: str = "Idempotency-Key"
    idempotent_writes: bool = False
    path: str = Field(default="", exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _split_default(cls, data: Any) -> Any:
        # `environments.default` names the default environment; the rest are environments.
        if isinstance(data, dict) and isinstance(data.get("environments"), dict):
            envs = dict(data["environments"])
            default = envs.pop("default", None)
            if default is not None and not isinstance(default, str):
                raise ValueError("environments.default must be the name of an environment")
            data = {**data, "environments": envs, "default_environment": default}
        return data

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not re.match(r"^[a-z0-9_]+$", v):
            raise ValueError(f"pack name {v!r} must match [a-z0-9_]+")
        return v


# --------------------------------------------------------------------------- planning


class RetrievalHit(BaseModel):
    """One retrieved tool or rule, best first (rank 0)."""

    kind: Literal["tool", "rule"]
    name: str
    score: float
    rank: int
    text: str = ""

ValueSource = Literal["request", "defaults", "tool_default", "constant", "step_output", "conversation"]


class StepRef(BaseModel):
    """An argument whose value is read from an earlier step's output (JMESPath)."""

    model_config = ConfigDict(extra="forbid")

    from_step: StepId
    path: str


class PlanStep(BaseModel):
    step_id: StepId
    tool_name: str
    dependencies: list[StepId] = Field(default_factory=list)
    arguments: dict[str, StepRef | Any] = Field(default_factory=dict)
    # Extensions (optional keys): the business description, the condition, where values came from.
    description: str = ""
    condition: str | None = None
    sources: dict[str, ValueSource] = Field(default_factory=dict)
    skipped: str | None = None  # why the planner already knows this step will be skipped


class PlanChoice(BaseModel):
    """(ext.) One candidate a `needs_input` question offers: a rule or a tool, and what it does."""

    model_config = ConfigDict(extra="forbid")

    rule: str | None = None
    tool: str | None = None
    summary: str = ""

    @model_validator(mode="after")
    def _one(self) -> PlanChoice:
        if (self.rule is None) == (self.tool is None):
            raise ValueError("a choice names exactly one of rule or tool")
        return self


NOT_COPIED = "is not made as"  # in the note on a count not made as copies (the CLI shows that note)


class Plan(BaseModel):
    """What a planner answers; rendered as the spec's `plan --json` object."""

    status: Literal["planned", "needs_input", "no_match"]
    rule: str | None = None
    environment: str | None = None
    steps: list[PlanStep] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    question: str | None = None
    # Extensions.
    pack: str | None = None
    tool: str | None = None
    target_state: str | None = None
    planner: str = "rules"
    known: dict[str, Any] = Field(default_factory=dict)  # request values, kept for a follow-up turn
    notes: list[str] = Field(default_factory=list)
    fallback: str | None = None  # why the LLM planner did not answer (code: reason), when it was asked
    choices: list[PlanChoice] = Field(default_factory=list)  # needs_input: the candidates the question offers
    pending_text: str | None = None  # needs_input with choices: the request the question is about
    language: Literal["zh", "en"] | None = None  # the conversation's language (questions follow it)
    # Once a question is asked or answered: the thread's user messages so far, this one last
    conversation: list[str] = Field(default_factory=list)
    # How many independent runs of this plan the request asks for ("造20笔已支付订单"): plans that
    # write only; 1 (and left out of the JSON) unless a count was asked for.
    copies: int = Field(default=1, ge=1)
    confident: bool = Field(default=False, exclude=True)  # rule planner: matched by trigger/state/example

    def step(self, step_id: StepId) -> PlanStep | None:
        return next((s for s in self.steps if s.step_id == step_id), None)

    def running(self) -> list[PlanStep]:
        """The steps that will run: not those the planner already knows are skipped."""
        return [s for s in self.steps if s.skipped is None]

    def spec_json(self) -> dict[str, Any]:
        """The spec's JSON object: the required keys first, extensions after."""
        data = self.model_dump(mode="json")
        head = {k: data.pop(k) for k in ("status", "rule", "environment", "steps", "missing", "question")}
        data["choices"] = [c.model_dump(exclude_none=True) for c in self.choices]
        if not data["conversation"]:  # one-turn answers keep their shape
            del data["conversation"]
        if data["copies"] == 1:  # asked for once: the spec's shape
            del data["copies"]
        return {**head, **data}

    def in_conversation(self, request: Request) -> Plan:
        """This plan with the conversation it belongs to, when it has more than one turn or may get
        one (a question): the thread's messages travel with the pending plan, so a run that answers a
        question can be told and exported whole."""
        if request.previous is None and self.status != "needs_input":
            return self
        earlier = request.previous.conversation if request.previous and request.previous.conversation else \
            ([request.previous.pending_text] if request.previous and request.previous.pending_text else [])
        return self.model_copy(update={"conversation": [*earlier, request.text]})


# --------------------------------------------------------------------------- running

StepStatus = Literal["pending", "running", "succeeded", "failed", "skipped", "paused", "interrupted"]
RunStatus = Literal[
    "pending", "running", "succeeded", "failed", "paused", "aborted", "interrupted", "awaiting_confirmation",
    "partial",  # every step ended, but one a human skipped stood between the run and its goal
]
TERMINAL_RUN = frozenset({"succeeded", "failed", "aborted", "partial"})


class ErrorInfo(BaseModel):
    code: str
    message: str
    message_zh: str | None = None
    step_id: StepId | None = None
    trace_id: str | None = None
    retryable: bool = False


class StepRun(BaseModel):
    step_id: StepId
    tool_name: str
    status: StepStatus = "pending"
    attempts: int = 0
    arguments: dict[str, Any] | None = None
    output: Any = None
    error: ErrorInfo | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    skip_reason: str | None = None


class Scope(BaseModel):
    """What a surface allows a request to touch (e.g. a Slack channel's packs and environments).
    None = no restriction."""

    packs: list[str] | None = None
    environments: list[str] | None = None
    may_write: bool | None = None  # False: only plans without side effects run (an API token without writes)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def readable(value: Any) -> Any:
    """Text with bytes that were not UTF-8 (lone surrogates: Python's escape for them in argv and
    stdin, or a JSON `\\udcff`) as U+FFFD: nothing downstream (JSON, SQLite) can store a surrogate."""
    return _LONE_SURROGATE.sub("\ufffd", value) if isinstance(value, str) else value


def readable_deep(value: Any) -> Any:
    """`readable` through a JSON value (a tool's output: a cut-off emoji in a backend's JSON is a
    lone surrogate once parsed, and would stop the run from being recorded after its write)."""
    if isinstance(value, str):
        return readable(value)
    if isinstance(value, dict):
        return {readable(k): readable_deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [readable_deep(v) for v in value]
    return value


class Request(BaseModel):
    """One user request, from any surface."""

    text: str
    user: str | None = None
    channel: str | None = None
    thread: str | None = None
    surface: str = "cli"
    environment: str | None = None
    previous: Plan | None = None  # a pending needs_input plan this message answers
    scope: Scope | None = None
    planner: Literal["auto", "rules", "llm"] | None = None  # None = the configured planner
    bypass_cache: bool = False

    _readable = field_validator("text", "user", "channel", "thread", "surface", "environment", mode="before")(
        lambda v: readable(v))


class RunRecord(BaseModel):
    run_id: str
    trace_id: str
    status: RunStatus = "pending"
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    request: Request
    plan: Plan
    steps: list[StepRun] = Field(default_factory=list)
    error: ErrorInfo | None = None

    def step(self, step_id: StepId) -> StepRun:
        return next(s for s in self.steps if s.step_id == step_id)

    @property
    def latency_ms(self) -> float:
        return (self.updated_at - self.created_at).total_seconds() * 1000


class LLMUsage(BaseModel):
    """LLM calls a request made, as the provider reported them."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    waited_s: float = 0.0  # time queued in the leaky bucket
    output_mode: str | None = None  # how the model was asked for JSON: json_schema, tool_call, json_object, prompt

    def add(self, other: LLMUsage) -> None:
        self.output_mode = other.output_mode or self.output_mode
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.waited_s += other.waited_s
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd


class RunReport(BaseModel):
    """What the facade answers to every surface."""

    request: Request
    plan: Plan | None = None
    run: RunRecord | None = None
    error: ErrorInfo | None = None
    trace_id: str
    latency_ms: float = 0.0
    cache: Literal["hit", "miss", "bypass"] | None = None
    usage: LLMUsage | None = None
    # A plan asked for several copies: every copy's run, in copy order (`run` is the first copy
    # that did not succeed, else the first). Empty for a single run.
    runs: list[RunRecord] = Field(default_factory=list)

    def spec_json(self, *, with_run: bool) -> dict[str, Any]:
        # The spec's status is planned | needs_input | no_match: an input error is a no_match whose
        # question is the error's message, with the error itself under the (ext.) `error` key.
        plan = self.plan or Plan(status="no_match", question=self._error_words())
        data: dict[str, Any] = plan.spec_json()
        if with_run:
            data["run"] = run_json(self.run) if self.run else None
            if self.runs:
                data["runs"] = [run_json(r) for r in self.runs]
        if self.error:
            data["error"] = self.error.model_dump(mode="json")
        data["trace_id"] = self.trace_id
        if self.usage is not None and self.usage.calls:
            data["usage"] = self.usage.model_dump(mode="json")
        return data


    def _error_words(self) -> str | None:
        """The input error in the request's language (English when it is mostly ASCII)."""
        if self.error is None:
            return None
        from core.planning.text import mostly_ascii

        english = bool(self.request.text.strip()) and mostly_ascii(self.request.text)
        return self.error.message if english or not self.error.message_zh else self.error.message_zh


def run_json(run: RunRecord) -> dict[str, Any]:
    """The spec's `run` object of `ask --json`."""
    return {
        "run_id": run.run_id,
        "trace_id": run.trace_id,
        "status": run.status,
        "steps": [
            {
                "step_id": s.step_id, "tool_name": s.tool_name, "status": s.status, "attempts": s.attempts,
                "output": s.output, "error": s.error.model_dump(mode="json") if s.error else None,
            }
            for s in run.steps
        ],
    }
