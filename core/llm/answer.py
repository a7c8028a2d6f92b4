"""The JSON object in a model's answer, whatever the model wrapped it in.

Models without a JSON mode (and some with one) answer with the plan in a ```json fence, with a
sentence before and after, after a `<think>…</think>` block, with a trailing comma or a comment.
None of that is a wrong plan: the object is taken here, so the paid repair round is kept for
plans that are wrong. Candidates, best first: fenced blocks, then balanced `{…}` spans of the
text; each parsed strictly, then by json-repair (trailing commas, comments, single quotes)
when it is a closed object. An unclosed object (a cut-off answer) is not guessed at.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import json_repair

THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.S | re.I)
THINK_END = re.compile(r"</(?:think|thinking|reasoning)>", re.I)  # R1 via some servers: no opening tag
FENCED = re.compile(r"```[ \t]*(?:json|JSON|jsonc|json5)?[ \t]*\n?(.*?)```", re.S)


@dataclass
class Extracted:
    """The object found (None when there is none), how it was taken, and why not when it was not."""

    data: dict[str, Any] | None
    how: list[str] = field(default_factory=list)
    error: str | None = None


def extract_object(content: str, *, prefer_key: str = "status") -> Extracted:
    """The JSON object in `content`; among several, the first that has `prefer_key`."""
    how: list[str] = []
    text = content
    if THINK.search(text):
        text, how = THINK.sub(" ", text), ["a <think> block was set aside"]
    if (ends := list(THINK_END.finditer(text))):
        text, how = text[ends[-1].end():], ["reasoning before </think> was set aside"]
    try:
        data = json.loads(text)
        if isinstance(data, dict):
            return Extracted(data, how)
    except json.JSONDecodeError as exc:
        strict_error = f"not JSON: {exc.msg} at character {exc.pos}"
    else:
        strict_error = "not JSON: the answer is not a JSON object"
    found: list[tuple[dict[str, Any], list[str]]] = []
    for where, chunk in _candidates(text):
        data, repaired = _parse(chunk)
        if isinstance(data, dict):
            found.append((data, [*how, *([where] if where else []), *(["repaired by json-repair"] if repaired else [])]))
    if not found:
        return Extracted(None, how, strict_error)
    data, took = next(((d, h) for d, h in found if prefer_key in d), found[0])
    return Extracted(data, took)


def _candidates(text: str) -> list[tuple[str, str]]:
    fenced = []
    for m in FENCED.finditer(text):  # a block may hold a comment line or a word before its object
        block = m.group(1).strip()
        fenced += [("from a fenced block", c) for c in dict.fromkeys([block, *balanced_objects(block)])]
    bare = FENCED.sub(" ", text)
    whole = bare.strip()
    return fenced + [("" if span == whole else "from the text around it", span) for span in balanced_objects(bare)]


def _parse(chunk: str) -> tuple[Any, bool]:
    try:
        return json.loads(chunk), False
    except json.JSONDecodeError:
        pass
    if not (chunk.startswith("{") and balanced_objects(chunk) == [chunk]):
        return None, False  # a cut-off object: the repair round asks for the whole answer
    try:
        return json_repair.loads(chunk, skip_json_loads=True), True
    except (ValueError, RecursionError):
        return None, False


def balanced_objects(text: str) -> list[str]:
    """The outermost `{…}` spans whose braces close, outside strings (a `}` in "a}b" is text)."""
    out: list[str] = []
    depth, start, quote, escaped = 0, -1, "", False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch == '"' and depth:
            quote = ch
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                out.append(text[start:i + 1])
    return out
