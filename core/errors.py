"""The error catalogue: every failure datasmith reports has a stable code.

    DatasmithError                      base: code, message (en), message_zh, step_id, trace_id
    ├── InputError            DS-1xx    the request or the command line is wrong (user fixes it)
    │   └── RunStateError     DS-105    resume/show on a run that does not allow it
    ├── KnowledgeError        DS-2xx    packs: a pack that breaks the spec (maintainer fixes it)
    │   ├── PackError         DS-201    names file, rule/tool and step
    │   │   └── CodeNotAllowed DS-206   a binding or command would run code outside the pack
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


class CodeNotAllowed(PackError):
    """A `call.python` binding or a command that would run code outside the pack and the allowlist."""

    code = "DS-206"


class ToolError(DatasmithError):
    """A tool call failed."""

    code = "DS-300"


class TransientToolError(ToolError):
    """A failure worth retrying: network error, timeout, 5xx, 429. `unknown_outcome`: the call may
    have reached the system and taken effect (a timeout after sending): a write that is not
    idempotent is then not retried blindly."""

    code = "DS-301"
    retryable = True

    def __init__(self, message: str, *, unknown_outcome: bool = False, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.unknown_outcome = unknown_outcome


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


class DatabaseUnavailable(DatasmithError):
    """The shared database (DATASMITH_DATABASE_URL) cannot be reached or set up."""

    code = "DS-504"
    retryable = True


class InternalError(DatasmithError):
    """A bug in datasmith: reported with its trace_id, never as a stack trace to users."""

    code = "DS-500"


# Codes used without a dedicated class (status outcomes, input checks).
EMPTY_REQUEST = "DS-101"
REQUEST_TOO_LONG = "DS-102"
UNKNOWN_ENVIRONMENT = "DS-103"
RUN_NOT_FOUND = "DS-104"
UNREADABLE_REQUEST = "DS-106"
VALUE_REFUSED = "DS-107"  # a value the requester stated breaks its parameter (theirs to change)
# The HTTP API (api/): who may call, what a retried call may be, how much may go at once.
API_UNAUTHENTICATED = "DS-110"  # 401: no token, or one the service does not know
API_FORBIDDEN = "DS-111"  # 403: the token may not use this environment or pack, or may not write
IDEMPOTENCY_CONFLICT = "DS-112"  # 409: an Idempotency-Key reused with a different body
IDEMPOTENCY_IN_PROGRESS = "DS-113"  # 409: the first call with this key is still being answered elsewhere
API_BAD_REQUEST = "DS-114"  # 422: the body breaks the API's request schema
TOO_MANY_COPIES = "DS-403"  # a request asks for more copies than `max_copies`
API_RATE_LIMITED = "DS-410"  # 429: over the token's leaky bucket
API_BUSY = "DS-411"  # 503: the service's bound on runs in flight is reached
NO_MATCH = "DS-202"
NEEDS_INPUT = "DS-203"
FORBIDDEN = "DS-204"
LLM_PLAN_INVALID = "DS-205"  # the LLM's plan broke the schema or the knowledge twice: rule planner answered
RATE_LIMITED = "DS-401"  # our leaky bucket: the wait would pass the bound
LLM_RATE_LIMITED = "DS-402"  # the provider said 429 after our retries
LLM_UNAVAILABLE = "DS-503"  # the provider failed (5xx, timeout, connection): rule planner answered
STEP_LEFT_UNRUN = "DS-305"
ABORTED = "DS-306"
OUTCOME_UNKNOWN = "DS-307"  # a write may or may not have happened: a human checks before it is repeated
NOT_REACHED = "DS-308"  # a run ended with a step a human skipped: its goal is not confirmed


class Entry:
    """One catalogue line: what the code means and what to do, in English and Chinese."""

    __slots__ = ("code", "en", "zh", "hint_en", "hint_zh")

    def __init__(self, code: str, en: str, zh: str, hint_en: str, hint_zh: str) -> None:
        self.code, self.en, self.zh, self.hint_en, self.hint_zh = code, en, zh, hint_en, hint_zh

    def title(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en

    def hint(self, lang: str) -> str:
        return self.hint_zh if lang == "zh" else self.hint_en


# The catalogue every surface renders from (the CLI, the bot, the console, `ask --json` readers).
CATALOGUE: dict[str, Entry] = {e.code: e for e in [
    Entry("DS-100", "the request cannot be used", "请求无法使用", "rephrase the request", "请换个说法"),
    Entry("DS-101", "empty request", "请求为空", "say what data you need, e.g. an order in a given state",
          "说明需要什么数据,例如某个状态的订单"),
    Entry("DS-102", "request too long", "请求过长", "shorten it to one sentence", "精简成一句话"),
    Entry("DS-103", "unknown environment", "未知环境", "name one of the pack's environments",
          "请使用知识包里定义的环境"),
    Entry("DS-104", "run not found", "找不到运行", "check the run id (`runs list`)", "核对运行 id(runs list)"),
    Entry("DS-105", "the run does not allow this now", "运行当前状态不允许该操作",
          "only paused or interrupted runs can be resumed", "只有暂停或中断的运行可以恢复"),
    Entry("DS-106", "the request is not readable text", "请求包含无法识别的字符",
          "part of it was bytes that are not UTF-8 (shown as �): retype or re-paste it as plain text",
          "其中有非 UTF-8 的字节(显示为 �):请重新输入或以纯文本粘贴"),
    Entry("DS-107", "a value you gave is not allowed", "你给的值不可用",
          "say another value; the message names the parameter and its rule", "换一个值;报错里写明了参数和规则"),
    Entry("DS-110", "no valid API token", "缺少有效的 API 令牌",
          "send `Authorization: Bearer NAME.SECRET` with a token from the service's tokens file",
          "请求头带上 `Authorization: Bearer 名称.密钥`(令牌来自服务的 tokens 配置)"),
    Entry("DS-111", "this API token may not do that", "该 API 令牌无此权限",
          "use an environment and pack the token lists, or a token that may write",
          "改用令牌允许的环境和知识包,或换一个有写权限的令牌"),
    Entry("DS-112", "Idempotency-Key reused with a different body", "Idempotency-Key 被用于不同的请求体",
          "send a new key for a new request; a retry sends the same body", "新请求请用新的 key;重试时请求体必须相同"),
    Entry("DS-113", "a call with this Idempotency-Key is still in progress", "同一 Idempotency-Key 的调用仍在处理",
          "retry in a moment; the first call's answer is returned then", "稍后重试,届时返回第一次调用的结果"),
    Entry("DS-114", "the request body is invalid", "请求体不合法",
          "fix the fields the message names (see /docs)", "按报错修正字段(见 /docs)"),
    Entry("DS-200", "knowledge problem", "知识库问题", "ask a maintainer to check the pack", "请维护者检查知识包"),
    Entry("DS-201", "a pack breaks the format", "知识包格式错误",
          "fix the file, rule/tool and step the message names", "按报错中的文件、规则/工具和步骤修正"),
    Entry("DS-202", "nothing in the knowledge fits", "知识库中没有匹配项",
          "rephrase, or ask a maintainer to add a tool or rule", "换个说法,或请维护者补充工具或规则"),
    Entry("DS-203", "more input needed", "需要补充信息", "answer the question", "请回答提问"),
    Entry("DS-204", "not allowed here", "无权限", "ask a maintainer for access, or use an allowed channel/environment",
          "联系维护者开通权限,或换到允许的频道/环境"),
    Entry("DS-205", "the LLM's plan was invalid", "LLM 给出的计划无效",
          "the rule planner answered instead; rephrase in the knowledge's words if it is wrong",
          "已由规则规划器回答;如不对请用知识库里的说法重试"),
    Entry("DS-206", "a pack would run code from outside itself", "知识包引用了包外的代码",
          "bind only functions of modules inside the pack folder, or have the deployment allow the module or "
          "command (settings allowed_python_modules / allowed_commands)",
          "只能绑定知识包目录内模块的函数;或由部署方在配置 allowed_python_modules / allowed_commands 中放行"),
    Entry("DS-300", "a tool failed", "工具调用失败", "see the step's message", "查看该步骤的错误信息"),
    Entry("DS-301", "a tool failed transiently", "工具暂时失败",
          "retried automatically; at a breakpoint choose retry, skip or abort", "已自动重试;在断点处可选择重试、跳过或中止"),
    Entry("DS-302", "a tool refused the call", "工具拒绝了调用",
          "the data or state is not what the tool needs; check the arguments", "数据或状态不满足工具要求,请检查参数"),
    Entry("DS-303", "a contract was broken", "契约校验失败",
          "arguments or output do not match the tool's schema; a maintainer fixes the tool or pack",
          "参数或返回不符合工具的 schema,请维护者修正"),
    Entry("DS-304", "a tool binding cannot be resolved", "工具绑定无法解析",
          "check base_url / module / MCP server for this environment", "检查该环境的 base_url、模块或 MCP 服务"),
    Entry("DS-305", "steps were left unrun", "有步骤未执行", "an earlier step failed; fix it and ask again",
          "前面的步骤失败了,修正后重试"),
    Entry("DS-306", "aborted at a breakpoint", "在断点处被中止", "ask again when the system is back",
          "系统恢复后重新发起"),
    Entry("DS-307", "a write may already have happened", "写操作可能已经执行",
          "check the system; then retry anyway (--force / Retry anyway), skip the step if it happened, or abort",
          "先到系统里核实;确认没执行再强制重试(--force / 仍然重试),已执行则跳过该步,或中止"),
    Entry("DS-308", "the run ended without reaching its goal", "运行结束但未确认达到目标",
          "a step was skipped by hand: check the system; ask again for a new run if the data is needed",
          "有步骤被人工跳过:请到系统里核实;如仍需要数据,请重新发起"),
    Entry("DS-400", "a limit was hit", "触达限制", "try again later", "稍后再试"),
    Entry("DS-401", "rate limited (LLM queue)", "LLM 调用限流", "try again in a few seconds", "几秒后再试"),
    Entry("DS-402", "the LLM provider is rate limiting", "LLM 服务限流",
          "the rule planner answered; raise the provider quota if this persists", "已由规则规划器回答;持续出现请提高配额"),
    Entry("DS-403", "too many copies asked for", "请求的份数过多",
          "ask for at most the allowed number of copies (setting max_copies), or split the request",
          "请把份数控制在上限以内(配置 max_copies),或分几次请求"),
    Entry("DS-410", "rate limited (API token)", "API 令牌限流",
          "wait the seconds Retry-After says, then retry with the same Idempotency-Key",
          "按 Retry-After 等待后,用同一个 Idempotency-Key 重试"),
    Entry("DS-411", "too many runs in flight", "运行中的任务过多",
          "retry after Retry-After seconds", "按 Retry-After 秒数后重试"),
    Entry("DS-500", "internal error", "内部错误", "give the trace id to a maintainer", "把 trace id 发给维护者"),
    Entry("DS-503", "the LLM is unavailable", "LLM 不可用",
          "the rule planner answered; check DATASMITH_LLM_* settings and the provider",
          "已由规则规划器回答;检查 DATASMITH_LLM_* 配置和服务"),
    Entry("DS-504", "the shared database is unreachable", "共享数据库不可达",
          "check DATASMITH_DATABASE_URL and that PostgreSQL is up; nothing was run",
          "检查 DATASMITH_DATABASE_URL 和 PostgreSQL 是否在运行;没有执行任何操作"),
]}


def describe(code: str, lang: str = "en") -> tuple[str, str]:
    """(title, what to do) for a code; an unknown code falls back to its family (DS-3xx → DS-300)."""
    entry = CATALOGUE.get(code) or CATALOGUE.get(code[:4] + "00") or CATALOGUE["DS-500"]
    return entry.title(lang), entry.hint(lang)
