"""The one entry point every surface uses: `Assistant.handle(Request) -> RunReport`.

The pipeline reads top to bottom: check input → retrieve → plan → gate → execute → report.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from typing import Any

from core.contracts import check_plan
from core.embedders import make_embedder
from core.errors import EMPTY_REQUEST, FORBIDDEN, REQUEST_TOO_LONG, DatasmithError, InputError
from core.execution import Executor, Progress, ResumeAction, RetryPolicy, error_info
from core.knowledge import Knowledge, load_knowledge
from core.models import Plan, Request, RetrievalHit, RunReport
from core.planning import Planner, RulePlanner
from core.planning.text import normalize
from core.retrieval import KnowledgeIndex
from core.runstore import RunStore
from core.services import LocalServices
from core.settings import Settings
from core.tools import ToolRegistry

log = logging.getLogger("datasmith")


class Assistant:
    """Knowledge, index, planner, RunStore and tools behind one facade."""

    def __init__(self, settings: Settings, knowledge: Knowledge, *, index: KnowledgeIndex | None = None,
                 planner: Planner | None = None, store: RunStore | None = None) -> None:
        self.settings = settings
        self.knowledge = knowledge
        self.index = index
        self.planner: Planner = planner or RulePlanner(knowledge, default_environment=settings.env)
        self.store = store or RunStore(settings.runstore_path)
        self.services = LocalServices(knowledge, settings.environ, settings.home)
        self.policy = RetryPolicy(settings.max_attempts, settings.backoff_base_s, settings.backoff_max_s,
                                  settings.default_timeout_s)
        self.recovered = self.store.recover()  # runs a dead process left in flight become `interrupted`
        for run_id in self.recovered:
            log.warning("run %s was in flight when the last process stopped: marked interrupted", run_id)

    @classmethod
    def from_settings(cls, settings: Settings, *, with_index: bool = True) -> Assistant:
        knowledge = load_knowledge(settings.knowledge)
        index = None
        if with_index:
            index = KnowledgeIndex(settings.index_dir, make_embedder(settings.embedder))
            index.refresh(knowledge)
        return cls(settings, knowledge, index=index)

    def close(self) -> None:
        self.services.close()
        self.store.close()

    # ------------------------------------------------------------------ the pipeline

    def check_input(self, request: Request) -> None:
        text = normalize(request.text)
        if not text:
            raise InputError("the request is empty: say what data you need, e.g. an order in a given state",
                             message_zh="请求为空:请说明需要造什么数据,例如某个状态的订单", code=EMPTY_REQUEST)
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
        return self.planner.plan(request, hits or None)

    def gate(self, plan: Plan, request: Request) -> None:
        """Contracts and permissions, before anything runs."""
        check_plan(self.knowledge.tools, plan)
        self._check_scope(plan, request)
        env = self.knowledge.environment(plan.pack or "", plan.environment or "")
        writes = any(self.knowledge.tools[s.tool_name].side_effects for s in plan.steps)
        if env and env.allowed_users is not None and writes and request.user not in env.allowed_users:
            raise InputError(
                f"you may not run writes in environment {plan.environment}; ask a maintainer to add you",
                message_zh=f"你没有在 {plan.environment} 环境执行写操作的权限,请联系维护者",
                code=FORBIDDEN,
            )

    @staticmethod
    def _check_scope(plan: Plan, request: Request) -> None:
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

    def needs_confirmation(self, plan: Plan) -> bool:
        env = self.knowledge.environment(plan.pack or "", plan.environment or "")
        return bool(env and env.confirm and any(self.knowledge.tools[s.tool_name].side_effects for s in plan.steps))

    async def handle(self, request: Request, *, execute: bool = True, confirmed: bool = False,
                     progress: Progress | None = None) -> RunReport:
        """Plan a request and, when asked, run it. Never raises for expected failures: the report
        carries an error with a code and the trace_id."""
        trace_id = uuid.uuid4().hex
        start = time.perf_counter()
        try:
            plan = self.plan(request)
        except DatasmithError as exc:
            log.info("trace %s: %s", trace_id, exc)
            return self._report(request, trace_id, start, error=exc)
        if plan.status != "planned" or not execute:
            return self._report(request, trace_id, start, plan=plan)
        return await self.execute(request, plan, confirmed=confirmed, progress=progress,
                                  trace_id=trace_id, start=start)

    async def execute(self, request: Request, plan: Plan, *, confirmed: bool = False,
                      progress: Progress | None = None, trace_id: str | None = None,
                      start: float | None = None) -> RunReport:
        """Gate and run a plan already made (e.g. the one a user confirmed, exactly as shown)."""
        trace_id = trace_id or uuid.uuid4().hex
        start = time.perf_counter() if start is None else start
        try:
            self.gate(plan, request)
            if self.needs_confirmation(plan) and not confirmed:
                plan.question = (f"环境 {plan.environment} 需要确认后才会执行写操作。确认执行吗?"
                                 f" / Environment {plan.environment} needs a confirmation before writes. Run it?")
                return self._report(request, trace_id, start, plan=plan)
            self.services.ensure(plan.pack)
            async with ToolRegistry(self.knowledge, self.settings.environ) as tools:
                executor = Executor(self.knowledge, tools, self.store, self.policy, progress)
                run = await executor.run(request, plan, trace_id=trace_id)
            return self._report(request, trace_id, start, plan=plan, run=run)
        except DatasmithError as exc:
            log.info("trace %s: %s", trace_id, exc)
            return self._report(request, trace_id, start, plan=plan, error=exc)

    async def resume(self, run_id: str, action: ResumeAction, *, by: str | None = None,
                     progress: Progress | None = None) -> RunReport:
        trace_id = uuid.uuid4().hex
        start = time.perf_counter()
        try:
            previous = self.store.get(run_id)
            self.services.ensure(previous.plan.pack)
            async with ToolRegistry(self.knowledge, self.settings.environ) as tools:
                executor = Executor(self.knowledge, tools, self.store, self.policy, progress)
                run = await executor.resume(run_id, action, by=by)
            return self._report(run.request, run.trace_id, start, plan=run.plan, run=run)
        except DatasmithError as exc:
            return self._report(Request(text=""), trace_id, start, error=exc)

    @staticmethod
    def _report(request: Request, trace_id: str, start: float, *, plan: Plan | None = None, run: Any = None,
                error: DatasmithError | None = None) -> RunReport:
        info = error_info(error, trace_id) if error else (run.error if run is not None else None)
        return RunReport(request=request, plan=plan, run=run, error=info, trace_id=trace_id,
                         latency_ms=(time.perf_counter() - start) * 1000)
