"""The LLM planner: request + retrieved knowledge in, a checked `Plan` out.

The model's answer must be JSON valid against `LLM_PLAN_SCHEMA` and consistent with the
knowledge (tools, rule, environment, dependencies, argument contracts). The object is taken
from whatever the model wrapped it in (core/llm/answer.py). Every literal argument must be
traceable (core/planning/grounding.py): an invented one is dropped and asked for. One repair
round gets the problems back; a second bad answer, or an LLM that cannot be reached, hands the
request to the rule planner, and the plan says so (`fallback`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jsonschema import Draft202012Validator

from core.contracts import check_plan
from core.dag import ancestors
from core.errors import LLM_PLAN_INVALID, ContractError, DatasmithError
from core.knowledge import Knowledge
from core.llm.answer import extract_object
from core.llm.client import LLMClient, Usage
from core.llm.limiter import OnWait
from core.llm.prompts import plan_messages, repair_message
from core.models import Plan, PlanStep, Request, RetrievalHit, StepRef, readable_deep
from core.planning.copies import Writes, counts_copies, stated
from core.planning.grounding import Dropped, Grounding
from core.planning.lexicon import intent
from core.planning.questions import language_of, missing_question
from core.planning.rule_planner import RulePlanner
from core.planning.text import normalize

REF = {"type": "object", "required": ["from_step", "path"], "additionalProperties": False,
       "properties": {"from_step": {"type": "integer"}, "path": {"type": "string", "minLength": 1}}}
LLM_PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["status", "steps", "missing", "question"],
    "additionalProperties": False,
    "properties": {
        "status": {"enum": ["planned", "needs_input", "no_match"]},
        "rule": {"type": ["string", "null"]},
        "tool": {"type": ["string", "null"]},
        "environment": {"type": ["string", "null"]},
        "steps": {"type": "array", "items": {
            "type": "object", "required": ["step_id", "tool_name"], "additionalProperties": False,
            "properties": {"step_id": {"type": "integer", "minimum": 1}, "tool_name": {"type": "string"},
                           "dependencies": {"type": "array", "items": {"type": "integer"}},
                           "arguments": {"type": "object"}}}},
        "missing": {"type": "array", "items": {"type": "string"}},
        "question": {"type": ["string", "null"]},
        "copies": {"type": "integer", "minimum": 1},
    },
}
_VALIDATOR = Draft202012Validator(LLM_PLAN_SCHEMA)


class LLMPlanner:
    name = "llm"

    def __init__(self, knowledge: Knowledge, client: LLMClient, fallback: RulePlanner) -> None:
        self.kn = knowledge
        self.client = client
        self.fallback = fallback

    async def plan(self, request: Request, hits: Sequence[RetrievalHit] | None = None, *,
                   on_wait: OnWait | None = None, rule_plan: Plan | None = None) -> tuple[Plan, Usage]:
        """The LLM's plan; when it cannot give one, `rule_plan` (the rule planner's answer, made
        here if the caller has none) with the reason in `fallback`."""
        usage = Usage()
        messages, trimmed = plan_messages(request, self.kn, hits, fits=self.client.fits)
        try:
            for attempt in (1, 2):
                reply = await self.client.complete(messages, schema=LLM_PLAN_SCHEMA, on_wait=on_wait)
                usage.add(reply.usage)
                plan, problems = parse_plan(reply.content, self.kn, request, self.fallback)
                if plan is not None:  # `problems` is then how the plan was taken from the answer
                    if rule_plan is not None:
                        keep_rule_count(plan, rule_plan, self.kn)
                    apart = ["reasoning returned apart from the answer was set aside"] if reply.reasoning_chars else []
                    plan.notes.insert(0, "; ".join([f"LLM answer asked as {reply.mode}", *apart, *problems]))
                    if trimmed:
                        plan.notes.insert(1, trimmed)
                    return plan, usage
                if attempt == 1:
                    messages = [*messages, {"role": "assistant", "content": reply.content}, repair_message(problems)]
            reason = f"{LLM_PLAN_INVALID}: the LLM's plan was invalid twice ({'; '.join(problems[:3])})"
        except DatasmithError as exc:  # unreachable, rate limited, refused
            reason = f"{exc.code}: {exc.message}"
        return self._fallback(rule_plan or self.fallback.plan(request, hits), reason), usage

    @staticmethod
    def _fallback(plan: Plan, reason: str) -> Plan:
        plan.fallback = reason
        plan.notes.append(f"LLM planner not used: {reason}; the rule planner answered")
        return plan


def parse_plan(content: str, kn: Knowledge, request: Request,
               rules: RulePlanner) -> tuple[Plan | None, list[str]]:
    """The model's text as a Plan with how it was taken from the text, or the list of what is
    wrong with it (for the repair round)."""
    found = extract_object(content)
    if found.data is None:
        return None, [found.error or "not JSON"]
    data = readable_deep(found.data)  # a "\\udcff" escape is no text to plan with
    problems = [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
                for e in sorted(_VALIDATOR.iter_errors(data), key=lambda e: list(e.absolute_path))]
    if problems:
        return None, problems[:10]
    plan, problems = _build(data, kn, request, rules)
    return (plan, found.how) if not problems else (None, problems)


def _build(data: dict[str, Any], kn: Knowledge, request: Request,
           rules: RulePlanner) -> tuple[Plan, list[str]]:
    problems: list[str] = []
    status = data["status"]
    steps: list[PlanStep] = []
    for raw in data["steps"]:
        args = {k: StepRef(from_step=v["from_step"], path=v["path"])
                if isinstance(v, dict) and set(v) == {"from_step", "path"} else v
                for k, v in (raw.get("arguments") or {}).items()}
        steps.append(PlanStep(step_id=raw["step_id"], tool_name=raw["tool_name"],
                              dependencies=raw.get("dependencies") or [], arguments=args,
                              sources={k: "step_output" for k, v in args.items() if isinstance(v, StepRef)}))
    # literals get their source from grounding: where the value is found, not the model's claim
    rule, tool = data.get("rule"), data.get("tool")
    if rule and rule not in kn.rules:
        problems.append(f"rule {rule!r} does not exist")
    if tool and tool not in kn.tools:
        problems.append(f"tool {tool!r} does not exist")
    problems += _check_steps(steps, kn)
    if status == "planned" and not steps:
        problems.append("status is planned but there are no steps")
    if status == "needs_input" and not data["missing"]:
        problems.append("status is needs_input but `missing` is empty")
    if status != "planned" and not data["question"]:
        problems.append(f"status {status} needs a question for the user")
    packs = {kn.pack_of(s.tool_name) for s in steps if s.tool_name in kn.tools} | {kn.pack_of(n) for n in (rule, tool) if n}
    packs.discard("")
    if len(packs) > 1:
        problems.append(f"steps mix packs {sorted(packs)}; a plan stays within one pack")
    pack = next(iter(packs), None)
    env = _environment(data.get("environment"), request, kn, pack, problems)
    if problems:
        return Plan(status="no_match"), problems
    if len(steps) == 1 and not rule and not tool:
        tool = steps[0].tool_name
    plan = Plan(status=status, rule=rule, tool=tool if not rule else None, environment=env, steps=steps,
                missing=data["missing"], question=data["question"], pack=pack, planner="llm")
    if pack:
        dropped = Grounding(kn, rules, request).apply(plan)
        _fill_defaults(plan, kn, pack)
        _ask_for_dropped(plan, dropped, kn, request)
    plan.known = {**(request.previous.known if request.previous else {}),
                  **{k: v for s in steps for k, v in s.arguments.items() if not isinstance(v, StepRef)}}
    plan.copies = grounded_copies(int(data.get("copies") or 1), plan, kn, request)
    if plan.status == "planned" and (why := _unasked_write(plan, kn, request)):
        return plan, [why]
    if plan.status == "planned":
        try:
            check_plan(kn.tools, plan)
        except ContractError as exc:
            return plan, [exc.message]
    return plan, []


def _writes(kn: Knowledge) -> Writes:
    def writes(kind: str, name: str) -> bool:
        if kind == "tool":
            return name in kn.tools and kn.tools[name].side_effects
        return name in kn.rules and any(kn.tools[s.tool_name].side_effects for s in kn.rules[name].dag_definition)
    return writes


def grounded_copies(copies: int, plan: Plan, kn: Knowledge, request: Request) -> int:
    """The model's `copies` only when the request (or the question it answers) states that count
    and the plan writes; otherwise 1, and a note says why."""
    if copies <= 1:
        return 1
    earlier = request.previous.copies if request.previous else 1
    if not (stated(copies, request.text) or copies == earlier):
        plan.notes.append(f"copies={copies} dropped: the request states no such count")
        return 1
    if not counts_copies(plan, _writes(kn)):
        plan.notes.append(f"copies={copies} ignored: the plan only reads")
        return 1
    return copies


def keep_rule_count(plan: Plan, rule_plan: Plan, kn: Knowledge) -> None:
    """A count the rule planner read in the request ("20笔") holds for the model's plan of the same
    rule or tool when the model left `copies` out."""
    same = (plan.rule or plan.tool) == (rule_plan.rule or rule_plan.tool)
    if plan.copies == 1 and rule_plan.copies > 1 and same and counts_copies(plan, _writes(kn)):
        plan.copies = rule_plan.copies


def _unasked_write(plan: Plan, kn: Knowledge, request: Request) -> str | None:
    """The write bar: a request that only asks about something (the rule planner's reading of its
    words) never gets a plan that writes from the model; it goes back to the repair round."""
    if intent(normalize(request.text)) >= 0:
        return None
    step = next((s for s in plan.steps if s.tool_name in kn.tools and kn.tools[s.tool_name].side_effects), None)
    if step is None:
        return None
    return (f"the request only asks about something, but step {step.step_id} ({step.tool_name}) changes data: "
            "plan read-only tools, or answer no_match")


def _check_steps(steps: list[PlanStep], kn: Knowledge) -> list[str]:
    problems: list[str] = []
    ids = [s.step_id for s in steps]
    if len(set(ids)) != len(ids):
        problems.append(f"step ids repeat: {ids}")
    deps = {s.step_id: s.dependencies for s in steps}
    for s in steps:
        if s.tool_name not in kn.tools:
            problems.append(f"step {s.step_id}: tool {s.tool_name!r} does not exist")
        for d in s.dependencies:
            if d not in deps:
                problems.append(f"step {s.step_id}: dependency {d} is not a step")
        if s.step_id in ancestors(deps, s.step_id):
            problems.append(f"step {s.step_id} depends on itself (a cycle)")
            continue
        for name, v in s.arguments.items():
            if isinstance(v, StepRef) and v.from_step not in ancestors(deps, s.step_id):
                problems.append(f"step {s.step_id}: argument {name} reads step {v.from_step}, "
                                "which is not among its dependencies")
    return problems


def _environment(named: str | None, request: Request, kn: Knowledge, pack: str | None,
                 problems: list[str]) -> str | None:
    if pack is None:
        return request.environment or named
    envs = kn.packs[pack].environments
    if request.environment:  # the caller's choice wins over the model's
        return request.environment
    if named is None:
        return kn.default_environment(pack)
    for name, spec in envs.items():
        if named == name or named in spec.aliases:
            return name
    problems.append(f"environment {named!r} is not one of {list(envs)}")
    return None


def _ask_for_dropped(plan: Plan, dropped: list[Dropped], kn: Knowledge, request: Request) -> None:
    """Invented values are gone; a required one no default covers is asked for, so a write never
    runs on it."""
    asked = False
    for d in dropped:
        step = plan.step(d.step_id)
        plan.notes.append(f"dropped {d.name}={d.value!r} (step {d.step_id}): not in the request, the thread, "
                          "the defaults or the rule; the model invented it")
        param = kn.tools[step.tool_name].param(d.name) if step else None
        if step and param and param.required and d.name not in step.arguments and d.asked_as not in plan.missing:
            plan.missing.append(d.asked_as)
            asked = True
    if asked and plan.status != "no_match":  # the model's own question (if any) does not ask for it
        spec: Any = kn.rules[plan.rule] if plan.rule else kn.tools[plan.tool or plan.steps[0].tool_name]
        prev = request.previous
        plan.language = plan.language or (prev.language if prev else None) or language_of(request.text)  # type: ignore[assignment]
        plan.status = "needs_input"
        plan.question = missing_question(kn, plan, plan.missing, spec.description,
                                         spec.examples[0].user_query if spec.examples else None, plan.language)


def _fill_defaults(plan: Plan, kn: Knowledge, pack: str) -> None:
    """Values the model left out: defaults.yaml for the environment, then the tool's default."""
    table = kn.defaults_for(pack, plan.environment)
    for step in plan.steps:
        tool = kn.tools.get(step.tool_name)
        for p in tool.parameters if tool else []:
            if p.name in step.arguments:
                continue
            if p.name in table:
                step.arguments[p.name], step.sources[p.name] = table[p.name], "defaults"
            elif p.default is not None:
                step.arguments[p.name], step.sources[p.name] = p.default, "tool_default"
