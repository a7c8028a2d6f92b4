"""Tool contracts: JSON Schemas for arguments and outputs, and PII redaction."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from core.errors import VALUE_REFUSED, ContractError, InputError
from core.models import Plan, StepRef, ToolSpec

REDACTED = "***"


def parameters_schema(tool: ToolSpec) -> dict[str, Any]:
    """The JSON Schema of a tool's arguments: no unknown keys, required as declared."""
    return {
        "type": "object",
        "properties": {p.name: p.json_schema() for p in tool.parameters},
        "required": [p.name for p in tool.parameters if p.required],
        "additionalProperties": False,
    }


class ArgumentsCheck:
    """A tool's argument contract, compiled. The object level of parameters_schema() is ours
    (known keys, required keys, nothing else), so it is checked in plain Python; each value goes
    through its parameter's own JSON Schema validator. Same verdicts and messages as validating
    the whole schema, without jsonschema's per-property descent: the executor checks every step."""

    def __init__(self, tool: ToolSpec) -> None:
        self.values = {p.name: Draft202012Validator(p.json_schema()) for p in tool.parameters}
        self.required = [p.name for p in tool.parameters if p.required]

    def problems(self, arguments: Any) -> list[str]:
        if not isinstance(arguments, dict):
            return [f"(root): {arguments!r} is not of type 'object'"]
        found: list[tuple[list[str], str]] = []
        found += [([], f"{name!r} is a required property") for name in self.required if name not in arguments]
        if extra := sorted((k for k in arguments if k not in self.values), key=str):
            were = f"{extra[0]!r} was" if len(extra) == 1 else ", ".join(map(repr, extra)) + " were"
            found.append(([], f"Additional properties are not allowed ({were} unexpected)"))
        for name, value in arguments.items():
            if (validator := self.values.get(name)) is not None:
                found += [([name, *map(str, e.path)], e.message) for e in validator.iter_errors(value)]
        found.sort(key=lambda f: f[0])
        return [f"{'/'.join(path) or '(root)'}: {message}" for path, message in found[:5]]


def _compiled(tool: ToolSpec, which: str) -> Any:
    # Compiled once per loaded tool: the cache lives on the tool, not in a module global. Read
    # through __pydantic_private__: pydantic's private-attribute __getattr__ costs ~5 µs a call,
    # and the executor asks twice per step.
    cache: dict[str, Any] = tool.__pydantic_private__["_validators"]  # type: ignore[index]
    if which not in cache:
        if which == "args":
            cache[which] = ArgumentsCheck(tool)
        else:
            cache[which] = Draft202012Validator(tool.returns) if tool.returns is not None else None
    return cache[which]


def _problems(validator: Draft202012Validator, value: Any) -> list[str]:
    return _messages(validator.iter_errors(value))


def _messages(errors: Iterable[ValidationError]) -> list[str]:
    out = []
    for err in sorted(errors, key=lambda e: list(e.path))[:5]:
        where = "/".join(str(p) for p in err.path) or "(root)"
        out.append(f"{where}: {err.message}")
    return out


def check_arguments(tool: ToolSpec, arguments: dict[str, Any], *, step_id: Any = None) -> None:
    """Raise ContractError when arguments break the tool's parameter schema."""
    problems = _compiled(tool, "args").problems(arguments)
    if problems:
        raise ContractError(
            f"arguments for {tool.tool_name} break its contract: " + "; ".join(problems),
            message_zh=f"{tool.tool_name} 的参数不符合契约: " + "; ".join(problems),
            step_id=step_id,
        )


def check_output(tool: ToolSpec, output: Any, *, step_id: Any = None) -> None:
    """Raise ContractError when an output breaks the tool's `returns` schema."""
    validator = _compiled(tool, "returns")
    problems = _problems(validator, output) if validator else []
    if problems:
        raise ContractError(
            f"output of {tool.tool_name} breaks its `returns` contract: " + "; ".join(problems),
            message_zh=f"{tool.tool_name} 的返回不符合契约: " + "; ".join(problems),
            step_id=step_id,
        )


def check_plan(tools: dict[str, ToolSpec], plan: Plan, text: str = "") -> None:
    """The gate before anything runs: every literal argument of every step that will run must
    satisfy its tool's schema, so a bad value fails the plan, not step 5 after 4 writes. A bad value
    the requester stated (the rule planner's recorded source is the request; for the LLM, whose
    sources are claims, the value appears in `text`) is their input error (DS-107), not the
    pack's (DS-303)."""
    for step in plan.steps:
        if step.skipped:
            continue
        tool = tools.get(step.tool_name)
        if tool is None:
            raise ContractError(f"step {step.step_id}: unknown tool {step.tool_name!r}", step_id=step.step_id)
        refs = {k for k, v in step.arguments.items() if isinstance(v, StepRef)}
        schema = parameters_schema(tool)
        schema["required"] = [r for r in schema["required"] if r not in refs]
        literal = {k: v for k, v in step.arguments.items() if k not in refs}
        errors = list(Draft202012Validator(schema).iter_errors(literal))  # validated once: both verdicts read them
        if not errors:
            continue
        said = [(str(e.path[0]), e.message) for e in errors
                if e.path and _stated(_source(plan, step.sources.get(str(e.path[0]))), literal.get(str(e.path[0])),
                                      text)]
        if said:  # the requester's own value (an LLM or a follow-up put it there): theirs to change
            name, why = said[0]
            param = tool.param(name)
            label = f"{param.description} ({name})" if param is not None and param.description else name
            raise InputError(
                f"the value you gave for {label}, {literal[name]!r}, is not allowed: {why}; say another value",
                message_zh=f"你给的 {label} 的值 {literal[name]!r} 不可用:{why};请换一个值",
                code=VALUE_REFUSED)
        problems = _messages(errors)
        if problems:
            raise ContractError(
                f"step {step.step_id} ({tool.tool_name}): " + "; ".join(problems),
                message_zh=f"第 {step.step_id} 步 ({tool.tool_name}) 的参数不合法: " + "; ".join(problems),
                step_id=step.step_id,
            )


def _source(plan: Plan, source: str | None) -> str | None:
    """Where a value came from; an LLM's "request" is its claim (None: check the words)."""
    return None if plan.planner == "llm" and source == "request" else source


def _stated(source: str | None, value: Any, text: str) -> bool:
    if source is not None:
        return source in ("request", "conversation")
    said = str(value).strip()
    return bool(said) and bool(re.search(rf"(?<![0-9A-Za-z.]){re.escape(said)}(?![0-9A-Za-z.])",
                                         unicodedata.normalize("NFKC", text), re.IGNORECASE))


def split_secrets(plan: Plan, tools: dict[str, ToolSpec], text: str) -> tuple[Plan, str, list[list[Any]]]:
    """A copy of the plan and request text fit to store: literal PII arguments replaced by
    REDACTED. Returns the secrets as [step_id, name, value] rows, to restore on resume."""
    secrets: list[list[Any]] = []
    if not any(tools[s.tool_name].pii for s in plan.steps if s.tool_name in tools):
        return plan, text, secrets  # nothing to hide: no copy
    steps = []
    for step in plan.steps:
        pii = set(tools[step.tool_name].pii) if step.tool_name in tools else set()
        args = dict(step.arguments)
        for name in pii & set(args):
            if not isinstance(args[name], StepRef):
                secrets.append([step.step_id, name, args[name]])
                text = redact_text(text, str(args[name]))
                args[name] = REDACTED
        steps.append(step.model_copy(update={"arguments": args}))
    known = {k: (REDACTED if any(v == s[2] for s in secrets) else v) for k, v in plan.known.items()}
    turns = list(plan.conversation)
    for _, _, value in secrets:
        turns = [redact_text(t, str(value)) for t in turns]
    return plan.model_copy(update={"steps": steps, "known": known, "conversation": turns}), text, secrets


def redact_text(text: str, value: str) -> str:
    """`text` with every occurrence of `value` replaced — also where it was typed differently but
    reads the same once normalised (full-width digits "１１０１…", a zero-width space inside)."""
    if not value:
        return text
    norm: list[str] = []
    owner: list[int] = []
    for i, ch in enumerate(text):
        folded = "" if unicodedata.category(ch)[0] == "C" and ch not in "\t\n" else unicodedata.normalize("NFKC", ch)
        for c in folded:
            norm.append(c)
            owner.append(i)
    flat = "".join(norm)
    cuts: list[tuple[int, int]] = []
    at = flat.find(value)
    while at >= 0:
        cuts.append((owner[at], owner[at + len(value) - 1] + 1))
        at = flat.find(value, at + len(value))
    for start, end in reversed(cuts):
        text = text[:start] + REDACTED + text[end:]
    return text


def scrub(value: Any, secrets: frozenset[str]) -> Any:
    """A copy of value with every known secret replaced wherever it appears, at any depth."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = redact_text(value, secret)
        return value
    if isinstance(value, dict):
        return {k: scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, secrets) for v in value]
    return value


def restore_secrets(plan: Plan, secrets: list[list[Any]]) -> None:
    for step_id, name, value in secrets:
        step = plan.step(step_id)
        if step is not None:
            step.arguments[name] = value


def redact(value: Any, fields: frozenset[str] | set[str]) -> Any:
    """A copy of value with every key named in `fields` replaced, at any depth."""
    if not fields:
        return value
    if isinstance(value, dict):
        return {k: (REDACTED if k in fields else redact(v, fields)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, fields) for v in value]
    return value


def redact_answer(body: dict[str, Any], tools: dict[str, ToolSpec]) -> dict[str, Any]:
    """A published answer (`ask --json`, the API's body) fit to store, as the RunStore keeps a run:
    literal PII arguments and PII output fields as REDACTED, and their values nowhere else in it
    (the request's words, the thread, other steps' outputs, the question)."""
    secrets: set[str] = set()
    pii_names: set[str] = set()
    steps = []
    for step in body.get("steps") or []:
        pii = set(tools[step["tool_name"]].pii) if step.get("tool_name") in tools else set()
        pii_names |= pii
        args = dict(step.get("arguments") or {})
        for name in pii & set(args):
            if not (isinstance(args[name], dict) and set(args[name]) == {"from_step", "path"}):
                secrets.add(str(args[name]))
                args[name] = REDACTED
        steps.append({**step, "arguments": args})
    out = {**body, "steps": steps} if steps else dict(body)
    if isinstance(out.get("known"), dict):
        out["known"] = {k: (REDACTED if k in pii_names else v) for k, v in out["known"].items()}
    for key in ("run", "runs"):
        runs = out.get(key)
        if isinstance(runs, dict):
            out[key] = _redact_run(runs, tools, secrets)
        elif isinstance(runs, list):
            out[key] = [_redact_run(r, tools, secrets) for r in runs]
    return scrub(out, frozenset(v for v in secrets if len(v) >= 4))


def _redact_run(run: dict[str, Any], tools: dict[str, ToolSpec], secrets: set[str]) -> dict[str, Any]:
    steps = []
    for step in run.get("steps") or []:
        fields = set(tools[step["tool_name"]].pii) if step.get("tool_name") in tools else set()
        output = step.get("output")
        if isinstance(output, dict):
            secrets |= {str(v) for k, v in output.items() if k in fields and v not in (None, "", REDACTED)}
        steps.append({**step, "output": redact(output, fields)})
    return {**run, "steps": steps}
