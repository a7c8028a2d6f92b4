"""The request vocabulary a pack teaches, compiled once per Knowledge.

Environments by name/alias, target states by `reaches_state`, trigger phrases, parameter
values by `patterns`, enum values and `synonyms` (longest match wins), and the contexts the
`examples` show around each extracted value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.knowledge import Knowledge
from core.models import Example, ParamSpec, StepId, ToolSpec
from core.planning.text import PhraseHit, cast, find_phrases, phrase_pattern, shingles, similarity

Phrases = list[tuple[re.Pattern[str], str, Any]]
MISSING = object()
_CJK = r"[\u3400-\u9fff]"


@dataclass
class Extracted:
    value: Any
    start: int
    how: str  # pattern | enum | example


def _value_class(value: str) -> tuple[str, bool]:
    """A regex class for values like this one, and whether it needs a right context to stop."""
    if re.fullmatch(r"\d+(?:\.\d+)?", value):
        return r"\d+(?:\.\d+)?", False
    if re.fullmatch(r"[A-Za-z]+\d+", value):
        return r"[A-Za-z]+\d+", False
    if re.fullmatch(r"[A-Za-z0-9_.-]+", value):
        return r"[A-Za-z0-9_.-]+", False
    if re.fullmatch(f"{_CJK}+", value):
        return f"{_CJK}{{1,{max(4, len(value) + 2)}}}?", True
    return r"[^,，。;；\s]+?", True


def context_patterns(example: Example, name: str) -> list[re.Pattern[str]]:
    """Regexes learnt from where an example's value for `name` sits in its query."""
    raw = example.extracted_params.get(name)
    if raw is None or isinstance(raw, bool | dict | list):
        return []
    value, query = str(raw), example.user_query
    pos = query.find(value)
    if pos < 0:
        return []
    klass, lazy = _value_class(value)
    left = query[max(0, pos - 3):pos].lstrip()
    right = query[pos + len(value):pos + len(value) + 2].rstrip()
    # Digits next to the value would make the context match the value itself.
    left = re.sub(r"^.*\d", "", left)
    right = re.sub(r"\d.*$", "", right)
    at_end = pos + len(value) == len(query.rstrip())
    # What stops the value: the example's right context, or (at the end) punctuation or the end.
    stop = r"\s*" + re.escape(right) if right else r"(?=$|[,，。;；!！?？\s])" if at_end else None
    out: list[re.Pattern[str]] = []
    if len(left) >= 2 and not lazy:
        out.append(re.compile(re.escape(left) + r"\s*(" + klass + ")", re.IGNORECASE))
    if left and stop:
        out.append(re.compile(re.escape(left) + r"\s*(" + klass + ")" + stop, re.IGNORECASE))
    if len(right) >= 2 and pos == 0:
        out.append(re.compile(r"^(" + klass + r")\s*" + re.escape(right), re.IGNORECASE))
    return out


@dataclass
class Vocabulary:
    """Everything the rule planner matches text against, for one Knowledge."""

    knowledge: Knowledge
    environments: dict[str, Phrases] = field(default_factory=dict)  # pack -> phrases -> env name
    triggers: Phrases = field(default_factory=list)  # -> rule name
    states: dict[str, Phrases] = field(default_factory=dict)  # rule -> phrases -> step id
    rule_shingles: dict[str, list[frozenset[str]]] = field(default_factory=dict)
    tool_shingles: dict[str, list[frozenset[str]]] = field(default_factory=dict)
    enums: dict[tuple[str, str], Phrases] = field(default_factory=dict)  # (tool, param) -> value
    contexts: dict[tuple[str, str], list[re.Pattern[str]]] = field(default_factory=dict)  # (tool|rule, name)
    patterns: dict[tuple[str, str], list[re.Pattern[str]]] = field(default_factory=dict)
    enum_lefts: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # words seen before an enum value

    @classmethod
    def build(cls, kn: Knowledge) -> Vocabulary:
        voc = cls(kn)
        for pack in kn.packs.values():
            voc.environments[pack.name] = [
                (phrase_pattern(w), w, env) for env, spec in pack.environments.items() for w in [env, *spec.aliases]
            ]
        for rule in kn.rules.values():
            voc.triggers += [(phrase_pattern(t), t, rule.rule_name) for t in rule.trigger_phrases]
            voc.states[rule.rule_name] = [
                (phrase_pattern(w), w, s.step_id) for s in rule.dag_definition if s.reaches_state
                for w in s.reaches_state.words
            ]
            voc.rule_shingles[rule.rule_name] = [shingles(e.user_query) for e in rule.examples] + [
                shingles(t) for t in rule.trigger_phrases]
            names = {n for e in rule.examples for n in e.extracted_params}
            for name in names:
                voc.contexts[(rule.rule_name, name)] = [p for e in rule.examples for p in context_patterns(e, name)]
        for tool in kn.tools.values():
            voc.tool_shingles[tool.tool_name] = [shingles(e.user_query) for e in tool.examples]
            for p in tool.parameters:
                key = (tool.tool_name, p.name)
                voc.patterns[key] = [re.compile(x) for x in p.patterns]
                voc.enums[key] = voc._enum_phrases(p)
                voc.enum_lefts[key] = voc._enum_lefts(tool.examples, p)
                voc.contexts[key] = [pat for e in tool.examples for pat in context_patterns(e, p.name)]
        return voc

    @staticmethod
    def _enum_phrases(p: ParamSpec) -> Phrases:
        phrases: Phrases = []
        for value in p.enum or []:
            for word in [str(value), *p.synonyms.get(str(value), [])]:
                phrases.append((phrase_pattern(word), word, value))
        return phrases

    @staticmethod
    def _enum_lefts(examples: list[Example], p: ParamSpec) -> set[str]:
        """The character before an enum word in examples: which of two named values is meant
        ("美元兑欧元" -> the one after 兑)."""
        lefts: set[str] = set()
        for ex in examples:
            value = ex.extracted_params.get(p.name)
            if value is None or p.enum is None:
                continue
            for word in [str(value), *p.synonyms.get(str(value), [])]:
                pos = ex.user_query.find(word)
                if pos > 0:
                    lefts.add(ex.user_query[pos - 1])
        return lefts

    # ------------------------------------------------------------------ matching

    def environment_hits(self, text: str, pack: str) -> list[PhraseHit[str]]:
        return find_phrases(text, self.environments.get(pack, []))

    def trigger_hits(self, text: str) -> list[PhraseHit[str]]:
        return find_phrases(text, self.triggers)

    def state_hits(self, text: str, rule: str) -> list[PhraseHit[StepId]]:
        return find_phrases(text, self.states.get(rule, []))

    def rule_similarity(self, text_shingles: frozenset[str], rule: str) -> float:
        return max((similarity(text_shingles, s) for s in self.rule_shingles.get(rule, [])), default=0.0)

    def tool_similarity(self, text_shingles: frozenset[str], tool: str) -> float:
        return max((similarity(text_shingles, s) for s in self.tool_shingles.get(tool, [])), default=0.0)

    def extract(self, text: str, tool: ToolSpec, param: ParamSpec,
                extra: tuple[tuple[str, str], ...] = ()) -> Extracted | None:
        """The value the text states for a tool parameter: patterns, then enum words, then
        contexts learnt from examples (the tool's own, and `extra` keys such as a rule's)."""
        key = (tool.tool_name, param.name)
        for pattern in self.patterns.get(key, []):
            for m in pattern.finditer(text):
                got = _typed(m.group(1) if m.groups() else m.group(0), param)
                if got is not MISSING:
                    return Extracted(got, m.start(), "pattern")
        hits = find_phrases(text, self.enums.get(key, []))
        if len({h.payload for h in hits}) > 1:  # several values named: the examples' context decides
            lefts = self.enum_lefts.get(key, set())
            hits = [h for h in hits if h.start > 0 and text[h.start - 1] in lefts] or hits
        if hits:
            return Extracted(hits[0].payload, hits[0].start, "enum")
        if param.enum is None:
            for ctx_key in (key, *extra):
                for pattern in self.contexts.get(ctx_key, []):
                    m = pattern.search(text)
                    if m:
                        got = _typed(m.group(1), param)
                        if got is not MISSING:
                            return Extracted(got, m.start(1), "example")
        return None


def _typed(raw: str, param: ParamSpec) -> Any:
    try:
        value = cast(raw, param.type)
    except (ValueError, TypeError):
        return MISSING
    if param.enum is not None and value not in param.enum:
        return MISSING
    return value
