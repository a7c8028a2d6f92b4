"""`call.http`: httpx, async; GET/DELETE send arguments as the query string, others as JSON."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import httpx

from core.errors import ToolRejected, TransientToolError
from core.models import ToolSpec
from core.tools.base import Target, mapped_errors

PLACEHOLDER = re.compile(r"\{(\w+)\}")
TRANSIENT_STATUS = {408, 425, 429}


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300]
    if isinstance(body, dict) and "detail" in body:
        detail = body["detail"]
        return detail if isinstance(detail, str) else str(detail)[:300]
    return str(body)[:300]


class HttpInvoker:
    """Calls over one shared AsyncClient (connection pooling across steps)."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def invoke(self, tool: ToolSpec, arguments: dict[str, Any], target: Target,
                     idempotency_key: str | None = None) -> Any:
        binding = tool.call.http
        assert binding is not None
        args = dict(arguments)
        path = PLACEHOLDER.sub(lambda m: quote(str(args.pop(m.group(1), "")), safe=""), binding.path)
        url = target.base_url + path
        send: dict[str, Any] = {"params": args} if binding.method in ("GET", "DELETE") else {"json": args}
        if idempotency_key and tool.side_effects:  # the same key on every retry and resume of this step
            send["headers"] = {target.pack.idempotency_header: idempotency_key}
        with mapped_errors(tool):
            response = await self.client.request(binding.method, url, **send)
            status = response.status_code
            if status >= 500 or status in TRANSIENT_STATUS:
                raise TransientToolError(f"{tool.tool_name}: HTTP {status}: {_detail(response)}",
                                         message_zh=f"{tool.tool_name} 服务暂时不可用 (HTTP {status})")
            if status >= 400:
                raise ToolRejected(f"{tool.tool_name}: HTTP {status}: {_detail(response)}",
                                   message_zh=f"{tool.tool_name} 被拒绝 (HTTP {status}): {_detail(response)}",
                                   details={"status": status})
            return response.json() if response.content else None
