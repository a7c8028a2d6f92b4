"""What every binding shares: the target environment, the invoker protocol, error mapping."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from core.errors import BindingError, DatasmithError, ToolRejected, TransientToolError
from core.knowledge import expand_env
from core.models import EnvironmentSpec, PackSpec, ToolSpec


@dataclass(frozen=True)
class Target:
    """Where a call goes: a pack's environment, with ${NAME} expanded from the process env."""

    pack: PackSpec
    environment: str | None
    spec: EnvironmentSpec | None
    environ: Mapping[str, str]

    @property
    def base_url(self) -> str:
        if self.spec is None or not self.spec.base_url:
            raise BindingError(
                f"environment {self.environment!r} of pack {self.pack.name} has no base_url",
                message_zh=f"知识包 {self.pack.name} 的环境 {self.environment!r} 没有配置 base_url",
            )
        return expand_env(self.spec.base_url, self.environ).rstrip("/")


class ToolInvoker(Protocol):
    async def invoke(self, tool: ToolSpec, arguments: dict[str, Any], target: Target,
                     idempotency_key: str | None = None) -> Any: ...


@contextmanager
def mapped_errors(tool: ToolSpec) -> Iterator[None]:
    """Translate foreign exceptions (httpx, mcp, anyio, OS) into the catalogue. The one place."""
    name = tool.tool_name
    try:
        yield
    except DatasmithError:
        raise
    except httpx.UnsupportedProtocol as exc:  # file://, ftp://...: a configuration error, no retry helps
        raise BindingError(f"{name}: the environment's base_url cannot be called: {exc}",
                           message_zh=f"{name}: 环境的 base_url 无法调用: {exc}") from exc
    except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:  # nothing was sent
        raise TransientToolError(f"{name}: could not connect: {exc}", message_zh=f"{name} 无法连接: {exc}") from exc
    except httpx.TimeoutException as exc:  # sent, no answer: it may have happened
        raise TransientToolError(f"{name}: timed out ({type(exc).__name__})", message_zh=f"{name} 调用超时",
                                 unknown_outcome=True) from exc
    except httpx.TransportError as exc:
        raise TransientToolError(f"{name}: network error: {exc}", message_zh=f"{name} 网络错误: {exc}",
                                 unknown_outcome=True) from exc
    except (ConnectionRefusedError, ConnectionResetError) as exc:
        raise TransientToolError(f"{name}: {type(exc).__name__}: {exc}", message_zh=f"{name} 连接失败",
                                 unknown_outcome=isinstance(exc, ConnectionResetError)) from exc
    except (ConnectionError, TimeoutError) as exc:
        raise TransientToolError(f"{name}: {type(exc).__name__}: {exc}", message_zh=f"{name} 连接失败",
                                 unknown_outcome=isinstance(exc, TimeoutError)) from exc
    except ValueError as exc:  # JSON decoding of an answer, bad arguments a tool refused
        raise ToolRejected(f"{name}: {exc}", message_zh=f"{name} 拒绝了请求: {exc}") from exc
