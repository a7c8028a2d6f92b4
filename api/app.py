"""The FastAPI app: routes only; what they do is api/service.py."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from api.auth import Authenticator
from api.config import ApiConfig, load_config
from api.knowledge_view import knowledge_view
from api.metrics import MetricsMiddleware
from api.models import (
    Accepted,
    ApiError,
    AskBody,
    Health,
    KnowledgeOut,
    PlanBody,
    ResumeBody,
    RunList,
    RunSummaryOut,
    output_schema,
)
from api.service import ApiFailure, Caller, Reply, Service
from core.assistant import Assistant
from core.errors import API_BAD_REQUEST
from core.orphans import OrphanWatch
from core.settings import Settings

VERSION = "1"
DRAIN_S = 10.0


def _err(description: str) -> dict[str, Any]:
    return {"model": ApiError, "description": description}


OUTPUT = {"description": "the published output object (core/schemas/ask-output.schema.json)",
          "content": {"application/json": {"schema": output_schema()}}}
COMMON = {401: _err("DS-110: no valid token"), 422: _err("DS-114: the body breaks the request schema"),
          429: _err("DS-410: over the token's leaky bucket (Retry-After)")}
IDEMPOTENT = {409: _err("DS-112: the Idempotency-Key was used with another body; DS-113: its first call is "
                        "still being answered")}
ASK = {200: OUTPUT, 202: {"model": Accepted, "description": "still running: poll `Location`"},
       403: _err("DS-111: the token may not use this environment / pack / write; DS-204: the plan touches "
                 "what the token may not"),
       503: _err("DS-411: the bound on runs in flight is reached (Retry-After)"), **COMMON, **IDEMPOTENT}
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key", max_length=255,
                                              description="a retry with the same key gets the first answer")]
Authorization = Annotated[str | None, Header(description="Bearer NAME.SECRET (not needed in the open loopback mode)")]


def _reply(reply: Reply) -> JSONResponse:
    return JSONResponse(reply.body, status_code=reply.status, headers=reply.headers)


def create_app(settings: Settings, *, assistant: Assistant | None = None, config: ApiConfig | None = None) -> FastAPI:
    """The API over `assistant` (built from `settings` when not given; closed with the app then)."""
    config = config if config is not None else load_config(settings.api_tokens_path)
    own = assistant is None
    assistant = assistant or Assistant.from_settings(settings, with_index=True)
    service = Service(assistant, config, max_in_flight=settings.api_max_in_flight, auth=Authenticator(config))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        watch = OrphanWatch(assistant.store).start()  # a replica that died mid-run: its runs turn interrupted
        yield
        watch.stop()
        await service.jobs.drain(DRAIN_S)
        service.close()
        if own:
            assistant.close()

    app = FastAPI(title="datasmith", version=VERSION, lifespan=lifespan,
                  description="One sentence in, real test data out: plan and run requests over the knowledge packs.")
    app.state.service = service
    app.add_middleware(MetricsMiddleware, metrics=service.metrics)

    @app.exception_handler(ApiFailure)
    async def failure(_: Request, exc: ApiFailure) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        where = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
        return JSONResponse(ApiFailure(422, API_BAD_REQUEST, f"invalid request: {where}",
                                       message_zh="请求体不合法").body(), status_code=422)

    _request_routes(app, service)
    _run_routes(app, service)
    _service_routes(app, service)
    return app


async def _admitted(service: Service, authorization: str | None) -> Caller:
    caller = await service.caller(authorization)
    await service.admit(caller)
    return caller


def _request_routes(app: FastAPI, service: Service) -> None:
    @app.post("/v1/plan", responses={200: OUTPUT, 403: ASK[403], **COMMON, **IDEMPOTENT}, tags=["requests"])
    async def plan(body: PlanBody, authorization: Authorization = None,
                   idempotency_key: IdempotencyKey = None) -> JSONResponse:
        """Plan a request; executes nothing."""
        caller = await service.caller(authorization)

        async def call() -> Reply:
            await service.admit(caller)
            return await service.plan(caller, body)

        return _reply(await service.idempotent(caller, idempotency_key, "plan", body, None, call))

    @app.post("/v1/ask", responses=ASK, tags=["requests"])
    async def ask(body: AskBody, authorization: Authorization = None,
                  idempotency_key: IdempotencyKey = None) -> JSONResponse:
        """Plan and run a request. Answers when the run ends within `wait` seconds, else 202."""
        caller = await service.caller(authorization)
        run_id = uuid.uuid4().hex[:12]

        async def call() -> Reply:
            await service.admit(caller)
            return await service.ask(caller, body, run_id)

        return _reply(await service.idempotent(caller, idempotency_key, "ask", body, run_id, call))


def _run_routes(app: FastAPI, service: Service) -> None:
    @app.get("/v1/runs/{run_id}", responses={200: OUTPUT, 202: ASK[202], 404: _err("DS-104: no such run (of this token)"),
                                             **COMMON}, tags=["runs"])
    async def get_run(run_id: str, authorization: Authorization = None) -> JSONResponse:
        """A run's answer: 202 while it goes on, then the output object it ended with."""
        return _reply(service.poll(await _admitted(service, authorization), run_id))

    @app.get("/v1/runs", response_model=RunList, responses=COMMON, tags=["runs"])
    async def list_runs(authorization: Authorization = None, status: str | None = None,
                        limit: Annotated[int, Query(ge=1, le=500)] = 50,
                        offset: Annotated[int, Query(ge=0)] = 0) -> RunList:
        """This token's runs, newest first (every run in the open mode)."""
        caller = await _admitted(service, authorization)
        rows = service.assistant.store.list(limit=limit, offset=offset, status=status,
                                            channel=caller.owner if caller.token else None)
        return RunList(runs=[RunSummaryOut.model_validate({**r.model_dump(), "created_at": r.created_at.isoformat(),
                                                           "updated_at": r.updated_at.isoformat()}) for r in rows],
                       limit=limit, offset=offset)

    @app.post("/v1/runs/{run_id}/resume",
              responses={**ASK, 404: _err("DS-104: no such run"),
                         409: _err("DS-105: the run is not paused or interrupted; DS-307: check before --force; "
                                   "DS-112/113: Idempotency-Key")}, tags=["runs"])
    async def resume(run_id: str, body: ResumeBody, authorization: Authorization = None,
                     idempotency_key: IdempotencyKey = None) -> JSONResponse:
        """Retry, skip or abort a paused or interrupted run."""
        caller = await service.caller(authorization)

        async def call() -> Reply:
            await service.admit(caller)
            return await service.resume(caller, run_id, body)

        return _reply(await service.idempotent(caller, idempotency_key, f"resume:{run_id}", body, run_id, call))


def _service_routes(app: FastAPI, service: Service) -> None:
    @app.get("/v1/knowledge", response_model=KnowledgeOut, responses=COMMON, tags=["knowledge"])
    async def knowledge(authorization: Authorization = None) -> KnowledgeOut:
        """Packs, environments, rules and tools this token may use."""
        caller = await _admitted(service, authorization)
        return knowledge_view(service.assistant.knowledge, caller.token)

    @app.get("/health", response_model=Health, tags=["service"])
    async def health() -> Health:
        return Health(status="ok", version=VERSION, runs_in_flight=service.in_flight.count,
                      authentication="none (loopback only)" if service.auth.open else "tokens")

    @app.get("/metrics", tags=["service"], response_class=Response,
             responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format"}})
    async def metrics() -> Response:
        return Response(service.metrics.render(), media_type=service.metrics.content_type)
