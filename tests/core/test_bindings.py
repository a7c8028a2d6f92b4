"""The mcp binding against a real stdio MCP server, and binding errors."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from core.execution import Executor, RetryPolicy
from core.knowledge import load_knowledge
from core.models import Plan, PlanStep, Request
from core.runstore import RunStore
from core.tools import ToolRegistry
from tests.conftest import write_pack

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp_calc_server.py"


def test_mcp_tools_run_over_stdio(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "calc", {
        "pack.yaml": f"""
            name: calc
            environments: {{default: dev, dev: {{}}}}
            mcp_servers:
              calc: {{command: "{sys.executable}", args: [calc_server.py]}}   # the pack's own script
        """,
        "calc_server.py": SERVER.read_text(encoding="utf-8"),
        "tools/t.yaml": """
            - tool_name: add
              description: 加法
              parameters: [{name: a, type: integer, required: true}, {name: b, type: integer, required: true}]
              examples: [{user_query: 1加2, extracted_params: {a: 1, b: 2}}]
              returns: {type: object, required: [sum]}
              call: {mcp: {server: calc, tool: add}}
            - tool_name: divide
              description: 除法
              parameters: [{name: a, type: integer, required: true}, {name: b, type: integer, required: true}]
              examples: [{user_query: 1除以2, extracted_params: {a: 1, b: 2}}]
              call: {mcp: {server: calc, tool: divide}}
        """,
    })
    kn = load_knowledge([pack])
    store = RunStore(tmp_path / "runs.sqlite3")

    async def go(plan: Plan):  # type: ignore[no-untyped-def]
        async with ToolRegistry(kn, {}) as tools:
            return await Executor(kn, tools, store, RetryPolicy(backoff_base_s=0.001)).run(Request(text="t"), plan)

    ok = asyncio.run(go(Plan(status="planned", pack="calc", environment="dev", tool="add",
                             steps=[PlanStep(step_id=1, tool_name="add", arguments={"a": 2, "b": 40})])))
    assert ok.status == "succeeded" and ok.step(1).output == {"sum": 42}
    bad = asyncio.run(go(Plan(status="planned", pack="calc", environment="dev", tool="divide",
                              steps=[PlanStep(step_id=1, tool_name="divide", arguments={"a": 1, "b": 0})])))
    assert bad.status == "failed" and bad.error is not None and bad.error.code == "DS-302"
    assert "Error executing tool divide" in bad.error.message  # the server's own words reach the user
    store.close()


def test_missing_python_function_is_a_binding_error(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "broken", {
        "pack.yaml": "name: broken\nenvironments: {default: dev, dev: {}}\n",
        "backend.py": "def other():\n    return 1\n",
        "tools/t.yaml": """
            tool_name: ghost
            description: 不存在的函数
            examples: [{user_query: 调用幽灵}]
            call: {python: "backend:run"}
        """,
    })
    kn = load_knowledge([pack])
    store = RunStore(tmp_path / "runs.sqlite3")

    async def go():  # type: ignore[no-untyped-def]
        async with ToolRegistry(kn, {}) as tools:
            plan = Plan(status="planned", pack="broken", environment="dev", tool="ghost",
                        steps=[PlanStep(step_id=1, tool_name="ghost")])
            return await Executor(kn, tools, store).run(Request(text="t"), plan)

    run = asyncio.run(go())
    assert run.status == "failed" and run.error is not None and run.error.code == "DS-304"
    assert "cannot load backend:run" in run.error.message
    store.close()


DYING = """
import os
from mcp.server.mcpserver import MCPServer
server = MCPServer("dying")


@server.tool()
def crash() -> dict:
    \"\"\"Dies mid-call, as a server with a bug does.\"\"\"
    os._exit(3)


if __name__ == "__main__":
    server.run()
"""


def test_an_mcp_server_that_dies_is_a_tool_error_not_a_crash(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "dying", {
        "pack.yaml": f"""
            name: dying
            environments: {{default: dev, dev: {{}}}}
            mcp_servers:
              dying: {{command: "{sys.executable}", args: [dying_server.py]}}
        """,
        "dying_server.py": DYING,
        "tools/t.yaml": """
            tool_name: crash
            description: 崩溃
            examples: [{user_query: 崩溃}]
            side_effects: false
            call: {mcp: {server: dying, tool: crash}}
        """,
    })
    kn = load_knowledge([pack])
    store = RunStore(tmp_path / "runs.sqlite3")

    async def go():  # type: ignore[no-untyped-def]
        async with ToolRegistry(kn, {**os.environ}) as tools:
            plan = Plan(status="planned", pack="dying", environment="dev", tool="crash",
                        steps=[PlanStep(step_id=1, tool_name="crash")])
            return await Executor(kn, tools, store, RetryPolicy(max_attempts=2, backoff_base_s=0.01,
                                                                 default_timeout_s=20)).run(Request(text="t"), plan)

    run = asyncio.run(go())
    assert run.status == "paused" and run.error is not None and run.error.code == "DS-301"
    assert "MCP server 'dying' failed" in run.error.message and run.step(1).attempts == 2
    store.close()
