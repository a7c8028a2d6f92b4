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
from mcp_types.jsonrpc import CONNECTION_CLOSED

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
        self._dead: Exception | None = None
        self._task = asyncio.create_task(self._serve(server))

    async def _serve(self, server: Any) -> None:
        current: asyncio.Future[mcp_types.CallToolResult] | None = None
        try:
            async with Client(server, mode="legacy") as client:
                self._ready.set_result(None)
                while (item := await self._queue.get()) is not None:
                    name, args, current = item
                    try:
                        current.set_result(await client.call_tool(name, args))
                    except Exception as exc:  # noqa: BLE001 - handed to the caller, who maps it
                        current.set_exception(exc)
                    current = None
        except BaseException as exc:  # noqa: BLE001 - the server could not start, or died: callers hear why
            self._dead = exc if isinstance(exc, Exception) else OSError("MCP session closed")
            for future in [current, self._ready, *self._pending()]:
                if future is not None and not future.done():
                    future.set_exception(self._dead)
            if not isinstance(exc, Exception):
                raise

    def _pending(self) -> list[asyncio.Future[Any]]:
        futures = []
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item is not None:
                futures.append(item[2])
        return futures

    async def call(self, name: str, args: dict[str, Any]) -> mcp_types.CallToolResult:
        await self._ready
        if self._dead is not None:
            raise self._dead
        future: asyncio.Future[mcp_types.CallToolResult] = asyncio.get_running_loop().create_future()
        await self._queue.put((name, args, future))
        return await future

    async def close(self) -> None:
        await self._queue.put(None)
        await asyncio.gather(self._task, return_exceptions=True)


def _first(exc: BaseException) -> str:
    """The first real error inside (nested) exception groups, as text."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


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
        key = (target.pack.name, binding.server)
        with mapped_errors(tool):
            try:
                result = await self._session(tool, target).call(binding.tool, arguments)
            except MCPError as exc:
                if exc.code != CONNECTION_CLOSED:
                    raise ToolRejected(f"{tool.tool_name}: MCP error: {exc}") from exc
                await self._drop(key)  # the server went away mid-call
                raise TransientToolError(f"{tool.tool_name}: MCP server {binding.server!r} failed: connection closed",
                                         message_zh=f"{tool.tool_name}: MCP 服务 {binding.server} 连接中断",
                                         unknown_outcome=tool.side_effects) from exc
            except (OSError, ExceptionGroup) as exc:  # the server died or its transport broke (anyio groups)
                await self._drop(key)
                raise TransientToolError(f"{tool.tool_name}: MCP server {binding.server!r} failed: {_first(exc)}",
                                         message_zh=f"{tool.tool_name}: MCP 服务 {binding.server} 出错",
                                         unknown_outcome=tool.side_effects) from exc
        if result.is_error:
            raise ToolRejected(f"{tool.tool_name}: {_output(result)}", message_zh=f"{tool.tool_name} 返回错误")
        return _output(result)

    async def _drop(self, key: tuple[str, str]) -> None:
        """Forget a broken session: the next call starts the server again."""
        dead = self._sessions.pop(key, None)
        if dead is not None:
            await dead.close()

    async def aclose(self) -> None:
        for session in self._sessions.values():
            await session.close()
        self._sessions.clear()
