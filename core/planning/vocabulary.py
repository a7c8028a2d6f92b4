"""The request vocabulary a pack teaches, compiled once per Knowledge.

Environments by name/alias, target states by `reaches_state`, trigger phrases, parameter values
by `patterns`, enum values and `synonyms` (longest match wins), what the `examples` show about
each parameter's values (their shape, unit and the words before them), and every candidate's own
words (for how much of a request it explains).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from core.knowledge import Knowledge
from core.models import Example, ParamSpec, RuleSpec, StepId, ToolSpec
from core.pack_regex import MATCH_BUDGET_S, compile_pattern
from core.planning.lexicon import (
    READ_CUES,
    REFUSALS,
    WRITE_CUES,
    Lexicon,
    is_stopword,
    name_words,
    stem,
    tokens,
)
from core.planning.names import person_names
from core.planning.spans import Span, find_spans
from core.planning.text import (
    PhraseHit,
    find_phrases,
    gapped_pattern,
    phrase_pattern,
    separable_pattern,
    shingles,
    similarity,
)
from core.planning.typed import pattern_shapes

Phrases = list[tuple[re.Pattern[str], str, Any]]
_CJK = r"[\u3400-\u9fff]"
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
# Examples are read with a fixed "today": only the shape of their values matters here.
_EXAMPLE_DAY = date(2024, 1, 1)
# the word after a number: not "SKU" of SKU-1 (another value); in Chinese the next one or two characters
RIGHT_WORD = re.compile(r"\s*([A-Za-z]{3,}(?![\w-])|[\u3400-\u9fff]{1,2})")
NEXT_WORD = re.compile(r" ([A-Za-z]{3,})(?![\w-])")  # the English word after that one ("2400 event points")
_LEFT_WORD = re.compile(r"([A-Za-z]+|[\u3400-\u9fff]{1,2})[\s:：=#]*$")


def candidate_key(kind: str, name: str) -> str:
    return f"{kind}:{name}"


@dataclass
class Shape:
    """What a parameter's example values look like: span kinds with units, words before them."""

    kinds: set[tuple[str, str | None]] = field(default_factory=set)
    signatures: set[str] = field(default_factory=set)  # "O100000001" -> "A9": letters, digits, separators
    lefts: set[str] = field(default_factory=set)
    rights: set[str] = field(default_factory=set)  # the word right after a number ("500 contacts")
    digits: bool | None = None  # whether the example values hold digits (ids do; names do not)
    digit_lengths: set[int] = field(default_factory=set)  # lengths of the example values that are bare digits
    prefixes: set[str] = field(default_factory=set)  # the letters ids start with ("MB" of MB-1001), upper-cased
    # lengths of example values that are handles (a lowercase token: jdoe, bwright), and whether all are
    handles: set[int] = field(default_factory=set)
    only_handles: bool | None = None
    handle_words: set[str] = field(default_factory=set)  # those values (the pack knows them as words)

    def learn(self, example: Example, name: str) -> None:
        raw = example.extracted_params.get(name)
        if raw is None or isinstance(raw, bool | dict | list):
            return
        value, query = str(raw), example.user_query
        has_digit = any(c.isdigit() for c in value)
        self.digits = has_digit if self.digits is None else (self.digits or has_digit)
        self.signatures.add(signature(value))
        if value.isdigit():
            self.digit_lengths.add(len(value))
        if (lead := id_prefix(value)) is not None:
            self.prefixes.add(lead)
        handle = HANDLE.fullmatch(value) is not None
        self.only_handles = handle if self.only_handles is None else (self.only_handles and handle)
        if handle:
            self.handles.add(len(value))
            self.handle_words.add(value)
        spans = find_spans(query, _EXAMPLE_DAY)
        pos = query.find(value)
        for span in spans:
            if span.value == raw or span.text == value or (pos >= 0 and span.start <= pos < span.end):
                self.kinds.add((span.kind, span.unit))
                pos = span.start
                break
        if pos > 0:
            m = _LEFT_WORD.search(query[:pos])
            if m:
                self.lefts.add(m.group(1).lower())
        at_number = re.search(rf"(?<![A-Za-z0-9_.-]){re.escape(value)}(?![A-Za-z0-9_.])", query) if isinstance(raw, int | float) else None
        if at_number is not None:  # (the number on its own, not digits inside an id)
            m = RIGHT_WORD.match(query, at_number.end())
            if m:
                self.rights.add(m.group(1).lower())
                if m.group(1).isascii() and (two := NEXT_WORD.match(query, m.end())):
                    self.rights.add(f"{m.group(1)} {two.group(1)}".lower())  # "2400 event points"


def _captures(pattern: Any, run: str) -> bool:
    try:
        return bool(pattern.fullmatch(run, timeout=MATCH_BUDGET_S))
    except TimeoutError:
        return True  # a pattern too slow to tell: the run may be its id


def id_prefix(value: str) -> str | None:
    """The letters an id starts with ("MB" of MB-1001, "INV" of INV-2024-7), upper-cased; None for
    a value that is not such an id."""
    m = re.match(r"([A-Za-z]+)[-_]?\d", value)
    return m.group(1).upper() if m and any(c.isdigit() for c in value) else None


# A handle: a login-style lowercase token (jdoe, bwright, m.chen) — a value no dictionary holds
HANDLE = re.compile(r"[a-z][a-z0-9._-]{2,23}")


def signature(value: str) -> str:
    """The shape of an id: runs of letters become A, of digits 9, separators stay ("SHP-2024-00017" -> "A-9-9");
    a random mix of letters and digits is X whatever its order ("in_3KdP0w9Z" and "in_1PqR8sK2" -> "A_X")."""
    return _MIXED.sub("X", re.sub(r"\d+", "9", re.sub(r"[A-Za-z]+", "A", value)))


_MIXED = re.compile(r"(?<![A9])[A9]*(?:A9A|9A9)[A9]*")  # a run that turns between letters and digits twice or more


def shape_fits(value: str, shape: Shape) -> bool:
    """Whether a bare value looks like the examples' values for a parameter (digits where they had
    digits, the same letters-and-digits outline for ids)."""
    if shape.digits and not any(c.isdigit() for c in value):
        return False
    if shape.digits and any(c.isdigit() for c in value):
        return signature(value) in shape.signatures or not any(c.isalpha() for c in value)
    return True


# (not "that has been retired": a state to reach)
_HISTORY = re.compile(r"(?i)\b(?:was|were)\s+(?:\w+ly\s+)?([a-z][\w-]*)")


def without_history(text: str) -> str:
    """The text with the word said as what already happened masked ("it was archived"): no state."""
    return _HISTORY.sub(lambda m: m.group(0)[:m.start(1) - m.start()] + " " * len(m.group(1)), text)


# What may stand between two numbers an example writes as one pair ("22.54,113.93", "1920x1080", "3/5")
PAIR_SEPARATORS = ",，/xX×*~～"
PAIR_GAP = re.compile(rf"\s*([{re.escape(PAIR_SEPARATORS)}])\s*")


def number_pairs(example: Example) -> set[tuple[str, str, str]]:
    """Two numeric values an example writes side by side with only a separator between them
    ("22.5431,113.9347" for lat then lng): (first name, separator, second name). A request that
    writes two numbers the same way gives them in the same order."""
    at: list[tuple[int, int, str]] = []
    for name, raw in example.extracted_params.items():
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            continue
        for m in re.finditer(r"(?<![\d.])" + re.escape(str(raw)) + r"(?![\d.])", example.user_query):
            at.append((m.start(), m.end(), name))
    at.sort()
    out: set[tuple[str, str, str]] = set()
    query = example.user_query
    for (a, end, first), (start, b, second) in zip(at, at[1:], strict=False):
        if first != second and (gap := PAIR_GAP.fullmatch(query[end:start])):
            if joins_a_pair(gap[1], query[a:end], query[start:b]):
                out.add((first, gap[1].replace("，", ","), second))
    return out


def joins_a_pair(separator: str, first: str, second: str) -> bool:
    """Whether two numbers with this separator between them are a pair (in an example and in a request
    alike). A comma between whole numbers is how lists, times and thousands are written — "25, 300",
    "7,30 pm", "tables 4,6 and 8", "1,200": only two decimals joined by one are a pair, "22.54,113.93"."""
    return separator not in ",，" or ("." in first and "." in second)


# How Chinese says what a labelled value is (to be): 岗位是会计, 岗位改成出纳, 部门为财务部
_SAID_AS_ZH_WORDS = r"\s*(?:改成|改为|换成|设为|设成|调为|是|为|[:：=])"
_SAID_AS_ZH = re.compile(r"([\u3400-\u9fff]{2})" + _SAID_AS_ZH_WORDS + r"\s*$")


def context_patterns(example: Example, name: str) -> list[re.Pattern[str]]:
    """Regexes learnt from where an example's value for `name` sits in its query: they find
    candidates for free-text values (names, reasons); every candidate is still validated."""
    raw = example.extracted_params.get(name)
    if raw is None or isinstance(raw, bool | dict | list):
        return []
    value, query = str(raw), example.user_query
    # where the value stands as a token of its own: the 2 of "第2期", not the one inside P2024001
    alone = re.search(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])", query) \
        if re.fullmatch(r"[A-Za-z0-9]+", value) else None
    pos = alone.start() if alone else query.find(value)
    if pos < 0:
        return []
    klass, lazy = _value_class(value)
    left = query[max(0, pos - 3):pos].lstrip()
    right = query[pos + len(value):pos + len(value) + 2].rstrip()
    left = re.sub(r"^.*\d", "", left)  # digits next to the value would make the context match the value
    right = re.sub(r"\d.*$", "", right)
    at_end = pos + len(value) == len(query.rstrip())
    stop = r"\s*" + re.escape(right) if right else r"(?=$|[,，。;；!！?？\s])" if at_end else None
    out: list[re.Pattern[str]] = []
    if len(left) >= 2 and not lazy:
        out.append(re.compile(re.escape(left) + r"\s*(" + klass + ")", re.IGNORECASE))
    if left and stop:
        out.append(re.compile(re.escape(left) + r"\s*(" + klass + ")" + stop, re.IGNORECASE))
    if len(right) >= 2 and pos == 0:
        out.append(re.compile(r"^(" + klass + r")\s*" + re.escape(right), re.IGNORECASE))
    said = _SAID_AS_ZH.search(query[max(0, pos - 6):pos])
    if said and stop and _CJK_RUN.fullmatch(said[1]):
        # "岗位改成出纳": the label before the value, with any way of saying "is to be" ("岗位是会计")
        # (not what it was or is now: "原来岗位是研发工程师", "现在岗位是…")
        out.append(re.compile(r"(?<![原来前在])" + re.escape(said[1]) + _SAID_AS_ZH_WORDS + r"\s*(" + klass + ")" + stop,
                              re.IGNORECASE))
    if not lazy and left and right and _CJK_RUN.fullmatch(left[-1]) and _CJK_RUN.fullmatch(right[0]):
        # a number or code between two characters ("第2期", "共3人"): those two frame it anywhere
        out.append(re.compile(re.escape(left[-1]) + r"\s*(" + klass + r")\s*" + re.escape(right[0])))
    return out


_LISTED = re.compile(r"(?:(?:例如|比如|如)(?![果何下说今同此])|\be\.g\.|\beg\.|\bsuch as\b)\s*[:：]?\s*([^。;；()（）]+)",
                     re.I)


def listed_values(description: str) -> frozenset[str]:
    """Values a description lists as examples: "如 技术部、数据部、市场部", "e.g. pro, scale"."""
    m = _LISTED.search(description or "")
    if not m:
        return frozenset()
    items = (v.strip(" '\"“”") for v in re.split(r"[、,，/]|\s+or\s+|或", m.group(1)))
    return frozenset(v for v in items if 1 < len(v) <= 20 and " " not in v.strip())


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
    if re.fullmatch(r"[A-Z][a-z'’-]+(?: [A-Z][a-z'’-]+)+", value):  # "Jordan Ellis": as many capitalised words
        word = r"[A-Z][^\W\d_]*(?:['’-][^\W\d_]+)*"  # (José Núñez, Seán O'Brien)
        return rf"(?-i:{word}(?: {word}){{{value.count(' ')}}})(?![^\W\d_])", False
    return r"[^,，。;；\s]+?", True


def _word_forms(word: str) -> list[re.Pattern[str]]:
    """A value written as an identifier is also said as words ("bank_transfer" as "bank transfer"), an
    English noun in the plural ("list the vans" for van, "SUVs"), and a phrase's last verb inflected."""
    parts = re.split(r"[_\s-]+", word)
    if not all(re.fullmatch(r"[A-Za-z]+", w) for w in parts):
        return []
    said = r"[\s_-]+".join(map(re.escape, parts))
    forms = [said] if len(parts) > 1 and re.search(r"[_-]", word) else []
    if len(parts[-1]) >= 3 and not parts[-1].lower().endswith("s") and not is_stopword(parts[-1]) \
            and stem(parts[-1].lower()) not in WRITE_CUES | READ_CUES | REFUSALS:  # (not "approves", "rejects")
        forms.append(said + "(?:s|es)")
    if " " in word.strip() and len(parts[-1]) >= 3 and re.fullmatch(r"[a-z]+", parts[-1]):
        # a phrase of several words with its last verb inflected: "double charged" is "double charge"
        last = parts[-1][:-1] if parts[-1].endswith("e") else parts[-1]
        forms.append(r"[\s_-]+".join(map(re.escape, [*parts[:-1], last])) + "(?:ed|ing)")
    return [re.compile(r"(?<![A-Za-z0-9])" + f + r"(?![A-Za-z0-9])", re.I) for f in forms]


def _content_stems(phrase: str) -> tuple[str, ...]:
    """An English trigger phrase's content words, stemmed ("enroll student in course" -> enroll, student, cours)."""
    if not phrase.isascii():
        return ()
    if any(w.lower() in _NEGATING for w in re.findall(r"[A-Za-z']+", phrase)):
        return ()  # "no-show" said without its "no" is "show": a negated phrase is matched only as written
    return tuple(stem(w) for w in re.findall(r"[A-Za-z]+", phrase) if not is_stopword(w))


_NEGATING = frozenset({"no", "not", "non", "never", "without", "didn't", "don't", "doesn't", "won't", "cannot", "nobody"})


def _masked(example: Example, words: frozenset[str] = frozenset(), base: str = "") -> str:
    """An example's query without its values (ids, names, amounts): what is left is the pack's own
    wording. Enum values (`words`) stay: "open" in "list the open tickets" is the pack's word too."""
    text = example.user_query
    for value in example.extracted_params.values():
        if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value) \
                and str(value).lower() not in words:
            text = text.replace(str(value), " ")
    # A person an example mentions without extracting (张伟 in "查下张伟(E1003)的年假") is not the pack's
    # word; `base` is the pack's wording outside examples (商品 there is a word, not a Mr 商)
    for name, start, end in person_names(text, lambda w: w in words or is_stopword(w) or w.lower() in base):
        if _CJK_RUN.fullmatch(name) and name not in base:
            text = text[:start] + " " * (end - start) + text[end:]
    return text


def enum_words(tool: ToolSpec) -> frozenset[str]:
    return frozenset(str(w).lower() for p in tool.parameters for v in p.enum or []
                     for w in [v, *p.synonyms.get(str(v), [])])


_EXAMPLES_IN_TEXT = re.compile(r"(?:例如|比如|如|e\.g\.|eg\.|such as|for example|形如|like)[:：]?\s*[^,，。;；)）\n]*", re.I)


def without_examples(description: str) -> str:
    """A description without the sample values it quotes ("员工姓名,如 李娜" -> "员工姓名,")."""
    return _EXAMPLES_IN_TEXT.sub(" ", description or "")


def pattern_words(patterns: list[str]) -> list[str]:
    """The words a parameter's patterns spell out ("(?:调到|涨到|月薪)\\s*(\\d{4,6})" -> 调到, 涨到, 月薪):
    how the pack's authors say the value is asked for, so words of the tool. (Escapes and classes are no words.)"""
    out: list[str] = []
    for pattern in patterns:
        optional = re.sub(r"\(\?:[^()]*\)[?*]", " ", pattern)  # ("req(?:uests)?": no word "uests")
        bare = re.sub(r"\\[A-Za-z]|\[[^\]]*\]|\{[^}]*\}", " ", _without_captures(optional))
        out += re.findall(r"[\u3400-\u9fff]{2,}|[A-Za-z]{3,}", bare)
    return out


def _without_captures(pattern: str) -> str:
    """The pattern without its capturing groups: what is around the value, not the value's own shape
    (a date pattern's 月初, an id's INC)."""
    out, depth, i = [], 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if depth == 0:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if ch == "(" and (depth > 0 or not pattern.startswith("(?", i)):
            depth += 1
        elif ch == ")" and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(ch if ch not in "()?:|<=!" else " ")
        i += 1
    return "".join(out)


def _param_words(p: ParamSpec) -> list[str]:
    words = [name_words(p.name), without_examples(p.description), *pattern_words(p.patterns or [])]
    for value in p.enum or []:
        words += [str(value), *p.synonyms.get(str(value), [])]
    return words


# What a tool's description says its result awaits is no word of what it does: "假单进入待审批状态",
# "the invoice stays pending approval" (submitting does not approve)
_AWAITING = re.compile(r"待(?:审批|审核|确认|支付|付款|发货|收货|处理|入库|办理|评价|签署|提交|缴费|审|批|付|发|收|核|签|缴)"
                       r"|(?i:\b(?:pending|awaiting|waiting\s+for)\s+[A-Za-z]+)")


# What a description says the tool does not do is no word of what it does: "只建档案不签合同、不做社保增员",
# "creates the org only; does not issue a key" (a request for the enrolment is not a request for it)
DISCLAIMED = re.compile(r"(?:不|不会|不再|并不|无需|无须|不用|不需要|不要|别|先别|暂不)(?:做|签|办|办理|含|包含|包括|涉及|处理|负责|触发|生成|发起|走|建|开|改|动|交|缴|报废)"
                         r"[\u4e00-\u9fff]{0,4}"
                         r"|(?i:\b(?:does\s+not|doesn't|do\s+not|don't|dont|will\s+not|won't|never)\s+[^.;,()\n]*)")


def _code_segment(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is joined by - or _ to letters or digits around it (sg-eng-prod-ro)."""
    return (text[start - 1:start] in ("-", "_") and text[start - 2:start - 1].isalnum()) or \
        (text[end:end + 1] in ("-", "_") and text[end + 1:end + 2].isalnum())


def tool_words(tool: ToolSpec, *, with_examples: bool = True, base: str = "") -> list[str]:
    words = [name_words(tool.tool_name), DISCLAIMED.sub(" ", _AWAITING.sub(" ", tool.description))]
    if with_examples:
        words += [_masked(e, enum_words(tool), base) for e in tool.examples]
    for p in tool.parameters:
        words += _param_words(p)
    return words


def tool_core_words(tool: ToolSpec, base: str = "") -> list[str]:
    """The words that say what a tool does: its name and its examples (not every word it mentions)."""
    return [name_words(tool.tool_name), *(_masked(e, enum_words(tool), base) for e in tool.examples)]


def rule_core_words(rule: RuleSpec, base: str = "") -> list[str]:
    return [name_words(rule.rule_name), *rule.trigger_phrases, *(_masked(e, base=base) for e in rule.examples)]


def _wording(kn: Knowledge) -> str:
    """The packs' own wording outside their examples (names, descriptions, triggers, states, enum words)."""
    words: list[str] = []
    for rule in kn.rules.values():
        words += [name_words(rule.rule_name), without_examples(rule.description), *rule.trigger_phrases]
        for step in rule.dag_definition:
            words.append(step.description)
            if step.reaches_state:
                words += step.reaches_state.words
    for tool in kn.tools.values():
        words += [name_words(tool.tool_name), without_examples(tool.description)]
        for p in tool.parameters:
            words += _param_words(p)
    return " ".join(words).lower()


def rule_words(rule: RuleSpec, kn: Knowledge, base: str = "") -> list[str]:
    words = [name_words(rule.rule_name), rule.description, *rule.trigger_phrases,
             *(_masked(e, base=base) for e in rule.examples)]
    for step in rule.dag_definition:
        words.append(step.description)
        if step.reaches_state:
            words += step.reaches_state.words
        words += tool_words(kn.tools[step.tool_name], base=base)  # a rule says all its tools say
    return words


@dataclass
class Vocabulary:
    """Everything the rule planner matches text against, for one Knowledge."""

    knowledge: Knowledge
    environments: dict[str, Phrases] = field(default_factory=dict)  # pack -> phrases -> env name
    triggers: Phrases = field(default_factory=list)  # -> rule name
    loose_triggers: Phrases = field(default_factory=list)  # the same phrases with one gap allowed
    word_triggers: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)  # rule -> content stems
    states: dict[str, Phrases] = field(default_factory=dict)  # rule -> phrases -> step id
    stem_states: dict[str, list[tuple[tuple[str, ...], StepId]]] = field(default_factory=dict)  # "receive" ~ received
    rule_shingles: dict[str, list[frozenset[str]]] = field(default_factory=dict)
    tool_shingles: dict[str, list[frozenset[str]]] = field(default_factory=dict)
    enums: dict[tuple[str, str], Phrases] = field(default_factory=dict)  # (tool, param) -> value
    contexts: dict[tuple[str, str], list[re.Pattern[str]]] = field(default_factory=dict)  # (tool|rule, name)
    shapes: dict[tuple[str, str], Shape] = field(default_factory=dict)  # (tool|rule, name)
    _digit_ids: dict[str, bool] = field(default_factory=dict)  # digit run -> whether it can be an id here
    _id_words: frozenset[str] | None = None  # the pack's own words shaped like ids (soc2)
    patterns: dict[tuple[str, str], list[Any]] = field(default_factory=dict)  # pack regexes (regex module)
    enum_lefts: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # words seen before an enum value
    pairs: dict[str, set[tuple[str, str, str]]] = field(default_factory=dict)  # tool|rule -> numbers written as a pair
    lexicon: Lexicon = field(default_factory=lambda: Lexicon({}))
    core: Lexicon = field(default_factory=lambda: Lexicon({}))  # names, triggers and examples only
    own_text: str = ""  # the packs' wording (values masked), lower-cased: never a value itself
    base_text: str = ""  # the same outside the examples (names, descriptions, triggers, states, enum words)
    # (tool|rule, name) -> the values the pack itself gives a free-text parameter: its examples' values
    # and the ones its description lists ("用人部门,如 技术部、数据部、市场部")
    known_values: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    # ... and, for a parameter that knows none of its own, those another tool lists for its namesake
    shared_values: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)

    @classmethod
    def build(cls, kn: Knowledge) -> Vocabulary:
        voc = cls(kn)
        texts: dict[str, list[str]] = {}
        core: dict[str, list[str]] = {}
        base = voc.base_text = _wording(kn)
        for pack in kn.packs.values():
            voc.environments[pack.name] = [
                (phrase_pattern(w), w, env) for env, spec in pack.environments.items() for w in [env, *spec.aliases]
            ]
        for rule in kn.rules.values():
            kinds = {str(w) for s in rule.dag_definition for p in kn.tools[s.tool_name].parameters
                     for w in [*(p.enum or []), *(x for said in p.synonyms.values() for x in said)]
                     if re.fullmatch(r"[\u3400-\u9fff]{2,4}", str(w))}  # 病假, 年假: kinds of 假 its trigger may hold
            voc.triggers += [(phrase_pattern(t), t, rule.rule_name) for t in rule.trigger_phrases]
            voc.triggers += [(p, t, rule.rule_name) for t in rule.trigger_phrases if (p := separable_pattern(t, kinds))]
            voc.loose_triggers += [(p, t, rule.rule_name) for t in rule.trigger_phrases if (p := gapped_pattern(t))]
            voc.word_triggers[rule.rule_name] = [words for t in rule.trigger_phrases
                                                 if len(words := _content_stems(t)) >= 2]
            voc.states[rule.rule_name] = [
                (phrase_pattern(w), w, s.step_id) for s in rule.dag_definition if s.reaches_state
                for w in s.reaches_state.words
            ]
            voc.stem_states[rule.rule_name] = [
                (tuple(stem(w) for w in word.split()), s.step_id) for s in rule.dag_definition if s.reaches_state
                for word in s.reaches_state.words if word.isascii() and re.fullmatch(r"[A-Za-z][A-Za-z ]*", word)
            ]
            voc.rule_shingles[rule.rule_name] = [shingles(e.user_query) for e in rule.examples] + [
                shingles(t) for t in rule.trigger_phrases]
            for name in {n for e in rule.examples for n in e.extracted_params}:
                voc._learn((rule.rule_name, name), rule.examples, name)
            voc.pairs[rule.rule_name] = {p for e in rule.examples for p in number_pairs(e)}
            texts[candidate_key("rule", rule.rule_name)] = rule_words(rule, kn, base)
            core[candidate_key("rule", rule.rule_name)] = rule_core_words(rule, base)
        for tool in kn.tools.values():
            voc.tool_shingles[tool.tool_name] = [shingles(e.user_query) for e in tool.examples]
            voc.pairs[tool.tool_name] = {p for e in tool.examples for p in number_pairs(e)}
            for p in tool.parameters:
                key = (tool.tool_name, p.name)
                voc.patterns[key] = [compile_pattern(x) for x in p.patterns]
                voc.enums[key] = voc._enum_phrases(p)
                voc.enum_lefts[key] = voc._enum_lefts(tool.examples, p)
                voc._learn(key, tool.examples, p.name)
                voc.known_values[key] |= listed_values(p.description)
            texts[candidate_key("tool", tool.tool_name)] = tool_words(tool, base=base)
            core[candidate_key("tool", tool.tool_name)] = tool_core_words(tool, base)
        # values one tool's description lists for a parameter are those of the same-named parameter of
        # every tool ("部门" of a search is one of the departments "如 研发部、市场部" the hiring tool lists)
        listed: dict[str, frozenset[str]] = {}
        for tool in kn.tools.values():
            for p in tool.parameters:
                if p.type == "string" and p.enum is None:
                    listed[p.name] = listed.get(p.name, frozenset()) | listed_values(p.description)
        for tool in kn.tools.values():
            for p in tool.parameters:
                if p.type == "string" and p.enum is None and listed.get(p.name):
                    voc.shared_values[(tool.tool_name, p.name)] = listed[p.name]
        voc.lexicon = Lexicon(texts)
        voc.core = Lexicon(core)
        voc.own_text = " ".join(t for parts in texts.values() for t in parts).lower()
        return voc

    def _learn(self, key: tuple[str, str], examples: list[Example], name: str) -> None:
        self.contexts[key] = [p for e in examples for p in context_patterns(e, name)]
        shape = Shape()
        for e in examples:
            shape.learn(e, name)
        self.shapes[key] = shape
        self.known_values[key] = frozenset(str(v) for e in examples if isinstance(v := e.extracted_params.get(name), str)
                                           and 1 < len(v) <= 40)

    @staticmethod
    def _enum_phrases(p: ParamSpec) -> Phrases:
        phrases: Phrases = []
        for value in p.enum or []:
            for word in [str(value), *p.synonyms.get(str(value), [])]:
                # "IT" (Italy) is not "it", "US" is not "us": a value spelled like a function word
                # matches only as the pack writes it
                pattern = phrase_pattern(word, case_sensitive=is_stopword(word) and word != word.lower())
                phrases.append((pattern, word, value))
                phrases += [(form, word, value) for form in _word_forms(word)]
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
        """Environment words, except inside a typed value ("qa" of qa.buyer@acme.io) or a code they are
        one segment of ("prod" of the group sg-eng-prod-ro)."""
        hits = [h for h in find_phrases(text, self.environments.get(pack, [])) if not _code_segment(text, h.start, h.end)]
        if not hits:
            return hits
        values = [s for s in find_spans(text, _EXAMPLE_DAY) if s.kind in ("email", "url", "id", "quoted")]
        return [h for h in hits if not any(s.start < h.end and h.start < s.end for s in values)]

    def trigger_hits(self, text: str) -> list[PhraseHit[str]]:
        return find_phrases(text, self.triggers)

    def loose_trigger_hits(self, text: str) -> list[PhraseHit[str]]:
        return find_phrases(text, self.loose_triggers)

    def word_trigger(self, stems: set[str], valued: set[str], rule: str) -> bool:
        """A trigger phrase said in other function words, with a value standing in for the noun of
        its parameter: "enroll a student in CS101" for "enroll student in course" (CS101 being a
        course code). Every content word is there, all but one of them as written."""
        for words in self.word_triggers.get(rule, []):
            said = sum(w in stems for w in words)
            if said >= len(words) - 1 and said >= 1 and all(w in stems or w in valued for w in words):
                return True
        return False

    def state_hits(self, text: str, rule: str) -> list[PhraseHit[StepId]]:
        """States the request names as where to go — not as what already happened ("it was archived by
        mistake" tells the flag's history, it asks for no archiving)."""
        return find_phrases(without_history(text), self.states.get(rule, []))  # (masking keeps positions)

    def loose_state_hits(self, stems: list[str], rule: str) -> list[StepId]:
        """States named by another form of their words ("receive it" for the state "received"), the
        words of a longer one in order a few words apart ("the appeal has been decided")."""
        found = []
        for words, step_id in self.stem_states.get(rule, []):
            if any(_in_order(stems, i, words) for i in range(len(stems)) if stems[i] == words[0]):
                found.append(step_id)
        return found

    def enum_hits(self, text: str, tool: str, param: str) -> list[PhraseHit[Any]]:
        return find_phrases(text, self.enums.get((tool, param), []))

    def rule_similarity(self, text_shingles: frozenset[str], rule: str) -> float:
        return max((similarity(text_shingles, s) for s in self.rule_shingles.get(rule, [])), default=0.0)

    def tool_similarity(self, text_shingles: frozenset[str], tool: str) -> float:
        return max((similarity(text_shingles, s) for s in self.tool_shingles.get(tool, [])), default=0.0)

    def is_own_word(self, raw: str) -> bool:
        """Whether a would-be value is the pack's own wording or a function word (never a value)."""
        text = raw.strip().lower()
        if not text or is_stopword(text):
            return True
        if any(c.isdigit() for c in text) or "@" in text:
            return False
        if re.fullmatch(f"{_CJK}+", text):
            return text in self.own_text
        words = tokens(text)
        return bool(words) and all(w in self.lexicon.known for w in words)

    def spans(self, text: str, today: date) -> list[Span]:
        """The typed values of the text. A bare digit run (15000) is read as an id as well as a number
        only where the knowledge has such ids: a string parameter's examples are bare digits of its
        length (商品123456), or one of its patterns captures the run."""
        return [s for s in find_spans(text, today) if not (s.kind == "id" and (
            (s.text.isdigit() and not self._digit_id(s.text)) or self._word_like(s.text)))
            and not (s.kind == "number" and self._numeral_word(text, s))]

    def _numeral_word(self, text: str, span: Span) -> bool:
        """A number written in Chinese numerals that begins a word of the pack's own ("二次销售" where a
        synonym says 可二次销售; "一次性"): vocabulary, not a count. (Not the examples' words: "加二十积分"
        in an example is a count of points.)"""
        window = text[span.start:span.end + 2]
        return not any(c.isdigit() for c in span.text) and len(window) >= 4 \
            and bool(re.fullmatch(f"{_CJK}+", window)) and window in self.base_text

    def _word_like(self, token: str) -> bool:
        """An "id" that is a word of the pack's own wording (soc2, 2FA, k8s): letters with a digit or
        two, written as a word in its descriptions or triggers — vocabulary, not a value."""
        if self._id_words is None:
            self._id_words = frozenset(w for w in re.findall(r"(?<![a-z0-9_-])[a-z0-9]+(?![a-z0-9_-])", self.own_text)
                                       if 0 < sum(c.isdigit() for c in w) <= 2 and sum(c.isalpha() for c in w) >= 2)
        return token.lower() in self._id_words

    def _digit_id(self, run: str) -> bool:
        if len(run) >= 8:
            return True  # an order or ticket number (20261126001), never a salary or a count
        if run not in self._digit_ids:
            if len(self._digit_ids) > 4096:
                self._digit_ids.clear()
            params = [(tool.tool_name, p) for tool in self.knowledge.tools.values() for p in tool.parameters
                      if p.type == "string"]
            self._digit_ids[run] = any(
                (shape := self.shapes.get((name, p.name))) is not None and len(run) in shape.digit_lengths
                or any(_captures(pattern, run) for pattern in pattern_shapes(p)) for name, p in params)
        return self._digit_ids[run]


def _in_order(stems: list[str], start: int, words: tuple[str, ...]) -> bool:
    """Whether `words` follow one another from `start`, at most two words between each and the next."""
    at = start
    for word in words[1:]:
        nxt = next((j for j in range(at + 1, min(at + 4, len(stems))) if stems[j] == word), None)
        if nxt is None:
            return False
        at = nxt
    return True
