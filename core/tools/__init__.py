"""Tool bindings: http (httpx), python (module:function), mcp (stdio or streamable HTTP)."""

from core.tools.base import Target, ToolInvoker
from core.tools.registry import ToolRegistry

__all__ = ["Target", "ToolInvoker", "ToolRegistry"]
