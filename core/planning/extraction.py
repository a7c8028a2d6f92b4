"""Request values to parameters: typed spans first, then assignment, validated every time.

A candidate (a rule or a single tool) has *slots*: the request names its rule maps
(`initial_query`), the step outputs a request may state instead (`step_output`, "carried"),
`defaults` names the request may override, and unmapped tool parameters. Each slot collects
candidate values — pack `patterns`, enum words and synonyms, booleans said in words, typed spans
(emails, dates, amounts, numbers with units, ids, quoted strings) whose shape the parameter or
its examples declare, and free text found by the contexts examples teach — and keeps only those
that validate against every parameter the slot feeds (type, enum, JSON-Schema keywords). Then
values are assigned greedily, strongest first, one span to one slot. A slot whose evidence is
weak stays empty: the planner asks rather than guesses.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Any, Literal

import regex

from core.knowledge import Knowledge
from core.models import ParamSpec, RuleSpec, ToolSpec
from core.pack_regex import finditer as pack_finditer
from core.planning.lexicon import (
    CLAUSE,
    HAVING,
    WAIT_FOR_ME_ZH,
    intent,
    is_stopword,
    name_stems,
    name_words,
    stem,
    tokens,
)
from core.planning.names import looks_like_name, person_names, takes_person
from core.planning.spans import EN_NUMBER_WORDS, SCALE_LETTERS, Span, with_arabic_numerals
from core.planning.text import cn_number
from core.planning.typed import MISSING, explain, is_typed, validate
from core.planning.vocabulary import (
    HANDLE,
    NEXT_WORD,
    PAIR_SEPARATORS,
    RIGHT_WORD,
    Vocabulary,
    candidate_key,
    id_prefix,
    joins_a_pair,
    signature,
    without_examples,
)

SlotKind = Literal["input", "carried", "defaults", "unmapped"]

# Strength of the evidence for a value (higher wins; slots below their floor stay empty).
PATTERN, ENUM, CONTEXT, SHAPED, DECLARED, NAME, KEYWORD, HINTED, LOOSE, BARE = (
    3.0, 2.6, 2.2, 2.0, 1.8, 1.7, 1.6, 1.4, 0.9, 0.6)
LEFT_BONUS = 0.35
FLOOR: dict[SlotKind, float] = {"input": LOOSE, "unmapped": HINTED, "carried": DECLARED, "defaults": CONTEXT}
NEGATIONS_ZH = "不没无别非免勿"
NEGATIONS_EN = frozenset({"no", "not", "don't", "dont", "without", "non", "never", "skip", "w/o"})
_BOOL_STRIP = re.compile(r"^(?:是否|要不要|是不是|whether(?: to)?|if|is|has|use)\s*|[(（].*?[)）]|\s*[?？]$", re.I)
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
# What follows a person's name before the verb, not part of it ("刘洋要借调", "张伟想请假", "李娜也要")
_AFTER_A_NAME_ZH = "要想需得将该也都就还又再已从"  # (not 会: 王家会 is a name)
_NUMERIC_DATE = re.compile(r"[\d\s./:：年月日号-]+")
# found this way, a value gives way to two numbers written as the examples write a pair
# A clause that tells how to go about the request, not why: "先别审批", "审批等我确认", "don't notify them"
_INSTRUCTION = re.compile(r"^\s*(?:先|暂时|暂)?(?:别|不用|不要|无需|无须|不必|不需要|先不|暂不)|" + WAIT_FOR_ME_ZH + "|"
                          r"(?i:^\s*(?:don'?t|do not|no need|never|hold off|wait for me)\b)")
# numbers written apart after a name, with a decimal point or a comma in one: coordinates, not the name
_OTHER_DOLLAR = re.compile(r"(?<![A-Za-z])(?!US)[A-Z]{1,2}\s?\$$")
_NUMBERS_AFTER = re.compile(r"(?: \d+(?:[.,，]\d+)+)+.*$")
_NUMBER_PAIR = re.compile(rf"(?<![\w.])(\d+(?:\.\d+)?)\s*([{re.escape(PAIR_SEPARATORS)}])\s*(\d+(?:\.\d+)?)(?![\w.])")
_PAIR_YIELDS = frozenset({"example", "sole", "span:number", "span:id", "span:amount"})
IMPLIED_FORMAT = (("email", "email"), ("mail", "email"), ("date", "date"), ("url", "uri"), ("uri", "uri"),
                  ("domain", "hostname"), ("hostname", "hostname"))


@dataclass
class Slot:
    name: str
    params: list[tuple[ToolSpec, ParamSpec]]
    kind: SlotKind
    required: bool = False
    owners: list[str] = field(default_factory=list)  # rule/tool names whose examples teach this slot


@dataclass
class Assignment:
    values: dict[str, Found]
    refused: dict[str, str]  # slot name -> why the value the request stated is not allowed
    refused_at: list[tuple[int, int]] = field(default_factory=list)  # where those values are in the text


@dataclass(frozen=True)
class Found:
    value: Any
    start: int
    end: int
    how: str
    score: float


def tool_slots(tool: ToolSpec) -> list[Slot]:
    return [Slot(p.name, [(tool, p)], "input", p.required, [tool.tool_name]) for p in tool.parameters]


def rule_slots(rule: RuleSpec, kn: Knowledge) -> list[Slot]:
    """One slot per name the rule's steps take from the request (merged across steps)."""
    slots: dict[tuple[str, SlotKind], Slot] = {}
    for step in rule.dag_definition:
        tool = kn.tools[step.tool_name]
        for param in tool.parameters:
            mapping = step.parameter_mapping.get(param.name)
            if mapping is None:
                name, kind = param.name, "unmapped"
            elif mapping.source == "constant":
                continue
            elif mapping.source == "step_output":
                name, kind = param.name, "carried"
            else:
                name, kind = mapping.value, "input" if mapping.source == "initial_query" else "defaults"
            slot = slots.setdefault((name, kind), Slot(name, [], kind, owners=[rule.rule_name]))  # type: ignore[arg-type]
            # each distinct parameter once: a chain of 100 steps of one tool feeds one 100 times
            if not any(t.tool_name == tool.tool_name and p.name == param.name for t, p in slot.params):
                slot.params.append((tool, param))
            slot.required = slot.required or param.required
            if tool.tool_name not in slot.owners:
                slot.owners.append(tool.tool_name)
    return list(slots.values())


def _cased(pattern: Any, text: str, found: list[Found], samples: frozenset[str] = frozenset()) -> list[Found]:
    """An id typed in the other case ("vh-3310" where the pack writes VH-\\d{4}): the value as the
    pattern writes it, where exactly one casing of it matches (never a word: an id holds a digit).
    An id typed in one case is taken whole in the other where that fits ("粤b3k729", "ORG_ACME42" for
    org_[a-z0-9]+ or org_[A-Za-z0-9]+ is org_acme42: caps lock) — unless the examples' ids of the
    parameter write what follows their prefix in capitals (sub_9ZK2: "SUB_9ZK2" is sub_9ZK2), or in
    both cases (then the case is part of the id, and which one is meant is asked); one typed
    in mixed case keeps all but its letters up front ("ORD_Tt9Qp1a" for ord_[A-Za-z0-9]+ is
    ord_Tt9Qp1a, not ord_tt9qp1a, a different id)."""
    out: list[Found] = []
    for m in pack_finditer(_caseless(pattern), text):
        i = 1 if m.groups() else 0
        raw = m.group(i)
        if raw is None or not any(c.isdigit() for c in raw) or any(f.start < m.end(i) and m.start(i) < f.end for f in found):
            continue
        lead = _lead_letters(raw)
        ways = [[raw[:lead].lower() + raw[lead:], raw[:lead].upper() + raw[lead:]]]
        if raw in (raw.lower(), raw.upper()):
            bodies = _body_case(samples)
            if bodies == "mixed":  # (ids whose case matters, typed in one case: the id as typed, which
                out.append(Found(raw, m.start(i), m.end(i), "pattern", PATTERN))  # fails it and is asked about)
                continue
            ways.insert(1 if bodies == "upper" else 0, [raw.upper(), raw.lower()])
        for way in ways:
            fits = {v for v in way if v != raw and (h := pattern.search(v)) and h.group(i) == v}
            if fits:
                if len(fits) == 1:
                    out.append(Found(fits.pop(), m.start(i), m.end(i), "pattern", PATTERN))
                break
    return out


def _lead_letters(value: str) -> int:
    """How many ASCII letters an id starts with (its prefix: ORD of ORD_Tt9Qp1a)."""
    return len(value) - len(value.lstrip(string.ascii_letters))


def _body_case(samples: frozenset[str]) -> str:
    """How example ids write what follows their letters up front: "upper" (sub_9ZK2), "lower"
    (org_acme42), "mixed" (ord_Tt9Qp1a: the case is part of the id) or "" (no example says)."""
    bodies = "".join(v[_lead_letters(v):] for v in samples if any(c.isdigit() for c in v))
    upper, lower = any(c.isupper() for c in bodies), any(c.islower() for c in bodies)
    return "mixed" if upper and lower else "upper" if upper else "lower" if lower else ""


def _unmarking(tool: ToolSpec, name: str) -> str:
    """The tool's examples that say nothing of a boolean parameter: their words say what the tool
    does, not whether the flag is on."""
    return " ".join(e.user_query for e in tool.examples if name not in e.extracted_params)


@lru_cache(maxsize=1024)
def _caseless(pattern: Any) -> Any:
    """The pack pattern, ignoring case (to find ids typed in the other case)."""
    return regex.compile(pattern.pattern, pattern.flags | regex.IGNORECASE)


_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_SCALES = frozenset(SCALE_LETTERS + "万千")


def _scaled(found: Found, spans: list[Span]) -> Found:
    """Digits a pattern or an example's context found that stop before the scale the request puts
    after them ("额度3w", "预算15k", "月薪调到1.8w"): the number the request says, not its first digits."""
    if not isinstance(found.value, str) or not _DIGITS.fullmatch(found.value):
        return found
    for sp in spans:
        rest = sp.text[found.end - sp.start:]
        if sp.kind in ("number", "amount") and sp.start <= found.start and found.end < sp.end \
                and rest[:1] in _SCALES and not rest[1:2].isalpha():  # (not the k of 12kg)
            return Found(sp.value, found.start, sp.end, found.how, found.score)
    return found


def _strictly_inside(start: int, end: int, span: Span) -> bool:
    """A piece of the span, not all of it."""
    return span.start <= start and end <= span.end and (span.start, span.end) != (start, end)


def _implied(param: ParamSpec) -> ParamSpec:
    """A parameter named like an email, date or URL is one even when it declares no format."""
    extra = param.model_extra or {}
    if param.type != "string" or "format" in extra or "pattern" in extra or param.enum is not None:
        return param
    lowered = param.name.lower()
    for suffix, fmt in IMPLIED_FORMAT:
        if lowered == suffix or lowered.endswith(("_" + suffix, suffix)):
            return param.model_copy(update={"format": fmt})
    return param


def slot_keys(slot: Slot) -> list[tuple[str, str]]:
    """The (owner, name) keys the knowledge learnt a slot's values under: its rules' and its tools'."""
    return [(owner, slot.name) for owner in slot.owners] + [(t.tool_name, p.name) for t, p in slot.params]


class Extractor:
    """Finds, validates and assigns request values for one candidate's slots."""

    def __init__(self, voc: Vocabulary) -> None:
        self.voc = voc

    def assign(self, text: str, spans: list[Span], slots: Iterable[Slot],
               memo: dict[Any, Any] | None = None) -> Assignment:
        """{slot name: the value found}; one span feeds one slot name, strongest evidence first.
        Values the request states explicitly (a pattern or enum word) that fail their parameter
        are kept as refusals: the request said them, so they are never replaced by a default."""
        slots = list(slots)
        offers: list[tuple[float, int, str, Found]] = []
        refused: dict[str, str] = {}
        refused_where: dict[str, tuple[int, int]] = {}
        for slot in slots:
            floor = FLOOR[slot.kind] if not (slot.kind == "unmapped" and slot.required) else LOOSE
            key = self._memo_key(slot)
            if memo is not None and key in memo:  # the same slot in another candidate of this request
                valid, invalid = memo[key]
            else:
                valid, invalid = self._candidates(text, spans, slot)
                if memo is not None:
                    memo[key] = (valid, invalid)
            for found in valid:
                if found.score >= floor:
                    offers.append((found.score, -found.start, slot.name, found))
            if invalid and not valid and slot.kind in ("input", "unmapped"):
                refused[slot.name] = invalid[0]
                refused_where[slot.name] = invalid[1]
        # (at equal evidence the request's own inputs come first: a value said once is the recipe's input,
        # not a replacement for a step's defaults mapping — "学费减免3000元" is the reduction, not the bill)
        kinds = {slot.name: slot.kind for slot in slots}
        # (and where the examples' context places a value, that slot takes it before one for which it is
        # merely a value the pack knows: "… forward her mail to bwright" — the forward address, though a
        # known username)
        placed = {(o[3].start, o[3].end) for o in offers if o[3].how == "example"}
        offers.sort(key=lambda o: (-o[0], o[3].how == "known" and (o[3].start, o[3].end) in placed, -o[1],
                                   kinds.get(o[2]) == "defaults", kinds.get(o[2]) == "carried"))
        taken: dict[str, Found] = {}
        claimed: dict[tuple[int, int], tuple[str, str]] = {}
        for _, _, name, found in offers:
            if name in taken:
                continue
            if self._blocked(found, name, claimed):
                continue
            taken[name] = found
            claimed[(found.start, found.end)] = (name, found.how)
        # a value another slot took is that slot's ("the role of U1": U1 is the user, not a bad role)
        refused = {n: r for n, r in refused.items() if n not in taken and not any(
            s < refused_where[n][1] and refused_where[n][0] < e for s, e in claimed)}
        self._date_range(text, spans, slots, taken)
        self._sole_number(text, spans, slots, taken, refused)
        self._sole_handle(text, spans, slots, taken, refused)
        self._currency_of_amount(text, spans, slots, taken)
        self._number_pair(text, slots, taken)
        return Assignment(taken, {n: r for n, r in refused.items() if n not in taken},
                          [refused_where[n] for n in refused if n not in taken])

    @staticmethod
    def _date_range(text: str, spans: list[Span], slots: list[Slot], taken: dict[str, Found]) -> None:
        """"下周一到周三" / "Monday to Wednesday" for a tool that takes a start date and a number of days
        (no end date): the days from one to the other, both counted, and the end date said is used.
        Only where the count is plain: a parameter named for days, the start taken by a date
        parameter of the same tool, no weekend inside (working days or calendar days?), and not a
        move ("from Monday to Wednesday" may be the new date)."""
        if _MOVE.search(text):
            return
        dates = sorted((s for s in spans if s.kind == "date"), key=lambda s: s.start)
        for first, last in zip(dates, dates[1:], strict=False):
            if not _RANGE_GAP.fullmatch(text[first.end:last.start]):
                continue
            start = next((name for name, f in taken.items() if (f.start, f.end) == (first.start, first.end)), None)
            if start is None or any(f.start < last.end and last.start < f.end for f in taken.values()):
                return  # the start is not a value here, or the end date is (an end_date parameter)
            try:
                begin = date.fromisoformat(str(first.value)[:10])
                days = (date.fromisoformat(str(last.value)[:10]) - begin).days + 1
            except ValueError:
                return
            if days < 1 or any((begin.weekday() + k) % 7 >= 5 for k in range(days)):
                return
            tools = {t.tool_name for sl in slots if sl.name == start for t, _ in sl.params}
            slot = next((sl for sl in slots if sl.name not in taken and sl.kind in ("input", "unmapped") and sl.params
                         and all(p.type in ("integer", "number") and p.enum is None and _DAYS.search(p.name)
                                 and not _WORKING.search(p.description or "") and t.tool_name in tools
                                 for t, p in sl.params)), None)
            if slot is None:
                return
            value: Any = days
            for _, param in slot.params:
                value = validate(value, param)
                if value is MISSING:
                    return
            taken[slot.name] = Found(value, last.start, last.end, "range", LOOSE)
            return

    def _number_pair(self, text: str, slots: list[Slot], taken: dict[str, Found]) -> None:
        """Two numbers written as a pair the way the examples write two values ("22.58,113.88" where an
        example writes lat then lng, "1280x720" for width and height): the first is the first value,
        the second the second — where neither number, nor either slot, is held by anything stronger
        than an example's context."""
        for m in _NUMBER_PAIR.finditer(text):
            if not joins_a_pair(m[2], m[1], m[3]):
                continue
            separator = m[2].replace("，", ",")
            for a_slot, b_slot in self._paired_slots(slots, separator):
                held = {n: f for n, f in taken.items() if f.start < m.end() and m.start() < f.end}
                if any(n not in (a_slot.name, b_slot.name) or f.how not in _PAIR_YIELDS for n, f in held.items()) \
                        or any(n in taken and n not in held and taken[n].how not in _PAIR_YIELDS
                               for n in (a_slot.name, b_slot.name)):
                    continue
                values: list[Any] = []
                for slot, raw in ((a_slot, m[1]), (b_slot, m[3])):
                    value: Any = float(raw) if "." in raw else int(raw)
                    for _, param in slot.params:
                        value = validate(value, param)
                    values.append(value)
                if MISSING in values:
                    continue
                taken[a_slot.name] = Found(values[0], m.start(1), m.end(1), "pair", CONTEXT)
                taken[b_slot.name] = Found(values[1], m.start(3), m.end(3), "pair", CONTEXT)
                return

    def _paired_slots(self, slots: list[Slot], separator: str) -> list[tuple[Slot, Slot]]:
        """The slots whose values the examples of their owners write as a pair with this separator."""
        out: list[tuple[Slot, Slot]] = []
        for a in slots:
            for b in slots:
                if a is b or a.kind not in ("input", "unmapped") or b.kind not in ("input", "unmapped"):
                    continue
                learned = any((an, separator, bn) in self.voc.pairs.get(t.tool_name, set())
                              for t, pa in a.params for t2, pb in b.params if t is t2
                              for an, bn in [(pa.name, pb.name)]) or any(
                    (a.name, separator, b.name) in self.voc.pairs.get(owner, set()) for owner in a.owners if owner in b.owners)
                if learned:
                    out.append((a, b))
        return out

    @staticmethod
    def _currency_of_amount(text: str, spans: list[Span], slots: list[Slot], taken: dict[str, Found]) -> None:
        """"give tn_1 a $150 credit": the amount's symbol also says its currency, for a tool that takes
        the amount and a currency code from a list (USD, EUR, ...) the request names in no other way."""
        # (a symbol with letters before it is another dollar — HK$, C$, A$ — and ¥ is yen as well as yuan)
        money = [s for s in spans if s.kind == "amount" and s.unit and not _OTHER_DOLLAR.search(text[:s.start + 1])
                 and not (s.text.lstrip()[:1] in "¥￥" and s.unit == "CNY")]
        for span in money:
            holder = next((name for name, f in taken.items() if f.start < span.end and span.start < f.end), None)
            if holder is None:
                continue
            tools = {t.tool_name for sl in slots if sl.name == holder for t, p in sl.params if p.type in ("number", "integer")}
            for slot in slots:
                # (not one end of a conversion: "convert $100" says nothing of a target currency)
                if slot.name in taken or slot.kind not in ("input", "unmapped") or not slot.params \
                        or not all(t.tool_name in tools and _direction(p.name) != "to" for t, p in slot.params):
                    continue
                codes = [next((v for v in (p.enum or []) if str(v).upper() == span.unit), None) for _, p in slot.params]
                if all(code is not None for code in codes) and len(set(map(str, codes))) == 1:
                    taken[slot.name] = Found(codes[0], span.start, span.end, "currency", DECLARED)

    def _sole_number(self, text: str, spans: list[Span], slots: list[Slot], taken: dict[str, Found],
                     refused: dict[str, str]) -> None:
        """One plain number left in the request and one required number still to fill: it is that
        number ("给欧阳晨加薪到两万" for the new salary). Not a number that is also an id (123456), nor
        one a word the tool does not know names ("ticket 123456": the number of something else)."""
        ids = [s for s in spans if s.kind == "id"]
        numbers = [s for s in spans if s.kind == "number" and s.unit is None and not any(s.overlaps(i) for i in ids)
                   and not any(f.start < s.end and s.start < f.end for f in taken.values())]
        open_slots = [sl for sl in slots if sl.required and sl.kind in ("input", "unmapped") and sl.name not in taken
                      and sl.name not in refused and sl.params and all(p.type in ("number", "integer")
                                                                      and p.enum is None for _, p in sl.params)]
        if len(numbers) != 1 or len(open_slots) != 1:
            return
        left = _left_word(text, numbers[0].start)
        lead = left if left is None or left.isascii() else left[-1]
        if re.search(r"[#＃]\s*$", text[:numbers[0].start]) or (lead and lead not in _NUMBER_LEADS and not any(
                self.voc.lexicon.knows(candidate_key("tool", tool.tool_name), stem(left) if left.isascii() else left)
                for tool, _ in open_slots[0].params)):
            return  # "ticket 123456", "工单123456", "#4411": the number of something else
        value: Any = numbers[0].value
        for _, param in open_slots[0].params:
            value = validate(value, param)
            if value is MISSING:
                return
        taken[open_slots[0].name] = Found(value, numbers[0].start, numbers[0].end, "sole", LOOSE)

    def _sole_handle(self, text: str, spans: list[Span], slots: list[Slot], taken: dict[str, Found],
                     refused: dict[str, str]) -> None:
        """The one word of the request nothing here knows (values other slots took aside), shaped like a
        login (`looks_like_login`) and like the handles the examples give the one handle parameter still
        to fill: it is that handle ("does mchen have mfa set up?"). A required parameter of a write takes
        only a login its examples give; an optional one only after to/by/cc ("assign INC-1 to sjones").
        Not a noun after an article ("the contractor", "the new guy"), nor an inflected English word
        ("compromised", "months"); two unknown words (a phrase of another domain) fill nothing."""
        handled = [sl for sl in slots if sl.kind in ("input", "unmapped") and sl.name not in taken
                   and sl.name not in refused and sl.params and self._takes_handles(sl)]
        # (a required one first; else an optional one, for a handle said after a preposition: "assign
        # INC-1 to sjones", where the default queue would otherwise take the ticket)
        open_slots = [sl for sl in handled if sl.required] or [sl for sl in handled if not sl.required]
        if len(open_slots) != 1:
            return
        # (a required one of a write only for a login its own examples give: a write on a word no example
        # placed could act on the wrong person — "we have 5 zoom seats, give one to mchen" is no revocation)
        writes = open_slots[0].required and any(tool.side_effects for tool, _ in open_slots[0].params)
        shapes = [self.voc.shapes[k] for k in self._shape_keys(open_slots[0])]
        lengths = set().union(*(s.handles for s in shapes))
        taught = set().union(*(s.handle_words for s in shapes))  # (an example's own value is no pack word)
        lexicon = self.voc.lexicon
        words = [m for m in _WORD_AT.finditer(text) if not any(s.start < m.end() and m.start() < s.end for s in spans)
                 and not any(f.start < m.end() and m.start() < f.end for f in taken.values())]  # (another slot's value)
        unknown = [i for i, m in enumerate(words) if not is_stopword(m.group(0).lower()) and (m.group(0) in taught or (
            not lexicon.has(stem(m.group(0).lower())) and not self.voc.is_own_word(m.group(0))))]
        if len(unknown) != 1:
            return
        i = unknown[0]
        m = words[i]
        word = m.group(0)
        if not HANDLE.fullmatch(word) or _INFLECTED.search(word) or not any(abs(len(word) - n) <= 3 for n in lengths) \
                or not looks_like_login(word) or (writes and word not in taught):
            return
        if any(w.group(0).lower() in _ARTICLES for w in words[max(0, i - 2):i]):
            return  # "the contractor", "the new guy": a thing named, not a login
        if not open_slots[0].required and not (i > 0 and words[i - 1].group(0).lower() in _HANDED_TO):
            return
        value: Any = word
        for _, param in open_slots[0].params:
            value = validate(value, param)
            if value is MISSING:
                return
        taken[open_slots[0].name] = Found(value, m.start(), m.end(), "sole", LOOSE)

    def _shape_keys(self, slot: Slot) -> list[tuple[str, str]]:
        return [k for k in slot_keys(slot) if k in self.voc.shapes]

    def _takes_handles(self, slot: Slot) -> bool:
        """A free string parameter every example value of which is a handle."""
        keys = self._shape_keys(slot)
        return bool(keys) and all(p.type == "string" and p.enum is None and not p.patterns for _, p in slot.params) \
            and all(self.voc.shapes[k].only_handles for k in keys)

    def offers(self, text: str, spans: list[Span], slot: Slot) -> list[Found]:
        """Every value the request offers this slot that validates, however weak the evidence:
        what another planner's value is checked against (the LLM planner's grounding)."""
        return self._candidates(text, spans, slot)[0]

    @staticmethod
    def _blocked(found: Found, name: str, claimed: dict[tuple[int, int], tuple[str, str]]) -> bool:
        """Whether another slot already took this text. A unit inside a value ("元" of "18000元" as a
        currency) and a yes/no said in words may share it."""
        for (s, e), (owner, how) in claimed.items():
            if owner == name or not (s < found.end and found.start < e) or "keyword" in (how, found.how):
                continue
            inside = (found.how == "enum" and s <= found.start and found.end <= e) or \
                (how == "enum" and found.start <= s and e <= found.end)
            if not inside:
                return True
        return False

    # ------------------------------------------------------------------ candidates

    def _memo_key(self, slot: Slot) -> tuple[Any, ...]:
        """What a slot's candidates depend on besides the request: its name, the parameters it feeds,
        and those of its (owner, name) keys the knowledge learnt something for — a rule's slot that
        feeds a tool's parameter and learnt nothing of its own finds what the tool's slot finds."""
        learnt = (self.voc.contexts, self.voc.shapes, self.voc.known_values, self.voc.shared_values)
        keys = slot_keys(slot)
        return (slot.name, tuple((t.tool_name, p.name) for t, p in slot.params),
                tuple(k for k in keys if any(k in d for d in learnt)))

    def _candidates(self, text: str, spans: list[Span], slot: Slot
                    ) -> tuple[list[Found], tuple[str, tuple[int, int]] | None]:
        """Valid candidates, and why an explicitly stated one (pattern capture) was refused."""
        out: list[Found] = []
        named = any(p.name == slot.name for _, p in slot.params)
        typed = [sp for sp in spans if sp.kind in ("email", "url", "id", "quoted")]
        # written-out dates and times ("2024-07-01", "7月1日"), not relative ones ("in 5 days" holds a number)
        when = [sp for sp in spans if sp.kind in ("date", "month", "time") and _NUMERIC_DATE.fullmatch(sp.text)]
        for tool, param in slot.params:
            found = [f for f in self._explicit(text, tool, param)  # not the "uk" of an email's ".co.uk"
                     if (f.how != "enum" or not any(_strictly_inside(f.start, f.end, sp) for sp in typed))
                     and not (when and any(_strictly_inside(f.start, f.end, sp) for sp in when))]  # not the 2024 of 2024-07-01
            found = [_scaled(f, spans) for f in found]
            if named and param.name != slot.name:
                # another step's parameter fed by this name ("warehouse" for "from_warehouse"): its
                # pattern is about its own name, so it only hints
                found = [Found(f.value, f.start, f.end, f.how, min(f.score, DECLARED)) for f in found]
            out += found
        keys = slot_keys(slot)
        # (never the words that introduce a name: "建个围栏 名字叫 X" where an example reads "建个围栏 科兴仓")
        out += [_scaled(f, spans) for f in self._from_contexts(text, spans, slot, keys)
                if not (isinstance(f.value, str) and _NAMING.search(f.value))]
        out += self._from_spans(text, spans, slot, keys)
        out += self._person_names(text, spans, slot, keys)
        out += self._known_values(text, spans, slot, keys)
        out += self._labelled(text, spans, slot)
        out += self._called(text, spans, slot)
        out += self._prose(text, spans, slot)
        # Valid for every parameter the slot feeds (a name shared by several steps).
        checked = []
        refusal: tuple[str, tuple[int, int]] | None = None
        for found in out:
            value = found.value
            for _, param in slot.params:
                value = validate(value, _implied(param))
                if value is MISSING:
                    if found.how in ("pattern", "named") and refusal is None:
                        refusal = explain(found.value, _implied(param)), (found.start, found.end)
                    break
            if value is not MISSING:
                checked.append(Found(value, found.start, found.end, found.how, found.score))
        return checked, refusal

    def _explicit(self, text: str, tool: ToolSpec, param: ParamSpec) -> list[Found]:
        """Pack patterns, enum words and synonyms, booleans said in words."""
        out: list[Found] = []
        free = param.type == "string" and not any(k in (param.model_extra or {}) for k in ("pattern", "format")) \
            and param.enum is None
        listed = self.voc.known_values.get((tool.tool_name, param.name), frozenset())
        digits, back = with_arabic_numerals(text)
        for pattern in self.voc.patterns.get((tool.tool_name, param.name), []):
            for m in pack_finditer(pattern, text):
                i = 1 if m.groups() else 0
                # a value the pack itself lists for this parameter is one, though the pack says it; so is
                # one the request puts in quotes where the pattern expects them (课叫「向上管理」)
                if m.group(i) is None or (free and m.group(i) not in listed and not _quoted_at(text, m.start(i), m.end(i))
                                          and not self._could_be_value(m.group(i), param)):
                    continue
                out.append(Found(m.group(i), m.start(i), m.end(i), "pattern", PATTERN))
            out += _cased(pattern, text, out, listed)
            if digits == text:
                continue
            for m in pack_finditer(pattern, digits):  # the same pattern, with 五个积分 read as 5个积分
                i = 1 if m.groups() else 0
                start, end = back[m.start(i)], back[m.end(i)]
                if m.group(i) is not None and m.group(i).isdigit() and start < end and \
                        not any(f.how == "pattern" and f.start < end and start < f.end for f in out):
                    out.append(Found(m.group(i), start, end, "pattern", PATTERN))
        hits = self.voc.enum_hits(text, tool.tool_name, param.name)
        way = _direction(param.name)
        if way is not None:  # "from DAL1 to RNO1": a from_/to_ parameter takes the value its preposition marks
            hits = [h for h in hits if _direction_before(text, h.start) in (None, way)]
        if len({h.payload for h in hits}) > 1:  # several values named: the examples' context decides,
            # and a value said as not wanted ("an SUV, not an economy") comes last
            lefts = self.voc.enum_lefts.get((tool.tool_name, param.name), set())
            preferred = [h for h in hits if h.start > 0 and text[h.start - 1] in lefts]
            # (and one said as what something is to be comes first: "the member should be an officer")
            hits = sorted(hits, key=lambda h: (bool(_NEGATED_BEFORE.search(text[max(0, h.start - 12):h.start])),
                                               way is None and bool(_NOW_BEFORE.search(text[max(0, h.start - 16):h.start])),
                                               not _TO_BE_BEFORE.search(text[max(0, h.start - 16):h.start]),
                                               h not in preferred))
        for rank, h in enumerate(hits):
            out.append(Found(h.payload, h.start, h.end, "enum", ENUM - 0.01 * rank))
        if param.type == "boolean":
            said = self._boolean(text, param, tool.tool_name, _unmarking(tool, param.name))
            if said is not None:
                out.append(said)
        return out

    def _boolean(self, text: str, param: ParamSpec, tool: str, unmarking: str = "") -> Found | None:
        """A yes/no said in words: the parameter's own words (its description without 是否/whether),
        negated by a nearby 不/没/no/not/without — never the tool's own words ("cancel sub_1" says
        what to do, not at_period_end, whose description reads "true = cancel when the period ends"),
        nor words its examples say without setting it ("U1 销户" is no force=true, whose description
        reads 是否强制销户)."""
        core = _BOOL_STRIP.sub("", param.description or "").strip()
        keys = [k for k in tokens(core) if len(k) > 1] if core else []
        keys += [w for w in tokens(name_words(param.name)) if w not in ("is", "us", "has")]
        own = set(tokens(name_words(tool)))
        keys = [k for k in keys if k not in own and (k.isascii() or k not in unmarking)]
        lowered = text.lower()
        for key in sorted(set(keys), key=lambda k: (-len(k), k)):  # a fixed order: sets iterate by hash
            at = lowered.find(key) if not key.isascii() else _word_at(lowered, key)
            if at < 0:
                continue
            before, after = lowered[max(0, at - 3):at], lowered[at + len(key):at + len(key) + 3]
            words_before = re.findall(r"[a-z'/]+", lowered[max(0, at - 20):at])[-2:]
            negated = any(c in before or c in after for c in NEGATIONS_ZH) or \
                any(w in NEGATIONS_EN for w in words_before)
            return Found(not negated, at, at + len(key), "keyword", KEYWORD)
        return None

    def _from_contexts(self, text: str, spans: list[Span], slot: Slot, keys: list[tuple[str, str]]) -> list[Found]:
        """Free text where the examples put this value ("李娜" before "还剩"), never pack words."""
        if any(p.enum is not None or p.type == "boolean" for _, p in slot.params):
            return []
        digits = self._holds_digits(keys)
        shapes = [self.voc.shapes[k] for k in keys if k in self.voc.shapes]
        numeric = any("9" in s.signatures for s in shapes)
        person = any(takes_person(p.name, p.description) for _, p in slot.params)
        handles = bool(shapes) and all(s.only_handles for s in shapes)
        out: list[Found] = []
        for key in keys:
            for pattern in self.voc.contexts.get(key, []):
                for m in pattern.finditer(text):  # (the first match may be a pack word: "zoom licence from X")
                    raw, start, end = m.group(1), m.start(1), m.end(1)
                    if any(s.start <= start and end <= s.end and held_number(text, s) for s in spans):
                        continue  # "they have 5 seats": what there is, not the value
                    inside = next((s for s in spans if _strictly_inside(start, end, s)
                                   and (s.kind in ("email", "url", "id", "date", "amount", "quoted")
                                        or (s.kind == "number" and s.unit is not None and not numeric))), None)
                    # a piece of a typed value ("qa" of qa@corp.io, "Acme" of "Acme Labs"; 30 of "30%" where the
                    # examples' values are no numbers — "15230" of "15230 km" is the mileage they taught)
                    if inside is not None:
                        continue
                    whole = next((s for s in spans if _strictly_inside(start, end, s) and s.kind == "number"
                                  and s.unit is None and raw.isdigit()), None)
                    if whole is not None:  # "10" of "10,000": the number is the value
                        out.append(Found(whole.value, whole.start, whole.end, "example", CONTEXT))
                        break
                    held = next((s for s in spans if start <= s.start and s.end <= end and (s.start, s.end) != (start, end)
                                 and s.kind in ("email", "url", "id", "date", "month", "amount")), None)
                    if held is not None:  # "是2026-06-30" after 最后一天: the date is the value, not the words around it
                        out.append(Found(held.value, held.start, held.end, "example", CONTEXT))
                        break
                    if self.voc.is_own_word(raw) or (digits and not any(c.isdigit() for c in raw)):
                        continue
                    if _other_kind(raw, shapes):
                        continue  # "invoice INV-2024-0031" where the examples' invoices are in_1PqR8sK2
                    if handles and not HANDLE.fullmatch(raw):
                        continue  # "new joiner Kenji …": a name, where the examples' values are logins (bwright)
                    if person and _CJK_RUN.fullmatch(raw):
                        while len(raw) > 2 and raw[-1] in _AFTER_A_NAME_ZH:  # "刘洋要借调": 刘洋, who is to go
                            raw, end = raw[:-1], end - 1
                    if _CJK_RUN.fullmatch(raw) and (self._pack_word_edge(raw) or
                                                    (person and not looks_like_name(raw, said_as_name=True))):
                        continue  # "入职研发" is the pack's words, not a new hire's name
                    out.append(Found(raw, start, end, "example", CONTEXT))
                    break
        return out

    def _known_values(self, text: str, spans: list[Span], slot: Slot, keys: list[tuple[str, str]]) -> list[Found]:
        """A free-text value the pack itself gives for this parameter (an example's value, one its
        description lists), or one of the same make: "市场部" where the pack's departments are 技术部,
        数据部 and 研发部 — several in one request leave the choice to other evidence."""
        if not all(p.type == "string" and not is_typed(p) and not takes_person(p.name, p.description)
                   for _, p in slot.params):
            return []  # people's names are found as names
        known = frozenset().union(*(self.voc.known_values.get(k, frozenset()) for k in keys))
        # (a namesake's listed values, said as written: weaker evidence than the parameter's own)
        shared = frozenset().union(*(self.voc.shared_values.get(k, frozenset()) for k in keys)) - known
        found: set[tuple[int, int]] = set()
        if known:
            literal, made = _known_patterns(known)
            found = {(m.start(), m.end()) for m in literal.finditer(text)}
            if made is not None:
                found |= {(m.start(), m.end()) for m in made.finditer(text) if not self.voc.is_own_word(m.group(0)[:2])}
        found = {(a, b) for a, b in found if not any(sp.start < b and a < sp.end for sp in spans)}
        score = CONTEXT if len({text[a:b] for a, b in found}) == 1 else HINTED
        out = [Found(text[a:b], a, b, "known", score) for a, b in sorted(found)]
        if shared:
            out += [Found(m.group(0), m.start(), m.end(), "known", HINTED) for m in _known_patterns(shared)[0].finditer(text)
                    if not any(a < m.end() and m.start() < b for a, b in found)
                    and not any(sp.start < m.end() and m.start() < sp.end for sp in spans)]
        return out

    def _holds_digits(self, keys: list[tuple[str, str]]) -> bool:
        """Whether the examples' values for these (owner, name) keys hold digits (ids do; names do not)."""
        return any(self.voc.shapes.get(k) is not None and self.voc.shapes[k].digits for k in keys)

    def _labelled(self, text: str, spans: list[Span], slot: Slot) -> list[Found]:
        """A free-text code said right after the parameter's own name ("前缀 wanglei", "prefix
        wanglei", "tag: beta-2"): the request names what it is."""
        params = [p for _, p in slot.params]
        if not params or not all(p.type == "string" and p.enum is None and not is_typed(p)
                                 and not takes_person(p.name, p.description) for p in params):
            return []
        digits = self._holds_digits([(t.tool_name, p.name) for t, p in slot.params])
        out: list[Found] = []
        for m in _LABELLED.finditer(text):
            raw, start, end = m.group(1), m.start(1), m.end(1)
            # after an English label an English word is as likely the sentence going on ("member parked")
            plain = raw.isalpha() and not _CJK_RUN.fullmatch(text[start - 1:start].strip() or text[:start].rstrip()[-1:])
            if plain or (digits and not any(c.isdigit() for c in raw)) or self.voc.is_own_word(raw) \
                    or any(sp.start < end and start < sp.end for sp in spans) or not _named_before(text, start, params[0]):
                continue
            out.append(Found(raw, start, end, "named", CONTEXT))
        return out

    def _called(self, text: str, spans: list[Span], slot: Slot) -> list[Found]:
        """A thing's name said after 叫 / 名为 / called / named ("新建一门课 叫 操作系统", "a project called
        Apollo"), for a parameter that holds a thing's name (course_name, 名称; not a person's)."""
        params = [p for _, p in slot.params]
        # (a parameter whose own patterns missed the wording may still be named this way: "商家,名字叫 Samba Store")
        if not params or not all(p.type == "string" and p.enum is None and not {"pattern", "format"} & set(p.model_extra or {})
                                 and not takes_person(p.name, p.description)
                                 and _THING_NAME.search(f"{p.name} {p.description or ''}") for p in params):
            return []
        out: list[Found] = []
        for m in _CALLED.finditer(text):
            group = 1 if m.group(1) is not None else 2
            raw, start, end = m.group(group), m.start(group), m.end(group)
            if group == 2 and (cut := _NUMBERS_AFTER.search(raw)):
                raw = raw[:cut.start()]  # (a name ends before a number written apart: "叫 宝安二号仓 22.58,113.88")
                end = start + len(raw)
            if group == 2 and re.match(r" [\u4e00-\u9fff]", text[end:end + 2]):
                continue  # ("叫 沟通技巧 第二期": where the name ends, the request does not say)
            # (a numeral inside a Chinese name is part of it: 宝安二号仓, 5号楼东门)
            if not raw or self.voc.is_own_word(raw) or any(
                    sp.start < end and start < sp.end and sp.kind != "quoted"
                    and not (sp.kind == "number" and start < sp.start and sp.end < end and _CJK_RUN.fullmatch(raw))
                    for sp in spans) \
                    or (group == 2 and _CJK_RUN.search(raw) and _NOT_A_NAME_ZH.search(raw)):
                continue  # (叫王老师来上 tells someone to come; 叫什么你定 leaves the name open)
            out.append(Found(raw, start, end, "named", CONTEXT))
        return out

    def _prose(self, text: str, spans: list[Span], slot: Slot) -> list[Found]:
        """Free text for a parameter that holds prose (a subject, a reason, a note): what follows the
        request's last colon ("raise a p2 ticket for ws_1: webhooks delayed by 10 min"), and for a
        reason or a note, a last clause that asks for nothing ("扣五个积分，上课迟到")."""
        params = [p for _, p in slot.params]
        if not params or not all(p.type == "string" and p.enum is None and not is_typed(p)
                                 and not takes_person(p.name, p.description) and _PROSE.search(p.name) for p in params):
            return []
        out: list[Found] = []
        quoted = [sp for sp in spans if sp.kind == "quoted"]  # (原因写“医生停诊”: the quotation is the value)
        # the last colon that is not inside a value (https://host:8443, 10:30, an email)
        at = next((i for i in range(len(text) - 1, -1, -1) if text[i] in ":："
                   and not any(sp.start <= i < sp.end for sp in spans)
                   and not (text[i - 1:i].isdigit() and text[i + 1:i + 2].isdigit())), None)
        rest = text[at + 1:] if at is not None else ""
        begin = at + 1 + len(rest) - len(rest.lstrip()) if at is not None else 0
        said = rest.strip().rstrip(".。!！").rstrip()
        # (after what is asked: "raise a ticket for ws_1: …", not a heading like "prod: …")
        if at is not None and len(said) >= 3 and len(tokens(text[:at])) >= 3 \
                and not any(begin <= q.start < begin + len(said) for q in quoted):
            out.append(Found(said, begin, begin + len(said), "prose", HINTED))
        if all(_WHY.search(p.name) for p in params):
            clauses = [m for m in CLAUSE.finditer(text)]
            last = clauses[-1] if len(clauses) > 1 else None
            if last is not None and not (at is not None and at < last.start() + len(last.group(0))) \
                    and intent(last.group(0)) == 0 and not _ASKING.match(last.group(0)) \
                    and not _INSTRUCTION.search(last.group(0)) \
                    and not any(last.start() <= sp.start < last.end() for sp in spans) \
                    and len(last.group(0).strip()) >= 2 and not self.voc.is_own_word(last.group(0).strip()):
                raw = last.group(0)
                lead = len(raw) - len(raw.lstrip())
                out.append(Found(raw.strip(), last.start() + lead, last.start() + lead + len(raw.strip()), "prose", HINTED))
        return out

    def _could_be_value(self, raw: str, param: ParamSpec) -> bool:
        """Free text a pattern caught is still never the pack's own wording ("入职研发")."""
        raw = raw.strip()
        if not raw or self.voc.is_own_word(raw):
            return False
        if _CJK_RUN.fullmatch(raw):
            if self._pack_word_edge(raw):
                return False
            if takes_person(param.name, param.description) and not looks_like_name(raw, said_as_name=True):
                return False
        return True

    def _pack_word_edge(self, raw: str) -> bool:
        """A Chinese candidate that begins or ends with the pack's own two-character word."""
        return len(raw) > 2 and (self.voc.is_own_word(raw[:2]) or self.voc.is_own_word(raw[-2:]))

    def _person_names(self, text: str, spans: list[Span], slot: Slot, keys: list[tuple[str, str]]) -> list[Found]:
        if not any(p.type == "string" and p.enum is None and takes_person(p.name, p.description)
                   for _, p in slot.params):
            return []
        shapes = [self.voc.shapes[k] for k in keys if k in self.voc.shapes]
        out: list[Found] = []

        def found(name: str, start: int, end: int, labelled: bool, order: float = 0.0) -> Found:
            if labelled:  # "名字叫李明", "named Ann Lee", 联系人"王芳": said as the name, before free text around it
                return Found(name, start, end, "named", CONTEXT + 0.05)
            left = _left_word(text, start)
            bonus = LEFT_BONUS if left and any(_left_in(left, s.lefts) for s in shapes) else 0.0
            return Found(name, start, end, "name", NAME + bonus - order)

        for sp in spans:  # a name in quotes ("交接给“周敏”", 'to "Ann Lee"'): a name, as sure as one found in the text;
            # said right after the parameter's own word or a naming cue, this one's
            if sp.kind == "quoted" and isinstance(sp.value, str) and (looks_like_name(sp.value, said_as_name=True)
                                                                      or _EN_FULL_NAME.fullmatch(sp.value)):
                labelled = bool(_NAMING.search(text[max(0, sp.start - 8):sp.start])) or any(
                    takes_person(p.name, p.description) and _named_before(text, sp.start, p) for _, p in slot.params)
                out.append(found(sp.value, sp.start, sp.end, labelled))
        starts = frozenset(s.start for s in spans)
        for name, start, end in person_names(text, self.voc.is_own_word, starts):
            if not any(s.start < end and start < s.end for s in spans):
                out.append(found(name, start, end, bool(_NAMING.search(text[max(0, start - 8):start])),
                                 0.01 * len(out)))
        return out

    def _from_spans(self, text: str, spans: list[Span], slot: Slot, keys: list[tuple[str, str]]) -> list[Found]:
        """Typed spans whose kind the parameter (its schema, name, description or examples) expects."""
        out: list[Found] = []
        shapes = [self.voc.shapes[k] for k in keys if k in self.voc.shapes]
        implied = [_implied(p) for _, p in slot.params]
        counts = [c for s in spans if (c := _days_from_now(s)) is not None]
        whole = _dates_with_times(text, spans) if any(_takes_a_time(p) or _shown_with_time(t, p)
                                                      for t, p in slot.params) else []
        for span in [*spans, *counts, *whole]:
            if span.kind == "id" and _other_kind(span.text, shapes):
                continue  # another kind of id than the examples', however it is introduced ("invoice INV-…")
            if span.kind == "url" and "://" not in span.text and _left_word(text, span.start) in _REFERS_TO:
                continue  # "see docs.mailhub.io for the steps": where to read, not the value
            if held_number(text, span):
                continue  # "they have 5 seats": what there is now, not what to set
            best = max((self._affinity(span, p, shapes) for p in implied), default=0.0)
            set_to = span.kind in ("number", "amount") and any(
                _kind_fits(span, p) and _set_to(text, span.start, p) for _, p in slot.params)
            named = set_to or any(_kind_fits(span, p) and (_named_before(text, span.start, p) or (
                span.kind in ("number", "amount") and _named_after(text, span.end, p))) for _, p in slot.params) \
                or (span.kind == "number" and span.unit is None and _counted_as_taught(text, span.start, span.end, shapes))
            if best <= 0 and not named:
                continue
            left = _left_word(text, span.start)
            # (an amount a recipe carries over from an earlier step is the request's only when the request
            # says so in the step's own words — "pay 800 GBP" — not after a mere "for": "a paid claim … for
            # EUR 1,200" is the claim's amount, not the approval's over a default claim; "给E1…" still
            # names the employee a look-up would find)
            if left and any(_left_in(left, s.lefts) for s in shapes) and not (
                    slot.kind == "carried" and span.kind in ("amount", "number") and is_stopword(left)
                    and not _step_word_before(text[:span.start], slot)):
                best += LEFT_BONUS
            how = f"span:{span.kind}"
            if named:  # "quantity 0", "数量为2": said for this parameter (in quotes: its very words)
                best, how = max(best, CONTEXT + (0.05 if span.kind == "quoted" else 0.1 if set_to else 0.0)), "named"
            if span in whole:
                best += 0.05  # "tomorrow 3pm" says more of this value than "tomorrow" does
            out.append(Found(_as_fraction(span, implied), span.start, span.end, how, best))
        return out

    @staticmethod
    def _affinity(span: Span, param: ParamSpec, shapes: list[Any]) -> float:
        """How strongly a typed span's kind suits a parameter (0: not at all)."""
        if param.enum is not None or param.type == "boolean":
            return 0.0
        learned = any((span.kind, span.unit) in s.kinds or (span.kind == "amount" and any(k[0] == "amount"
                                                                                          for k in s.kinds))
                      for s in shapes)
        return _AFFINITY[span.kind](span, param, param.model_extra or {}, learned, shapes)


def _formatted(span: Span, param: ParamSpec, extra: dict[str, Any], learned: bool, shapes: list[Any]) -> float:
    fmt = extra.get("format")
    fits = {"email": fmt == "email", "url": fmt in ("uri", "url", "iri", "hostname", "idn-hostname"),
            "date": fmt in ("date", "date-time")}
    return SHAPED if learned else DECLARED if fits[span.kind] else 0.0


def _quoted(span: Span, param: ParamSpec, extra: dict[str, Any], learned: bool, shapes: list[Any]) -> float:
    return HINTED if param.type == "string" and not is_typed(param) else 0.0


def _amount(span: Span, param: ParamSpec, extra: dict[str, Any], learned: bool, shapes: list[Any]) -> float:
    if param.type not in ("number", "integer"):
        return 0.0
    words = f"{param.name} {param.description}".lower()
    return SHAPED if learned else HINTED if any(w in words for w in _MONEY_WORDS) else 0.0


def _number(span: Span, param: ParamSpec, extra: dict[str, Any], learned: bool, shapes: list[Any]) -> float:
    if param.type not in ("number", "integer") and not (param.type == "string" and span.unit is None):
        return 0.0
    if span.unit == "of" and not (isinstance(extra.get("minimum"), int | float) and extra["minimum"] >= 0):
        return 0.0  # "write off 3 of SKU-1" may be -3: only a count that cannot be negative is sure
    if learned and span.unit is not None:
        return SHAPED
    words = f"{param.name} {param.description}".lower()
    if span.unit and (any(_said_in(w, words) for w in (span.unit, *_unit_words(span.unit)))
                      or span.unit == _initials(param.name)):
        return HINTED  # "12000 rpm" for requests_per_minute
    if param.type == "string":
        return DECLARED if "pattern" in extra else 0.0
    return BARE if span.unit is None else 0.0  # "一笔" is not a discount


def _id(span: Span, param: ParamSpec, extra: dict[str, Any], learned: bool, shapes: list[Any]) -> float:
    if param.type != "string":
        return 0.0
    if "pattern" in extra:
        return DECLARED
    taught = [s for s in shapes if s.signatures]
    if any(signature(span.text) in s.signatures for s in taught):
        prefix = id_prefix(span.text)
        if prefix is not None and any(s.prefixes for s in taught) and not any(prefix in s.prefixes for s in taught):
            return 0.0  # shaped like them, but another kind of id (VH-30012 where the examples say BR-101)
        return SHAPED - 0.3  # shaped like the examples' ids, though nothing declares the shape
    if taught and id_prefix(span.text) is not None and any(s.prefixes for s in taught):
        return 0.0  # the examples' ids look otherwise (MB-1001): INV-2024-0031 is not one of them
    return LOOSE if re.search(r"(^|[_ ])(id|no|number|code|key|ref)$|编号|号$|id", param.name.lower()) else 0.0


def _typed_text(span: Span, param: ParamSpec, extra: dict[str, Any], learned: bool, shapes: list[Any]) -> float:
    """A month (2024-05) or a time (18:30): for a string parameter whose schema or examples say so."""
    if param.type != "string":
        return 0.0
    if learned or "pattern" in extra or extra.get("format") in ("time", "partial-time"):
        return SHAPED if learned else DECLARED
    word = "month|月" if span.kind == "month" else "time|时间|点"
    return HINTED if re.search(word, f"{param.name} {param.description}", re.I) else 0.0


_AFFINITY = {"email": _formatted, "url": _formatted, "date": _formatted, "quoted": _quoted, "amount": _amount,
             "number": _number, "id": _id, "month": _typed_text, "time": _typed_text}


_MONEY_WORDS = ("amount", "price", "cost", "fee", "total", "sum", "pay", "deposit", "budget", "salary", "premium",
                "金额", "价", "费", "款", "钱", "押金", "保额", "保费", "预算", "薪")
# The words a parameter's name or description uses for a unit, in either language ("30天" for
# expires_in_days, "2 days" for 请假天数). 月 and 年 only in English: 月薪 is no number of months.
_UNIT_WORDS: dict[str, tuple[str, ...]] = {
    "kg": ("weight",), "kgs": ("weight",), "kilos": ("weight",),
    "days": ("day", "天"), "day": ("day", "天"), "天": ("天", "day"), "日": ("day",),
    "units": ("quantity",), "pcs": ("quantity",), "x": ("quantity",), "of": ("quantity",),
    "件": ("数量", "quantity"), "盒": ("数量", "quantity"), "个": ("数量", "quantity"),
    "hours": ("hour", "小时"), "hour": ("hour", "小时"), "h": ("hour", "小时"), "小时": ("小时", "hour"),
    "weeks": ("week", "周"), "week": ("week", "周"), "周": ("周", "week"),
    "months": ("month",), "month": ("month",), "月": ("month",), "years": ("year",), "year": ("year",), "年": ("year",),
    "%": ("percent", "比例", "ratio", "rate"), "percent": ("percent", "%", "比例", "ratio", "rate"),
    "pct": ("percent", "%", "比例", "ratio", "rate")}


_IN_DAYS = re.compile(r"(?i)in\s+(\d+|a|one|two|three|four|five|six|seven)\s+(day|week)s?|"
                      r"(\d+|[一二两三四五六七八九十]+)\s*(天|周)(?:后|之后|以后)")


def _days_from_now(span: Span) -> Span | None:
    """"in 60 days", "30天后": a date that is also how many days from now (for expires_in_days)."""
    m = _IN_DAYS.fullmatch(span.text) if span.kind == "date" else None
    if m is None:
        return None
    n, unit = (m[1], m[2]) if m[1] else (m[3], m[4])
    count = int(n) if n.isdigit() else cn_number(n) if not n.isascii() else EN_NUMBER_WORDS[n.lower()]
    if count is None:
        return None
    return Span(span.start, span.end, span.text, "number", count * (7 if unit in ("week", "周") else 1), "days")


_CLOCK = re.compile(r"\d{1,2}:\d{2}|hh:mm|date-?time", re.I)
_DATE_AND_CLOCK = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
_BETWEEN_DATE_AND_TIME = re.compile(r"\s*(?:at|@|,|，)?\s*(?:上午|下午|晚上|早上|中午)?\s*", re.I)


def _takes_a_time(param: ParamSpec) -> bool:
    """A string parameter that holds a date with its time: its format says so, or its description
    shows a date and a clock ("面试时间,如 2026-05-20 15:00", "YYYY-MM-DD HH:MM")."""
    extra, words = param.model_extra or {}, param.description or ""
    return param.type == "string" and (extra.get("format") == "date-time" or bool(
        _CLOCK.search(words) and re.search(r"\d{4}-\d{2}-\d{2}|yyyy-mm-dd", words, re.I)))


def _shown_with_time(tool: ToolSpec, param: ParamSpec) -> bool:
    """The tool's examples give this parameter a date with its time ("2026-03-02T09:00:00Z")."""
    return any(_DATE_AND_CLOCK.match(str(e.extracted_params.get(param.name, ""))) for e in tool.examples)


def _dates_with_times(text: str, spans: list[Span]) -> list[Span]:
    """A date and the time right after it ("tomorrow 3pm", "明天 15:00", "2024-06-26 10:30") as one value;
    an ISO date-time ("2026-04-15T14:30:00Z") as written."""
    out = [Span(d.start, d.end, d.text, "date", d.text, None) for d in spans if d.kind == "date"
           and _DATE_AND_CLOCK.match(d.text)]
    for d, t in zip(spans, spans[1:], strict=False):
        if d.kind == "date" and t.kind == "time" and _BETWEEN_DATE_AND_TIME.fullmatch(text[d.end:t.start]):
            out.append(Span(d.start, t.end, text[d.start:t.end], "date", f"{d.value} {t.value}", None))
    return out


def _other_kind(value: str, shapes: list[Any]) -> bool:
    """An id unlike every example's in both its letters and its outline (INV-2024-0031 where they are
    in_1PqR8sK2); a plate KX21 where the example's is LD70 XRT differs in its letters only."""
    lead = id_prefix(value)
    prefixes = frozenset().union(*(s.prefixes for s in shapes))
    shape = signature(value)  # (of a value of several words, "LD70 XRT", its first word's)
    return lead is not None and bool(prefixes) and lead not in prefixes and \
        not any(shape in (sig, sig.split(" ")[0]) for s in shapes for sig in s.signatures)


def _as_fraction(span: Span, params: list[ParamSpec]) -> Any:
    """"12%" for a parameter that takes a fraction (its range refuses 12 and takes 0.12) is 0.12."""
    if span.unit not in ("%", "percent", "pct") or not isinstance(span.value, int | float):
        return span.value
    fraction = round(span.value / 100, 10)
    if any(validate(span.value, p) is MISSING for p in params) and \
            all(validate(fraction, p) is not MISSING for p in params):
        return fraction
    return span.value


def _initials(name: str) -> str:
    words = name_words(name).lower().split()
    return "".join(w[0] for w in words) if len(words) > 1 else ""


def _said_in(word: str, words: str) -> bool:
    """A unit word in a parameter's name and description: an English one whole ("h" is in "how", no
    hour), a Chinese one anywhere."""
    if not word.isascii():
        return word in words
    return re.search(rf"(?<![a-z]){re.escape(word)}(?:s|es)?(?![a-z])", words.replace("_", " ")) is not None


def _unit_words(unit: str) -> tuple[str, ...]:
    return _UNIT_WORDS.get(unit, (unit,))


def _word_at(text: str, word: str) -> int:
    m = re.search(rf"(?<![a-z]){re.escape(word)}", text)
    return m.start() if m else -1


_RANGE_GAP = re.compile(r"\s*(?:到|至|~|～|-|—|–|until|till|to|through|thru)\s*", re.I)
_DAYS = re.compile(r"^(?:num_|number_of_|total_|leave_)?days?$|^duration(?:_days)?$|天数", re.I)  # the parameter's name
_WORKING = re.compile(r"working|business day|工作日", re.I)
_MOVE = re.compile(r"\b(?:move|moving|moved|reschedul\w*|postpone\w*|push(?:ed)? back|shift\w*)\b|改到|改成|推迟|挪到|调到|延期|换到", re.I)
_NUMBER_LEADS = frozenset("to at of by is be about around up down from than x".split()) | frozenset("到成为至给按是加减涨降扣补:：=")
_BEFORE_VALUE = "在到给填是为从去入转至往和与及"  # "转到市场部", "部门填研发部": a value follows


_OPENING, _CLOSING = "「“\"《『‘'", "」”\"》』’'"


def _quoted_at(text: str, start: int, end: int) -> bool:
    """The value is the whole of a quotation: 「…」, "…", 《…》."""
    return 0 < start and end < len(text) and text[start - 1] in _OPENING and text[end] in _CLOSING


@lru_cache(maxsize=1024)
def _known_patterns(known: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """The pack's own values for a parameter, as one pattern (ASCII ones as whole words), and — when
    they are Chinese words ending alike (技术部, 数据部) — one for words of the same make, said where a
    value starts."""
    literal = re.compile("|".join(re.escape(v) if not v.isascii() else rf"(?<![A-Za-z0-9_]){re.escape(v)}(?![A-Za-z0-9_])"
                                  for v in sorted(known, key=lambda v: (-len(v), v))))
    cjk = [v for v in known if _CJK_RUN.fullmatch(v)]
    suffixes = {v[-1] for v in cjk}
    if len(cjk) < 2 or len(suffixes) != 1 or is_stopword(suffix := suffixes.pop()):
        return literal, None
    heads = "|".join(rf"[\u4e00-\u9fff]{{{n - 1}}}" for n in sorted({len(v) for v in cjk}, reverse=True))
    return literal, re.compile(rf"(?:^|(?<=[\s,，。:：;；、{_BEFORE_VALUE}]))(?:{heads}){re.escape(suffix)}")
_NOT_A_NAME_ZH = re.compile(r"[你我他她它们来去让什么谁哪啥]|老师|同学")
_THING_NAME = re.compile(r"(?i)(?:^|_)(?:name|title)\b|名称|名字|标题")
_CALLED = re.compile(r"(?:叫做|名叫|名为|叫|\b[Cc]alled|\b[Nn]amed|\b[Tt]itled)\s*[:：]?\s*"
                     r"(?:[\"'“「]([^\"'”」]{1,40})[\"'”」]|([^\s,，。;；、!！?？\"'“”「」]{1,24}(?:[ ][A-Z0-9][^\s,，。;；、!！?？\"'“”「」]*){0,3}))")
_NAMING = re.compile(r"(?:名字?叫|名为|叫做|姓名[是为:：]?|\bnamed|\bcalled)\s*$", re.I)
_EN_FULL_NAME = re.compile(r"[A-Z][a-z'’-]+(?: [A-Z][a-z'’-]+){1,2}")
_CONNECTOR = re.compile(r"(?:\s|[:：=]|\bis\b|\bof\b|\bat\b|\bto\b|\bas\b|为|是|设为|改为|等于|写成|写|填写|填|注明|要|用|选)*$", re.I)


# A parameter that holds prose, by its name: a subject or summary, a reason, a note or comment.
_PROSE = re.compile(r"(?i)(?:^|_)(?:subject|summary|description|desc|reason|note|notes|comment|comments|message|"
                    r"remark|remarks|memo|details?)$")
_WHY = re.compile(r"(?i)(?:^|_)(?:reason|note|notes|comment|comments|remark|remarks|memo)$")
_ASKING = re.compile(r"(?i)\s*(?:帮|请|麻烦|劳驾|顺便|再|然后|并且|另外|and\b|also\b|then\b|please\b|pls\b|plz\b|"
                     r"can you\b|could you\b|make sure\b)")  # a clause that asks for something is no reason
_LABELLED = re.compile(r"(?<=[\s:：=\u3400-\u9fff])([A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9])(?![A-Za-z0-9_@])")


# Everyday English abbreviations of a parameter's word ("qty 9" for counted_quantity)
_ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "quantity": ("qty",), "amount": ("amt",), "department": ("dept",), "description": ("desc",),
    "reference": ("ref",), "percentage": ("pct",), "maximum": ("max",), "minimum": ("min",)}


@lru_cache(maxsize=8192)
def _param_names(name: str, description: str) -> tuple[str, ...]:
    """The words that name a parameter: its name, and the noun its description starts with
    ("购买数量" -> 购买数量 and 数量)."""
    names = {name_words(name).lower(), name.lower()}
    names |= {w for w in name_words(name).lower().split() if len(w) >= 4}
    names |= {a for w in name_words(name).lower().split() for a in _ABBREVIATIONS.get(w, ())}  # "qty 9"
    head = re.match(r"[\u3400-\u9fff]{2,6}", without_examples(description).strip())
    if head:
        names |= {head.group(0), head.group(0)[-2:]}
    return tuple(n for n in names if n)


def takes_a_date(slots: Iterable[Slot]) -> bool:
    """Whether any of these slots could hold a date (a date-like name or description, or format date)."""
    probe = Span(0, 0, "", "date", "")
    return any(_kind_fits(probe, param) or "date" in str((_implied(param).model_extra or {}).get("format", ""))
               for slot in slots for _, param in slot.params)


def _kind_fits(span: Span, param: ParamSpec) -> bool:
    """Whether a value of this kind can be meant for this parameter at all (a date is not a name)."""
    if span.kind in ("number", "amount"):
        return param.type in ("integer", "number") or (param.type == "string" and span.kind == "number")
    if span.kind == "quoted":  # '原因写"主板烧毁"': a quotation for a free-text parameter
        return param.type == "string" and param.enum is None and not is_typed(param)
    if span.kind == "date":
        return param.type == "string" and bool(re.search(r"date|day|time|日期|时间|日", f"{param.name} {param.description}"))
    # an id is never a date, an email or a URL ("surrender PL2024000135": not the surrender_date)
    return span.kind == "id" and param.type == "string" and "format" not in (_implied(param).model_extra or {})


_TO_BE_BEFORE = re.compile(r"(?:\b(?:be|become|as|into|to|wants?|needs?|wanna)(?:\s+(?:a|an|the|it|them))?|->|→|设为|设成|改为|改成|变成|换成|升到|降到|调到|改到|转为|转成|升级到|降级到|升级为|降级为)\s*$", re.I)
# what something is now or was, said before what it is to be ("acct_1 is on free, upgrade it to pro",
# "CU-1 was gold; make it platinum", "从试用转正式"); not a bare "is" ("the target tier is platinum"),
# "is now" ("is now platinum, was gold": what it became) nor 还是 (还是企业版吧: "rather")
_NOW_BEFORE = re.compile(r"(?:(?:\b(?:is|are|was|were)|'s|'re)\s+(?:now\s+)?(?:currently|still|on|at|in)(?:\s+(?:on|at|in))?"
                         r"|\b(?:was|were|used\s+to\s+be)|\b(?:currently|still|from)(?:\s+(?:on|at|in))?)(?:\s+(?:a|an|the))?\s*$"
                         r"|(?:从|由|现在是|目前是|原来是|之前是)\s*$", re.I)
_NEGATED_BEFORE = re.compile(r"(?:\b(?:not|no|non|\w+n['’]t|instead\s+of|rather\s+than)(?:\s+(?:for|because\s+of|due\s+to|about))?"
                             r"(?:\s+(?:a|an|the))?|不是|不要|非|别)\s*$", re.I)
_FROM_NAMES = frozenset("from source src origin old".split())
_TO_NAMES = frozenset("to target dest destination new".split())
_FROM_WORDS = frozenset(["from", "从", "由", "自"])
_TO_WORDS = frozenset(["to", "into", "onto", "到", "至", "往", "去"])
# the last direction word (an English one whole), then at most two words (the Dallas) before the value
_DIRECTION = re.compile(r"(?:\b({})|({}))(?:\s*(?:the|a|an|our|their)?\s*)(?:[A-Za-z]+\s+)?$".format(
    "|".join(sorted(w for w in _FROM_WORDS | _TO_WORDS if w.isascii())),
    "|".join(sorted(w for w in _FROM_WORDS | _TO_WORDS if not w.isascii()))),
    re.I)


def _step_word_before(before: str, slot: Slot) -> bool:
    """The word before the preposition ahead of a value is a word of the slot's own step: "approved
    for $2,500" is the approval's amount."""
    words = re.findall(r"[A-Za-z]+", before)[-2:]
    return len(words) == 2 and any(stem(words[0].lower()) in name_stems(tool.tool_name) for tool, _ in slot.params)


def _direction(name: str) -> str | None:
    """A parameter named for one end of a move (from_warehouse, target_dept): "from", "to" or None."""
    words = set(name_words(name).lower().split())
    return "from" if words & _FROM_NAMES else "to" if words & _TO_NAMES else None


def _direction_before(text: str, start: int) -> str | None:
    """The direction the words just before a value give it: "from the Dallas DC" -> from, "调到" -> to."""
    m = _DIRECTION.search(text[max(0, start - 16):start])
    return None if m is None else "from" if (m.group(1) or m.group(2)).lower() in _FROM_WORDS else "to"


def _named_before(text: str, start: int, param: ParamSpec) -> bool:
    """Whether the words right before a value name this parameter ("quantity 0", "数量为2")."""
    window = _window_before(text[max(0, start - 24):start])
    return bool(window) and window.endswith(_param_names(param.name, param.description or ""))


def _set_to(text: str, start: int, param: ParamSpec) -> bool:
    """"set the contact limit of ws_1 to 50000", "把月薪改成22000": the parameter named earlier in the
    clause, and the number the value it is set to (a seat limit beside it is not named there)."""
    before = text[max(0, start - 64):start]
    before = before[max(before.rfind(c) for c in ",;，；。\n") + 1:]
    to = _SET_TO.search(before)
    if to is None:
        return False
    said = before[:to.start()].lower()
    whole = {name_words(param.name).lower(), param.name.lower()}  # its whole name: "limit" names no seat limit
    return any((n in said if not n.isascii() else re.search(rf"\b{re.escape(n)}\b", said) is not None)
               for n in _param_names(param.name, param.description or "") if n in whole or not n.isascii())


_SET_TO = re.compile(r"(?:\bto|=|为|改成|改为|调到|调成|调为|设为|设成|设置为)\s*$", re.I)


def _named_after(text: str, end: int, param: ParamSpec) -> bool:
    """Whether the words right after a number name this parameter ("250,000 sum insured", "10 extra
    days"): English puts a quantity's name after it. (Not a word further: "has 12 active seats, add 3
    more" — the 12 is what there is, the 3 the value.)"""
    after = text[end:end + 32].lstrip().lower()
    return any(re.match(re.escape(n) + r"(?![a-z])", after) for n in _param_names(param.name, param.description or "")
               if n.isascii() and (" " in n or len(n) >= 4))


@lru_cache(maxsize=8192)
def _window_before(window: str) -> str:
    """The words before a value without connectors (asked once per value, not per parameter)."""
    return _CONNECTOR.sub("", window).lower()


def _counted_as_taught(text: str, start: int, end: int, shapes: list[Any]) -> bool:
    """A number followed by the word the examples put after this parameter's number ("250 contacts"
    where an example says "load 500 contacts"), the quantity ending there: said for it. Not a number
    someone has ("P1 has 2400 event points, check it"), nor one the word goes on from ("3 contacts
    bounced", "5 contacts per batch", "200 contacts ago")."""
    m = RIGHT_WORD.match(text[end:end + 24])
    if not m or not any(m.group(1).lower() in s.rights for s in shapes):
        return False
    if (_left_word(text, start) or "") in HAVING:
        return False
    if not m.group(1).isascii():
        return True
    said = m.end()
    two = NEXT_WORD.match(text[end + said:end + said + 24])
    if two and any(f"{m.group(1)} {two.group(1)}".lower() in s.rights for s in shapes):
        said += two.end()  # the examples' two words ("2400 event points on EVT-1")
    return bool(_QUANTITY_ENDS.match(text[end + said:end + said + 16]))


_WORD_AT = re.compile(r"(?<![\w@./-])[A-Za-z][A-Za-z0-9._'-]*(?<![.'-])(?![\w@/])")
_HANDED_TO = frozenset({"to", "by", "cc"})
# How English words begin (two consonants): a login made of an initial and a surname (mchen, jdoe, bwright)
# begins otherwise — "everyone", "whoever", "spotify", "review" are words, not logins
_ONSETS = frozenset("bl br ch cl cr dr dw fl fr gh gl gn gr kl kn kr ph pl pn pr ps qu rh sc sh sk sl sm sn sp sq st "
                    "sw th tr tw wh wr".split())


def looks_like_login(word: str) -> bool:
    """A lowercase token shaped like a login rather than an English word: it holds a digit, a dot, an
    underscore or a dash (j.doe, sd-l2), or begins with two consonants no English word begins with."""
    if any(c.isdigit() or c in "._-" for c in word):
        return True
    head = word[:2].lower()
    return len(head) == 2 and not any(c in "aeiouy" for c in head) and head not in _ONSETS


_ARTICLES = frozenset({"the", "a", "an", "this", "that", "these", "those", "my", "our", "their", "his", "her", "your"})
# English endings that make a dictionary word, not a login ("compromised", "happily", "months")
_INFLECTED = re.compile(r"(?:ed|ing|ly|tion|sion|ment|ness|able|ible|ful|less|ous|ive)$")
_REFERS_TO = frozenset({"see", "at", "per", "via", "visit", "check", "from", "read"})


def held_number(text: str, span: Span) -> bool:
    """A bare number someone has ("they have 5 seats", "it currently has 12"): the state told as
    context, never a value to set — unless it is what they have *to* do or get ("have 3 more to add")."""
    return span.kind == "number" and (_left_word(text, span.start) or "") in HAVING \
        and not _STILL_TO.match(text, span.end, span.end + 32)


_STILL_TO = re.compile(r"\s*(?:[a-z]+\s+){0,2}(?:more|left|to|remaining)\b", re.I)
# what may follow "250 contacts" for the quantity to end there: the end, a break, or a word that goes on
# to something else ("into lst_1", "is enough", "please")
_QUANTITY_ENDS = re.compile(r"\s*(?:$|[,.;!?，。；！？)]|(?:into|in|to|on|for|and|is|are|should|please|pls|"
                            r"then|each|total|max|at)\b)", re.I)


def _left_in(left: str, lefts: set[str]) -> bool:
    """The word before a value is one the examples put there: in Chinese, also when one of the two
    ends with the other ("帮我给E1" and an example's "给E2": 1–2 characters are read, so "我给" and "给")."""
    return left in lefts or (not left.isascii() and any(
        not w.isascii() and (left.endswith(w) or w.endswith(left)) for w in lefts))


def _left_word(text: str, start: int) -> str | None:
    # a bounded window: a $-anchored search over the whole prefix is quadratic in long requests
    m = re.search(r"([A-Za-z]+|[\u3400-\u9fff]{1,2})[\s:：=#]*$", text[max(0, start - 48):start])
    return m.group(1).lower() if m else None
