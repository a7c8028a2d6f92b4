"""The tool registry: one invoker per binding kind, chosen by the tool's `call`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from core.knowledge import Knowledge
from core.models import ToolSpec
from core.tools.base import Target
from core.tools.http import HttpInvoker
from core.tools.python import PythonInvoker
from core.tools.tls import tls_context


class ToolRegistry:
    """Calls tools by their binding. Use as an async context manager (it owns connections)."""

    def __init__(self, knowledge: Knowledge, environ: Mapping[str, str],
                 client: httpx.AsyncClient | None = None) -> None:
        self.kn = knowledge
        self.environ = environ
        self._own_client = client is None
        self.client = client or httpx.AsyncClient(timeout=httpx.Timeout(30.0), verify=tls_context(),
                                                  limits=httpx.Limits(max_connections=64))
        self._invokers: dict[str, Any] = {"http": HttpInvoker(self.client), "python": PythonInvoker(knowledge.policy)}

    def _invoker(self, kind: str) -> Any:
        if kind == "mcp" and kind not in self._invokers:
            # Imported on first use: the mcp package costs ~1 s to import, and most packs never call it.
            from core.tools.mcp import McpInvoker

            self._invokers[kind] = McpInvoker(self.kn.policy)
        return self._invokers[kind]

    def target(self, pack: str, environment: str | None) -> Target:
        spec = self.kn.packs[pack]
        return Target(pack=spec, environment=environment,
                      spec=spec.environments.get(environment) if environment else None, environ=self.environ)

    async def invoke(self, tool: ToolSpec, arguments: dict[str, Any], target: Target,
                     idempotency_key: str | None = None) -> Any:
        return await self._invoker(tool.call.kind).invoke(tool, arguments, target, idempotency_key)

    async def aclose(self) -> None:
        if "mcp" in self._invokers:
            await self._invokers["mcp"].aclose()
        if self._own_client:
            await self.client.aclose()

    async def __aenter__(self) -> ToolRegistry:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
