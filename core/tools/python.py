"""`call.python`: "module:function" from the pack folder, sync (in a thread) or async.

Only code of the pack itself (or a module the deployment allowlists) is ever imported: the
binding is checked against the code policy again here, the module is loaded from its file in
the pack folder under a name of that pack's own (two packs may both have a `backend.py`), and
the function must be defined in the pack's files (not re-exported from `os`, say).
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from core.code_policy import DEFAULT_POLICY, CodePolicy, check_python_binding
from core.errors import BindingError, CodeNotAllowed, DatasmithError, ToolRejected, TransientToolError
from core.models import ToolSpec
from core.tools.base import Target


def _load_pack_module(pack: str, module: str, file: Path, pack_dir: Path) -> ModuleType:
    if "." in module:  # a package inside the pack: import it by name (relative imports need its parents)
        if str(pack_dir) not in sys.path:
            sys.path.insert(0, str(pack_dir))
        return importlib.import_module(module)
    # Named per pack and file: two packs' `backend.py` (or one pack moved) never share a module.
    name = f"_datasmith_pack_{pack}__{module}_{hashlib.sha1(str(file).encode()).hexdigest()[:10]}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {file}")
    loaded = importlib.util.module_from_spec(spec)
    if str(pack_dir) not in sys.path:
        sys.path.insert(0, str(pack_dir))  # "the pack folder is importable": its modules import each other
    sys.modules[name] = loaded
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        del sys.modules[name]
        raise
    return loaded


def _accepts(func: Any, keyword: str) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return keyword in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _defined_in(func: Any, pack_dir: Path) -> bool:
    try:
        source = inspect.getsourcefile(inspect.unwrap(func))
    except TypeError:  # a builtin (os.system, print...)
        return False
    return source is not None and Path(source).resolve().is_relative_to(pack_dir)


class PythonInvoker:
    """Resolves functions once; pack code's exceptions become tool errors (never crash a run)."""

    def __init__(self, policy: CodePolicy = DEFAULT_POLICY) -> None:
        self.policy = policy
        self._functions: dict[tuple[str, str], Callable[..., Any]] = {}

    def _resolve(self, tool: ToolSpec, target: Target) -> Callable[..., Any]:
        ref = tool.call.python
        assert ref is not None
        key = (target.pack.name, ref)
        if key not in self._functions:
            pack_dir = Path(target.pack.path).resolve()
            module_name, _, func_name = ref.partition(":")
            try:
                file = check_python_binding(ref, pack_dir, self.policy)
            except CodeNotAllowed as exc:
                raise BindingError(f"{tool.tool_name}: {exc.message}", code=CodeNotAllowed.code,
                                   message_zh=f"{tool.tool_name} 绑定了知识包之外的代码,已拒绝") from exc
            try:
                module = (_load_pack_module(target.pack.name, module_name, file, pack_dir) if file
                          else importlib.import_module(module_name))
                func = getattr(module, func_name)
            except (ImportError, AttributeError) as exc:
                raise BindingError(f"{tool.tool_name}: cannot load {ref}: {exc}",
                                   message_zh=f"{tool.tool_name} 无法加载 {ref}") from exc
            if file and not _defined_in(func, pack_dir):
                raise BindingError(f"{tool.tool_name}: {ref} is not a function defined in pack {target.pack.name}",
                                   code=CodeNotAllowed.code, message_zh=f"{tool.tool_name}: {ref} 不是知识包内定义的函数")
            self._functions[key] = func
        return self._functions[key]

    async def invoke(self, tool: ToolSpec, arguments: dict[str, Any], target: Target,
                     idempotency_key: str | None = None) -> Any:
        func = self._resolve(tool, target)
        if idempotency_key and tool.side_effects and _accepts(func, "idempotency_key"):
            arguments = {**arguments, "idempotency_key": idempotency_key}
        try:
            if inspect.iscoroutinefunction(func):
                return await func(**arguments)
            return await asyncio.to_thread(func, **arguments)
        except DatasmithError:
            raise
        except (ConnectionError, TimeoutError) as exc:
            # pack code: a timeout or a reset connection may have done its work; a refused one has not
            unsure = isinstance(exc, TimeoutError | ConnectionResetError)
            raise TransientToolError(f"{tool.tool_name}: {type(exc).__name__}: {exc}", unknown_outcome=unsure) from exc
        except Exception as exc:  # noqa: BLE001 - pack code is foreign: any failure is that tool's refusal
            if getattr(exc, "retryable", False):
                raise TransientToolError(f"{tool.tool_name}: {exc}") from exc
            raise ToolRejected(f"{tool.tool_name}: {type(exc).__name__}: {exc}",
                               message_zh=f"{tool.tool_name} 执行失败: {exc}") from exc
