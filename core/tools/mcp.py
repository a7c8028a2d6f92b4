"""`call.mcp`: one client session per MCP server (stdio or streamable HTTP), opened on first use.

anyio requires a client's context to be entered and exited by the same task, while executor
steps run in tasks of their own. So each session lives in one long-lived task that owns the
client and serves calls from a queue; closing the registry ends that task.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp_types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from core.code_policy import DEFAULT_POLICY, CodePolicy, check_command
from core.errors import BindingError, CodeNotAllowed, ToolRejected, TransientToolError
from core.knowledge import expand_env
from core.models import ToolSpec
from core.tools.base import Target, mapped_errors

Call = tuple[str, dict[str, Any], asyncio.Future[mcp_types.CallToolResult]]


def _output(result: mcp_types.CallToolResult) -> Any:
    if result.structured_content is not None:
        content = result.structured_content
        # Servers wrap non-object returns as {"result": ...}.
        return content["result"] if isinstance(content, dict) and set(content) == {"result"} else content
    text = "\n".join(c.text for c in result.content if isinstance(c, mcp_types.TextContent))
    try:
        return json.loads(text)
    except ValueError:
        return text


class _Session:
    """A client session owned by one task; calls arrive through a queue."""

    def __init__(self, server: Any) -> None:
        self._queue: asyncio.Queue[Call | None] = asyncio.Queue()
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._serve(server))

    async def _serve(self, server: Any) -> None:
        try:
            async with Client(server, mode="legacy") as client:
                self._ready.set_result(None)
                while (item := await self._queue.get()) is not None:
                    name, args, future = item
                    try:
                        future.set_result(await client.call_tool(name, args))
                    except Exception as exc:  # noqa: BLE001 - handed to the caller, who maps it
                        future.set_exception(exc)
        except Exception as exc:  # noqa: BLE001 - a server that cannot start: the caller hears why
            if not self._ready.done():
                self._ready.set_exception(exc)

    async def call(self, name: str, args: dict[str, Any]) -> mcp_types.CallToolResult:
        await self._ready
        future: asyncio.Future[mcp_types.CallToolResult] = asyncio.get_running_loop().create_future()
        await self._queue.put((name, args, future))
        return await future

    async def close(self) -> None:
        await self._queue.put(None)
        await asyncio.gather(self._task, return_exceptions=True)


class McpInvoker:
    def __init__(self, policy: CodePolicy = DEFAULT_POLICY) -> None:
        self.policy = policy
        self._sessions: dict[tuple[str, str], _Session] = {}

    def _session(self, tool: ToolSpec, target: Target) -> _Session:
        binding = tool.call.mcp
        assert binding is not None
        key = (target.pack.name, binding.server)
        if key not in self._sessions:
            spec = target.pack.mcp_servers.get(binding.server)
            if spec is None:
                raise BindingError(f"{tool.tool_name}: no MCP server {binding.server!r} in pack {target.pack.name}")
            if spec.url:
                server: Any = expand_env(spec.url, target.environ)
            else:
                try:  # checked at load too; a command is only ever started after this check
                    check_command(spec.command or "", spec.args, Path(target.pack.path), self.policy,
                                  what=f"mcp_servers.{binding.server}")
                except CodeNotAllowed as exc:
                    raise BindingError(f"{tool.tool_name}: {exc.message}", code=CodeNotAllowed.code) from exc
                server = StdioServerParameters(command=spec.command or "", args=spec.args,
                                               env={**target.environ, **(spec.env or {})},
                                               cwd=target.pack.path or None)
            self._sessions[key] = _Session(server)
        return self._sessions[key]

    async def invoke(self, tool: ToolSpec, arguments: dict[str, Any], target: Target,
                     idempotency_key: str | None = None) -> Any:  # MCP has no standard place for a key
        binding = tool.call.mcp
        assert binding is not None
        with mapped_errors(tool):
            try:
                result = await self._session(tool, target).call(binding.tool, arguments)
            except MCPError as exc:
                raise ToolRejected(f"{tool.tool_name}: MCP error: {exc}") from exc
            except OSError as exc:
                raise TransientToolError(f"{tool.tool_name}: MCP transport: {exc}") from exc
        if result.is_error:
            raise ToolRejected(f"{tool.tool_name}: {_output(result)}", message_zh=f"{tool.tool_name} 返回错误")
        return _output(result)

    async def aclose(self) -> None:
        for session in self._sessions.values():
            await session.close()
        self._sessions.clear()
