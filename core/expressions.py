"""JMESPath for argument paths and step conditions (shared by planner and executor)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jmespath
from jmespath.parser import ParsedResult


@lru_cache(maxsize=1024)
def compiled(expr: str) -> ParsedResult:
    return jmespath.compile(expr)


def search(expr: str, data: Any) -> Any:
    return compiled(expr).search(data)


def condition_holds(expr: str, context: dict[str, Any]) -> bool:
    """JMESPath truthiness: false, null and empty values are false."""
    value = search(expr, context)
    return value not in (False, None, "", [], {})


def reads_steps(expr: str) -> bool:
    """Whether a condition looks at step outputs (then only the executor can decide it)."""
    return "steps" in expr
