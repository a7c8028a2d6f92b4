"""The executor: runs a Plan as an asyncio DAG and records every state change first.

A step starts as soon as its dependencies are done, so independent branches run together.
Arguments are resolved from earlier outputs (JMESPath); a false condition skips a step, and a
step that reads a skipped step's output is skipped too. Arguments are checked against the
tool's schema before the call and outputs against `returns` after it. Transient failures are
retried with exponential backoff; after `max_attempts` the run pauses at a breakpoint, to be
resumed with retry / skip / abort. A terminal failure stops new steps and fails the run.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from core.contracts import check_arguments, check_output, redact, restore_secrets, split_secrets
from core.errors import (
    ABORTED,
    STEP_LEFT_UNRUN,
    DatasmithError,
    InternalError,
    RunStateError,
    TransientToolError,
)
from core.expressions import condition_holds, search
from core.knowledge import Knowledge
from core.models import ErrorInfo, Plan, PlanStep, Request, RunRecord, StepId, StepRef, StepRun, utcnow
from core.runstore import RunStore
from core.tools.base import Target

Progress = Callable[[RunRecord, StepRun], Awaitable[None] | None]
SECRETS = "__secrets__"  # the vars key of a run's PII arguments
DONE = frozenset({"succeeded", "skipped"})
ResumeAction = Literal["retry", "skip", "abort"]


class Invoker:
    """What the executor needs from the tool registry (a seam for tests)."""

    async def invoke(self, tool: Any, arguments: dict[str, Any], target: Target) -> Any: ...  # pragma: no cover

    def target(self, pack: str, environment: str | None) -> Target: ...  # pragma: no cover


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    backoff_base_s: float = 0.2
    backoff_max_s: float = 5.0
    default_timeout_s: float = 30.0

    def backoff(self, attempt: int) -> float:
        return min(self.backoff_base_s * 2 ** (attempt - 1), self.backoff_max_s)


def error_info(exc: DatasmithError, trace_id: str) -> ErrorInfo:
    return ErrorInfo(code=exc.code, message=exc.message, message_zh=exc.message_zh, step_id=exc.step_id,
                     trace_id=trace_id, retryable=exc.retryable)


def new_run(request: Request, plan: Plan, *, trace_id: str | None = None) -> RunRecord:
    return RunRecord(run_id=uuid.uuid4().hex[:12], trace_id=trace_id or uuid.uuid4().hex, request=request,
                     plan=plan, steps=[StepRun(step_id=s.step_id, tool_name=s.tool_name) for s in plan.steps])


class Executor:
    """Runs plans against tools; one instance may run many plans concurrently."""

    def __init__(self, knowledge: Knowledge, tools: Invoker, store: RunStore, policy: RetryPolicy | None = None,
                 progress: Progress | None = None) -> None:
        self.kn = knowledge
        self.tools = tools
        self.store = store
        self.policy = policy or RetryPolicy()
        self.progress = progress

    # ------------------------------------------------------------------ public

    async def run(self, request: Request, plan: Plan, *, trace_id: str | None = None) -> RunRecord:
        """Record a new run for `plan` and execute it to an end or a breakpoint."""
        run = new_run(request, plan, trace_id=trace_id)
        stored_plan, stored_text, secrets = split_secrets(plan, self.kn.tools, request.text)
        stored_request = request.model_copy(update={"text": stored_text, "previous": None})
        self.store.create_run(run.model_copy(update={"plan": stored_plan, "request": stored_request}))
        if secrets:  # PII arguments a resumed run will need; dropped with the other vars at the end
            self.store.save_var(run.run_id, SECRETS, secrets)
        self.store.add_event(run.run_id, "created", data={"rule": plan.rule, "tool": plan.tool})
        return await self._execute(run, {})

    async def resume(self, run_id: str, action: ResumeAction, *, by: str | None = None) -> RunRecord:
        """Continue a paused or interrupted run: retry the stopped steps, skip them, or abort."""
        run = self.store.get(run_id)
        if run.status not in ("paused", "interrupted"):
            raise RunStateError(f"run {run_id} is {run.status}; only paused or interrupted runs can be resumed",
                                message_zh=f"运行 {run_id} 状态为 {run.status},只有暂停或中断的运行可以继续")
        stopped = [s for s in run.steps if s.status in ("paused", "interrupted", "running")]
        self.store.add_event(run_id, f"resume:{action}", data={"by": by, "steps": [s.step_id for s in stopped]})
        if action == "abort":
            for step in stopped:
                step.status, step.ended_at = "failed", utcnow()
                self.store.update_step(run_id, step)
            run.status = "aborted"
            run.error = ErrorInfo(code=ABORTED, message=f"aborted by {by or 'a user'} at a breakpoint",
                                  message_zh="已在断点处被人工终止", trace_id=run.trace_id)
            self._finish(run)
            return run
        for step in stopped:
            if action == "skip":
                step.status, step.skip_reason, step.ended_at = "skipped", f"skipped by {by or 'a user'}", utcnow()
            else:
                step.status, step.error = "pending", None
            self.store.update_step(run_id, step)
        run.error = None
        outputs = self.store.load_vars(run_id)
        restore_secrets(run.plan, outputs.pop(SECRETS, []))
        return await self._execute(run, outputs)

    # ------------------------------------------------------------------ the loop

    async def _execute(self, run: RunRecord, outputs: dict[StepId, Any]) -> RunRecord:
        run.status = "running"
        self.store.update_run(run)
        try:
            await self._drive(run, outputs)
        except asyncio.CancelledError:
            run.status = "interrupted"
            for step in run.steps:
                if step.status == "running":
                    step.status = "interrupted"
                    self.store.update_step(run.run_id, step)
            self.store.update_run(run)
            raise
        except DatasmithError as exc:
            run.status, run.error = "failed", error_info(exc, run.trace_id)
        except Exception as exc:  # a bug of ours: the run is recorded as failed, never lost
            run.status = "failed"
            run.error = error_info(InternalError(f"internal error: {type(exc).__name__}: {exc}"), run.trace_id)
            self._finish(run)
            raise
        self._finish(run)
        return run

    async def _drive(self, run: RunRecord, outputs: dict[StepId, Any]) -> None:
        """Event-driven scheduling: a finished step releases its dependents by counting down."""
        plan_steps = {s.step_id: s for s in run.plan.steps}
        state = {s.step_id: s for s in run.steps}
        target = self.tools.target(run.plan.pack or self.kn.pack_of(run.plan.rule or run.plan.tool or ""),
                                   run.plan.environment)
        waiting = {sid: sum(state[d].status not in DONE for d in ps.dependencies) for sid, ps in plan_steps.items()}
        children: dict[StepId, list[StepId]] = {sid: [] for sid in plan_steps}
        for sid, ps in plan_steps.items():
            for dep in ps.dependencies:
                children[dep].append(sid)
        ready = deque(sid for sid in plan_steps if state[sid].status == "pending" and waiting[sid] == 0)
        running: dict[asyncio.Task[None], StepId] = {}
        stop = False

        def release(sid: StepId) -> None:
            for child in children[sid]:
                waiting[child] -= 1
                if waiting[child] == 0 and state[child].status == "pending":
                    ready.append(child)

        while True:
            batch: list[tuple[PlanStep, StepRun, dict[str, Any]]] = []
            while ready and not stop:
                sid = ready.popleft()
                reason = self._skip_reason(run, plan_steps[sid], state, outputs)
                if reason:
                    await self._skip(run, state[sid], reason)
                    release(sid)
                    continue
                prepared = self._prepare(run, plan_steps[sid], state[sid], outputs)
                if isinstance(prepared, ErrorInfo):  # arguments broke the contract: never called
                    await self._end(run, state[sid], "failed", error=prepared)
                    stop = True
                    continue
                batch.append((plan_steps[sid], state[sid], prepared))
            if batch:
                # Steps released together start together: one RunStore transaction records them all
                # before any is called, so their calls begin at once instead of one write apart.
                self.store.steps_started(run.run_id, [(step, {"arguments": step.arguments}) for _, step, _ in batch])
                for ps, step, args in batch:
                    await self._notify(run, step)
                    running[asyncio.create_task(self._call(run, ps, step, args, outputs, target))] = ps.step_id
            if not running:
                break
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                sid = running.pop(task)
                task.result()
                if state[sid].status in DONE:
                    release(sid)
                else:
                    stop = True  # a breakpoint or failure: no new writes until a human decides
        self._conclude(run)

    @staticmethod
    def _conclude(run: RunRecord) -> None:
        statuses = {s.status for s in run.steps}
        if "failed" in statuses:
            run.status = "failed"
            run.error = next(s for s in run.steps if s.status == "failed").error
        elif "paused" in statuses:
            run.status = "paused"
            run.error = next(s for s in run.steps if s.status == "paused").error
        elif statuses <= DONE:
            run.status = "succeeded"
        else:
            run.status = "failed"
            run.error = ErrorInfo(code=STEP_LEFT_UNRUN, message="steps were left unrun", trace_id=run.trace_id)

    def _skip_reason(self, run: RunRecord, ps: PlanStep, state: dict[StepId, StepRun],
                     outputs: dict[StepId, Any]) -> str | None:
        for value in ps.arguments.values():
            if isinstance(value, StepRef) and state[value.from_step].status == "skipped":
                return f"reads the output of skipped step {value.from_step}"
        if ps.condition:
            context = {"query": run.plan.known,
                       "defaults": self.kn.defaults_for(run.plan.pack or "", run.plan.environment),
                       "steps": {str(k): v for k, v in outputs.items()}}
            if not condition_holds(ps.condition, context):
                return f"condition {ps.condition!r} is false"
        return None

    async def _skip(self, run: RunRecord, step: StepRun, reason: str) -> None:
        step.status, step.skip_reason, step.ended_at = "skipped", reason, utcnow()
        self.store.step_changed(run.run_id, step, "step_skipped", {"reason": reason})
        await self._notify(run, step)

    async def _notify(self, run: RunRecord, step: StepRun) -> None:
        if self.progress is not None:
            result = self.progress(run, step)
            if asyncio.iscoroutine(result):
                await result

    # ------------------------------------------------------------------ one step

    def _prepare(self, run: RunRecord, ps: PlanStep, step: StepRun,
                 outputs: dict[StepId, Any]) -> dict[str, Any] | ErrorInfo:
        """Resolve a step's arguments and check them against its tool's schema (no I/O)."""
        tool = self.kn.tools[ps.tool_name]
        step.status, step.started_at, step.error = "running", utcnow(), None
        try:
            args = {k: (search(v.path, outputs.get(v.from_step)) if isinstance(v, StepRef) else v)
                    for k, v in ps.arguments.items()}
            args = {k: v for k, v in args.items() if v is not None}
            step.arguments = redact(args, frozenset(tool.pii))
            check_arguments(tool, args, step_id=ps.step_id)
        except DatasmithError as exc:
            return error_info(exc, run.trace_id)
        return args

    async def _call(self, run: RunRecord, ps: PlanStep, step: StepRun, args: dict[str, Any],
                    outputs: dict[StepId, Any], target: Target) -> None:
        """Call a started step's tool: retries, timeout, output contract, breakpoint."""
        tool = self.kn.tools[ps.tool_name]
        pii = frozenset(tool.pii)
        timeout = tool.timeout_s or self.policy.default_timeout_s
        for attempt in range(1, self.policy.max_attempts + 1):
            step.attempts += 1
            try:
                try:
                    async with asyncio.timeout(timeout):  # no extra task per call, unlike wait_for
                        output = await self.tools.invoke(tool, args, target)
                except TimeoutError as exc:
                    raise TransientToolError(f"{tool.tool_name}: no answer within {timeout}s",
                                             message_zh=f"{tool.tool_name} 在 {timeout} 秒内没有响应") from exc
                check_output(tool, output, step_id=ps.step_id)
            except DatasmithError as exc:
                exc.step_id = ps.step_id
                info = error_info(exc, run.trace_id)
                self.store.add_event(run.run_id, "attempt_failed", ps.step_id,
                                     {"attempt": step.attempts, "code": exc.code, "message": exc.message})
                if not exc.retryable:
                    return await self._end(run, step, "failed", error=info)
                if attempt == self.policy.max_attempts:
                    return await self._end(run, step, "paused", error=info)  # the breakpoint
                step.error = info
                self.store.update_step(run.run_id, step)
                await asyncio.sleep(self.policy.backoff(attempt))
                continue
            outputs[ps.step_id] = output
            step.output = redact(output, pii)
            return await self._end(run, step, "succeeded", var=output)

    async def _end(self, run: RunRecord, step: StepRun, status: Any, *, error: ErrorInfo | None = None,
                   var: Any = None) -> None:
        step.status, step.error, step.ended_at = status, error, utcnow()
        self.store.step_changed(run.run_id, step, f"step_{status}",
                                {"attempts": step.attempts, "code": error.code if error else None},
                                var=var, save=status == "succeeded")
        await self._notify(run, step)

    def _finish(self, run: RunRecord) -> None:
        self.store.update_run(run)
        self.store.add_event(run.run_id, f"run_{run.status}", data={"error": run.error.code if run.error else None})
        if run.status in ("succeeded", "failed", "aborted"):
            self.store.clear_vars(run.run_id)
