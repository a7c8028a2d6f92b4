"""Run the sandbox: in the foreground (`python -m sandbox`) or in a background thread (tests, CLI)."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import httpx
import uvicorn

from sandbox.app import create_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class BackgroundServer:
    """uvicorn in a daemon thread on loopback; `stop()` shuts it down cleanly."""

    def __init__(self, data_dir: Path, port: int | None = None, host: str = "127.0.0.1") -> None:
        self.port = port or free_port()
        self.host = host
        config = uvicorn.Config(create_app(data_dir), host=host, port=self.port, log_level="warning",
                                access_log=False, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="sandbox", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout_s: float = 15.0) -> BackgroundServer:
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/health", timeout=0.5).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.05)
        raise RuntimeError(f"sandbox did not answer on {self.url} within {timeout_s}s")

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
