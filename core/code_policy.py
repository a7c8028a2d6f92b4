"""Which code a pack may run: the pack's own modules, and what the deployment allows.

A pack folder is reviewed like code; a string in a YAML file is not. So `call.python` resolves
only to a module whose file lies inside the pack's folder (or to a module the deployment lists in
`allowed_python_modules`), and a command — an MCP stdio server, a `local_service` — runs only
when it is the pack's own script or module under Python, or a program in `allowed_commands`.
`os:system`, `subprocess:run` or `python -c ...` are refused when the pack loads (DS-206) and
again when a call resolves, so nothing runs either way.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from core.errors import CodeNotAllowed

PYTHONS = frozenset({"python", "python3", Path(sys.executable).name})
# Interpreter flags that change nothing about which code runs.
HARMLESS_FLAGS = frozenset({"-u", "-B", "-O", "-OO", "-E", "-s", "-I", "-q"})


class CodePolicy(BaseModel):
    """The deployment's allowlist beyond a pack's own folder (settings `allowed_python_modules`,
    `allowed_commands`). A module entry allows that module and its submodules."""

    python_modules: list[str] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)

    def module_allowed(self, module: str) -> bool:
        return any(module == m or module.startswith(m + ".") for m in self.python_modules)


# The bundled demo system (`python -m sandbox`, the shop pack's local service) is datasmith's own code.
DEFAULT_POLICY = CodePolicy(python_modules=["sandbox"])


def module_file(pack_dir: Path, module: str) -> Path | None:
    """The file of `module` inside `pack_dir` (a .py file or a package), or None when it is not there."""
    root = pack_dir.resolve()
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            real = candidate.resolve()  # a symlink pointing out of the pack does not count
            if real.is_relative_to(root):
                return real
    return None


def check_python_binding(ref: str, pack_dir: Path, policy: CodePolicy) -> Path | None:
    """Raise CodeNotAllowed unless `module:function` names a module of the pack (its file is
    returned) or an allowlisted module (None is returned: it is imported by name)."""
    module, _, func = ref.partition(":")
    if func.startswith("_"):
        raise CodeNotAllowed(f"call.python {ref!r}: private functions cannot be bound")
    found = module_file(pack_dir, module)
    if found is not None:
        return found
    if policy.module_allowed(module):
        return None
    raise CodeNotAllowed(
        f"call.python {ref!r}: module {module!r} is not a file of this pack ({pack_dir}) and not in the "
        "deployment's allowed_python_modules; bind a function of a module inside the pack folder")


def check_command(command: str, args: Sequence[str], pack_dir: Path, policy: CodePolicy, *, what: str) -> None:
    """Raise CodeNotAllowed unless the command runs the pack's own code or an allowlisted program."""
    program = Path(command).name
    if command in policy.commands or program in policy.commands:
        return
    if program in PYTHONS:
        rest = list(args)
        while rest and rest[0] in HARMLESS_FLAGS:
            rest.pop(0)
        if len(rest) >= 2 and rest[0] == "-m":
            module = rest[1]
            if module_file(pack_dir, module) is not None or policy.module_allowed(module):
                return
        elif rest and rest[0].endswith(".py") and _inside(pack_dir, rest[0]):
            return
    elif _inside(pack_dir, command) and os.access(pack_dir / command, os.X_OK):
        return  # an executable script shipped in the pack folder
    shown = " ".join([command, *args])
    raise CodeNotAllowed(
        f"{what} command {shown!r} runs code outside this pack; allowed are `python <script in the pack>.py`, "
        "`python -m <module in the pack>`, a script in the pack folder, or a program in the deployment's "
        "allowed_commands")


def _inside(pack_dir: Path, path: str) -> bool:
    root = pack_dir.resolve()
    target = (root / path).resolve()
    return target.is_relative_to(root) and target.is_file()
