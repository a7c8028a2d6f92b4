"""Grounding: every literal argument of an LLM plan must come from somewhere a person can point at.

A model fills gaps with plausible values (asked "帮我下一单", it orders item 123456). So each
literal is traced, and its `sources` entry says where it was found, not what the model claims:
a constant of the chosen rule, the request (the rule planner's typed-value check: the values its
extractor offers that parameter, a typed span of the request with that value, or the text
itself), the thread's earlier messages and answers, `defaults.yaml`, or the tool's default. A
value found nowhere is dropped; the planner then fills it from the defaults like any value the
request leaves out, or asks for it — a write never runs on an invented value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from core.knowledge import Knowledge
from core.models import ParamSpec, Plan, PlanStep, Request, StepRef, ToolSpec, ValueSource
from core.planning.extraction import Slot
from core.planning.rule_planner import RulePlanner
from core.planning.text import normalize
from core.planning.typed import MISSING, validate


@dataclass(frozen=True)
class Dropped:
    step_id: int
    name: str  # the parameter
    asked_as: str  # the name the plan asks for it by (the rule's input name, else the parameter)
    value: Any


class Grounding:
    """Traces an LLM plan's literal arguments for one request (build per request)."""

    def __init__(self, kn: Knowledge, rules: RulePlanner, request: Request) -> None:
        self.kn = kn
        self.rules = rules
        self.text = normalize(request.text)
        self.spans = rules.voc.spans(self.text, rules.today())
        prev = request.previous
        self.earlier_text = normalize(" ".join([*(prev.conversation if prev else []),
                                                *([prev.pending_text] if prev and prev.pending_text else [])]))
        self.earlier_spans = rules.voc.spans(self.earlier_text, rules.today()) if self.earlier_text else []
        self.known: dict[str, Any] = dict(prev.known) if prev else {}

    def apply(self, plan: Plan) -> list[Dropped]:
        """Label every literal with where it was found; drop (and return) those found nowhere."""
        dropped: list[Dropped] = []
        defaults = self.kn.defaults_for(plan.pack, plan.environment) if plan.pack else {}
        for step in plan.steps:
            tool = self.kn.tools[step.tool_name]
            for name, value in list(step.arguments.items()):
                param = tool.param(name)
                if isinstance(value, StepRef) or param is None:
                    continue  # references are checked against the DAG; unknown names by the contract
                names = self._names(plan, step, name)
                source = self.source(plan, step, tool, param, value, names, defaults)
                if source is None:
                    del step.arguments[name]
                    step.sources.pop(name, None)
                    dropped.append(Dropped(step.step_id, name, names[-1], value))
                else:
                    step.sources[name] = source
                    if (typed := validate(value, param)) is not MISSING:
                        step.arguments[name] = typed  # 123456 for a string id is "123456": no repair round
        return dropped

    def source(self, plan: Plan, step: PlanStep, tool: ToolSpec, param: ParamSpec, value: Any,
               names: list[str], defaults: dict[str, Any]) -> ValueSource | None:
        """Where `value` for `param` is found, or None when nowhere."""
        typed = validate(value, param)
        value = value if typed is MISSING else typed
        if self._constant(plan, step.tool_name, param.name, value):
            return "constant"
        if self._said(self.text, self.spans, tool, param, plan, value):
            return "request"
        if any(n in self.known and _same(self.known[n], value) for n in names) or \
                (self.earlier_text and self._said(self.earlier_text, self.earlier_spans, tool, param, plan, value)):
            return "conversation"
        if any(n in defaults and _same(defaults[n], value) for n in names):
            return "defaults"
        if param.has_default and _same(param.default, value):
            return "tool_default"
        return None

    def _names(self, plan: Plan, step: PlanStep, name: str) -> list[str]:
        """The parameter's name, then the names the chosen rule feeds it by (its input name last)."""
        rule = self.kn.rules.get(plan.rule or "")
        mapped = [m.value for s in (rule.dag_definition if rule else []) if s.tool_name == step.tool_name
                  for p, m in s.parameter_mapping.items()
                  if p == name and m.source in ("initial_query", "defaults") and isinstance(m.value, str)]
        return list(dict.fromkeys([name, *mapped]))

    def _constant(self, plan: Plan, tool_name: str, name: str, value: Any) -> bool:
        rule = self.kn.rules.get(plan.rule or "")
        return any(s.tool_name == tool_name and (m := s.parameter_mapping.get(name)) is not None
                   and m.source == "constant" and _same(m.value, value) for s in (rule.dag_definition if rule else []))

    def _said(self, text: str, spans: list[Any], tool: ToolSpec, param: ParamSpec, plan: Plan, value: Any) -> bool:
        """The rule planner's own evidence for this parameter offers the value, a typed span of the
        text has it, or (free text) the text says it word for word."""
        owners = [tool.tool_name, *([plan.rule] if plan.rule else [])]
        slot = Slot(param.name, [(tool, param)], "input", param.required, owners)
        if any(_same(f.value, value) for f in self.rules.extractor.offers(text, spans, slot)):
            return True
        if any(_same(s.value, value) for s in spans):
            return True
        return isinstance(value, str) and _verbatim(value, text)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    return isinstance(a, str) and isinstance(b, str) and a.strip().lower() == b.strip().lower()


def _verbatim(value: str, text: str) -> bool:
    """`value` occurs in `text` as a whole token: "123" is not said by "1234567"."""
    value = value.strip()
    if not value:
        return False
    at = re.escape(value.lower())
    return re.search(rf"(?<![A-Za-z0-9_]){at}(?![A-Za-z0-9_])", text.lower()) is not None
