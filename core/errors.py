"""The error catalogue: every failure datasmith reports has a stable code.

    DatasmithError                      base: code, message (en), message_zh, step_id, trace_id
    ├── InputError            DS-1xx    the request or the command line is wrong (user fixes it)
    │   └── RunStateError     DS-105    resume/show on a run that does not allow it
    ├── KnowledgeError        DS-2xx    packs: a pack that breaks the spec (maintainer fixes it)
    │   └── PackError         DS-201    names file, rule/tool and step
    ├── ToolError             DS-3xx    a tool call failed during a run
    │   ├── TransientToolError DS-301   network, timeout, 5xx, 429: retried with backoff
    │   ├── ToolRejected       DS-302   4xx or a tool's own refusal: never retried
    │   ├── ContractError      DS-303   arguments or output break the tool's JSON Schema
    │   └── BindingError       DS-304   the binding cannot be resolved (no base_url, no module...)
    ├── LimitError            DS-4xx    rate limits and budgets
    └── InternalError         DS-5xx    a bug in datasmith itself

Retry logic reads `retryable`, nobody guesses: only TransientToolError is retryable.
"""

from __future__ import annotations

from typing import Any


class DatasmithError(Exception):
    """Base of every error datasmith raises on purpose."""

    code = "DS-500"
    retryable = False

    def __init__(
        self,
        message: str,
        *,
        message_zh: str | None = None,
        code: str | None = None,
        step_id: Any = None,
        trace_id: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.message_zh = message_zh
        if code:
            self.code = code
        self.step_id = step_id
        self.trace_id = trace_id
        self.details = details or {}

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class InputError(DatasmithError):
    """The request or the command line cannot be used as given."""

    code = "DS-100"


class RunStateError(InputError):
    """The run is not in a state that allows the asked action."""

    code = "DS-105"


class KnowledgeError(DatasmithError):
    """Something about the loaded knowledge is wrong."""

    code = "DS-200"


class PackError(KnowledgeError):
    """A pack breaks the format spec. The message names file, rule/tool and step."""

    code = "DS-201"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        rule: str | None = None,
        tool: str | None = None,
        step: Any = None,
    ) -> None:
        where = [p for p in (file, f"rule {rule}" if rule else None, f"tool {tool}" if tool else None,
                             f"step {step}" if step is not None else None) if p]
        full = f"{': '.join([', '.join(where), message]) if where else message}"
        super().__init__(full, step_id=step)
        self.file, self.rule, self.tool, self.step = file, rule, tool, step


class ToolError(DatasmithError):
    """A tool call failed."""

    code = "DS-300"


class TransientToolError(ToolError):
    """A failure worth retrying: network error, timeout, 5xx, 429."""

    code = "DS-301"
    retryable = True


class ToolRejected(ToolError):
    """The tool answered and said no (4xx, a business rule): retrying cannot help."""

    code = "DS-302"


class ContractError(ToolError):
    """Arguments or output do not satisfy the tool's contract."""

    code = "DS-303"


class BindingError(ToolError):
    """The tool's binding cannot be resolved in this environment."""

    code = "DS-304"


class LimitError(DatasmithError):
    """A limit was hit (rate, size, budget)."""

    code = "DS-400"


class LLMError(DatasmithError):
    """The LLM provider failed (unreachable, 5xx, timeout, 429 after retries, refused the key)."""

    code = "DS-503"

    def __init__(self, message: str, *, retryable: bool = False, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retryable = retryable


class InternalError(DatasmithError):
    """A bug in datasmith: reported with its trace_id, never as a stack trace to users."""

    code = "DS-500"


# Codes used without a dedicated class (status outcomes, input checks).
EMPTY_REQUEST = "DS-101"
REQUEST_TOO_LONG = "DS-102"
UNKNOWN_ENVIRONMENT = "DS-103"
RUN_NOT_FOUND = "DS-104"
NO_MATCH = "DS-202"
NEEDS_INPUT = "DS-203"
FORBIDDEN = "DS-204"
LLM_PLAN_INVALID = "DS-205"  # the LLM's plan broke the schema or the knowledge twice: rule planner answered
RATE_LIMITED = "DS-401"  # our leaky bucket: the wait would pass the bound
LLM_RATE_LIMITED = "DS-402"  # the provider said 429 after our retries
LLM_UNAVAILABLE = "DS-503"  # the provider failed (5xx, timeout, connection): rule planner answered
