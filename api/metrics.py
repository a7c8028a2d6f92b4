"""Prometheus metrics of one API process, in a registry of its own (no global state)."""

from __future__ import annotations

import time
from collections.abc import Callable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class Metrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self, in_flight: Callable[[], float], llm_queue: Callable[[], float]) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("datasmith_api_requests", "HTTP requests answered", ["route", "method", "code"],
                                registry=self.registry)
        self.latency = Histogram("datasmith_api_request_seconds", "time to answer an HTTP request", ["route"],
                                 registry=self.registry,
                                 buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
        self.outcomes = Counter("datasmith_api_outcomes", "plan statuses and run statuses answered",
                                ["endpoint", "outcome"], registry=self.registry)
        self.limited = Counter("datasmith_api_rate_limited", "calls refused by a token's bucket", ["token"],
                               registry=self.registry)
        Gauge("datasmith_api_runs_in_flight", "runs the service drives now",
              registry=self.registry).set_function(in_flight)
        Gauge("datasmith_llm_bucket_queue", "LLM calls waiting in the leaky bucket",
              registry=self.registry).set_function(llm_queue)

    def render(self) -> bytes:
        return generate_latest(self.registry)


class MetricsMiddleware:
    """Counts and times every request by its route template (`/v1/runs/{run_id}`), so run ids do
    not become label values. Pure ASGI: it never stands between a handler and a disconnect."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        code = 500

        async def sending(message: Message) -> None:
            nonlocal code
            if message["type"] == "http.response.start":
                code = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = getattr(scope.get("route"), "path", "unmatched")
            self.metrics.requests.labels(route, scope["method"], str(code)).inc()
            self.metrics.latency.labels(route).observe(time.perf_counter() - start)
