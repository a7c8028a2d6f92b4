"""A Python client of datasmith for test suites and CI jobs: `Datasmith` (sync) and
`AsyncDatasmith` over the HTTP API, `InProcess` over a local Assistant, one typed `Answer`.

    from core.client import Datasmith
    with Datasmith("http://127.0.0.1:8080", token="ci.s3cret") as ds:
        order_id = ds.ask("一笔已发货的订单", item_id=123456).outputs["order_id"]

Every call carries an Idempotency-Key that its retries (network errors, 429, 503, a key still
in progress) repeat, so a retried ask never makes a second order; a 202 is polled to its end.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from core.assistant import Assistant
    from core.settings import Settings

RETRY_STATUSES = (409, 429, 502, 503, 504)  # 409 only for DS-113 (the first call is still going)


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")

    code: str
    message: str
    message_zh: str | None = None
    retryable: bool = False


class StepResult(BaseModel):
    step_id: int | str
    tool_name: str
    status: str
    attempts: int
    output: Any = None
    error: ErrorDetail | None = None


class RunResult(BaseModel):
    run_id: str
    trace_id: str
    status: str
    steps: list[StepResult]


class Answer(BaseModel):
    """The published output object (core/schemas/ask-output.schema.json), typed."""

    model_config = ConfigDict(extra="allow")

    status: Literal["planned", "needs_input", "no_match"]
    rule: str | None
    environment: str | None
    steps: list[dict[str, Any]]
    missing: list[str]
    question: str | None
    trace_id: str
    run: RunResult | None = None
    error: ErrorDetail | None = None
    copies: int = 1  # several copies asked for ("造20笔已支付订单"): `runs` holds each copy's run
    runs: list[RunResult] = []

    @property
    def ran(self) -> list[RunResult]:
        """Every run the request made: each copy's, or the one run (none when it did not run)."""
        return self.runs or ([self.run] if self.run else [])

    @property
    def ok(self) -> bool:
        """Planned without error, and when it ran, the run (every copy's run) succeeded."""
        return self.status == "planned" and self.error is None and all(r.status == "succeeded" for r in self.ran)

    @property
    def each(self) -> list[dict[str, Any]]:
        """Every run's outputs (`outputs` of each copy, in copy order; one item for a single run)."""
        return [_merged(r) for r in self.ran]

    @property
    def outputs(self) -> dict[str, Any]:
        """Every step's output fields merged in step order (a later step's field wins); of `run`."""
        return _merged(self.run) if self.run else {}

    def step(self, tool_name: str) -> StepResult:
        if self.run is None:
            raise KeyError(f"no run: {self.status}")
        return next(s for s in self.run.steps if s.tool_name == tool_name)


def _merged(run: RunResult) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for step in run.steps:
        if isinstance(step.output, dict):
            merged.update(step.output)
    return merged


class DatasmithCallError(Exception):
    """The API said no (401, 403, 404, 409, 422, 429/503 after the retries), or an ask did not succeed."""

    def __init__(self, message: str, *, status: int | None = None, code: str | None = None,
                 answer: Answer | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.answer = status, code, answer


def with_params(text: str, params: dict[str, Any]) -> str:
    """`item_id=123456` keywords as words the planner reads (`name=value` is a pattern it knows)."""
    return " ".join([text, *(f"{k}={v}" for k, v in params.items())])


def _checked(answer: Answer) -> Answer:
    if not answer.ok:
        failed = [r for r in answer.runs if r.status != "succeeded"]
        why = answer.error.message if answer.error else answer.question or (
            f"{len(failed)} of {len(answer.runs)} copies did not succeed (first: run {failed[0].run_id} "
            f"{failed[0].status})" if failed else
            f"run {answer.run.run_id} ended {answer.run.status}" if answer.run else answer.status)
        raise DatasmithCallError(f"the ask did not succeed: {why}", code=answer.error.code if answer.error else None,
                                 answer=answer)
    return answer


def _failure(response: httpx.Response) -> DatasmithCallError:
    try:
        error = response.json().get("error") or {}
    except ValueError:
        error = {}
    return DatasmithCallError(f"HTTP {response.status_code}: {error.get('code', '')} {error.get('message', response.text)}",
                              status=response.status_code, code=error.get("code"))


def _retry_in(response: httpx.Response | None, attempt: int, backoff_s: float) -> float:
    header = response.headers.get("Retry-After") if response is not None else None
    if header and header.isdigit():
        return float(header)
    return backoff_s * 2 ** attempt


class _Calls:
    """What sync and async clients share: the bodies, the headers, when to retry."""

    def __init__(self, base_url: str, token: str | None, retries: int, backoff_s: float, poll_timeout_s: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.retries, self.backoff_s, self.poll_timeout_s = retries, backoff_s, poll_timeout_s

    @staticmethod
    def body(text: str, params: dict[str, Any], **fields: Any) -> dict[str, Any]:
        return {"text": with_params(text, params), **{k: v for k, v in fields.items() if v is not None}}

    def should_retry(self, response: httpx.Response | None, attempt: int) -> bool:
        if attempt >= self.retries:
            return False
        if response is None:
            return True
        if response.status_code == 409:
            return (response.json().get("error") or {}).get("code") == "DS-113"
        return response.status_code in RETRY_STATUSES

    def steps(self) -> Iterator[int]:
        yield from range(self.retries + 1)


class Datasmith:
    """Synchronous client of the HTTP API."""

    def __init__(self, base_url: str, token: str | None = None, *, timeout_s: float = 90.0, retries: int = 4,
                 backoff_s: float = 0.5, poll_timeout_s: float = 600.0, transport: httpx.BaseTransport | None = None):
        self._c = _Calls(base_url, token, retries, backoff_s, poll_timeout_s)
        self._http = httpx.Client(base_url=self._c.base_url, headers=self._c.headers, timeout=timeout_s,
                                  transport=transport)

    def __enter__(self) -> Datasmith:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, json: dict[str, Any] | None = None) -> httpx.Response:
        headers = {"Idempotency-Key": uuid.uuid4().hex} if method == "POST" else {}
        response: httpx.Response | None = None
        for attempt in self._c.steps():
            try:
                response = self._http.request(method, path, json=json, headers=headers)
            except httpx.TransportError:
                response = None
                if not self._c.should_retry(None, attempt):
                    raise
            else:
                if not self._c.should_retry(response, attempt):
                    break
            time.sleep(_retry_in(response, attempt, self._c.backoff_s))
        assert response is not None
        return self._finish(response)

    def _finish(self, response: httpx.Response) -> httpx.Response:
        deadline = time.monotonic() + self._c.poll_timeout_s
        while response.status_code == 202 and time.monotonic() < deadline:
            time.sleep(_retry_in(response, 0, self._c.backoff_s))
            response = self._http.get(response.headers["Location"])
        if response.status_code not in (200, 202):
            raise _failure(response)
        return response

    def plan(self, text: str, *, environment: str | None = None, planner: str | None = None,
             user: str | None = None, **params: Any) -> Answer:
        body = self._c.body(text, params, environment=environment, planner=planner, user=user)
        return Answer.model_validate(self._call("POST", "/v1/plan", body).json())

    def ask(self, text: str, *, environment: str | None = None, planner: str | None = None, user: str | None = None,
            confirmed: bool = False, wait: float = 30.0, check: bool = True, **params: Any) -> Answer:
        """Plan and run; `check` raises DatasmithCallError unless the run succeeded."""
        body = self._c.body(text, params, environment=environment, planner=planner, user=user,
                            confirmed=confirmed or None, wait=wait)
        answer = Answer.model_validate(self._call("POST", "/v1/ask", body).json())
        return _checked(answer) if check else answer

    def run(self, run_id: str) -> Answer:
        return Answer.model_validate(self._call("GET", f"/v1/runs/{run_id}").json())

    def resume(self, run_id: str, action: str, *, force: bool = False) -> Answer:
        return Answer.model_validate(self._call("POST", f"/v1/runs/{run_id}/resume",
                                                {"action": action, "force": force}).json())

    def knowledge(self) -> dict[str, Any]:
        return self._call("GET", "/v1/knowledge").json()


class AsyncDatasmith:
    """Asynchronous client of the HTTP API (same calls as `Datasmith`, awaited)."""

    def __init__(self, base_url: str, token: str | None = None, *, timeout_s: float = 90.0, retries: int = 4,
                 backoff_s: float = 0.5, poll_timeout_s: float = 600.0,
                 transport: httpx.AsyncBaseTransport | None = None):
        self._c = _Calls(base_url, token, retries, backoff_s, poll_timeout_s)
        self._http = httpx.AsyncClient(base_url=self._c.base_url, headers=self._c.headers, timeout=timeout_s,
                                       transport=transport)

    async def __aenter__(self) -> AsyncDatasmith:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _call(self, method: str, path: str, json: dict[str, Any] | None = None) -> httpx.Response:
        headers = {"Idempotency-Key": uuid.uuid4().hex} if method == "POST" else {}
        response: httpx.Response | None = None
        for attempt in self._c.steps():
            try:
                response = await self._http.request(method, path, json=json, headers=headers)
            except httpx.TransportError:
                response = None
                if not self._c.should_retry(None, attempt):
                    raise
            else:
                if not self._c.should_retry(response, attempt):
                    break
            await asyncio.sleep(_retry_in(response, attempt, self._c.backoff_s))
        assert response is not None
        deadline = time.monotonic() + self._c.poll_timeout_s
        while response.status_code == 202 and time.monotonic() < deadline:
            await asyncio.sleep(_retry_in(response, 0, self._c.backoff_s))
            response = await self._http.get(response.headers["Location"])
        if response.status_code not in (200, 202):
            raise _failure(response)
        return response

    async def plan(self, text: str, *, environment: str | None = None, planner: str | None = None,
                   user: str | None = None, **params: Any) -> Answer:
        body = self._c.body(text, params, environment=environment, planner=planner, user=user)
        return Answer.model_validate((await self._call("POST", "/v1/plan", body)).json())

    async def ask(self, text: str, *, environment: str | None = None, planner: str | None = None,
                  user: str | None = None, confirmed: bool = False, wait: float = 30.0, check: bool = True,
                  **params: Any) -> Answer:
        body = self._c.body(text, params, environment=environment, planner=planner, user=user,
                            confirmed=confirmed or None, wait=wait)
        answer = Answer.model_validate((await self._call("POST", "/v1/ask", body)).json())
        return _checked(answer) if check else answer

    async def run(self, run_id: str) -> Answer:
        return Answer.model_validate((await self._call("GET", f"/v1/runs/{run_id}")).json())


class InProcess:
    """The same calls over an Assistant in this process (no service to start): what the pytest
    fixture uses when DATASMITH_API_URL is not set."""

    def __init__(self, assistant: Assistant, *, own: bool = False) -> None:
        self.assistant = assistant
        self._own = own

    @classmethod
    def from_settings(cls, settings: Settings) -> InProcess:
        from core.assistant import Assistant

        return cls(Assistant.from_settings(settings, with_index=True), own=True)

    def close(self) -> None:
        if self._own:
            self.assistant.close()

    def _answer(self, text: str, params: dict[str, Any], *, execute: bool, confirmed: bool = False,
                **fields: Any) -> Answer:
        from core.models import Request
        from core.output_contract import checked

        request = Request(text=with_params(text, params), surface="pytest", **fields)
        report = asyncio.run(self.assistant.handle(request, execute=execute, confirmed=confirmed))
        return Answer.model_validate(checked(report.spec_json(with_run=execute)))

    def plan(self, text: str, *, environment: str | None = None, planner: Any = None, user: str | None = None,
             **params: Any) -> Answer:
        return self._answer(text, params, execute=False, environment=environment, planner=planner, user=user)

    def ask(self, text: str, *, environment: str | None = None, planner: Any = None, user: str | None = None,
            confirmed: bool = False, wait: float = 0.0, check: bool = True, **params: Any) -> Answer:
        answer = self._answer(text, params, execute=True, confirmed=confirmed, environment=environment,
                              planner=planner, user=user)
        return _checked(answer) if check else answer


def connect(settings: Settings) -> Datasmith | InProcess:
    """The API when `settings.api_url` (DATASMITH_API_URL) is set, else an in-process Assistant."""
    if settings.api_url:
        token = settings.api_token.get_secret_value() if settings.api_token else None
        return Datasmith(settings.api_url, token)
    return InProcess.from_settings(settings)
