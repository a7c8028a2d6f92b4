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
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from core.contracts import (
    REDACTED,
    check_arguments,
    check_output,
    redact,
    restore_secrets,
    scrub,
    split_secrets,
)
from core.dag import Countdown
from core.errors import (
    ABORTED,
    NOT_REACHED,
    OUTCOME_UNKNOWN,
    STEP_LEFT_UNRUN,
    DatasmithError,
    InternalError,
    RunStateError,
    TransientToolError,
)
from core.expressions import condition_holds, search
from core.knowledge import Knowledge
from core.models import (
    TERMINAL_RUN,
    ErrorInfo,
    Plan,
    PlanStep,
    Request,
    RunRecord,
    StepId,
    StepRef,
    StepRun,
    readable_deep,
    utcnow,
)
from core.runstore import RunStore, StepChange

if TYPE_CHECKING:  # the bindings (httpx) are loaded by whoever invokes tools, not by planning
    from core.tools.base import Target

Progress = Callable[[RunRecord, StepRun], Awaitable[None] | None]
SECRETS = "__secrets__"  # the vars key of a run's PII arguments
DONE = frozenset({"succeeded", "skipped"})
log = logging.getLogger(__name__)
ResumeAction = Literal["retry", "skip", "abort"]
SKIPPED_BY = "skipped by"  # a step a human skipped at a breakpoint (the run cannot confirm its goal)


class Invoker:
    """What the executor needs from the tool registry (a seam for tests)."""

    async def invoke(self, tool: Any, arguments: dict[str, Any], target: Target,
                     idempotency_key: str | None = None) -> Any: ...  # pragma: no cover

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


def new_run(request: Request, plan: Plan, *, trace_id: str | None = None, run_id: str | None = None) -> RunRecord:
    return RunRecord(run_id=run_id or uuid.uuid4().hex[:12], trace_id=trace_id or uuid.uuid4().hex, request=request,
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
        # each run's PII values: scrubbed from whatever any step returns or is given (a tool may echo
        # a buyer's national id that only another tool declares as PII)
        self._secrets: dict[str, frozenset[str]] = {}

    # ------------------------------------------------------------------ public

    async def run(self, request: Request, plan: Plan, *, trace_id: str | None = None,
                  run_id: str | None = None) -> RunRecord:
        """Record a new run for `plan` and execute it to an end or a breakpoint; `run_id` when the
        caller named it before (the HTTP API answers 202 with it while the run goes on)."""
        run = new_run(request, plan, trace_id=trace_id, run_id=run_id)
        run.status = "running"  # recorded as running from its first write: recover() treats both alike
        stored_plan, stored_text, secrets = split_secrets(plan, self.kn.tools, request.text)
        self._remember(run.run_id, secrets)
        stored_request = request.model_copy(update={"text": stored_text, "previous": None})
        # PII arguments a resumed run will need are kept as a var, dropped with the others at the end
        self.store.create_run(run.model_copy(update={"plan": stored_plan, "request": stored_request}),
                              created={"rule": plan.rule, "tool": plan.tool}, keep={SECRETS: secrets} if secrets else None)
        return await self._execute(run, {}, fresh=True)

    async def resume(self, run_id: str, action: ResumeAction, *, by: str | None = None,
                     force: bool = False) -> RunRecord:
        """Continue a paused or interrupted run: retry the stopped steps, skip them, or abort.
        A write whose outcome is unknown (the process stopped during its call, or it timed out)
        and whose tool is not idempotent is retried only with `force`: it may have happened."""
        run = self.store.get(run_id)
        if run.status not in ("paused", "interrupted"):
            raise RunStateError(f"run {run_id} is {run.status}; only paused or interrupted runs can be resumed",
                                message_zh=f"运行 {run_id} 状态为 {run.status},只有暂停或中断的运行可以继续")
        stopped = [s for s in run.steps if s.status in ("paused", "interrupted", "running")]
        if action == "retry" and not force and (unsure := self.unsure(run)):
            names = ", ".join(f"step {s.step_id} ({s.tool_name})" for s in unsure)
            raise RunStateError(
                f"{names} may already have happened (its call was cut off) and repeating it is not known to be "
                f"safe; check the system, then retry with force, skip it if it happened, or abort",
                message_zh=f"{names} 可能已经执行(调用被中断),重复执行不确定是否安全;请先核实,再强制重试、跳过或中止",
                code=OUTCOME_UNKNOWN)
        if not self.store.take_over(run_id, run.status):  # two clicks, two replicas: one resume wins
            raise RunStateError(f"run {run_id} is already being resumed (another click or another replica)",
                                message_zh=f"运行 {run_id} 已在别处被继续(重复点击或另一个副本)")
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
                step.status, step.skip_reason, step.ended_at = "skipped", f"{SKIPPED_BY} {by or 'a user'}", utcnow()
            else:
                step.status, step.error = "pending", None
            self.store.update_step(run_id, step)
            if action == "skip":
                await self._notify(run, step)
        run.error = None
        outputs = self.store.load_vars(run_id)
        kept = outputs.pop(SECRETS, [])
        restore_secrets(run.plan, kept)
        self._remember(run_id, kept)
        self._check_kept(run, outputs)
        return await self._execute(run, outputs)

    def _remember(self, run_id: str, secrets: list[list[Any]]) -> None:
        values = frozenset(str(v) for _, _, v in secrets if len(str(v)) >= 4)
        if values:
            self._secrets[run_id] = values

    def _private(self, run_id: str, value: Any, fields: frozenset[str]) -> Any:
        return scrub(redact(value, fields), self._secrets.get(run_id, frozenset()))

    @staticmethod
    def _check_kept(run: RunRecord, outputs: dict[StepId, Any]) -> None:
        """A resume needs what the run kept: its PII arguments and the outputs later steps read."""
        done = {s.step_id for s in run.steps if s.status == "succeeded"}
        read = {v.from_step for s in run.plan.steps for v in s.arguments.values() if isinstance(v, StepRef)}
        lost = any(v == REDACTED for s in run.plan.steps for v in s.arguments.values()) or bool(
            (done & read) - set(outputs))
        if lost:
            raise RunStateError(
                f"run {run.run_id} can no longer be resumed: the values it kept for that (personal data, earlier "
                "outputs) have expired; ask again for a new run",
                message_zh=f"运行 {run.run_id} 已无法继续:为恢复保留的数据(个人信息、前面步骤的输出)已过期,请重新发起")

    def unsure(self, run: RunRecord) -> list[StepRun]:
        """Stopped writes that may have happened and that a repeat could duplicate."""
        out = []
        for step in run.steps:
            tool = self.kn.tools.get(step.tool_name)
            cut_off = step.status in ("interrupted", "running") or (
                step.status == "paused" and step.error is not None and step.error.code == OUTCOME_UNKNOWN)
            if cut_off and tool is not None and not self.kn.idempotent(tool):
                out.append(step)
        return out

    # ------------------------------------------------------------------ the loop

    async def _execute(self, run: RunRecord, outputs: dict[StepId, Any], *, fresh: bool = False) -> RunRecord:
        if not fresh:  # a resumed run: running again, driven by this process
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
        countdown = Countdown({sid: ps.dependencies for sid, ps in plan_steps.items()},
                              done={sid for sid, s in state.items() if s.status in DONE},
                              eligible={sid for sid, s in state.items() if s.status == "pending"})
        running: dict[asyncio.Task[StepChange], StepId] = {}
        changes: list[StepChange] = []  # ended, skipped and starting steps not yet in the RunStore
        stop = False
        try:
            while True:
                starting, stop = self._admit(run, countdown, plan_steps, state, outputs, changes, stop)
                if changes:
                    # What ended since the last wake and what it released: one RunStore transaction,
                    # committed before any of the released calls begins (one commit per DAG layer).
                    recorded, changes = changes, []
                    self.store.steps_changed(run.run_id, recorded)
                    for change in recorded:
                        await self._notify(run, change.step)
                for ps, step, args in starting:
                    running[asyncio.create_task(self._call(run, ps, step, args, outputs, target))] = ps.step_id
                if not running:
                    break
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    sid = running.pop(task)
                    changes.append(task.result())
                    if state[sid].status in DONE:
                        countdown.release(sid)
                    else:
                        stop = True  # a breakpoint or failure: no new writes until a human decides
        finally:
            for task in running:  # cancelled mid-run: no call outlives its run
                task.cancel()
            if changes:  # steps that ended beside one that hit a bug of ours: recorded, not lost
                self.store.steps_changed(run.run_id, changes)
        self._conclude(run)

    def _admit(self, run: RunRecord, countdown: Countdown[StepId], plan_steps: dict[StepId, PlanStep],
               state: dict[StepId, StepRun], outputs: dict[StepId, Any], changes: list[StepChange],
               stop: bool) -> tuple[list[tuple[PlanStep, StepRun, dict[str, Any]]], bool]:
        """Take the ready steps: skip, fail on a broken contract, or prepare to start (no I/O)."""
        starting: list[tuple[PlanStep, StepRun, dict[str, Any]]] = []
        while countdown.ready and not stop:
            sid = countdown.ready.popleft()
            if reason := self._skip_reason(run, plan_steps[sid], state, outputs):
                changes.append(self._skipped(state[sid], reason))
                countdown.release(sid)
                continue
            prepared = self._prepare(run, plan_steps[sid], state[sid], outputs)
            if isinstance(prepared, ErrorInfo):  # arguments broke the contract: never called
                changes.append(self._ended(state[sid], "failed", error=prepared))
                stop = True
                continue
            starting.append((plan_steps[sid], state[sid], prepared))
            changes.append(StepChange(state[sid], "step_started", {"arguments": state[sid].arguments}))
        return starting, stop

    def _conclude(self, run: RunRecord) -> None:
        statuses = {s.status for s in run.steps}
        if "failed" in statuses:
            run.status = "failed"
            run.error = next(s for s in run.steps if s.status == "failed").error
        elif "paused" in statuses:
            run.status = "paused"
            run.error = next(s for s in run.steps if s.status == "paused").error
        elif statuses <= DONE and (by_hand := [s for s in run.steps if (s.skip_reason or "").startswith(SKIPPED_BY)]):
            run.status, run.error = "partial", self._not_reached(run, by_hand)
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

    @staticmethod
    def _skipped(step: StepRun, reason: str) -> StepChange:
        step.status, step.skip_reason, step.ended_at = "skipped", reason, utcnow()
        return StepChange(step, "step_skipped", {"reason": reason})

    async def _notify(self, run: RunRecord, step: StepRun) -> None:
        if self.progress is None:
            return
        try:  # showing progress must never fail the run it shows (a closed pipe, a chat API down)
            result = self.progress(run, step)
            if asyncio.iscoroutine(result):
                await result
        except Exception:  # noqa: BLE001
            log.warning("run %s: progress not shown", run.run_id, exc_info=True)

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
            step.arguments = self._private(run.run_id, args, frozenset(tool.pii))
            check_arguments(tool, args, step_id=ps.step_id)
        except DatasmithError as exc:
            return error_info(exc, run.trace_id)
        return args

    async def _call(self, run: RunRecord, ps: PlanStep, step: StepRun, args: dict[str, Any],
                    outputs: dict[StepId, Any], target: Target) -> StepChange:
        """Call a started step's tool: retries, timeout, output contract, breakpoint."""
        tool = self.kn.tools[ps.tool_name]
        pii = frozenset(tool.pii)
        timeout = tool.timeout_s or self.policy.default_timeout_s
        for attempt in range(1, self.policy.max_attempts + 1):
            step.attempts += 1
            try:
                try:
                    async with asyncio.timeout(timeout):  # no extra task per call, unlike wait_for
                        output = readable_deep(
                            await self.tools.invoke(tool, args, target, f"{run.run_id}-{ps.step_id}"))
                except TimeoutError as exc:
                    raise TransientToolError(f"{tool.tool_name}: no answer within {timeout}s",
                                             message_zh=f"{tool.tool_name} 在 {timeout} 秒内没有响应",
                                             unknown_outcome=True) from exc
                check_output(tool, output, step_id=ps.step_id)
            except DatasmithError as exc:
                exc.step_id = ps.step_id
                info = error_info(exc, run.trace_id)
                self.store.add_event(run.run_id, "attempt_failed", ps.step_id,
                                     {"attempt": step.attempts, "code": exc.code, "message": exc.message})
                if not exc.retryable:
                    return self._ended(step, "failed", error=info)
                if getattr(exc, "unknown_outcome", False) and not self.kn.idempotent(tool):
                    # it may have happened and a repeat could do it twice: a human decides
                    info = info.model_copy(update={"code": OUTCOME_UNKNOWN, "message": (
                        f"{exc.message} - the call may have gone through, and {tool.tool_name} is not known to be "
                        "safe to repeat: check before retrying")})
                    return self._ended(step, "paused", error=info)
                if attempt == self.policy.max_attempts:
                    return self._ended(step, "paused", error=info)  # the breakpoint
                step.error = info
                self.store.update_step(run.run_id, step)
                await asyncio.sleep(self.policy.backoff(attempt))
                continue
            outputs[ps.step_id] = output
            step.output = self._private(run.run_id, output, pii)
            return self._ended(step, "succeeded", var=output)
        raise InternalError(f"max_attempts must be at least 1, not {self.policy.max_attempts}")

    @staticmethod
    def _ended(step: StepRun, status: Any, *, error: ErrorInfo | None = None, var: Any = None) -> StepChange:
        """A step's end, for the RunStore: written by the loop with whatever else changed at once."""
        step.status, step.error, step.ended_at = status, error, utcnow()
        return StepChange(step, f"step_{status}", {"attempts": step.attempts, "code": error.code if error else None},
                          var=var, save=status == "succeeded")

    def _not_reached(self, run: RunRecord, by_hand: list[StepRun]) -> ErrorInfo:
        """Why a run whose steps all ended is not `succeeded`: which step a human skipped, the goal it
        leaves unconfirmed and the last state a step did confirm (from the rule's reaches_state)."""
        rule = self.kn.rules.get(run.plan.rule or "")
        reached = None
        for step in run.steps:
            spec = rule.step(step.step_id) if rule else None
            if step.status == "succeeded" and spec is not None and spec.reaches_state is not None:
                reached = spec.reaches_state.name
        skipped = ", ".join(f"step {s.step_id} ({s.tool_name})" for s in by_hand)
        if reached is not None and reached == run.plan.target_state:  # a side step: the goal stands, its effect not
            return ErrorInfo(code=NOT_REACHED, trace_id=run.trace_id,
                             message=f"the run reached `{reached}`, but {skipped} was skipped by hand: its own effect "
                                     "is missing",
                             message_zh=f"运行已达到「{reached}」,但 {skipped} 被人工跳过:该步骤本身的效果缺失")
        goal = f"the state `{run.plan.target_state}`" if run.plan.target_state else "its goal"
        last = f"; the last state confirmed is `{reached}`" if reached else "; no step confirmed a state"
        last_zh = f";最后确认的状态是「{reached}」" if reached else ";没有步骤确认过状态"
        goal_zh = f"目标状态「{run.plan.target_state}」" if run.plan.target_state else "目标"
        return ErrorInfo(code=NOT_REACHED, trace_id=run.trace_id,
                         message=f"{skipped} was skipped by hand, so the run did not confirm {goal}{last}",
                         message_zh=f"{skipped} 被人工跳过,运行未确认达到{goal_zh}{last_zh}")

    def _finish(self, run: RunRecord) -> None:
        self.store.finish_run(run, clear_vars=run.status in TERMINAL_RUN)
        self._secrets.pop(run.run_id, None)
