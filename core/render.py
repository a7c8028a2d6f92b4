"""Plain-text renderings for the terminal (the CLI's human mode)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from core.errors import describe
from core.models import NOT_COPIED, Plan, RunRecord, RunReport, StepRef

if TYPE_CHECKING:
    from core.evaluation import EvalReport
    from core.runstore import RunSummary

ICONS = {"succeeded": "✓", "failed": "✗", "paused": "⏸", "skipped": "↷", "pending": "·", "running": "…",
         "interrupted": "!"}


def _value(v: Any) -> str:
    if isinstance(v, StepRef):
        return f"<step {v.from_step}.{v.path}>"
    return json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v


def plan_text(plan: Plan) -> str:
    head = {"planned": "Plan", "needs_input": "Needs input", "no_match": "No match"}[plan.status]
    what = plan.rule or plan.tool or ""
    times = f" × {plan.copies} copies" if plan.copies > 1 else ""
    lines = [f"{head}: {what}{times}  [env: {plan.environment or '-'}]" if what else head]
    if plan.target_state:
        lines.append(f"  target state: {plan.target_state}")
    if plan.planner == "llm":
        lines.append("  planned by the LLM")
    if plan.fallback:
        lines.append(f"  LLM not used: {plan.fallback}")
    for step in plan.steps:
        deps = f" after {', '.join(str(d) for d in step.dependencies)}" if step.dependencies else ""
        args = ", ".join(f"{k}={_value(v)}" for k, v in step.arguments.items())
        skip = f"  (skipped: {step.skipped})" if step.skipped else ""
        lines.append(f"  {step.step_id}. {step.tool_name}({args}){deps}{skip}")
    lines += [f"  note: {n}" for n in plan.notes if NOT_COPIED in n]  # a count said but not made
    if plan.question:
        lines.append("")
        lines.append(plan.question)
    return "\n".join(lines)


def key_fields(output: Any, limit: int = 5) -> list[tuple[str, Any]]:
    """An output's scalar fields, states first, then ids, then the rest (what was made, where it is now)."""
    if not isinstance(output, dict):
        return []
    scalars = [(k, v) for k, v in output.items() if isinstance(v, str | int | float) and v != ""]
    scalars.sort(key=lambda kv: 0 if kv[0] in ("status", "state") else 1 if kv[0].endswith("_id") else 2)
    return scalars[:limit]


def run_text(run: RunRecord) -> str:
    lines = [f"Run {run.run_id}: {run.status}  (trace {run.trace_id})"]
    for s in run.steps:
        fields = key_fields(s.output)
        out = "  " + ", ".join(f"{k}={v}" for k, v in fields) if fields else ""
        err = f"  {s.error.code}: {s.error.message}" if s.error else ""
        skip = f"  ({s.skip_reason})" if s.skip_reason else ""
        lines.append(f"  {ICONS.get(s.status, '?')} {s.step_id}. {s.tool_name} [{s.attempts} attempt(s)]{out}{err}{skip}")
    if run.status == "paused":
        lines.append(f"  breakpoint: resume with `datasmith runs resume {run.run_id} --action retry|skip|abort`")
    if run.status == "interrupted":
        lines.append(f"  interrupted: resume with `datasmith runs resume {run.run_id} --action retry|skip|abort`")
    if run.status == "partial" and run.error:
        lines.append(f"  partial: {run.error.message}")
    return "\n".join(lines)


def copies_text(runs: list[RunRecord]) -> str:
    """A batch of copies: one line per run (its id, status and what it made), then the count."""
    ok = sum(r.status == "succeeded" for r in runs)
    lines = [f"Copies: {len(runs)} runs, {ok} succeeded" + (f", {len(runs) - ok} did not" if ok < len(runs) else "")]
    for i, run in enumerate(runs, 1):
        made = [f"{k}={v}" for s in run.steps for k, v in key_fields(s.output, 3) if k.endswith("_id")]
        said = ", ".join(dict.fromkeys(made)) or "-"
        error = f"  {run.error.code}: {run.error.message}" if run.error and run.status != "succeeded" else ""
        lines.append(f"  {i:>3}. {ICONS.get(run.status, '?')} run {run.run_id} {run.status:10} {said}{error}")
    return "\n".join(lines)


def report_text(report: RunReport) -> str:
    parts = []
    if report.plan:
        parts.append(plan_text(report.plan))
    if report.runs:
        parts.append(copies_text(report.runs))
    elif report.run:
        parts.append(run_text(report.run))
    if report.error and not (report.run and report.run.error):
        from core.planning.text import mostly_ascii

        lang = "en" if mostly_ascii(report.request.text) or not report.error.message_zh else "zh"
        title, hint = describe(report.error.code, lang)
        message = report.error.message_zh if lang == "zh" and report.error.message_zh else report.error.message
        parts.append(f"Error {report.error.code} ({title}): {message}  (trace {report.trace_id})")
        parts.append(f"  what to do: {hint}")
    return "\n".join(parts)


def eval_text(r: EvalReport) -> str:
    lines = [f"cases {r.cases}  plan_exact {r.plan_exact:.1%}  status {r.status_accuracy:.1%}  "
             f"rule {r.rule_accuracy:.1%}",
             f"node_f1 {r.node_f1:.3f}  edge_f1 {r.edge_f1:.3f}  argument_f1 {r.argument_f1:.3f}  "
             f"p50 {r.p50_ms:.1f} ms  p95 {r.p95_ms:.1f} ms"]
    for f in r.failures:
        lines.append(f"  ✗ {f.query}")
        lines.extend(f"      {d}" for d in f.diffs)
    return "\n".join(lines)


def eval_models_text(reports: list[EvalReport]) -> str:
    """One line per model, to compare them on a pack's own cases."""
    head = (f"{'model':32} {'exact':>6} {'status':>7} {'arg_f1':>6} {'unsafe':>6} {'calls':>5} {'tokens':>8} "
            f"{'cost $':>8} {'p50 ms':>8} {'p95 ms':>8} {'fallbk':>6}")
    lines = [head]
    for r in reports:
        u = r.usage
        cost = f"{u.cost_usd:.4f}" if u.cost_usd is not None else "-"
        lines.append(f"{(r.model or r.planner)[:32]:32} {r.plan_exact:>6.1%} {r.status_accuracy:>7.1%} "
                     f"{r.argument_f1:>6.3f} {r.unsafe_writes:>6} {u.calls:>5} "
                     f"{u.prompt_tokens + u.completion_tokens:>8} {cost:>8} {r.p50_ms:>8.0f} {r.p95_ms:>8.0f} "
                     f"{r.fallbacks:>6}")
    for r in reports:
        for f in r.failures:
            lines.append(f"  ✗ [{r.model}] {f.query}" + ("  (UNSAFE WRITE)" if f.unsafe else ""))
            lines.extend(f"      {d}" for d in f.diffs)
    return "\n".join(lines)


def index_text(d: dict[str, Any]) -> str:
    return (f"index {d['index']} ({d['embedder']}): {d['tools']} tools, {d['rules']} rules; "
            f"{d['added']} embedded, {d['removed']} removed, {d['unchanged']} unchanged")


def runs_table(rows: list[RunSummary], filters: dict[str, Any] | None = None) -> str:
    used = {k: v for k, v in (filters or {}).items() if v}
    if not rows and used:
        said = ", ".join(f"{k} {v}" for k, v in used.items())
        return f"no runs match the filter ({said}); `datasmith runs list` without it shows all"
    if not rows:
        return "no runs yet: `datasmith ask \"<a request>\"` makes one (see `datasmith ask --help`)"
    lines = [f"{'run':12}  {'status':12}  {'when':19}  {'rule/tool':22}  request"]
    for r in rows:
        lines.append(f"{r.run_id:12}  {r.status:12}  {r.created_at:%Y-%m-%d %H:%M:%S}  "
                     f"{(r.rule or r.tool or '-'):22}  {r.request_text[:60]}")
    return "\n".join(lines)
