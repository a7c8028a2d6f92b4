"""Pure graph helpers over step dependencies (planner tailoring and executor scheduling)."""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable, Mapping
from typing import Generic, TypeVar

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


class Countdown(Generic[K]):
    """Dependency-driven release: each node waits on a count of unfinished dependencies, and a
    finished node counts its dependents down; those reaching zero become ready, in order."""

    def __init__(self, deps: Mapping[K, Iterable[K]], done: set[K], eligible: set[K]) -> None:
        self._eligible = eligible  # nodes that may still start (e.g. pending ones)
        self._waiting = {n: sum(d not in done for d in ds) for n, ds in deps.items()}
        # lists, not dependents()'s sets: children are released in plan order, deterministically
        self._children: dict[K, list[K]] = {n: [] for n in deps}
        for n, ds in deps.items():
            for d in ds:
                self._children[d].append(n)
        self.ready: deque[K] = deque(n for n in deps if n in eligible and self._waiting[n] == 0)

    def release(self, node: K) -> None:
        for child in self._children[node]:
            self._waiting[child] -= 1
            if self._waiting[child] == 0 and child in self._eligible:
                self.ready.append(child)
