"""The rule planner: offline, deterministic, zero tokens.

Chooses a rule or a single tool from trigger phrases, named target states, the similarity
of the request to the knowledge's examples and what retrieval found; tailors the DAG to the
target state and to what the request already carries; fills parameters by the spec's
priority (request > defaults.yaml > tool default); asks for what is missing; answers
`no_match` rather than guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from core.dag import ancestors, dependents, depths, reroute
from core.errors import UNKNOWN_ENVIRONMENT, InputError
from core.expressions import condition_holds, reads_steps
from core.knowledge import Knowledge
from core.models import ParamSpec, Plan, PlanStep, Request, RetrievalHit, RuleSpec, StepId, StepRef, ToolSpec
from core.planning.questions import missing_question, no_match_question
from core.planning.text import normalize, shingles
from core.planning.vocabulary import Vocabulary

TOOL_MIN = 0.55  # least example similarity for a single tool without other evidence
RULE_MIN = 0.60  # least example similarity for a rule without a trigger phrase or state
NEAR_EXAMPLE = 0.75  # an example this close is as strong as a trigger phrase...
NEAR_MARGIN = 0.30  # ...when it beats the triggered rule's own similarity by this much


@dataclass
class Choice:
    kind: Literal["rule", "tool"]
    name: str
    score: float
    evidence: str
    sim: float = 0.0  # the best example similarity alone


@dataclass
class _Values:
    """Request values by name, extracted on demand and remembered for a follow-up turn."""

    known: dict[str, Any] = field(default_factory=dict)
    prior: dict[str, Any] = field(default_factory=dict)
    prior_target: str | None = None  # the state the open question's plan was tailored to


class RulePlanner:
    """Plans with the pack vocabulary only. Build once per Knowledge; `plan()` is pure."""

    name = "rules"

    def __init__(self, knowledge: Knowledge, *, default_environment: str | None = None) -> None:
        self.kn = knowledge
        self.voc = Vocabulary.build(knowledge)
        self.default_environment = default_environment

    # ------------------------------------------------------------------ entry point

    def plan(self, request: Request, hits: Sequence[RetrievalHit] | None = None) -> Plan:
        text = normalize(request.text)
        prev = request.previous if request.previous and request.previous.status == "needs_input" else None
        choice, tool_choice = self.choose(self._without_environment(text), hits, prev)
        if choice is None:
            return Plan(status="no_match", question=no_match_question(self.kn, self.voc, text, hits))
        plan = self._plan_choice(choice, tool_choice, text, request, prev)
        # Sure = matched by the knowledge's own words (trigger, state, a near-verbatim example, the
        # thread's open question) with nothing missing: `planner=auto` asks no LLM then.
        strong = choice.evidence in ("trigger", "state", "conversation") or choice.sim >= NEAR_EXAMPLE
        plan.confident = plan.status == "planned" and strong
        return plan

    def _plan_choice(self, choice: Choice, tool_choice: Choice | None, text: str, request: Request,
                     prev: Plan | None) -> Plan:
        pack = self.kn.pack_of(choice.name)
        env = self._environment(text, request, pack)
        values = _Values(prior=dict(prev.known) if prev else {},
                         prior_target=prev.target_state if prev and prev.rule == choice.name else None)
        if choice.kind == "tool":
            return self._plan_tool(self.kn.tools[choice.name], text, env, values)
        plan = self._plan_rule(self.kn.rules[choice.name], text, env, values)
        # A request that names an existing entity (a producer of the rule is dropped because the
        # request gives its output) and reads like a single action is that action alone.
        if tool_choice and any(n.startswith("dropped") for n in plan.notes):
            single = self._plan_tool(self.kn.tools[tool_choice.name], text, env, _Values(prior=values.prior))
            if single.status == "planned":
                return single
        return plan

    # ------------------------------------------------------------------ choosing

    def choose(self, text: str, hits: Sequence[RetrievalHit] | None,
               prev: Plan | None) -> tuple[Choice | None, Choice | None]:
        """The best candidate (None = no match), and the best single tool on its own."""
        rules, tools, triggered = self._candidates(text, hits)
        return self._decide(text, rules, tools, bool(triggered), prev)

    def _candidates(self, text: str, hits: Sequence[RetrievalHit] | None,
                    ) -> tuple[list[Choice], list[Choice], dict[str, int]]:
        """Every rule and the retrieved (or all) tools, scored by trigger, state and example similarity."""
        sh = shingles(text)
        triggered: dict[str, int] = {}
        for hit in self.voc.trigger_hits(text):
            triggered[hit.payload] = max(triggered.get(hit.payload, 0), len(hit.phrase))
        rules: list[Choice] = []
        for name in self.kn.rules:
            sim = self.voc.rule_similarity(sh, name)
            if name in triggered:
                rules.append(Choice("rule", name, 2 + 0.05 * triggered[name] + sim, "trigger", sim))
            elif self.voc.state_hits(text, name):
                rules.append(Choice("rule", name, 1 + sim, "state", sim))
            else:
                rules.append(Choice("rule", name, sim, "similarity", sim))
        bonus = {h.name: 0.02 / (1 + h.rank) for h in hits or []}
        tool_names = [h.name for h in hits if h.kind == "tool"] if hits else list(self.kn.tools)
        tools = []
        for n in tool_names:
            if n in self.kn.tools:
                sim = self.voc.tool_similarity(sh, n)
                tools.append(Choice("tool", n, sim + bonus.get(n, 0.0), "similarity", sim))
        for c in rules:
            c.score += bonus.get(c.name, 0.0)
        return rules, tools, triggered

    def _decide(self, text: str, rules: list[Choice], tools: list[Choice], triggered: bool,
                prev: Plan | None) -> tuple[Choice | None, Choice | None]:
        best_rule = max(rules, key=lambda c: c.score, default=None)
        best_tool = max(tools, key=lambda c: c.score, default=None)
        good_tool = best_tool if best_tool and best_tool.score >= TOOL_MIN else None
        if prev and (prev.rule or prev.tool) and not triggered:
            return Choice("rule" if prev.rule else "tool", prev.rule or prev.tool or "", 1.0, "conversation"), None
        if best_rule and best_rule.evidence == "trigger":
            # A near-verbatim example of something else outweighs a short trigger phrase.
            near = max((c for c in [*rules, *tools] if c is not best_rule and c.sim >= NEAR_EXAMPLE),
                       key=lambda c: c.sim, default=None)
            if near and near.sim >= best_rule.sim + NEAR_MARGIN:
                return near, None
            # A named target state the triggered rule cannot reach: a rule that reaches it serves better.
            reaching = [c for c in rules if c.evidence == "state"]
            if reaching and not self.voc.state_hits(text, best_rule.name):
                return max(reaching, key=lambda c: c.score), good_tool
            return best_rule, good_tool
        if best_rule and best_rule.evidence == "state":
            # A state word asks for the rule, unless the best tool's own examples use that word
            # (a read such as "list the orders awaiting shipment").
            words = [h.phrase.lower() for h in self.voc.state_hits(text, best_rule.name)]
            if good_tool and any(w in e.user_query.lower() for w in words
                                 for e in self.kn.tools[good_tool.name].examples):
                return good_tool, None
            return best_rule, good_tool
        if good_tool and (not best_rule or good_tool.score >= best_rule.score):
            return good_tool, None
        if best_rule and best_rule.score >= RULE_MIN:
            return best_rule, good_tool
        return None, None

    def _without_environment(self, text: str) -> str:
        """The text minus environment words: they say where, not what, so they must not sway the choice."""
        for pack in self.kn.packs:
            for hit in reversed(self.voc.environment_hits(text, pack)):
                text = text[:hit.start] + " " + text[hit.end:]
        return text

    def _environment(self, text: str, request: Request, pack: str) -> str | None:
        names = self.kn.environment_names(pack)
        if request.environment:
            if request.environment not in names:
                raise InputError(
                    f"environment {request.environment!r} is not defined in pack {pack}; known: {', '.join(names)}",
                    message_zh=f"知识包 {pack} 没有环境 {request.environment!r},可用: {', '.join(names)}",
                    code=UNKNOWN_ENVIRONMENT,
                )
            return request.environment
        hits = self.voc.environment_hits(text, pack)
        if hits:
            return hits[0].payload
        if self.default_environment in names:
            return self.default_environment
        return self.kn.default_environment(pack)

    # ------------------------------------------------------------------ values

    def _request_value(self, text: str, name: str, tool: ToolSpec, param: ParamSpec, values: _Values,
                       rule: RuleSpec | None) -> tuple[bool, Any]:
        if name in values.known:
            return True, values.known[name]
        extra = ((rule.rule_name, name),) if rule else ()
        if name != param.name:
            extra += ((tool.tool_name, name),)
        got = self.voc.extract(text, tool, param, extra)
        if got is not None:
            values.known[name] = got.value
            return True, got.value
        if name in values.prior:
            values.known[name] = values.prior[name]
            return True, values.prior[name]
        return False, None

    def _arguments(self, text: str, tool: ToolSpec, step_mapping: dict[str, Any], carried: dict[str, Any],
                   env: str | None, values: _Values, rule: RuleSpec | None,
                   missing: list[str]) -> tuple[dict[str, Any], dict[str, str]]:
        defaults = self.kn.defaults_for(tool.pack, env)
        args: dict[str, Any] = {}
        sources: dict[str, str] = {}
        # Request values a rule routes to a step of their own (a coupon to its apply step) are not
        # also given to other steps that merely accept them: the value would be used twice.
        routed = {m.value for st in (rule.dag_definition if rule else []) if st.parameter_mapping is not step_mapping
                  for m in st.parameter_mapping.values() if m.source == "initial_query"}
        for param in tool.parameters:
            mapping = step_mapping.get(param.name)
            if mapping is None and not param.required and param.name in routed:
                continue
            if param.name in carried:
                args[param.name], sources[param.name] = carried[param.name], "request"
                continue
            if mapping is not None and mapping.source == "constant":
                args[param.name], sources[param.name] = mapping.value, "constant"
                continue
            if mapping is not None and mapping.source == "step_output":
                args[param.name] = StepRef(from_step=mapping.step_id, path=mapping.value)
                sources[param.name] = "step_output"
                continue
            name = mapping.value if mapping is not None else param.name
            found, value = self._request_value(text, name, tool, param, values, rule)
            use_defaults = mapping is not None or param.required
            if found:
                args[param.name], sources[param.name] = value, "request"
            elif use_defaults and name in defaults:
                args[param.name], sources[param.name] = defaults[name], "defaults"
            elif param.has_default:
                args[param.name], sources[param.name] = param.default, "tool_default"
            elif param.required and name not in missing:
                missing.append(name)
        return args, sources

    # ------------------------------------------------------------------ plans

    def _plan_tool(self, tool: ToolSpec, text: str, env: str | None, values: _Values) -> Plan:
        missing: list[str] = []
        args, sources = self._arguments(text, tool, {}, {}, env, values, None, missing)
        step = PlanStep(step_id=1, tool_name=tool.tool_name, arguments=args, description=tool.description,
                        sources=sources)  # type: ignore[arg-type]
        plan = Plan(status="planned", tool=tool.tool_name, environment=env, steps=[step], pack=tool.pack,
                    known=values.known)
        return self._finish(plan, missing, tool.description, tool.examples[0].user_query if tool.examples else None,
                            text)

    def _plan_rule(self, rule: RuleSpec, text: str, env: str | None, values: _Values) -> Plan:
        deps = {s.step_id: list(s.dependencies) for s in rule.dag_definition}
        notes: list[str] = []
        keep, target = self._tailor_by_state(rule, text, deps, values.prior_target)
        if target is not None:
            state = rule.step(target).reaches_state  # type: ignore[union-attr]
            notes.append(f"tailored to state {state.name}: steps {', '.join(str(s) for s in sorted(keep, key=str))}")
        carried = self._carried(rule, text, keep, values)
        dropped = self._droppable(rule, keep, carried, target)
        for sid in dropped:
            notes.append(f"dropped step {sid} ({rule.step(sid).tool_name}): the request gives its output")  # type: ignore[union-attr]
        keep -= dropped
        new_deps = reroute(deps, keep)
        off = self._statically_skipped(rule, text, keep, env, values)
        missing: list[str] = []
        steps: list[PlanStep] = []
        for spec in rule.dag_definition:
            if spec.step_id not in keep:
                continue
            tool = self.kn.tools[spec.tool_name]
            step_missing: list[str] = []
            args, sources = self._arguments(text, tool, spec.parameter_mapping, carried.get(spec.step_id, {}), env,
                                            values, rule, step_missing)
            if spec.step_id in off:
                notes.append(f"step {spec.step_id} ({spec.tool_name}) will be skipped: {off[spec.step_id]}")
            else:
                missing += [m for m in step_missing if m not in missing]
            steps.append(PlanStep(step_id=spec.step_id, tool_name=spec.tool_name, dependencies=new_deps[spec.step_id],
                                  arguments=args, description=spec.description or tool.description,
                                  condition=spec.condition, sources=sources,  # type: ignore[arg-type]
                                  skipped=off.get(spec.step_id)))
        plan = Plan(status="planned", rule=rule.rule_name, environment=env, steps=steps, pack=rule.pack,
                    target_state=rule.step(target).reaches_state.name if target is not None else None,  # type: ignore[union-attr]
                    known=values.known, notes=notes)
        return self._finish(plan, missing, rule.description, rule.examples[0].user_query if rule.examples else None,
                            text)

    def _statically_skipped(self, rule: RuleSpec, text: str, keep: set[StepId], env: str | None,
                            values: _Values) -> dict[StepId, str]:
        """Steps whose condition the request and defaults already decide as false, and the steps
        that read their output: their inputs are not asked for."""
        for spec in rule.dag_definition:  # every request value first: conditions may read any of them
            if spec.step_id in keep:
                tool = self.kn.tools[spec.tool_name]
                for pname, m in spec.parameter_mapping.items():
                    if m.source in ("initial_query", "defaults"):
                        self._request_value(text, m.value, tool, tool.param(pname), values, rule)  # type: ignore[arg-type]
        context = {"query": values.known, "defaults": self.kn.defaults_for(rule.pack, env), "steps": {}}
        off: dict[StepId, str] = {}
        for spec in rule.dag_definition:
            if spec.step_id not in keep:
                continue
            if spec.condition and not reads_steps(spec.condition) and not condition_holds(spec.condition, context):
                off[spec.step_id] = f"condition {spec.condition!r} is false"
            elif any(m.source == "step_output" and m.step_id in off for m in spec.parameter_mapping.values()):
                off[spec.step_id] = "it reads a skipped step's output"
        return off

    def _tailor_by_state(self, rule: RuleSpec, text: str, deps: dict[StepId, list[StepId]],
                         prior_target: str | None = None) -> tuple[set[StepId], StepId | None]:
        hits = self.voc.state_hits(text, rule.rule_name)
        if not hits:
            # An answer to the thread's question ("商品123456") keeps the state the question was about.
            earlier = next((s.step_id for s in rule.dag_definition
                            if prior_target and s.reaches_state and s.reaches_state.name == prior_target), None)
            if earlier is not None:
                return {earlier} | ancestors(deps, earlier), earlier
            return set(deps), None
        depth = depths(deps)
        order = {s.step_id: i for i, s in enumerate(rule.dag_definition)}
        target = max((h.payload for h in hits), key=lambda sid: (depth[sid], order[sid]))
        return {target} | ancestors(deps, target), target

    def _carried(self, rule: RuleSpec, text: str, keep: set[StepId],
                 values: _Values) -> dict[StepId, dict[str, Any]]:
        """Step-output parameters whose value the request itself states."""
        carried: dict[StepId, dict[str, Any]] = {}
        for spec in rule.dag_definition:
            if spec.step_id not in keep:
                continue
            tool = self.kn.tools[spec.tool_name]
            for pname, mapping in spec.parameter_mapping.items():
                if mapping.source != "step_output":
                    continue
                param = tool.param(pname)
                found, value = self._request_value(text, pname, tool, param, values, rule)  # type: ignore[arg-type]
                if found:
                    carried.setdefault(spec.step_id, {})[pname] = value
        return carried

    def _droppable(self, rule: RuleSpec, keep: set[StepId], carried: dict[StepId, dict[str, Any]],
                   target: StepId | None) -> set[StepId]:
        """Producers nobody needs any more once the request's own values replace their outputs."""
        if not carried:
            return set()
        readers: dict[StepId, set[StepId]] = {sid: set() for sid in keep}
        for spec in rule.dag_definition:
            if spec.step_id not in keep:
                continue
            for pname, m in spec.parameter_mapping.items():
                if m.source == "step_output" and pname not in carried.get(spec.step_id, {}) and m.step_id in readers:
                    readers[m.step_id].add(spec.step_id)
        producers = {m.step_id for s in rule.dag_definition if s.step_id in keep
                     for p, m in s.parameter_mapping.items() if p in carried.get(s.step_id, {})}
        deps = {s.step_id: [d for d in s.dependencies if d in keep] for s in rule.dag_definition if s.step_id in keep}
        below = dependents(deps)
        dropped: set[StepId] = set()
        changed = True
        while changed:
            changed = False
            for sid in keep - dropped:
                if sid == target or readers[sid] - dropped:
                    continue
                feeds_only_dropped = bool(below[sid]) and below[sid] <= dropped
                if sid in producers or feeds_only_dropped:
                    dropped.add(sid)
                    changed = True
        return dropped

    def _finish(self, plan: Plan, missing: list[str], description: str, example: str | None, text: str) -> Plan:
        if missing:
            plan.status = "needs_input"
            plan.missing = missing
            plan.question = missing_question(self.kn, plan, missing, description, example, text)
        return plan
