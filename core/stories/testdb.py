"""An environment's data as stories see it: reset, seed (SQL script), query — through the pack's
`test_hooks`, over HTTP to the system under test (nothing domain-specific here)."""

from __future__ import annotations

from typing import Any

import httpx

from core.errors import BindingError
from core.knowledge import Knowledge, expand_env
from core.models import HttpHook


class TestDatabase:
    __test__ = False  # not a pytest class

    def __init__(self, knowledge: Knowledge, environ: dict[str, str], pack: str, environment: str,
                 client: httpx.AsyncClient) -> None:
        spec = knowledge.packs[pack]
        env = spec.environments.get(environment)
        if spec.test_hooks is None or env is None or not env.base_url:
            raise BindingError(f"pack {pack} declares no test_hooks (reset / sql) for environment {environment}: "
                               "stories cannot reset or inspect its data")
        self.hooks = spec.test_hooks
        self.base = expand_env(env.base_url, environ).rstrip("/")
        self.client = client

    async def _call(self, hook: HttpHook | None, body: dict[str, Any] | None = None) -> dict[str, Any]:
        if hook is None:
            raise BindingError("this pack's test_hooks lack the hook stories need (reset and sql)")
        resp = await self.client.request(hook.method, self.base + hook.path, json=body)
        if resp.status_code >= 400:
            raise BindingError(f"test hook {hook.path} answered {resp.status_code}: {resp.text[:300]}")
        return resp.json() if resp.content else {}

    async def reset(self) -> None:
        await self._call(self.hooks.reset)

    async def seed(self, script: str) -> None:
        await self._call(self.hooks.sql, {"script": script})

    async def rows(self, table: str, where: dict[str, Any]) -> list[dict[str, Any]]:
        clause = " AND ".join(f"{k} = ?" for k in where) or "1 = 1"
        query = f"SELECT * FROM {table} WHERE {clause}"  # noqa: S608 - names validated by DbAssert
        return (await self._call(self.hooks.sql, {"query": query, "params": list(where.values())}))["rows"]
