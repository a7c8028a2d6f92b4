"""Local services a pack declares (`local_service`, ext.): started on demand when their health
URL does not answer, stopped by whoever started them. This is the zero set-up demo path."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import httpx

from core.code_policy import check_command
from core.errors import BindingError, CodeNotAllowed
from core.knowledge import Knowledge, expand_env
from core.tools.tls import tls_context

# Ours exited (e.g. its port was taken): how long to wait for a rival's start to answer health
RIVAL_GRACE_S = 5.0


def healthy(url: str, timeout_s: float = 0.5) -> bool:
    try:
        return httpx.get(url, timeout=timeout_s, verify=tls_context()).status_code < 500
    except httpx.HTTPError:
        return False


class LocalServices:
    """Starts a pack's local service at most once, and stops what it started on close()."""

    def __init__(self, knowledge: Knowledge, environ: Mapping[str, str], home: Path) -> None:
        self.kn = knowledge
        self.environ = environ
        self.home = home
        self._started: dict[str, subprocess.Popen[bytes]] = {}

    def ensure(self, pack: str | None) -> bool:
        """True when this call started the service."""
        spec = self.kn.packs[pack].local_service if pack in self.kn.packs else None
        if spec is None or pack in self._started:
            return False
        health = expand_env(spec.health_url, self.environ)
        if healthy(health):
            return False
        command = [expand_env(part, self.environ) for part in spec.command]
        try:  # checked at load too; nothing is started before this check
            check_command(command[0], command[1:], Path(self.kn.packs[pack].path), self.kn.policy, what="local_service")
        except CodeNotAllowed as exc:
            raise BindingError(exc.message, code=CodeNotAllowed.code) from exc
        if command and command[0] in ("python", "python3"):
            command[0] = sys.executable  # the interpreter datasmith runs in has the pack's needs
        log = (self.home / "logs")
        log.mkdir(parents=True, exist_ok=True)
        env = {**self.environ, "DATASMITH_HOME": str(self.home)}
        with open(log / f"{pack}-service.log", "ab") as out:
            proc = subprocess.Popen(command, cwd=self.kn.packs[pack].path, env=env, stdout=out,  # noqa: S603
                                    stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + spec.startup_timeout_s
        exited_at: float | None = None
        while time.monotonic() < deadline:
            if healthy(health):
                if proc.poll() is None:
                    self._started[pack] = proc  # type: ignore[index]
                    return True
                return False  # another process (a second `ask` at the same instant) started it first
            if exited_at is None and proc.poll() is not None:
                exited_at = time.monotonic()
            if exited_at is not None and time.monotonic() - exited_at > RIVAL_GRACE_S:
                break  # ours died and nobody else's came up: the command itself fails
            time.sleep(0.1)
        proc.kill()
        raise BindingError(
            f"the local service of pack {pack} did not start ({' '.join(command)}); see {log / f'{pack}-service.log'}",
            message_zh=f"知识包 {pack} 的本地服务没有启动成功,日志: {log / f'{pack}-service.log'}",
        )

    def close(self) -> None:
        for proc in self._started.values():
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
        self._started.clear()
