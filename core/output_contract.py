"""The published contract of `plan --json` / `ask --json` (core/schemas/ask-output.schema.json).

Automation parses these lines; an object that breaks the schema is never printed: it is
replaced by a valid DS-500 error object naming what was wrong.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SCHEMA_PATH = Path(__file__).parent / "schemas" / "ask-output.schema.json"


@cache
def validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def problems(data: dict[str, Any]) -> list[str]:
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
            for e in sorted(validator().iter_errors(data), key=lambda e: list(e.absolute_path))]


def checked(data: dict[str, Any]) -> dict[str, Any]:
    """`data` if it keeps the contract, else the DS-500 object that says it did not."""
    found = problems(data)
    if not found:
        return data
    trace = data.get("trace_id") if isinstance(data.get("trace_id"), str) else "0" * 32
    return {"status": "no_match", "rule": None, "environment": None, "steps": [], "missing": [],
            "question": None, "trace_id": trace,
            "error": {"code": "DS-500", "message": "internal error: the answer broke the output contract ("
                      + "; ".join(found[:3]) + ")", "message_zh": "内部错误:输出不符合契约", "trace_id": trace,
                      "retryable": False}}
