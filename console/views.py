"""Pure shaping of core objects for the console's pages: rows for tables, DOT for graphs.
No Streamlit here, so it is testable and the pages stay thin."""

from __future__ import annotations

import json
from typing import Any

from core.models import Plan, RuleSpec, RunRecord, StepRef, ToolSpec

STATUS_COLOURS = {"succeeded": "#2e7d32", "failed": "#c62828", "paused": "#ef6c00", "skipped": "#9e9e9e",
                  "running": "#1565c0", "pending": "#bdbdbd", "interrupted": "#6a1b9a", "planned": "#37474f"}


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rule_dot(rule: RuleSpec) -> str:
    """A rule's DAG: one node per step (tool, state it reaches, condition), edges = dependencies."""
    lines = ["digraph rule {", "rankdir=LR;", 'node [shape=box, style="rounded,filled", fillcolor="#eef3f8",'
             ' fontname="Helvetica", fontsize=11];']
    for s in rule.dag_definition:
        label = f"{s.step_id}. {s.tool_name}"
        if s.reaches_state:
            label += f"\\n→ {s.reaches_state.name}"
        if s.condition:
            label += f"\\nif {s.condition}"
        lines.append(f"{_q(str(s.step_id))} [label={_q(label)}];")
        for d in s.dependencies:
            lines.append(f"{_q(str(d))} -> {_q(str(s.step_id))};")
    lines.append("}")
    return "\n".join(lines)


def plan_dot(plan: Plan, run: RunRecord | None = None) -> str:
    """A plan's DAG, coloured by step status when a run is given."""
    status = {s.step_id: s.status for s in run.steps} if run else {}
    lines = ["digraph plan {", "rankdir=LR;", 'node [shape=box, style="rounded,filled", fontname="Helvetica",'
             ' fontsize=11, fontcolor=white];']
    for s in plan.steps:
        st = status.get(s.step_id, "skipped" if s.skipped else "planned")
        lines.append(f"{_q(str(s.step_id))} [label={_q(f'{s.step_id}. {s.tool_name}')}, "
                     f"fillcolor={_q(STATUS_COLOURS.get(st, '#37474f'))}];")
        for d in s.dependencies:
            lines.append(f"{_q(str(d))} -> {_q(str(s.step_id))};")
    lines.append("}")
    return "\n".join(lines)


def _show(v: Any) -> str:
    if isinstance(v, StepRef):
        return f"← step {v.from_step}.{v.path}"
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def argument_rows(plan: Plan) -> list[dict[str, Any]]:
    """Every argument of every step and where its value came from."""
    rows = []
    for s in plan.steps:
        for name, value in s.arguments.items():
            source = s.sources.get(name) or ("step_output" if isinstance(value, StepRef) else "request")
            rows.append({"step": s.step_id, "tool": s.tool_name, "argument": name, "value": _show(value),
                         "source": source})
    return rows


def mapping_rows(rule: RuleSpec) -> list[dict[str, Any]]:
    rows = []
    for s in rule.dag_definition:
        for name, m in s.parameter_mapping.items():
            where = {"step_output": f"step {m.step_id} · {m.value}", "initial_query": f"request ({m.value})",
                     "defaults": f"defaults ({m.value})", "constant": json.dumps(m.value, ensure_ascii=False)}
            rows.append({"step": s.step_id, "tool": s.tool_name, "parameter": name, "source": m.source,
                         "from": where.get(m.source, str(m.value))})
    return rows


def parameter_rows(tool: ToolSpec) -> list[dict[str, Any]]:
    return [{"name": p.name, "type": p.type, "required": p.required,
             "default": "" if p.default is None else _show(p.default), "enum": ", ".join(map(str, p.enum or [])),
             "pii": p.name in tool.pii, "description": p.description} for p in tool.parameters]


def binding(tool: ToolSpec) -> str:
    c = tool.call
    if c.http:
        return f"http {c.http.method} {c.http.path}"
    if c.python:
        return f"python {c.python}"
    if c.mcp:
        return f"mcp {c.mcp.server}:{c.mcp.tool}"
    return "-"


def step_rows(run: RunRecord) -> list[dict[str, Any]]:
    rows = []
    for s in run.steps:
        took = (s.ended_at - s.started_at).total_seconds() * 1000 if s.started_at and s.ended_at else None
        rows.append({"step": s.step_id, "tool": s.tool_name, "status": s.status, "attempts": s.attempts,
                     "ms": round(took, 1) if took is not None else None,
                     "arguments": json.dumps(s.arguments, ensure_ascii=False) if s.arguments else "",
                     "output": json.dumps(s.output, ensure_ascii=False)[:500] if s.output is not None else "",
                     "error": f"{s.error.code}: {s.error.message}" if s.error else (s.skip_reason or "")})
    return rows


def gantt_rows(run: RunRecord) -> list[dict[str, Any]]:
    """Bars for a timeline: each step from its start to its end, in ms since the run began."""
    t0 = run.created_at
    rows = []
    for s in run.steps:
        if s.started_at is None:
            continue
        end = s.ended_at or run.updated_at
        rows.append({"step": f"{s.step_id}. {s.tool_name}", "start_ms": (s.started_at - t0).total_seconds() * 1000,
                     "end_ms": (end - t0).total_seconds() * 1000, "status": s.status})
    return rows
