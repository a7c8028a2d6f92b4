"""Scoring the planner on a case file (`datasmith eval`). Scoring is pure; timing is measured
around the caller's plan function (retrieval and embedding included). With an LLM planner the
plan function also returns the model's usage: calls, tokens, cost, and how often the rule planner
had to answer instead (fallbacks) are summed per model, so models can be compared on a pack."""

from __future__ import annotations

import logging
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field, ValidationError

from core.errors import InputError
from core.models import LLMUsage, Plan, StepRef
from core.yaml_comments import comment_cuts
from core.yaml_text import load_yaml

log = logging.getLogger("datasmith.eval")


class Expect(BaseModel):
    status: str
    rule: str | None = None
    tools: list[str] | None = None
    arguments: dict[str, dict[str, Any]] | None = None
    edges: list[tuple[str, str]] | None = None
    environment: str | None = None
    missing: list[str] | None = None


class Case(BaseModel):
    query: str
    expect: Expect
    env: str | None = None  # (ext.) the --env the caller passes


class CaseResult(BaseModel):
    query: str
    ok: bool
    status_ok: bool
    rule_ok: bool | None
    diffs: list[str] = Field(default_factory=list)
    latency_ms: float
    got: dict[str, Any] = Field(default_factory=dict)
    unsafe: bool = False  # a write planned that the case does not expect (status, rule or a value)


class EvalReport(BaseModel):
    cases: int
    status_accuracy: float
    rule_accuracy: float
    plan_exact: float
    node_f1: float
    edge_f1: float
    argument_f1: float
    p50_ms: float
    p95_ms: float
    failures: list[CaseResult]
    # Per model (LLM planner): writes that would have run wrongly, and what the model cost
    planner: str = "rules"
    model: str | None = None
    unsafe_writes: int = 0
    usage: LLMUsage = Field(default_factory=LLMUsage)
    fallbacks: int = 0  # plans the rule planner made because the model's answer was unusable


def load_cases(path: Path) -> list[Case]:
    """Read a case file; a query a YAML comment cut short is said on stderr (it loads, but tests less)."""
    try:
        text = path.read_text(encoding="utf-8")
        data = load_yaml(text)
        for cut in comment_cuts(text):
            log.warning("%s: %s", path, cut)
        if not isinstance(data, list):
            raise InputError(f"{path}: a case file is a YAML list of {{query, expect}}")
        return [Case.model_validate(c) for c in data]
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise InputError(f"{path}: cannot read cases: {str(exc).splitlines()[0]}") from exc


def _edges(plan: Plan, running_only: bool = False) -> set[tuple[str, str]]:
    steps = plan.running() if running_only else plan.steps
    names = {s.step_id: s.tool_name for s in steps}
    return {(names[d], s.tool_name) for s in steps for d in s.dependencies if d in names}


def _literal(value: Any) -> Any:
    return value.model_dump() if isinstance(value, StepRef) else value


def score_case(case: Case, plan: Plan, latency_ms: float) -> tuple[CaseResult, dict[str, tuple[int, int, int]]]:
    """Compare one plan to its case; also return (tp, fp, fn) for nodes, edges and arguments."""
    exp, diffs = case.expect, []
    stated = exp.model_fields_set
    counts: dict[str, tuple[int, int, int]] = {}
    status_ok = plan.status == exp.status
    if not status_ok:
        diffs.append(f"status: expected {exp.status}, got {plan.status}")
    rule_ok = None
    if "rule" in stated:
        rule_ok = plan.rule == exp.rule
        if not rule_ok:
            diffs.append(f"rule: expected {exp.rule}, got {plan.rule}")
    got_tools = [s.tool_name for s in plan.steps] if plan.status == "planned" else []
    running = [s.tool_name for s in plan.running()] if plan.status == "planned" else []
    # A step the plan already marks as skipped (its condition is false) is in the plan and will not
    # run: a case may list it or leave it out (the format does not say which), edges likewise.
    only_running = exp.tools is not None and exp.tools == running
    if exp.tools is not None:
        if only_running:
            got_tools = running
        if got_tools != exp.tools:
            diffs.append(f"tools: expected {exp.tools}, got {got_tools}")
        inter = sum((Counter(got_tools) & Counter(exp.tools)).values())
        counts["node"] = (inter, len(got_tools) - inter, len(exp.tools) - inter)
    if exp.edges is not None:
        got_edges, want = _edges(plan, running_only=only_running), {tuple(e) for e in exp.edges}
        lost = want - got_edges
        if lost:
            diffs.append(f"edges missing: {sorted(lost)}")
        counts["edge"] = (len(want & got_edges), len(got_edges - want), len(lost))
    if exp.arguments is not None:
        tp = fp = fn = 0
        for tool, want_args in exp.arguments.items():
            step = next((s for s in plan.steps if s.tool_name == tool), None)
            for name, value in want_args.items():
                got = _literal(step.arguments.get(name)) if step else None
                if got == value:
                    tp += 1
                else:
                    fn += 1
                    fp += int(got is not None)
                    diffs.append(f"argument {tool}.{name}: expected {value!r}, got {got!r}")
        counts["argument"] = (tp, fp, fn)
    if exp.environment is not None and plan.environment != exp.environment:
        diffs.append(f"environment: expected {exp.environment}, got {plan.environment}")
    if exp.missing is not None and sorted(plan.missing) != sorted(exp.missing):
        diffs.append(f"missing: expected {exp.missing}, got {plan.missing}")
    got = {"status": plan.status, "rule": plan.rule, "tool": plan.tool, "tools": got_tools,
           "environment": plan.environment, "missing": plan.missing}
    return CaseResult(query=case.query, ok=not diffs, status_ok=status_ok, rule_ok=rule_ok, diffs=diffs,
                      latency_ms=latency_ms, got=got), counts


def _f1_score(tp: int, fp: int, fn: int) -> float:
    if tp == 0:
        return 1.0 if fp == 0 and fn == 0 else 0.0
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    return 2 * precision * recall / (precision + recall)


def _unsafe(case: Case, plan: Plan, result: CaseResult, writes: Callable[[Plan], bool] | None) -> bool:
    if writes is None or plan.status != "planned" or not writes(plan):
        return False
    return case.expect.status != "planned" or result.rule_ok is False or any(
        d.startswith(("argument ", "tools:", "environment:")) for d in result.diffs)


def evaluate(cases: list[Case], plan_fn: Callable[[Case], Plan | tuple[Plan, LLMUsage]],
             progress: Callable[[int, int], None] | None = None, *,
             writes: Callable[[Plan], bool] | None = None) -> EvalReport:
    """Score `plan_fn` on `cases`; `writes` tells which plans write (for unsafe writes)."""
    results: list[CaseResult] = []
    totals: dict[str, list[int]] = {k: [0, 0, 0] for k in ("node", "edge", "argument")}
    usage, fallbacks = LLMUsage(), 0
    for i, case in enumerate(cases, 1):
        start = time.perf_counter()
        answer = plan_fn(case)
        plan, used = answer if isinstance(answer, tuple) else (answer, LLMUsage())
        result, counts = score_case(case, plan, (time.perf_counter() - start) * 1000)
        result.unsafe = _unsafe(case, plan, result, writes)
        usage.add(used)
        fallbacks += plan.fallback is not None
        results.append(result)
        for key, triple in counts.items():
            totals[key] = [a + b for a, b in zip(totals[key], triple, strict=True)]
        if progress:
            progress(i, len(cases))
    n = len(results) or 1
    latencies = sorted(r.latency_ms for r in results) or [0.0]
    ruled = [r for r in results if r.rule_ok is not None]
    return EvalReport(
        cases=len(results),
        status_accuracy=sum(r.status_ok for r in results) / n,
        rule_accuracy=sum(bool(r.rule_ok) for r in ruled) / (len(ruled) or 1),
        plan_exact=sum(r.ok for r in results) / n,
        node_f1=_f1_score(*totals["node"]),
        edge_f1=_f1_score(*totals["edge"]),
        argument_f1=_f1_score(*totals["argument"]),
        p50_ms=statistics.median(latencies),
        p95_ms=latencies[min(len(latencies) - 1, int(round(0.95 * (len(latencies) - 1))))],
        failures=[r for r in results if not r.ok],
        unsafe_writes=sum(r.unsafe for r in results),
        usage=usage,
        fallbacks=fallbacks,
    )
