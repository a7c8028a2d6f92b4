"""`datasmith console`: start the Streamlit console on loopback unless authentication is configured,
and `datasmith hash-secret`: the stored form of a console account's secret."""

from __future__ import annotations

import getpass
import importlib.util
import os
import sys
import tomllib
from pathlib import Path

from core.errors import InputError
from core.passwords import hash_secret
from core.settings import Settings

LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


def _oidc_configured(cwd: Path) -> bool:
    """Whether Streamlit will find `[auth]` in a secrets.toml (project's, then the user's)."""
    for path in (cwd / ".streamlit" / "secrets.toml", Path.home() / ".streamlit" / "secrets.toml"):
        try:
            if "auth" in tomllib.loads(path.read_text(encoding="utf-8")):
                return True
        except (OSError, tomllib.TOMLDecodeError):
            continue
    return False


def console_command(host: str, port: int, settings: Settings, cwd: Path) -> list[str]:
    """The streamlit command line; refuses a non-loopback host when nobody must sign in."""
    if host not in LOOPBACK_HOSTS and not settings.console_users and not _oidc_configured(cwd):
        raise InputError(f"refusing to serve the console on {host}: with no authentication configured it "
                         "would let anyone who reaches it edit packs and run tools. Configure console_users or "
                         "Streamlit's [auth] (README › The console), or keep the default 127.0.0.1")
    spec = importlib.util.find_spec("console")
    if spec is None or not spec.submodule_search_locations:
        raise InputError("the console package is not installed (pip install -e .)")
    app = Path(next(iter(spec.submodule_search_locations))) / "app.py"
    return [sys.executable, "-m", "streamlit", "run", str(app), "--server.address", host, "--server.port", str(port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false"]


def run_console(host: str, port: int, settings: Settings) -> int:
    command = console_command(host, port, settings, Path.cwd())
    print(f"datasmith console on http://{host}:{port}", file=sys.stderr, flush=True)
    env = {**os.environ, "DATASMITH_KNOWLEDGE": os.pathsep.join(str(k) for k in settings.knowledge),
           "DATASMITH_HOME": str(settings.home)}  # what --knowledge / --home said, for the console's own Settings
    os.execve(command[0], command, env)  # streamlit takes over this process (signals, exit code)
    return 0  # not reached


def read_secret() -> str:
    """A secret from stdin when piped, else asked for twice without echo."""
    if not sys.stdin.isatty():
        secret = sys.stdin.readline().rstrip("\r\n")
    else:
        secret = getpass.getpass("secret: ")
        if getpass.getpass("again: ") != secret:
            raise InputError("the two secrets differ")
    if len(secret) < 12:
        raise InputError("a console secret needs at least 12 characters")
    return secret


def cmd_hash_secret() -> int:
    print(hash_secret(read_secret()))
    return 0
