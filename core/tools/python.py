"""`call.python`: "module:function" from the pack folder, sync (in a thread) or async."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.errors import BindingError, DatasmithError, ToolRejected, TransientToolError
from core.models import ToolSpec
from core.tools.base import Target


class PythonInvoker:
    """Resolves functions once; pack code's exceptions become tool errors (never crash a run)."""

    def __init__(self) -> None:
        self._functions: dict[str, Callable[..., Any]] = {}

    def _resolve(self, tool: ToolSpec, target: Target) -> Callable[..., Any]:
        ref = tool.call.python
        assert ref is not None
        if ref not in self._functions:
            pack_dir = str(Path(target.pack.path).resolve())
            if pack_dir not in sys.path:
                sys.path.insert(0, pack_dir)  # "the pack folder is importable"
            module_name, _, func_name = ref.partition(":")
            try:
                module = importlib.import_module(module_name)
                self._functions[ref] = getattr(module, func_name)
            except (ImportError, AttributeError) as exc:
                raise BindingError(f"{tool.tool_name}: cannot load {ref}: {exc}",
                                   message_zh=f"{tool.tool_name} 无法加载 {ref}") from exc
        return self._functions[ref]

    async def invoke(self, tool: ToolSpec, arguments: dict[str, Any], target: Target) -> Any:
        func = self._resolve(tool, target)
        try:
            if inspect.iscoroutinefunction(func):
                return await func(**arguments)
            return await asyncio.to_thread(func, **arguments)
        except DatasmithError:
            raise
        except (ConnectionError, TimeoutError) as exc:
            raise TransientToolError(f"{tool.tool_name}: {type(exc).__name__}: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - pack code is foreign: any failure is that tool's refusal
            if getattr(exc, "retryable", False):
                raise TransientToolError(f"{tool.tool_name}: {exc}") from exc
            raise ToolRejected(f"{tool.tool_name}: {type(exc).__name__}: {exc}",
                               message_zh=f"{tool.tool_name} 执行失败: {exc}") from exc
