"""Tool contracts from both sides: what we send (consumer), what tools answer (provider), and what
a new pack version may change (compatibility). `datasmith contracts check | verify | compat`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.contracts import check_arguments, check_output, check_plan
from core.errors import DatasmithError, InputError, ToolRejected
from core.evaluation import load_cases
from core.knowledge import Knowledge
from core.models import Plan, Request, StepRef, ToolSpec
from core.planning import RulePlanner
from core.tools import ToolRegistry

# What must never leave the company in arguments to a tool marked `external: true`.
SENSITIVE = {
    "email address": re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"),
    "mobile number": re.compile(r"(?<!\d)(?:\+?86[- ]?)?1[3-9]\d{9}(?!\d)"),
    "national id": re.compile(r"(?<!\d)\d{17}[\dXx](?!\d)"),
    "card number": re.compile(r"(?<!\d)(?:\d[ -]?){13,19}(?!\d)"),
    "api key": re.compile(r"\b(?:sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,})"),
    "private key": re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
}


@dataclass
class Finding:
    where: str
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"


# ---------------------------------------------------------------------- consumer

def _literals(value: Any) -> list[str]:
    if isinstance(value, StepRef) or value is None:
        return []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _literals(v)]
    if isinstance(value, list):
        return [s for v in value for s in _literals(v)]
    return [str(value)]


def check_planned(kn: Knowledge, plan: Plan, where: str) -> list[Finding]:
    out: list[Finding] = []
    env = kn.environment(plan.pack or "", plan.environment or "")
    for step in plan.steps:
        tool = kn.tools.get(step.tool_name)
        if tool is None:
            out.append(Finding(where, f"step {step.step_id}: unknown tool {step.tool_name}"))
            continue
        if env is not None and env.allowed_tools is not None and tool.tool_name not in env.allowed_tools:
            out.append(Finding(where, f"step {step.step_id}: {tool.tool_name} is not allowed in {plan.environment}"))
        if tool.external:
            for name, value in step.arguments.items():
                if name in tool.pii and _literals(value):
                    out.append(Finding(where, f"step {step.step_id}: PII field {name} goes to external tool "
                                              f"{tool.tool_name}"))
                for text in _literals(value):
                    for kind, pattern in SENSITIVE.items():
                        if pattern.search(text):
                            out.append(Finding(where, f"step {step.step_id}: {kind} in argument {name} of external "
                                                      f"tool {tool.tool_name}"))
    try:
        check_plan(kn.tools, plan)
    except DatasmithError as exc:
        out.append(Finding(where, exc.message))
    return out


def consumer_check(kn: Knowledge) -> tuple[int, list[Finding]]:
    """Plan every rule and tool example and every eval case; each planned call must keep its contract."""
    planner = RulePlanner(kn)
    queries: list[tuple[str, str, str | None]] = []
    for rule in kn.rules.values():
        queries += [(f"rule {rule.rule_name} example", e.user_query, None) for e in rule.examples]
    for tool in kn.tools.values():
        queries += [(f"tool {tool.tool_name} example", e.user_query, None) for e in tool.examples]
    for pack in kn.packs.values():
        for path in sorted((Path(pack.path) / "eval").glob("*.yaml")):
            queries += [(f"{path.name} case", c.query, c.env) for c in load_cases(path)]
    findings: list[Finding] = []
    for label, query, env in queries:
        plan = planner.plan(Request(text=query, environment=env))
        if plan.status == "planned":
            findings += check_planned(kn, plan, f"{label} “{query}”")
    return len(queries), findings


# ---------------------------------------------------------------------- provider

@dataclass
class Verified:
    tool: str
    outcome: str  # verified | failed | not exercised (the example's data is not there: a 4xx refusal)
    detail: str

    @property
    def ok(self) -> bool:
        return self.outcome != "failed"


def _example_arguments(kn: Knowledge, tool: ToolSpec, env: str) -> dict[str, Any] | None:
    defaults = kn.defaults_for(tool.pack, env)
    for ex in tool.examples:
        args = dict(ex.extracted_params)
        for p in tool.parameters:
            if p.name not in args and p.name in defaults:
                args[p.name] = defaults[p.name]
            elif p.name not in args and p.has_default:
                args[p.name] = p.default
        if all(p.name in args for p in tool.parameters if p.required):
            return args
    return None


async def provider_verify(kn: Knowledge, environ: dict[str, str], pack: str, env: str, *,
                          writes: bool) -> list[Verified]:
    """Call each read-only tool (and, in an `isolated` environment, each write tool) with its
    examples and check the answer against `returns`."""
    spec = kn.packs[pack].environments.get(env)
    if spec is None:
        raise InputError(f"pack {pack} has no environment {env!r}; known: {list(kn.packs[pack].environments)}")
    if writes and not spec.isolated:
        raise InputError(f"environment {env} is not marked `isolated: true`: write tools are verified only where "
                         "test data may be written")
    out: list[Verified] = []
    async with ToolRegistry(kn, environ) as tools:
        target = tools.target(pack, env)
        for tool in sorted((t for t in kn.tools.values() if t.pack == pack), key=lambda t: t.tool_name):
            if tool.side_effects and not writes:
                continue
            args = _example_arguments(kn, tool, env)
            if args is None:
                out.append(Verified(tool.tool_name, "failed", "no example gives every required argument"))
                continue
            try:
                check_arguments(tool, args)
                result = await tools.invoke(tool, args, target)
                check_output(tool, result)
            except ToolRejected as exc:  # the example's entity is not in this environment: no verdict
                out.append(Verified(tool.tool_name, "not exercised", f"{exc.code}: {exc.message}"))
                continue
            except DatasmithError as exc:  # contract broken, binding wrong, provider failing
                out.append(Verified(tool.tool_name, "failed", f"{exc.code}: {exc.message}"))
                continue
            out.append(Verified(tool.tool_name, "verified", "output matches `returns`" if tool.returns else "answered"))
    return out


# ---------------------------------------------------------------------- compatibility

def _types(schema: dict[str, Any] | None) -> dict[str, Any]:
    return {k: (v or {}).get("type") for k, v in ((schema or {}).get("properties") or {}).items()}


def tool_changes(old: ToolSpec, new: ToolSpec) -> list[str]:
    """Breaking changes a caller of `old` would suffer with `new`."""
    out = []
    old_out, new_out = _types(old.returns), _types(new.returns)
    for field_name, t in old_out.items():
        if field_name not in new_out:
            out.append(f"output field {field_name} removed")
        elif t and new_out[field_name] and t != new_out[field_name]:
            out.append(f"output field {field_name} retyped {t} → {new_out[field_name]}")
    for field_name in set((old.returns or {}).get("required", [])) - set((new.returns or {}).get("required", [])):
        out.append(f"output field {field_name} no longer guaranteed (not required)")
    old_p, new_p = {p.name: p for p in old.parameters}, {p.name: p for p in new.parameters}
    for name, p in old_p.items():
        if name not in new_p:
            out.append(f"parameter {name} removed")
        elif p.type != new_p[name].type:
            out.append(f"parameter {name} retyped {p.type} → {new_p[name].type}")
    for name, p in new_p.items():
        if name not in old_p and p.required and not p.has_default:
            out.append(f"new required parameter {name}")
    return out


def compatibility(old: Knowledge, new: Knowledge) -> list[Finding]:
    """Breaking changes without a version bump fail; with a bump they are reported as allowed."""
    findings = []
    for name, old_tool in old.tools.items():
        new_tool = new.tools.get(name)
        if new_tool is None:
            findings.append(Finding(f"tool {name}", "removed"))
            continue
        changes = tool_changes(old_tool, new_tool)
        if changes and (old_tool.version or "") == (new_tool.version or ""):
            findings += [Finding(f"tool {name} (version {old_tool.version or 'unset'} unchanged)", c) for c in changes]
    return findings
