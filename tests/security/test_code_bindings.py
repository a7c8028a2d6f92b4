"""Code a pack may run: only its own modules and scripts, or what the deployment allowlists.
Each refusal is asserted by its error and by the side effect that did not happen."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from core.code_policy import CodePolicy
from core.errors import CodeNotAllowed
from core.execution import Executor
from core.knowledge import load_knowledge
from core.models import Plan, PlanStep, Request
from core.runstore import RunStore
from core.services import LocalServices
from core.tools import ToolRegistry
from tests.conftest import write_pack

PACK = "name: lab\nenvironments: {default: dev, dev: {}}\n"


def tool(binding: str) -> str:
    return f"""
        tool_name: run_it
        description: runs something
        parameters: [{{name: command, type: string, required: false}}]
        examples: [{{user_query: run it}}]
        call: {{python: "{binding}"}}
    """


@pytest.mark.parametrize("binding", ["os:system", "subprocess:run", "builtins:eval", "shutil:rmtree",
                                     "backend:_private", "pkg.missing:run"])
def test_a_binding_outside_the_pack_is_refused_at_load(tmp_path: Path, binding: str) -> None:
    pack = write_pack(tmp_path / "lab", {"pack.yaml": PACK, "tools/t.yaml": tool(binding),
                                         "backend.py": "def _private():\n    pass\n"})
    with pytest.raises(CodeNotAllowed) as err:
        load_knowledge([pack])
    assert err.value.code == "DS-206" and "run_it" in err.value.message and "t.yaml" in err.value.message


def test_a_module_symlinked_from_outside_the_pack_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("def run(command=None):\n    return 1\n", encoding="utf-8")
    pack = write_pack(tmp_path / "lab", {"pack.yaml": PACK, "tools/t.yaml": tool("linked:run")})
    (pack / "linked.py").symlink_to(outside)
    with pytest.raises(CodeNotAllowed, match="linked"):
        load_knowledge([pack])


def _run(kn, tmp_path: Path) -> object:  # noqa: ANN001
    store = RunStore(tmp_path / "runs.sqlite3")

    async def go():  # type: ignore[no-untyped-def]
        async with ToolRegistry(kn, {}) as tools:
            plan = Plan(status="planned", pack="lab", environment="dev", tool="run_it",
                        steps=[PlanStep(step_id=1, tool_name="run_it", arguments={"command": f"touch {tmp_path}/pwned"})])
            return await Executor(kn, tools, store).run(Request(text="t"), plan)

    try:
        return asyncio.run(go())
    finally:
        store.close()


def test_a_pack_module_re_exporting_os_system_is_refused_when_called_and_runs_nothing(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "lab", {"pack.yaml": PACK, "tools/t.yaml": tool("backend:system"),
                                         "backend.py": "from os import system  # noqa: F401\n"})
    run = _run(load_knowledge([pack]), tmp_path)
    assert run.status == "failed" and run.error.code == "DS-206"  # type: ignore[attr-defined]
    assert not (tmp_path / "pwned").exists()


def test_the_pack_s_own_function_runs_and_two_packs_may_share_a_module_name(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "lab", {"pack.yaml": PACK, "tools/t.yaml": tool("backend:run"),
                                         "backend.py": "def run(command=None):\n    return {'ran': 'lab'}\n"})
    other = write_pack(tmp_path / "lab2", {
        "pack.yaml": "name: lab2\nenvironments: {default: dev, dev: {}}\n",
        "tools/t.yaml": tool("backend:run").replace("run_it", "run_other"),
        "backend.py": "def run(command=None):\n    return {'ran': 'lab2'}\n"})
    kn = load_knowledge([pack, other])
    run = _run(kn, tmp_path)
    assert run.status == "succeeded" and run.step(1).output == {"ran": "lab"}  # type: ignore[attr-defined]


def test_a_module_the_deployment_allows_may_be_bound(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "lab", {"pack.yaml": PACK, "tools/t.yaml": tool("json:dumps")})
    with pytest.raises(CodeNotAllowed):
        load_knowledge([pack])
    kn = load_knowledge([pack], CodePolicy(python_modules=["json"]))
    assert kn.tools["run_it"].call.python == "json:dumps"


@pytest.mark.parametrize("server", [
    '{command: sh, args: [-c, "touch PWNED"]}',
    f'{{command: "{sys.executable}", args: [-c, "open(\'PWNED\', \'w\')"]}}',
    '{command: python3, args: [-m, http.server]}',
    '{command: /usr/bin/env, args: [python3, x.py]}',
])
def test_an_mcp_command_outside_the_pack_is_refused_at_load(tmp_path: Path, server: str) -> None:
    pack = write_pack(tmp_path / "lab", {"pack.yaml": PACK + f"mcp_servers:\n  evil: {server}\n"})
    with pytest.raises(CodeNotAllowed, match="mcp_servers.evil"):
        load_knowledge([pack])
    assert not (pack / "PWNED").exists()


def test_a_local_service_command_outside_the_pack_is_refused_before_anything_starts(tmp_path: Path) -> None:
    bad = write_pack(tmp_path / "lab", {"pack.yaml": PACK + (
        "local_service: {command: [python, -c, \"open('PWNED','w')\"], health_url: 'http://127.0.0.1:9/health'}\n")})
    with pytest.raises(CodeNotAllowed, match="local_service"):
        load_knowledge([bad])
    ok = write_pack(tmp_path / "ok", {"pack.yaml": PACK.replace("lab", "ok") + (
        "local_service: {command: [python, serve.py], health_url: 'http://127.0.0.1:9/health'}\n"),
        "serve.py": "raise SystemExit(0)\n"})
    kn = load_knowledge([ok])
    # A pack loaded under a looser policy is still checked when the service would start.
    kn.packs["ok"].local_service.command = ["python", "-c", "open('PWNED','w')"]  # type: ignore[union-attr]
    with pytest.raises(Exception, match="runs code outside this pack"):
        LocalServices(kn, dict(os.environ), tmp_path / "home").ensure("ok")
    assert not (ok / "PWNED").exists()
