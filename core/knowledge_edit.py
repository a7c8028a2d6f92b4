"""Edit one tool or rule of a pack as YAML: validated on a copy first, written only when valid.

The edit replaces just that item's lines in its file, so the other items keep their comments
and layout. Validation loads the whole knowledge with the edited copy of the pack, so every
check of the spec applies (references from rules to a renamed tool, cycles, schemas...).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ValidationError

from core.errors import DatasmithError
from core.knowledge import Knowledge, load_knowledge
from core.models import CallSpec, ToolSpec
from core.yaml_text import load_yaml

Kind = Literal["tool", "rule"]
KEY = {"tool": "tool_name", "rule": "rule_name"}


@dataclass
class EditResult:
    ok: bool
    errors: list[str] = field(default_factory=list)
    file: str = ""
    knowledge: Knowledge | None = None  # the reloaded knowledge when written


def _span(lines: list[str], key: str, name: str) -> tuple[int, int] | None:
    """Line range [start, end) of a list item `- key: name` (the item ends at the next top-level line)."""
    head = re.compile(rf"^-\s+{key}:\s*['\"]?{re.escape(name)}['\"]?\s*(#.*)?$")
    start = next((i for i, line in enumerate(lines) if head.match(line.rstrip("\n"))), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and not re.match(r"^(-\s|\S)", lines[end]):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():  # blank lines stay between items
        end -= 1
    return start, end


def item_yaml(knowledge: Knowledge, kind: Kind, name: str) -> str:
    """The item's YAML as written in its file (a mapping, not a list item)."""
    item: Any = knowledge.tools[name] if kind == "tool" else knowledge.rules[name]
    text = Path(item.source_file).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    span = _span(lines, KEY[kind], name)
    if span is None:  # a file holding just this item as a mapping
        data = load_yaml(text)
        if isinstance(data, dict):
            return text
        return yaml.safe_dump(item.model_dump(exclude_defaults=True), allow_unicode=True, sort_keys=False)
    body = lines[span[0]:span[1]]
    return "".join([body[0][2:], *[line[2:] if line.startswith("  ") else line for line in body[1:]]])


def _as_list_item(mapping_text: str) -> str:
    lines = mapping_text.rstrip("\n").splitlines()
    return "\n".join(["- " + lines[0], *[("  " + line) if line.strip() else "" for line in lines[1:]]]) + "\n"


def _edited_file(path: Path, kind: Kind, name: str, new_text: str) -> str:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    span = _span(lines, KEY[kind], name)
    if span is None:
        if isinstance(load_yaml(text), dict):
            return new_text if new_text.endswith("\n") else new_text + "\n"
        raise DatasmithError(f"{name} not found as a list item in {path}", code="DS-201")
    return "".join(lines[:span[0]]) + _as_list_item(new_text) + "".join(lines[span[1]:])


def apply_edit(paths: list[Path], knowledge: Knowledge, kind: Kind, name: str, new_text: str, *,
               write: bool = True) -> EditResult:
    """Validate `new_text` as the new YAML of `name`; write it when valid (and `write`)."""
    try:
        data = load_yaml(new_text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        return EditResult(False, [f"YAML: {where}{getattr(exc, 'problem', None) or exc}"])
    if not isinstance(data, dict):
        return EditResult(False, [f"a {kind} is a mapping (`{KEY[kind]}: …`), not {type(data).__name__}"])
    item: Any = knowledge.tools.get(name) if kind == "tool" else knowledge.rules.get(name)
    if item is None:
        return EditResult(False, [f"no {kind} {name!r} in the loaded knowledge"])
    if kind == "tool" and (refusal := _code_binding_change(item, data)):
        return EditResult(False, [refusal])
    source = Path(item.source_file)
    pack_dir = Path(knowledge.packs[item.pack].path)
    try:
        new_file = _edited_file(source, kind, name, new_text)
    except DatasmithError as exc:
        return EditResult(False, [exc.message])
    with tempfile.TemporaryDirectory(prefix="datasmith-edit-") as tmp:
        copy = Path(tmp) / pack_dir.name
        shutil.copytree(pack_dir, copy, ignore=shutil.ignore_patterns("__pycache__"))
        (copy / source.relative_to(pack_dir)).write_text(new_file, encoding="utf-8")
        others = [p for p in _pack_dirs(paths) if p.resolve() != pack_dir.resolve()]
        try:
            load_knowledge([*others, copy], knowledge.policy)
        except DatasmithError as exc:
            return EditResult(False, [str(exc).replace(str(copy), str(pack_dir))], str(source))
    if not write:
        return EditResult(True, [], str(source))
    fd, tmp_path = tempfile.mkstemp(dir=source.parent, prefix=f".{source.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(new_file)
    os.replace(tmp_path, source)  # atomic: readers see the old file or the new one, never half
    return EditResult(True, [], str(source), load_knowledge(paths, knowledge.policy))


def _code_binding_change(tool: ToolSpec, data: dict[str, Any]) -> str | None:
    """An edit from the console may change an http binding, never add or change code it runs:
    `call.python` and `call.mcp` change only in the pack's files, where changes are reviewed."""
    try:
        new = CallSpec.model_validate(data.get("call"))
    except ValidationError:
        return None  # the loader reports what is wrong with it
    old = tool.call
    if new.kind in ("python", "mcp") and new.model_dump() != old.model_dump():
        return (f"call.{new.kind} cannot be added or changed from the console (it decides which code runs); "
                "change it in the pack's files, under review, and reload")
    return None


def _pack_dirs(paths: list[Path]) -> list[Path]:
    """The pack folders behind the configured paths (a path is a pack or a folder of packs)."""
    out: list[Path] = []
    for p in paths:
        if (p / "pack.yaml").exists():
            out.append(p)
        else:
            out.extend(sorted(d for d in p.iterdir() if (d / "pack.yaml").exists()))
    return out
