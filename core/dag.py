"""Pure graph helpers over step dependencies (planner tailoring and executor scheduling)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def ancestors(deps: Mapping[K, Iterable[K]], node: K) -> set[K]:
    """Every node `node` depends on, directly or not."""
    seen: set[K] = set()
    stack = list(deps.get(node, ()))
    while stack:
        cur = stack.pop()
        if cur not in seen:
            seen.add(cur)
            stack.extend(deps.get(cur, ()))
    return seen


def depths(deps: Mapping[K, Iterable[K]]) -> dict[K, int]:
    """Longest distance from a root (roots are 0): how far along the DAG a node is."""
    out: dict[K, int] = {}

    def depth(node: K) -> int:
        if node not in out:
            out[node] = 1 + max((depth(d) for d in deps.get(node, ())), default=-1)
        return out[node]

    for node in deps:
        depth(node)
    return out


def dependents(deps: Mapping[K, Iterable[K]]) -> dict[K, set[K]]:
    out: dict[K, set[K]] = {node: set() for node in deps}
    for node, ds in deps.items():
        for d in ds:
            out.setdefault(d, set()).add(node)
    return out


def reroute(deps: Mapping[K, Iterable[K]], kept: set[K]) -> dict[K, list[K]]:
    """Dependencies restricted to `kept`: a dropped dependency is replaced by its own kept
    dependencies, so ordering through a dropped step is preserved."""
    def kept_deps(node: K, seen: set[K]) -> list[K]:
        out: list[K] = []
        for d in deps.get(node, ()):
            if d in seen:
                continue
            seen.add(d)
            for x in ([d] if d in kept else kept_deps(d, seen)):
                if x not in out:
                    out.append(x)
        return out

    return {node: kept_deps(node, set()) for node in deps if node in kept}
