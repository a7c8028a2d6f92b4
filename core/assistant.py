"""The one entry point every surface uses: `Assistant.handle(Request) -> RunReport`.

The pipeline reads top to bottom: check input → retrieve → plan → gate → execute → report.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from core.batch import CopyProgress, representative, run_copies
from core.contracts import check_plan, split_secrets
from core.errors import (
    EMPTY_REQUEST,
    FORBIDDEN,
    REQUEST_TOO_LONG,
    TOO_MANY_COPIES,
    UNREADABLE_REQUEST,
    DatasmithError,
    InputError,
    LimitError,
)
from core.execution import Executor, Progress, ResumeAction, RetryPolicy, error_info
from core.knowledge import Knowledge, load_knowledge
from core.llm.limiter import LeakyBucket, OnWait
from core.models import LLMUsage, Plan, Request, RetrievalHit, RunRecord, RunReport, StepRef, utcnow
from core.plan_cache import PlanCache
from core.planning import Planner, RulePlanner
from core.planning.text import normalize
from core.runstore import RequestRecord, RunStore
from core.services import LocalServices
from core.settings import Settings
from core.sqlite_open import private

if TYPE_CHECKING:
    from core.planning.llm_planner import LLMPlanner
    from core.retrieval import KnowledgeIndex  # LanceDB: imported when an index is opened

log = logging.getLogger("datasmith")


class Assistant:
    """Knowledge, index, planner, RunStore and tools behind one facade."""

    def __init__(self, settings: Settings, knowledge: Knowledge, *, index: KnowledgeIndex | None = None,
                 planner: Planner | None = None, store: RunStore | None = None) -> None:
        self.settings = settings
        self.knowledge = knowledge
        settings.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        private(settings.home, 0o700)  # runs, requests, cache and logs are the users' data
        self._index = index
        self._open_index: Callable[[], KnowledgeIndex] | None = None  # a lazy index: opened on first use
        self._index_lock = threading.Lock()
        self._rules: RulePlanner | None = None  # built on first use: a plan the cache answers needs none
        self._rules_lock = threading.Lock()
        self._planner = planner
        self.llm = self._llm_planner(settings)
        self.cache = PlanCache(settings.cache_dir, settings.cache_ttl_s, settings.cache_failure_ttl_s)
        self.store = store or RunStore(settings.runstore)
        self.services = LocalServices(knowledge, settings.pack_environ, settings.home, settings.service_idle_s)
        self.policy = RetryPolicy(settings.max_attempts, settings.backoff_base_s, settings.backoff_max_s,
                                  settings.default_timeout_s)
        self.recovered = self.store.recover()  # runs a dead process left in flight become `interrupted`
        self.store.expire_vars(utcnow() - timedelta(days=settings.pii_retention_days))
        for run_id in self.recovered:
            log.warning("run %s was in flight when the last process stopped: marked interrupted", run_id)

    @classmethod
    def from_settings(cls, settings: Settings, *, with_index: bool = True, lazy_index: bool = False) -> Assistant:
        """The assistant over the configured knowledge; its index built (or refreshed) now, or with
        `lazy_index` on first use (the CLI: a plan the cache answers never loads LanceDB)."""
        knowledge = load_knowledge(settings.knowledge, settings.code_policy)

        def open_index() -> KnowledgeIndex:
            from core.embedders import make_embedder
            from core.retrieval import KnowledgeIndex

            index = KnowledgeIndex(settings.index_dir, make_embedder(settings.embedder))
            index.refresh(knowledge)
            return index

        assistant = cls(settings, knowledge, index=open_index() if with_index and not lazy_index else None)
        if with_index and lazy_index:
            assistant._open_index = open_index
        return assistant

    @property
    def rules(self) -> RulePlanner:
        """The rule planner over this knowledge (its vocabulary is built the first time)."""
        if self._rules is None:
            with self._rules_lock:
                if self._rules is None:
                    self._rules = RulePlanner(self.knowledge, default_environment=self.settings.env)
        return self._rules

    @property
    def planner(self) -> Planner:
        return self._planner or self.rules

    @property
    def index(self) -> KnowledgeIndex | None:
        """The knowledge index (None without one), opened here the first time when it is lazy."""
        if self._index is None and self._open_index is not None:
            with self._index_lock:  # planning threads may ask at once
                if self._index is None and self._open_index is not None:
                    self._index = self._open_index()
                    self._open_index = None
        return self._index

    @index.setter
    def index(self, value: KnowledgeIndex | None) -> None:
        self._index, self._open_index = value, None

    def _llm_planner(self, settings: Settings) -> LLMPlanner | None:
        if not settings.llm_model or settings.planner == "rules":
            return None
        from core.llm.client import LLMClient  # litellm is imported only when an LLM is configured
        from core.planning.llm_planner import LLMPlanner
        bucket = LeakyBucket(settings.llm_capacity, settings.llm_rate_per_s, settings.llm_max_wait_s)
        return LLMPlanner(self.knowledge, LLMClient(settings, bucket), self.rules)

    def close(self) -> None:
        self.services.close()
        self.cache.close()
        self.store.close()

    # ------------------------------------------------------------------ the pipeline

    def check_input(self, request: Request) -> None:
        text = normalize(request.text)
        if not text:
            raise InputError("the request is empty: say what data you need, e.g. an order in a given state",
                             message_zh="请求为空:请说明需要造什么数据,例如某个状态的订单", code=EMPTY_REQUEST)
        if "\ufffd" in request.text:  # bytes that were not UTF-8 (see models.readable): never guess around them
            at = request.text.index("\ufffd")
            raise InputError(
                f"the request is not readable text: character {at + 1} is unreadable (shown as �: bytes that were "
                "not UTF-8, or text damaged on the way); retype or re-paste it as plain text",
                message_zh=f"请求第 {at + 1} 个字符无法识别(显示为 �:非 UTF-8 字节,或文字在传递中损坏):请重新输入或以纯文本粘贴",
                code=UNREADABLE_REQUEST,
            )
        if len(request.text) > self.settings.max_request_chars:
            raise InputError(
                f"the request is {len(request.text)} characters; the limit is {self.settings.max_request_chars}",
                message_zh=f"请求过长({len(request.text)} 字符),上限 {self.settings.max_request_chars}",
                code=REQUEST_TOO_LONG,
            )

    def retrieve(self, text: str, k: int = 12) -> list[RetrievalHit]:
        return self.index.search(normalize(text), k=k) if self.index else []

    def plan(self, request: Request, hits: Sequence[RetrievalHit] | None = None) -> Plan:
        self.check_input(request)
        if hits is None:
            hits = self.retrieve(request.text)
        return self.planner.plan(request, hits or None).in_conversation(request)

    async def aplan(self, request: Request, *, on_wait: OnWait | None = None,
                    hits: Sequence[RetrievalHit] | None = None) -> tuple[Plan, str, LLMUsage]:
        """Plan with the configured (or requested) planner, through the cache; `hits` when the
        caller already retrieved (and shows them). Returns the plan, the cache outcome
        (hit / miss / bypass) and the LLM usage."""
        self.check_input(request)
        mode = request.planner or self.settings.planner
        key = PlanCache.key(request, planner=f"{mode}:{self.settings.env}", knowledge_version=self.knowledge.version,
                            model=self.settings.llm_model if mode != "rules" else None)
        if not request.bypass_cache and (cached := self.cache.get(key)) is not None:
            return cached, "hit", LLMUsage()
        usage = LLMUsage()
        # Retrieval (the embedder) and the rule planner are CPU work of tens of ms: in a thread, so a
        # shared loop (the bot's, the API's) keeps answering others while one request is planned
        hits, plan = await asyncio.to_thread(self._retrieve_and_plan, request, hits)
        if mode == "llm" or (mode == "auto" and not plan.confident and self.llm is not None):
            if self.llm is None:
                plan.fallback = "DS-503: no LLM is configured (set DATASMITH_LLM_MODEL); the rule planner answered"
            else:
                plan, usage = await self.llm.plan(request, hits or None, on_wait=on_wait, rule_plan=plan)
        plan = plan.in_conversation(request)
        if not self._holds_pii(plan):  # PII stays out of the cache's files
            self.cache.put(key, plan)
        return plan, "bypass" if request.bypass_cache else "miss", usage

    def _retrieve_and_plan(self, request: Request,
                           hits: Sequence[RetrievalHit] | None) -> tuple[Sequence[RetrievalHit] | None, Plan]:
        if hits is None:
            hits = self.retrieve(request.text)
        return hits, self.planner.plan(request, hits or None)

    def _holds_pii(self, plan: Plan) -> bool:
        for step in plan.steps:
            tool = self.knowledge.tools.get(step.tool_name)
            if tool and any(k in tool.pii and not isinstance(v, StepRef) for k, v in step.arguments.items()):
                return True
        return False

    def check_copies(self, plan: Plan) -> None:
        """A request may ask for at most `max_copies` copies (DS-403)."""
        limit = self.settings.max_copies
        if plan.copies > limit:
            raise LimitError(f"{plan.copies} copies asked for; at most {limit} may be made at once: ask for fewer, "
                             "or split the request", message_zh=f"请求了 {plan.copies} 份,单次最多 {limit} 份:请减少份数或分几次请求",
                             code=TOO_MANY_COPIES)

    def gate(self, plan: Plan, request: Request) -> None:
        """Contracts and permissions, before anything runs."""
        self.check_copies(plan)
        check_plan(self.knowledge.tools, plan, " ".join(plan.conversation or [request.text]))
        self._check_scope(plan, request, self.knowledge.tools)
        if not self.may_write(plan, request.user):
            raise InputError(
                f"you may not run writes in environment {plan.environment}; ask a maintainer to add you",
                message_zh=f"你没有在 {plan.environment} 环境执行写操作的权限,请联系维护者",
                code=FORBIDDEN,
            )

    @staticmethod
    def _check_scope(plan: Plan, request: Request, tools: dict[str, Any]) -> None:
        scope = request.scope
        if scope is None:
            return
        if scope.packs is not None and plan.pack not in scope.packs:
            allowed = ", ".join(scope.packs) or "none"
            raise InputError(
                f"this request needs pack {plan.pack}; here only these packs are allowed: {allowed}",
                message_zh=f"该请求需要知识包 {plan.pack},此处只允许: {allowed}", code=FORBIDDEN)
        if scope.environments is not None and plan.environment not in scope.environments:
            allowed = ", ".join(scope.environments) or "none"
            raise InputError(
                f"environment {plan.environment} is not allowed here; allowed: {allowed} (name one in the request)",
                message_zh=f"此处不允许环境 {plan.environment},可用: {allowed}(请在请求里指明环境)", code=FORBIDDEN)
        if scope.may_write is False and any(s.tool_name in tools and tools[s.tool_name].side_effects
                                            for s in plan.steps):
            raise InputError("this plan writes, and here only reads are allowed",
                             message_zh="该计划包含写操作,此处只允许读", code=FORBIDDEN)

    def may_write(self, plan: Plan, user: str | None) -> bool:
        """Whether `user` may run this plan's writes in its environment (its `allowed_users`)."""
        env = self.knowledge.environment(plan.pack or "", plan.environment or "")
        writes = any(self.knowledge.tools[s.tool_name].side_effects for s in plan.steps if s.tool_name in self.knowledge.tools)
        return not (env and env.allowed_users is not None and writes and user not in env.allowed_users)

    def plan_writes(self, plan: Plan) -> bool:
        """Whether a step of the plan that will run has side effects."""
        return any(self.knowledge.tools[s.tool_name].side_effects for s in plan.steps
                   if s.tool_name in self.knowledge.tools and not s.skipped)

    def needs_confirmation(self, plan: Plan) -> bool:
        env = self.knowledge.environment(plan.pack or "", plan.environment or "")
        return bool(env and env.confirm and any(self.knowledge.tools[s.tool_name].side_effects for s in plan.steps))

    async def handle(self, request: Request, *, execute: bool = True, confirmed: bool = False,
                     progress: Progress | None = None, on_wait: OnWait | None = None,
                     run_id: str | None = None, on_copy: CopyProgress | None = None,
                     confirm_copies_above: int | None = None) -> RunReport:
        """Plan a request and, when asked, run it. Never raises for expected failures: the report
        carries an error with a code and the trace_id. A plan with copies runs each copy as a run
        of its own (`run_id` names a single run only); `confirm_copies_above` (the bot) makes a
        larger batch wait for a confirmation as a `confirm: true` environment does."""
        trace_id = uuid.uuid4().hex
        start = time.perf_counter()
        try:
            plan, cache, usage = await self.aplan(request, on_wait=on_wait)
        except DatasmithError as exc:
            log.info("trace %s: %s", trace_id, exc)
            return self._record(self._report(request, trace_id, start, error=exc))
        if plan.status != "planned" or not execute:
            error = None
            if plan.status == "planned":
                try:
                    self.check_copies(plan)
                except LimitError as exc:
                    error = exc
            return self._record(self._report(request, trace_id, start, plan=plan, error=error), cache, usage)
        report = await self.execute(request, plan, confirmed=confirmed, progress=progress, trace_id=trace_id,
                                    start=start, run_id=run_id, on_copy=on_copy,
                                    confirm_copies_above=confirm_copies_above)
        return self._record(report, cache, usage)

    def _record(self, report: RunReport, cache: str | None = None, usage: LLMUsage | None = None) -> RunReport:
        """Every handled request is a row in the RunStore (monitoring), whatever its outcome."""
        report.cache, report.usage = cache, usage  # type: ignore[assignment]
        plan, run, req = report.plan, report.run, report.request
        text = req.text
        if plan is not None:
            _, text, _ = split_secrets(plan, self.knowledge.tools, req.text)
        status = run.status if run else ("error" if report.error else plan.status if plan else "error")
        u = usage or LLMUsage()
        try:
            self.store.record_request(RequestRecord(
                trace_id=report.trace_id, user=req.user, surface=req.surface, channel=req.channel, text=text,
                status=status, rule=plan.rule if plan else None, tool=plan.tool if plan else None,
                environment=plan.environment if plan else None, planner=plan.planner if plan else None,
                fallback=plan.fallback if plan else None, cache=cache, llm_calls=u.calls,
                prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens, cost_usd=u.cost_usd,
                llm_output=u.output_mode,
                latency_ms=report.latency_ms, error_code=report.error.code if report.error else None,
                run_id=run.run_id if run else None))
        except Exception:  # noqa: BLE001 - monitoring must never fail a request
            log.exception("trace %s: request not recorded", report.trace_id)
        return report

    async def execute(self, request: Request, plan: Plan, *, confirmed: bool = False,
                      progress: Progress | None = None, trace_id: str | None = None,
                      start: float | None = None, run_id: str | None = None, on_copy: CopyProgress | None = None,
                      confirm_copies_above: int | None = None) -> RunReport:
        """Gate and run a plan already made (e.g. the one a user confirmed, exactly as shown); a
        plan with copies runs them, at most `copies_parallel` at once, and answers every run."""
        trace_id = trace_id or uuid.uuid4().hex
        start = time.perf_counter() if start is None else start
        try:
            self.gate(plan, request)
            if not confirmed and (question := self._confirmation(plan, confirm_copies_above)):
                plan.question = question
                return self._report(request, trace_id, start, plan=plan)
            self.services.ensure(plan.pack)
            from core.tools import ToolRegistry  # httpx and the bindings: only what runs loads them

            async with ToolRegistry(self.knowledge, self.settings.pack_environ) as tools:
                if plan.copies > 1:
                    async def run_one(copy: Plan, copy_run_id: str) -> RunRecord:
                        executor = Executor(self.knowledge, tools, self.store, self.policy, progress)
                        return await executor.run(request, copy, trace_id=trace_id, run_id=copy_run_id)

                    runs = await run_copies(plan, self.settings.copies_parallel, run_one, on_copy)
                    return self._report(request, trace_id, start, plan=plan, run=representative(runs), runs=runs)
                executor = Executor(self.knowledge, tools, self.store, self.policy, progress)
                run = await executor.run(request, plan, trace_id=trace_id, run_id=run_id)
            return self._report(request, trace_id, start, plan=plan, run=run)
        except DatasmithError as exc:
            log.info("trace %s: %s", trace_id, exc)
            return self._report(request, trace_id, start, plan=plan, error=exc)

    def _confirmation(self, plan: Plan, copies_above: int | None) -> str | None:
        """The question a plan waits on before it runs: writes in a `confirm: true` environment,
        or (where the surface asks for it) more copies than `copies_above`."""
        many = copies_above is not None and plan.copies > copies_above
        if not self.needs_confirmation(plan) and not many:
            return None
        n = plan.copies
        zh = (f"环境 {plan.environment} 需要确认后才会执行写操作。" if self.needs_confirmation(plan) else "") + \
            (f"将运行 {n} 份(每份一次独立的运行)。" if n > 1 else "") + "确认执行吗?"
        en = (f"Environment {plan.environment} needs a confirmation before writes. " if self.needs_confirmation(plan)
              else "") + (f"This makes {n} copies ({n} runs of their own). " if n > 1 else "") + \
            ("Run them?" if n > 1 else "Run it?")
        return f"{zh} / {en}"

    async def resume(self, run_id: str, action: ResumeAction, *, by: str | None = None,
                     progress: Progress | None = None, force: bool = False) -> RunReport:
        trace_id = uuid.uuid4().hex
        start = time.perf_counter()
        try:
            previous = self.store.get(run_id)
            if action != "abort" and not self.may_write(previous.plan, by or previous.request.user):
                # permissions hold for whoever resumes (arguments are checked again before each call)
                raise InputError(f"you may not run writes in environment {previous.plan.environment}",
                                 message_zh=f"你没有在 {previous.plan.environment} 环境执行写操作的权限",
                                 code=FORBIDDEN)
            self.services.ensure(previous.plan.pack)
            from core.tools import ToolRegistry

            async with ToolRegistry(self.knowledge, self.settings.pack_environ) as tools:
                executor = Executor(self.knowledge, tools, self.store, self.policy, progress)
                run = await executor.resume(run_id, action, by=by, force=force)
            return self._report(run.request, run.trace_id, start, plan=run.plan, run=run)
        except DatasmithError as exc:
            return self._report(Request(text=""), trace_id, start, error=exc)

    @staticmethod
    def _report(request: Request, trace_id: str, start: float, *, plan: Plan | None = None, run: Any = None,
                error: DatasmithError | None = None, runs: list[RunRecord] | None = None) -> RunReport:
        info = error_info(error, trace_id) if error else (run.error if run is not None else None)
        return RunReport(request=request, plan=plan, run=run, error=info, trace_id=trace_id,
                         latency_ms=(time.perf_counter() - start) * 1000, runs=runs or [])
