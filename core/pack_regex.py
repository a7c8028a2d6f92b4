"""Pack-supplied regular expressions (`patterns`), run so that none can stall a process.

They are compiled with the `regex` module, which takes a per-call time budget, and probed when
the pack loads: a pattern that backtracks catastrophically (`(a|aa)+$` on "aaaa…!") is refused
with its file and tool (DS-201) instead of hanging planning for minutes. At plan time every
match runs under a budget too; a pattern that runs out finds nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import regex

log = logging.getLogger("datasmith")

LOAD_BUDGET_S = 0.05  # per probe, when a pack loads
# per search, when a request is planned: patterns that backtrack badly were refused at load, so this only
# guards what the probes missed — generous enough that a busy machine (a descheduled thread) does not
# drop an ordinary pattern's matches, which made plans differ from run to run
MATCH_BUDGET_S = 0.5
_PROBE_LENGTH = 28


def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """Compile, or raise ValueError saying why (bad syntax, or catastrophic backtracking)."""
    try:
        compiled = regex.compile(pattern)
    except regex.error as exc:
        raise ValueError(f"invalid regex {pattern!r}: {exc}") from exc
    for probe in _probes(pattern):
        try:
            compiled.search(probe, timeout=LOAD_BUDGET_S)
        except TimeoutError as exc:
            raise ValueError(f"regex {pattern!r} takes exponential time on input like {probe[:12]!r}… "
                             "(nested or overlapping repetition such as (a|aa)+ or (a+)+): rewrite it") from exc
    return compiled


def _probes(pattern: str) -> list[str]:
    """Inputs that make a backtracking pattern blow up: long runs of the characters it repeats,
    followed by a character that makes the match fail at the end."""
    chars = [c for c in dict.fromkeys(pattern) if c.isalnum()][:6] + ["a", "1", " ", "中", "-", "_"]
    out = []
    for c in dict.fromkeys(chars):
        out += [c * _PROBE_LENGTH + "\x00", c * _PROBE_LENGTH + "!" + c]
    return out


def finditer(compiled: regex.Pattern[str], text: str) -> Iterator[regex.Match[str]]:
    """Matches of a pack pattern within the time budget; a pattern that runs out yields none."""
    try:  # (all at once: the budget is wall-clock time, and the caller's work between matches is not the pattern's)
        matches = list(compiled.finditer(text, timeout=MATCH_BUDGET_S))
    except TimeoutError:
        log.warning("pack pattern %r ran out of time on a %d-character request; ignored", compiled.pattern,
                    len(text))
        return
    yield from matches
