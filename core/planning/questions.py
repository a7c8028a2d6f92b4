"""The planner's questions to people: what is missing, which candidate is meant, what it can do
instead. In the conversation's language (set by its first message, kept by its replies)."""

from __future__ import annotations

from collections.abc import Sequence

from core.knowledge import Knowledge
from core.models import Plan, PlanChoice, RetrievalHit
from core.planning.text import mostly_ascii, shingles
from core.planning.vocabulary import Vocabulary


def language_of(text: str) -> str:
    return "en" if mostly_ascii(text) else "zh"


def _label(kn: Knowledge, plan: Plan, name: str) -> str:
    """`description (name)` from the first tool parameter the missing name feeds."""
    for step in plan.steps:
        tool = kn.tools[step.tool_name]
        rule = kn.rules.get(plan.rule or "")
        spec = rule.step(step.step_id) if rule else None
        for param in tool.parameters:
            mapped = spec.parameter_mapping.get(param.name) if spec else None
            if (mapped and mapped.value == name and mapped.source in ("initial_query", "defaults")) or \
                    (not mapped and param.name == name):
                return f"{param.description} ({name})" if param.description else name
    return name


def missing_question(kn: Knowledge, plan: Plan, missing: list[str], description: str, example: str | None,
                     lang: str, refused: dict[str, str] | None = None) -> str:
    labels = ", ".join(_label(kn, plan, n) for n in missing)
    refused = refused or {}
    if lang == "en":
        why = "".join(f" The value you gave for {n} is not allowed: {r}." for n, r in refused.items())
        q = f"To do this ({description.strip()}) I still need: {labels}.{why} Reply with the value"
        return q + (f", e.g. “{example}”." if example else ".")
    why = "".join(f"你给的 {n} 不可用:{r}。" for n, r in refused.items())
    q = f"要完成「{description.strip()}」,还需要:{labels}。{why}请直接回复"
    return q + (f",例如:「{example}」" if example else "。")


def choice_question(choices: Sequence[PlanChoice], lang: str) -> str:
    lines = [f"{i}. {c.rule or c.tool} — {c.summary}" for i, c in enumerate(choices, 1)]
    if lang == "en":
        return "Which one do you mean? Reply with its number or name, or say it in other words:\n" + "\n".join(lines)
    return "你指的是哪一个?回复编号或名称,或换个说法:\n" + "\n".join(lines)


def no_match_question(kn: Knowledge, voc: Vocabulary, text: str, hits: Sequence[RetrievalHit] | None,
                      lang: str | None = None) -> str:
    """Say nothing fits, and offer the closest things the knowledge can do."""
    sh = shingles(text)
    ranked = [h.name for h in hits or [] if h.kind == "rule"]
    ranked += sorted((r for r in kn.rules if r not in ranked), key=lambda r: -voc.rule_similarity(sh, r))
    offers = []
    for name in ranked[:4]:
        rule = kn.rules[name]
        example = rule.examples[0].user_query if rule.examples else rule.trigger_phrases[0] if rule.trigger_phrases else ""
        offers.append(f"• {rule.description.strip()}" + (f" — 「{example}」" if example else ""))
    if not offers:
        offers = [f"• {t.description.strip()}" for t in list(kn.tools.values())[:4]]
    if (lang or ("en" if mostly_ascii(text) else "zh")) == "en":
        return "Nothing in my knowledge fits this request. Things I can do, for example:\n" + "\n".join(offers)
    return "知识库里没有能处理这个请求的规则或工具。我可以做的例如:\n" + "\n".join(offers)
