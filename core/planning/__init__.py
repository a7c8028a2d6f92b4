"""Planners: one output type (`Plan`), behind the `Planner` protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from core.models import Plan, Request, RetrievalHit
from core.planning.rule_planner import RulePlanner


class Planner(Protocol):
    name: str

    def plan(self, request: Request, hits: Sequence[RetrievalHit] | None = None) -> Plan: ...


__all__ = ["Planner", "RulePlanner"]
