"""`call.mcp`: a client session per MCP server (stdio or streamable HTTP), opened on first use
and closed with the registry."""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from typing import Any

import mcp_types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from core.errors import BindingError, ToolRejected, TransientToolError
from core.knowledge import expand_env
from core.models import ToolSpec
from core.tools.base import Target, mapped_errors


def _output(result: mcp_types.CallToolResult) -> Any:
    if result.structured_content is not None:
        content = result.structured_content
        # Servers wrap non-object returns as {"result": ...}.
        return content["result"] if isinstance(content, dict) and set(content) == {"result"} else content
    texts = [c.text for c in result.content if isinstance(c, mcp_types.TextContent)]
    text = "\n".join(texts)
    try:
        return json.loads(text)
    except ValueError:
        return text


class McpInvoker:
    def __init__(self) -> None:
        self._stack = AsyncExitStack()
        self._clients: dict[tuple[str, str], Client] = {}

    async def _client(self, tool: ToolSpec, target: Target) -> Client:
        binding = tool.call.mcp
        assert binding is not None
        key = (target.pack.name, binding.server)
        if key not in self._clients:
            spec = target.pack.mcp_servers.get(binding.server)
            if spec is None:
                raise BindingError(f"{tool.tool_name}: no MCP server {binding.server!r} in pack {target.pack.name}")
            if spec.url:
                server: Any = expand_env(spec.url, target.environ)
            else:
                env = {**target.environ, **(spec.env or {})}
                server = StdioServerParameters(command=spec.command or "", args=spec.args, env=env,
                                               cwd=target.pack.path or None)
            with mapped_errors(tool):
                self._clients[key] = await self._stack.enter_async_context(Client(server, mode="legacy"))
        return self._clients[key]

    async def invoke(self, tool: ToolSpec, arguments: dict[str, Any], target: Target) -> Any:
        client = await self._client(tool, target)
        binding = tool.call.mcp
        assert binding is not None
        with mapped_errors(tool):
            try:
                result = await client.call_tool(binding.tool, arguments)
            except MCPError as exc:
                raise ToolRejected(f"{tool.tool_name}: MCP error: {exc}") from exc
            except OSError as exc:
                raise TransientToolError(f"{tool.tool_name}: MCP transport: {exc}") from exc
        if result.is_error:
            raise ToolRejected(f"{tool.tool_name}: {_output(result)}", message_zh=f"{tool.tool_name} 返回错误")
        return _output(result)

    async def aclose(self) -> None:
        await self._stack.aclose()
        self._clients.clear()
