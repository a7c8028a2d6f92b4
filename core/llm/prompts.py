"""The LLM planner's prompts: templates live in `templates/` as versioned files, filled here.

Changing a template means a new version (plan.v2.*): the version is part of the plan cache key,
so a changed prompt never serves answers of the old one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

from core.knowledge import Knowledge
from core.models import Request, RetrievalHit, RuleSpec, ToolSpec

PROMPT_VERSION = "plan.v2"  # v2: the plan may carry `copies`
TEMPLATES = Path(__file__).parent / "templates"
MAX_TOOLS = 40
MAX_RULES = 8


@cache
def template(name: str) -> Template:
    return Template((TEMPLATES / f"{PROMPT_VERSION}.{name}.txt").read_text(encoding="utf-8"))


def _param(p: Any) -> str:
    text = f"{p.name}:{p.type}{'*' if p.required else ''}"
    if p.default is not None:
        text += f"={json.dumps(p.default, ensure_ascii=False)}"
    if p.enum:
        text += f" one of {json.dumps(p.enum, ensure_ascii=False)}"
        words = {v: ws for v, ws in p.synonyms.items() if ws}
        if words:
            text += f" (words: {json.dumps(words, ensure_ascii=False)})"
    return text


def tool_line(t: ToolSpec) -> str:
    params = ", ".join(_param(p) for p in t.parameters)
    eg = f" e.g. “{t.examples[0].user_query}”" if t.examples else ""
    writes = "" if t.side_effects else " [read-only]"
    return f"- {t.tool_name}({params}){writes}: {t.description.strip().splitlines()[0]}{eg}"


def rule_block(r: RuleSpec) -> str:
    lines = [f"- {r.rule_name}: {r.description.strip().splitlines()[0]}"]
    if r.examples:
        lines.append(f"  e.g. “{r.examples[0].user_query}”")
    for s in r.dag_definition:
        args = []
        for name, m in s.parameter_mapping.items():
            if m.source == "step_output":
                args.append(f"{name}←step{m.step_id}.{m.value}")
            elif m.source == "constant":
                args.append(f"{name}={json.dumps(m.value, ensure_ascii=False)}")
            else:
                args.append(f"{name}←{m.source}")
        after = f" after {s.dependencies}" if s.dependencies else ""
        state = ""
        if s.reaches_state:
            state = f" reaches “{'/'.join([s.reaches_state.name, *s.reaches_state.aliases])}”"
        cond = f" if {s.condition}" if s.condition else ""
        lines.append(f"  {s.step_id}. {s.tool_name}({', '.join(args)}){after}{state}{cond}")
    return "\n".join(lines)


def select(knowledge: Knowledge, hits: Sequence[RetrievalHit] | None) -> tuple[list[RuleSpec], list[ToolSpec]]:
    """What the LLM sees: the retrieved rules and tools, plus every tool those rules use."""
    if not hits:
        return list(knowledge.rules.values())[:MAX_RULES], list(knowledge.tools.values())[:MAX_TOOLS]
    rules = [knowledge.rules[h.name] for h in hits if h.kind == "rule" and h.name in knowledge.rules][:MAX_RULES]
    names: list[str] = [h.name for h in hits if h.kind == "tool" and h.name in knowledge.tools]
    for r in rules:
        names.extend(s.tool_name for s in r.dag_definition)
    unique = list(dict.fromkeys(names))[:MAX_TOOLS]
    return rules, [knowledge.tools[n] for n in unique]


def plan_messages(request: Request, knowledge: Knowledge, hits: Sequence[RetrievalHit] | None, *,
                  fits: Callable[[list[dict[str, str]]], bool] | None = None) -> tuple[list[dict[str, str]], str | None]:
    """The planning prompt, and a note when it had to be trimmed: when `fits` says the prompt is
    over the model's context, the lowest-ranked candidates go first (never below one): a request
    is never refused for its size."""
    ranked = list(hits) if hits else _by_order(knowledge)
    shown = len(ranked)
    messages = _messages(request, knowledge, ranked)
    while fits is not None and shown > 1 and not fits(messages):
        shown -= 1
        messages = _messages(request, knowledge, ranked[:shown])
    if shown == len(ranked):
        return messages, None
    return messages, f"prompt trimmed to the {shown} best-ranked of {len(ranked)} candidates to fit the model's context"


def _by_order(knowledge: Knowledge) -> list[RetrievalHit]:
    """No retrieval (no index): the knowledge's first rules and tools, in its own order."""
    names = [("rule", r) for r in list(knowledge.rules)[:MAX_RULES]] + [("tool", t) for t in list(knowledge.tools)[:MAX_TOOLS]]
    return [RetrievalHit(kind=k, name=n, score=0.0, rank=i) for i, (k, n) in enumerate(names)]  # type: ignore[arg-type]


def _messages(request: Request, knowledge: Knowledge, hits: Sequence[RetrievalHit]) -> list[dict[str, str]]:
    rules, tools = select(knowledge, hits)
    packs = list(dict.fromkeys([*(r.pack for r in rules), *(t.pack for t in tools)]))
    environments = "; ".join(
        f"{p}: " + ", ".join(f"{name}" + (f" (aka {', '.join(e.aliases)})" if e.aliases else "")
                             for name, e in knowledge.packs[p].environments.items())
        + f" — default {knowledge.default_environment(p)}" for p in packs)
    defaults = json.dumps({p: knowledge.defaults.get(p, {}) for p in packs}, ensure_ascii=False)
    conversation = ""
    prev = request.previous
    if prev is not None and prev.status == "needs_input":
        conversation = (f"This message answers your earlier question “{prev.question}” about "
                        f"{prev.rule or prev.tool}; values known so far: {json.dumps(prev.known, ensure_ascii=False)}")
    if request.environment:
        conversation += f"\nThe caller fixed the environment: {request.environment}"
    user = template("user").substitute(
        request=request.text, conversation=conversation, environments=environments or "-", defaults=defaults,
        rules="\n".join(rule_block(r) for r in rules) or "(none)",
        tools="\n".join(tool_line(t) for t in tools) or "(none)")
    return [{"role": "system", "content": template("system").substitute()}, {"role": "user", "content": user}]


def repair_message(errors: list[str]) -> dict[str, str]:
    return {"role": "user", "content": template("repair").substitute(errors="\n".join(f"- {e}" for e in errors))}
