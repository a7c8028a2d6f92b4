"""The plan cache (diskcache): the same request, in the same place, against the same knowledge,
gets the same plan without retrieval or an LLM call.

Key = hash(normalised request, environment, planner, knowledge version, prompt version, model,
the open question it answers, the planner's own code): an upgrade never serves a plan an older
planner made. A plan is kept 30 min; a plan the LLM failed to make (the
fallback answered) 2 min, so a broken provider is not hammered yet recovers soon.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

import diskcache

from core.llm.prompts import PROMPT_VERSION
from core.models import Plan, Request
from core.planning.text import normalize


@cache
def planner_fingerprint() -> str:
    """A digest of the planning code, the LLM planner's answer reading included (read once per process)."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for path in sorted([*(here / "planning").glob("*.py"), *(here / "llm").glob("*.py")]):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class PlanCache:
    def __init__(self, directory: Path, ttl_s: float, failure_ttl_s: float) -> None:
        self._cache = diskcache.Cache(str(directory), size_limit=256 * 2**20)
        self.ttl_s = ttl_s
        self.failure_ttl_s = failure_ttl_s

    def close(self) -> None:
        self._cache.close()

    @staticmethod
    def key(request: Request, *, planner: str, knowledge_version: str, model: str | None) -> str:
        prev = request.previous.model_dump_json() if request.previous else None
        scope = request.scope.model_dump_json() if request.scope else None
        raw = json.dumps([normalize(request.text), request.environment, planner, knowledge_version, PROMPT_VERSION,
                          model, prev, scope, planner_fingerprint()], ensure_ascii=False)
        return "plan:" + hashlib.sha256(raw.encode()).hexdigest()

    def get(self, key: str) -> Plan | None:
        raw = self._cache.get(key)
        return Plan.model_validate_json(raw) if isinstance(raw, str) else None

    def put(self, key: str, plan: Plan) -> None:
        ttl = self.failure_ttl_s if plan.fallback else self.ttl_s
        self._cache.set(key, plan.model_dump_json(), expire=ttl)
