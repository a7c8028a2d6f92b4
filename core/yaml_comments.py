"""The one YAML slip that loads without an error: an unquoted ` #` ends the text.

`- user_query: escalate #1048213 to billing` reads as "escalate": YAML takes everything from a
space-then-`#` as a comment. The pack still loads, the example teaches nothing, and a case's
query loses its id — silently. A comment is conventionally `# words` (a space after the hash);
a hash glued to what follows (`#1048213`, `#billing-qa`) inside a plain value is text someone
meant to keep, so that is what is flagged. Quoted, folded and literal values are never cut."""

from __future__ import annotations

import re

_LEAD = re.compile(r"^\s*(?:-\s+)*")
_KEY = re.compile(r"^(?P<key>[\w.-]+)\s*:\s+")
_GLUED = re.compile(r"\s#(?=\S)")
_NOT_PLAIN = tuple("'\"|>[{&*!%@`#")


def comment_cuts(text: str) -> list[str]:
    """One line per plain value that a glued ` #` cuts short, naming the line and what was lost."""
    found: list[str] = []
    block = -1  # indentation of the key whose `|` / `>` block scalar is being read, else -1
    for number, line in enumerate(text.splitlines(), 1):
        indent = len(line) - len(line.lstrip(" "))
        if block >= 0 and (not line.strip() or indent > block):
            continue
        block = -1
        lead = _LEAD.match(line)
        rest = line[lead.end():] if lead else line
        key = _KEY.match(rest)
        if key is None and "-" not in line[: len(line) - len(rest)]:
            continue  # neither `key: value` nor `- item`: a block scalar's line, or a comment line
        value = rest[key.end():] if key else rest
        if value.startswith(("|", ">")):
            block = len(line) - len(rest)  # the key's column: deeper lines are the block
            continue
        cut = _GLUED.search(value)
        if not value or value.startswith(_NOT_PLAIN) or cut is None:
            continue
        what = repr(key.group("key")) if key else "a list item"
        found.append(f"line {number}: {what} is read as {value[:cut.start()].strip()!r} — YAML takes "
                     f"'{value[cut.start():]}' as a comment; put the value in quotes to keep it")
    return found
