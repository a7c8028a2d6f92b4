"""The API over real HTTP: uvicorn on a free loopback port, the shop pack over the test sandbox."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn

from api.app import create_app
from api.config import ApiConfig, Bucket, TokenSpec
from core.assistant import Assistant
from core.knowledge import Knowledge
from core.passwords import hash_secret
from core.settings import Settings
from sandbox.server import BackgroundServer, free_port

SECRET = "s3cret-for-tests"


def token(name: str, **fields: object) -> TokenSpec:
    """A token whose secret is SECRET (hashed with few rounds: the tests check many of them)."""
    return TokenSpec(name=name, hash=hash_secret(SECRET, iterations=1000), **fields)  # type: ignore[arg-type]


def bearer(name: str, secret: str = SECRET) -> dict[str, str]:
    return {"Authorization": f"Bearer {name}.{secret}"}


class ApiServer:
    """The API app under uvicorn in a daemon thread; `stop()` closes it (and its assistant)."""

    def __init__(self, settings: Settings, knowledge: Knowledge, config: ApiConfig) -> None:
        self.assistant = Assistant(settings, knowledge)
        self.port = free_port()
        self.app = create_app(settings, assistant=self.assistant, config=config)
        self._server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                                     access_log=False))
        self._thread = threading.Thread(target=self._server.run, name="api", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ApiServer:
        self._thread.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/health", timeout=0.5).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.05)
        raise RuntimeError("the API did not start")

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=30)
        self.assistant.close()


@pytest.fixture
def api_settings(tmp_path: Path, sandbox: BackgroundServer) -> Settings:
    environ = {**os.environ, "SHOP_SANDBOX_PORT": str(sandbox.port)}
    return Settings(home=tmp_path / "home", environ=environ, backoff_base_s=0.001, backoff_max_s=0.01)


@pytest.fixture
def serve(api_settings: Settings, shop_knowledge: Knowledge) -> Iterator[Callable[..., ApiServer]]:
    """Start an API with these tokens / this config; stopped after the test."""
    servers: list[ApiServer] = []

    def start(*tokens: TokenSpec, settings: Settings | None = None, **config: object) -> ApiServer:
        cfg = ApiConfig(tokens=list(tokens), **config)  # type: ignore[arg-type]
        server = ApiServer(settings or api_settings, shop_knowledge, cfg).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def open_api(serve: Callable[..., ApiServer]) -> ApiServer:
    """No tokens: the loopback, unauthenticated mode."""
    return serve(open_bucket=Bucket(capacity=1000, rate_per_s=1000))


def orders(sandbox: BackgroundServer, env: str = "pre") -> int:
    db = sqlite3.connect(sandbox._server.config.app.state.store.path(env))  # type: ignore[attr-defined]
    try:
        return int(db.execute("SELECT COUNT(*) FROM orders").fetchone()[0])
    finally:
        db.close()


def order_status(sandbox: BackgroundServer, order_id: str, env: str = "pre") -> str:
    db = sqlite3.connect(sandbox._server.config.app.state.store.path(env))  # type: ignore[attr-defined]
    try:
        return str(db.execute("SELECT status FROM orders WHERE order_id = ?", (order_id,)).fetchone()[0])
    finally:
        db.close()


@contextmanager
def slow(sandbox: BackgroundServer, path: str, delay_ms: int, times: int = 1) -> Iterator[None]:
    """The sandbox answers matching calls late (status 200 after `delay_ms`)."""
    httpx.post(f"{sandbox.url}/_faults", json={"path": path, "status": 200, "delay_ms": delay_ms, "times": times})
    try:
        yield
    finally:
        httpx.delete(f"{sandbox.url}/_faults")


def poll(url: str, location: str, headers: dict[str, str] | None = None, timeout_s: float = 60) -> httpx.Response:
    deadline = time.monotonic() + timeout_s
    while True:
        response = httpx.get(url + location, headers=headers)
        if response.status_code != 202 or time.monotonic() > deadline:
            return response
        time.sleep(0.1)
