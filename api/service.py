"""What the routes do: who calls, may they, how much, remembered how — over the one Assistant."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from api.admission import InFlight, SharedTokenBuckets, TokenBuckets, retry_after
from api.auth import ChecksThrottled
from api.config import ApiConfig, TokenSpec
from api.jobs import Answer, Job, Jobs
from api.metrics import Metrics
from api.models import Accepted, AskBody, PlanBody, ResumeBody
from api.store import ApiStore
from core.assistant import Assistant
from core.batch import Tally
from core.contracts import redact_answer
from core.errors import (
    API_BUSY,
    API_FORBIDDEN,
    API_RATE_LIMITED,
    API_UNAUTHENTICATED,
    FORBIDDEN,
    IDEMPOTENCY_CONFLICT,
    IDEMPOTENCY_IN_PROGRESS,
    RUN_NOT_FOUND,
    InputError,
)
from core.models import Request, RunReport, Scope
from core.output_contract import checked

LOCAL = "local"  # the caller's name in the open (no tokens, loopback) mode
IN_FLIGHT_STATUSES = ("pending", "running")
RESUME_ERRORS = {"DS-104": 404, "DS-105": 409, "DS-204": 403, "DS-307": 409}


class ApiFailure(Exception):
    """An answer other than the output object: the route turns it into an `ApiError` body."""

    def __init__(self, status: int, code: str, message: str, *, message_zh: str | None = None,
                 headers: dict[str, str] | None = None, trace_id: str | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.message_zh = status, code, message, message_zh
        self.headers = headers or {}
        self.trace_id = trace_id

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "message_zh": self.message_zh,
                          "retryable": self.status in (429, 503)}, "trace_id": self.trace_id}


@dataclass
class Caller:
    name: str
    token: TokenSpec | None = None

    @property
    def owner(self) -> str:
        """Stored as the request's channel: whose runs these are (GET /v1/runs lists them)."""
        return f"api:{self.name}"

    def scope(self) -> Scope | None:
        if self.token is None:
            return None
        return Scope(packs=self.token.packs, environments=self.token.environments, may_write=self.token.may_write)


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def fingerprint(route: str, body: Any) -> str:
    """What a retry must repeat: the route and the body, except how long to wait for it."""
    data = body.model_dump_json(exclude={"wait"}) if body is not None else ""
    return hashlib.sha256(f"{route}\n{data}".encode()).hexdigest()


class Service:
    def __init__(self, assistant: Assistant, config: ApiConfig, *, max_in_flight: int, auth: Any) -> None:
        self.assistant = assistant
        self.config = config
        self.auth = auth
        self.in_flight = InFlight(config.max_in_flight or max_in_flight)
        self.store = ApiStore(assistant.settings.store("api.sqlite3"))
        # replicas on one database share each token's bucket; a lone process keeps it in memory
        self.buckets: TokenBuckets | SharedTokenBuckets = (SharedTokenBuckets(self.store) if self.store.shared
                                                           else TokenBuckets())
        self.jobs = Jobs(self._finished)
        self._batches: dict[str, Tally] = {}  # asks running copies, by the id their 202 gave
        self.metrics = Metrics(lambda: self.in_flight.count, self._llm_queue)

    def close(self) -> None:
        self.store.close()

    def _llm_queue(self) -> float:
        llm = self.assistant.llm
        bucket = getattr(getattr(llm, "client", None), "bucket", None)
        return float(getattr(bucket, "_waiting", 0))

    # ------------------------------------------------------------------ who, may they, how much

    async def caller(self, authorization: str | None) -> Caller:
        if self.auth.open:
            return Caller(LOCAL)
        try:
            token = await self.auth.token(authorization)
        except ChecksThrottled as exc:  # wrong secrets for this name lately: no hashing, come back later
            self.metrics.limited.labels(exc.name).inc()
            raise ApiFailure(429, API_RATE_LIMITED, f"too many token checks for {exc.name} lately; retry in "
                             f"{exc.wait_s:.1f} s", message_zh=f"令牌 {exc.name} 校验过于频繁,请 {exc.wait_s:.1f} 秒后重试",
                             headers={"Retry-After": retry_after(exc.wait_s)}) from None
        if token is None:
            raise ApiFailure(401, API_UNAUTHENTICATED, "no valid API token: send `Authorization: Bearer NAME.SECRET`",
                             message_zh="缺少有效的 API 令牌:请求头需带 `Authorization: Bearer 名称.密钥`",
                             headers={"WWW-Authenticate": "Bearer"})
        return Caller(token.name, token)

    async def admit(self, caller: Caller) -> None:
        spec = caller.token.bucket(self.config.defaults) if caller.token else self.config.open_bucket
        wait = await self.buckets.admit(caller.name, spec)
        if wait is not None:
            self.metrics.limited.labels(caller.name).inc()
            raise ApiFailure(429, API_RATE_LIMITED,
                             f"rate limited: token {caller.name} may make {spec.capacity:g} calls at once, then "
                             f"{spec.rate_per_s:g} a second; retry in {wait:.1f} s",
                             message_zh=f"令牌 {caller.name} 限流,请 {wait:.1f} 秒后重试",
                             headers={"Retry-After": retry_after(wait)})

    def request(self, caller: Caller, body: PlanBody) -> Request:
        """The core Request for a body, after the token's own checks (what the plan shows is
        checked again by the Assistant's gate through the scope)."""
        token = caller.token
        user = body.user
        if token is not None:
            if user is not None and user != token.name and user not in token.act_as:
                raise self._forbidden(f"token {token.name} may not act as user {user!r}")
            user = user or token.name
            if body.environment and token.environments is not None and body.environment not in token.environments:
                raise self._forbidden(f"token {token.name} may not use environment {body.environment}")
            if getattr(body, "confirmed", False) and not token.may_write:
                raise self._forbidden(f"token {token.name} may not write, so it cannot confirm writes")
        return Request(text=body.text, environment=body.environment, user=user, surface="api", channel=caller.owner,
                       planner=body.planner, bypass_cache=body.no_cache, scope=caller.scope())

    @staticmethod
    def _forbidden(message: str) -> ApiFailure:
        return ApiFailure(403, API_FORBIDDEN, message, message_zh="该 API 令牌无此权限")

    # ------------------------------------------------------------------ answers

    def answer(self, report: RunReport, endpoint: str, *, with_run: bool) -> Answer:
        body = checked(report.spec_json(with_run=with_run))
        run = body.get("run")
        self.metrics.outcomes.labels(endpoint, run["status"] if run else body["status"]).inc()
        error = body.get("error")
        if error and error["code"] == FORBIDDEN:  # the gate refused what the plan would touch
            return 403, ApiFailure(403, FORBIDDEN, error["message"], message_zh=error.get("message_zh"),
                                   trace_id=body["trace_id"]).body()
        return 200, body

    def _finished(self, job: Job, answer: Answer) -> None:
        status, body = answer
        self._batches.pop(job.run_id, None)
        # Answers with one run are read back from the RunStore; a batch of copies (its id is no
        # run's) and answers without a run are kept as they were given.
        if not isinstance(body.get("run"), dict) or "runs" in body:
            self.store.save_answer(job.run_id, job.owner, status, self._stored(body))

    # ------------------------------------------------------------------ idempotency

    async def idempotent(self, caller: Caller, key: str | None, route: str, body: Any, run_id: str | None,
                         call: Callable[[], Awaitable[Reply]]) -> Reply:
        """`call` once per key: a retry gets the first answer (or the run's state now, when the
        first answer was a 202), another body under the same key a 409."""
        if not key:
            return await call()
        claim = self.store.claim(caller.name, key, fingerprint(route, body), run_id)
        if claim.outcome == "conflict":
            raise ApiFailure(409, IDEMPOTENCY_CONFLICT, "this Idempotency-Key was used with a different request",
                             message_zh="该 Idempotency-Key 已用于另一个请求")
        if claim.outcome == "done":
            if claim.status == 202 and claim.run_id:
                return self.poll(caller, claim.run_id)
            return Reply(claim.status or 200, claim.body or {}, {"Idempotent-Replayed": "true"})
        if claim.outcome == "pending":
            if claim.run_id and self._known(claim.run_id):
                return self.poll(caller, claim.run_id)
            raise ApiFailure(409, IDEMPOTENCY_IN_PROGRESS, "the first call with this Idempotency-Key is still "
                             "being answered; retry in a moment", message_zh="同一 key 的调用仍在处理,请稍后重试",
                             headers={"Retry-After": "1"})
        try:
            reply = await call()
        except ApiFailure as exc:
            if exc.status in (429, 503):  # turned away before doing anything: a retry may go through
                self.store.release(caller.name, key)
            else:
                self.store.complete(caller.name, key, exc.status, exc.body())
            raise
        except BaseException:
            self.store.release(caller.name, key)
            raise
        self.store.complete(caller.name, key, reply.status, self._stored(reply.body))
        return reply

    def _stored(self, body: dict[str, Any]) -> dict[str, Any]:
        """What the API keeps of an answer (idempotency records, final answers): redacted of PII
        as the RunStore keeps runs, so a replay or a poll shows `***` where the caller sent PII."""
        return redact_answer(body, self.assistant.knowledge.tools) if "steps" in body else body

    def _known(self, run_id: str) -> bool:
        if self.jobs.get(run_id) or self.store.answer(run_id):
            return True
        try:
            self.assistant.store.get(run_id)
        except InputError:
            return False
        return True

    # ------------------------------------------------------------------ endpoints

    async def plan(self, caller: Caller, body: PlanBody) -> Reply:
        request = self.request(caller, body)
        report = await self.assistant.handle(request, execute=False)
        status, data = self.answer(report, "plan", with_run=False)
        return Reply(status, data)

    async def ask(self, caller: Caller, body: AskBody, run_id: str) -> Reply:
        request = self.request(caller, body)
        job = self._start(caller, run_id, lambda: self._ask(request, body.confirmed, run_id))
        return await self._await(job, body.wait)

    async def _ask(self, request: Request, confirmed: bool, run_id: str) -> Answer:
        """One ask; with copies `run_id` names the batch (each copy gets a run id of its own), and
        its answer lists every run."""
        def on_copy(tally: Tally) -> None:
            self._batches[run_id] = tally

        report = await self.assistant.handle(request, confirmed=confirmed, run_id=run_id, on_copy=on_copy)
        return self.answer(report, "ask", with_run=True)

    async def resume(self, caller: Caller, run_id: str, body: ResumeBody) -> Reply:
        run = self._own_run(caller, run_id)
        if body.action != "abort" and caller.token is not None and not caller.token.may_write:
            raise self._forbidden(f"token {caller.name} may not write, so it may only abort runs")
        if (job := self.jobs.get(run_id)) is not None and not job.done:
            raise ApiFailure(409, "DS-105", f"run {run_id} is still running", message_zh=f"运行 {run_id} 仍在进行")
        by = run.request.user if caller.token is not None else None

        async def work() -> Answer:
            report = await self.assistant.resume(run_id, body.action, by=by, force=body.force)
            if report.run is None and report.error is not None:
                failure = ApiFailure(RESUME_ERRORS.get(report.error.code, 422), report.error.code,
                                     report.error.message, message_zh=report.error.message_zh,
                                     trace_id=report.trace_id)
                return failure.status, failure.body()
            return self.answer(report, "resume", with_run=True)

        job = self._start(caller, run_id, work)
        return await self._await(job, body.wait)

    def _start(self, caller: Caller, run_id: str, work: Callable[[], Awaitable[Answer]]) -> Job:
        if not self.in_flight.try_enter():
            raise ApiFailure(503, API_BUSY, f"{self.in_flight.limit} runs are in flight, the service's bound; "
                             "retry shortly", message_zh="运行中的任务已达上限,请稍后重试", headers={"Retry-After": "2"})

        def fail(exc: BaseException) -> Answer:
            trace = uuid.uuid4().hex
            return 500, {"error": {"code": "DS-500", "message": f"internal error: {type(exc).__name__}",
                                   "retryable": False}, "trace_id": trace}

        return self.jobs.start(run_id, caller.owner, work, fail, self.in_flight.leave)

    async def _await(self, job: Job, wait: float) -> Reply:
        answer = await self.jobs.wait(job, wait)
        if answer is not None:
            return Reply(*answer)
        return self._accepted(job.run_id)

    def _accepted(self, run_id: str) -> Reply:
        location = f"/v1/runs/{run_id}"
        if (tally := self._batches.get(run_id)) is not None:  # copies: how far the batch is
            body = Accepted(run_id=run_id, status="running", location=location, copies=tally.total,
                            copies_ended=tally.ended, run_ids=list(tally.copy_of)).model_dump(exclude_none=True)
            return Reply(202, body, {"Location": location, "Retry-After": "1"})
        try:
            status = self.assistant.store.get(run_id).status
        except InputError:
            status = "planning"
        body = Accepted(run_id=run_id, status=status if status in IN_FLIGHT_STATUSES else "running",
                        location=location).model_dump(exclude_none=True)
        return Reply(202, body, {"Location": location, "Retry-After": "1"})

    def poll(self, caller: Caller, run_id: str) -> Reply:
        """A run's answer: 202 while it goes on, else the output object it ended with."""
        job = self.jobs.get(run_id)
        if job is not None and not job.done:
            if job.owner != caller.owner and caller.token is not None:
                raise self._not_found(run_id)
            return self._accepted(run_id)
        try:
            run = self._own_run(caller, run_id)
        except ApiFailure:
            saved = self.store.answer(run_id)
            if saved is None or (caller.token is not None and saved[0] != caller.owner):
                raise
            return Reply(saved[1], saved[2])
        if run.status in IN_FLIGHT_STATUSES:  # driven by another process (or this one, just starting)
            return self._accepted(run_id)
        report = RunReport(request=run.request, plan=run.plan, run=run, error=run.error, trace_id=run.trace_id)
        return Reply(200, checked(report.spec_json(with_run=True)))

    def _own_run(self, caller: Caller, run_id: str) -> Any:
        try:
            run = self.assistant.store.get(run_id)
        except InputError:
            raise self._not_found(run_id) from None
        if caller.token is not None and run.request.channel != caller.owner:
            raise self._not_found(run_id)  # another token's run: not even its existence is told
        return run

    @staticmethod
    def _not_found(run_id: str) -> ApiFailure:
        return ApiFailure(404, RUN_NOT_FOUND, f"no run {run_id!r}", message_zh=f"找不到运行 {run_id!r}")
