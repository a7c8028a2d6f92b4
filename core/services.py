"""Local services a pack declares (`local_service`, ext.): started on demand when their health
URL does not answer, and kept alive exactly as long as some process uses them.

Each user holds a lease (a file named after its pid) in a folder of that service (keyed by its
health URL, under the system's temp dir: every process on this machine that uses it, whatever its
DATASMITH_HOME, shares the folder);
the service runs under a small detached supervisor (core/service_supervisor.py) that stops it once
no lease belongs to a live process for `service_idle_s`. So one `ask` finishing never stops the
sandbox under another's run, and a killed user never leaves it running for good.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

from core.code_policy import check_command
from core.errors import BindingError, CodeNotAllowed
from core.knowledge import Knowledge, expand_env

# Ours exited (e.g. its port was taken): how long to wait for a rival's start to answer health
RIVAL_GRACE_S = 5.0


def healthy(url: str, timeout_s: float = 0.5) -> bool:
    import httpx  # only a command that runs tools checks a service: planning loads no HTTP client

    from core.tools.tls import tls_context

    try:
        return httpx.get(url, timeout=timeout_s, verify=tls_context()).status_code < 500
    except httpx.HTTPError:
        return False


class LocalServices:
    """Holds a lease on each pack service this process uses; starts the service when nobody runs it."""

    def __init__(self, knowledge: Knowledge, environ: Mapping[str, str], home: Path, idle_s: float = 10.0) -> None:
        self.kn = knowledge
        self.environ = environ
        self.home = home
        self.idle_s = idle_s
        self._leases: dict[str, Path] = {}

    def lease_dir(self, pack: str) -> Path:
        spec = self.kn.packs[pack].local_service
        url = expand_env(spec.health_url, self.environ) if spec else pack
        return Path(tempfile.gettempdir()) / f"datasmith-services-{os.getuid()}" / hashlib.sha256(url.encode()).hexdigest()[:16]

    def ensure(self, pack: str | None) -> bool:
        """True when this call started the service."""
        spec = self.kn.packs[pack].local_service if pack in self.kn.packs else None
        if spec is None:
            return False
        self._take_lease(pack)  # type: ignore[arg-type]
        health = expand_env(spec.health_url, self.environ)
        if healthy(health):
            return False
        command = [expand_env(part, self.environ) for part in spec.command]
        try:  # checked at load too; nothing is started before this check
            check_command(command[0], command[1:], Path(self.kn.packs[pack].path), self.kn.policy, what="local_service")  # type: ignore[index]
        except CodeNotAllowed as exc:
            raise BindingError(exc.message, code=CodeNotAllowed.code) from exc
        if command and command[0] in ("python", "python3"):
            command[0] = sys.executable  # the interpreter datasmith runs in has the pack's needs
        log = self.home / "logs"
        log.mkdir(parents=True, exist_ok=True)
        env = {**self.environ, "DATASMITH_HOME": str(self.home)}
        supervisor = [sys.executable, "-m", "core.service_supervisor", "--leases", str(self.lease_dir(pack)),  # type: ignore[arg-type]
                      "--idle-s", str(self.idle_s), "--", *command]
        with open(log / f"{pack}-service.log", "ab") as out:
            proc = subprocess.Popen(supervisor, cwd=self.kn.packs[pack].path, env=env, stdout=out,  # type: ignore[index]  # noqa: S603
                                    stderr=subprocess.STDOUT, start_new_session=True)  # not killed with us
        deadline = time.monotonic() + spec.startup_timeout_s
        exited_at: float | None = None
        while time.monotonic() < deadline:
            if healthy(health):
                return proc.poll() is None  # False: another process (a second `ask` at once) started it first
            if exited_at is None and proc.poll() is not None:
                exited_at = time.monotonic()
            if exited_at is not None and time.monotonic() - exited_at > RIVAL_GRACE_S:
                break  # ours died and nobody else's came up: the command itself fails
            time.sleep(0.1)
        proc.terminate()
        raise BindingError(
            f"the local service of pack {pack} did not start ({' '.join(command)}); see {log / f'{pack}-service.log'}",
            message_zh=f"知识包 {pack} 的本地服务没有启动成功,日志: {log / f'{pack}-service.log'}",
        )

    def _take_lease(self, pack: str) -> None:
        if pack in self._leases and self._leases[pack].exists():
            return
        folder = self.lease_dir(pack)
        folder.mkdir(parents=True, exist_ok=True)
        lease = folder / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        lease.touch()
        self._leases[pack] = lease

    def close(self) -> None:
        """Give up this process's leases: the service stops once nobody else holds one."""
        for lease in self._leases.values():
            lease.unlink(missing_ok=True)
        self._leases.clear()
