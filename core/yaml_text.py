"""YAML in: libyaml's C parser when PyYAML has it (10x the pure-Python one; a pack loads in
~0.1 s instead of ~1 s), the same safe subset either way — and never in a way that can bring the
process down. 50,000 nested `[` overflow libyaml's C stack and kill the process (exit 139) instead
of raising, so text that nests deeply goes to the pure-Python parser, whose recursion limit turns
the same input into an error; size and alias count are bounded first."""

from __future__ import annotations

import re
from typing import Any

import yaml

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_BYTES = 2_000_000  # a pack file; the bundled shop's largest is ~10 KB
DEEP = 48  # nesting of [ { or of indentation levels past which only the pure-Python parser reads it
MAX_ALIASES = 100  # *anchors: a few are handy, thousands are an expansion bomb
_ALIAS = re.compile(r"(?:^|[\s\[{,:-])\*[\w-]+")


def _error(problem: str, line: int = 0) -> yaml.YAMLError:
    return yaml.MarkedYAMLError(problem=problem, problem_mark=yaml.Mark("<text>", 0, line, 0, None, None))


def _deep(text: str) -> bool:
    """Whether brackets or indentation nest deeper than the C parser may safely see (quotes ignored:
    a false alarm only costs the slower parser)."""
    depth = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            if depth > DEEP:
                return True
        elif ch in "]}":
            depth = max(0, depth - 1)
    indents = {len(raw) - len(raw.lstrip(" ")) for raw in text.splitlines() if raw.strip()}
    return len(indents) > DEEP


def load_yaml(text: str) -> Any:
    """Parse one YAML document with a safe loader; raise yaml.YAMLError on anything it refuses."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise _error(f"file larger than {MAX_BYTES // 1_000_000} MB")
    if len(_ALIAS.findall(text)) > MAX_ALIASES:
        raise _error(f"more than {MAX_ALIASES} aliases")
    if not _deep(text):
        return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader, C or Python
    try:
        return yaml.load(text, Loader=yaml.SafeLoader)  # noqa: S506 - the pure-Python safe loader
    except RecursionError as exc:
        raise _error("nested too deeply to read") from exc
