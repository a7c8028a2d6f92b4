"""Keeps a pack's local service alive exactly as long as someone uses it.

    python -m core.service_supervisor --leases DIR --idle-s 10 -- COMMAND...

Started detached by the first process that needs the service (core/services.py). Every process
using the service holds a lease: a file in DIR named `<pid>-<random>`. The supervisor starts
COMMAND, and stops it (then exits) once no lease belongs to a live process for `--idle-s`
seconds: a user that is killed (kill -9) leaves a lease whose pid is dead, so the service never
outlives all of its users, and never stops while one of them still runs.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

POLL_S = 0.25


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def live_leases(leases: Path) -> list[Path]:
    """Leases of live processes; those of dead ones are removed."""
    live = []
    for lease in leases.glob("*"):
        pid = lease.name.split("-", 1)[0]
        if pid.isdigit() and pid_alive(int(pid)):
            live.append(lease)
        else:
            lease.unlink(missing_ok=True)
    return live


def supervise(command: list[str], leases: Path, idle_s: float) -> int:
    leases.mkdir(parents=True, exist_ok=True)
    child = subprocess.Popen(command)  # noqa: S603 - the pack's command, checked by the code policy
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    idle_since: float | None = None
    try:
        while not stopping and child.poll() is None:
            if live_leases(leases):
                idle_since = None
            elif idle_since is None:
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since >= idle_s:
                break
            time.sleep(POLL_S)
    finally:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
    return child.returncode or 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m core.service_supervisor")
    parser.add_argument("--leases", type=Path, required=True)
    parser.add_argument("--idle-s", type=float, default=10.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("a command to supervise is required after --")
    return supervise(command, args.leases, args.idle_s)


if __name__ == "__main__":
    sys.exit(main())
