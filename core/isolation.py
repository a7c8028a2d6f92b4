"""A throw-away world for tests of packs: `stories record|replay` and `contracts verify` run in a
fresh data dir, with a private copy of every pack's local service on a free port, unless asked to
work in place. So a regression test never resets the user's sandbox or mixes its runs into theirs."""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from core.knowledge import Knowledge
from core.settings import Settings


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def isolated(settings: Settings, knowledge: Knowledge) -> Iterator[Settings]:
    """Settings with a temporary home, and a free port for each local service that names its port."""
    home = tempfile.mkdtemp(prefix="datasmith-test-run-")
    environ = dict(settings.environ)
    allowed = list(settings.allowed_env_vars)
    for pack in knowledge.packs.values():
        if pack.local_service and pack.local_service.port_env:
            environ[pack.local_service.port_env] = str(_free_port())
            allowed.append(pack.local_service.port_env)  # else the pack would fall back to the user's port
        elif pack.local_service:
            print(f"note: pack {pack.name!r} names no local_service.port_env: its tests use the configured "
                  "service and its data", file=sys.stderr)
    try:
        yield settings.model_copy(update={"home": Path(home), "environ": environ, "allowed_env_vars": allowed,
                                          "service_idle_s": min(settings.service_idle_s, 2.0)})
    finally:
        shutil.rmtree(home, ignore_errors=True)
