"""How many of the thing a request makes: "造20笔已支付订单", "make 20 paid orders", "5 copies of ...".

A number counts copies only when it is said as a count of the thing made:

- Chinese: a number and a classifier before what is made (20笔已支付订单, 两个订单, 给商品123456造5单);
- English: a number before a plural noun (20 paid orders), "N x ...", "... x N", "N copies of ...",
  "..., N of them", "N times";

and never when it reads as a value: after a word that introduces one ("数量为2", "of 3", "with 2",
"buy 3"), before a measure word ("3 items", "3件", "3个月"), or inside an id. The planner
checks the rest with the pack's own vocabulary (a number the chosen rule or tool takes as a
parameter is its value, not a count). Nothing here knows a domain: no noun is special.

Pure: `read_count(text)` answers the count, where it was said and the request with the count
said as one ("一笔已支付订单", "a paid order"), which is what the planner plans.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from core.models import NOT_COPIED, Plan
from core.planning.lexicon import HAVING
from core.planning.spans import UNITS, find_spans
from core.planning.text import cn_number

EN_NUMBERS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
}
_EN_NUM = r"\d{1,4}|(?:an?\s+)?dozen|" + "|".join(sorted(EN_NUMBERS, key=len, reverse=True))
_CN_NUM = r"\d{1,4}|[一二两三四五六七八九十百千万]+"
CLASSIFIERS = "笔个条份张单批"
# After 个 these make a duration or a rate, not a count of things made (3个月, 2个小时, 5个百分点).
_CN_NOT_THINGS = ("月", "小时", "钟头", "星期", "礼拜", "工作日", "季度", "百分点", "点", "人")
# Words that introduce a value, in front of the number: "数量为2个", "买3个", "每单2份", "第3个", "前10条".
_CN_VALUE_CUES = ("为", "是", "=", ":", "：", "数量", "每", "第", "前", "最近", "近", "买", "购", "至少",
                  "最多", "超过", "不超过", "满", "减", "约", "大约", "剩", "余", "还有")
# Verbs a count may close a clause after ("..., 要20笔", "再来5单", "下3单").
_CN_WANT = "要来造做建生成创建下开"
_EN_VALUE_CUES = frozenset("""of with for by x qty quantity amount is are be = : last first top next past latest recent
only about over under than per each every total buy buys buying bought purchase purchasing at least most
to from within after before around approximately max min maximum minimum limit up""".split())
# Words between a number and its noun that cannot be adjectives of the thing made.
_EN_NOT_MODIFIERS = frozenset("""of for with to from in on at by and or the a an each per x that which who whose
where when is are was were""".split())
# Typed values a count never sits inside: "40 euro credit", "3pm", "2024-05-01", "SKU-88121".
_VALUE_KINDS = frozenset({"email", "url", "quoted", "date", "month", "time", "amount", "id"})
_EN_MEASURES = frozenset(UNITS) | frozenset("""times copies instances duplicates bottles packs pairs cases sets
percent points dollars euros pounds yuan bucks credits kilos cups bags cans cartons rolls sheets bundles
liters litres gallons meters metres inches feet""".split())

CN_COUNT = re.compile(rf"(?<![\dA-Za-z.\-_#])({_CN_NUM})\s*([{CLASSIFIERS}])")
EN_COUNT = re.compile(rf"(?i)(?<![\w.\-$€£¥#])({_EN_NUM})\s+((?:[a-z][a-z\-]*\s+){{0,3}}?)([a-z][a-z\-]*[a-z]s)(?![\w\-])")
# "20 x paid order" (not "2 x SKU-88121": a number of an id's thing is its quantity)
TIMES_X_BEFORE = re.compile(r"(?i)(?<![A-Za-z0-9_.\-])(\d{1,4})\s?[x×](?:\s+|(?=[\u3400-\u9fff]))(?![^\s,，]*\d)(?=[^\d\s])")
TIMES_X_AFTER = re.compile(r"(?i)(?<![A-Za-z0-9_.\-])[x×]\s?(\d{1,4})(?![A-Za-z0-9_.\-])")
_SIZE_BEFORE = re.compile(r"(?<![\d.])\d{1,4}(?:\.\d+)?\s*$")  # "20 x 30": a size, not a count
COPIES_OF = re.compile(rf"(?i)(?<![\w.\-])({_EN_NUM})\s+(?:copies|instances|duplicates)(?:\s+of)?(?![\w\-])\s*")
OF_THEM = re.compile(rf"(?i)[,，]?\s*(?<![\w.\-])({_EN_NUM})\s+of\s+(?:them|those|these|it)(?![\w\-])")
TIMES = re.compile(rf"(?i)[,，]?\s*(?<![\w.\-])({_EN_NUM})\s+times(?=\s*(?:$|[.,;!?，。；！？]))|[,，]?\s*重复\s*({_CN_NUM})\s*[次遍]")


@dataclass(frozen=True)
class CountReading:
    """A count of copies the request states: how many, where (`start`/`end` of its number), the
    words that said it, and the request with the count said as one."""

    copies: int
    start: int
    end: int
    said: str
    text: str


def _value(raw: str) -> int | None:
    raw = raw.lower()
    if raw.endswith("dozen"):
        return EN_NUMBERS["dozen"]
    if raw.isdigit():
        return int(raw)
    if raw in EN_NUMBERS:
        return EN_NUMBERS[raw]
    return cn_number(raw)


def _cn_counts(text: str) -> list[CountReading]:
    out = []
    for m in CN_COUNT.finditer(text):
        n, classifier = _value(m[1]), m[2]
        before, after = text[:m.start()].rstrip(), text[m.end():]
        if n is None or any(before.endswith(cue) for cue in _CN_VALUE_CUES):
            continue
        if classifier == "个" and after.startswith(_CN_NOT_THINGS):
            continue
        follows = after.lstrip()
        if "都" in re.split(r"[,，。;；!！?？]", follows, maxsplit=1)[0]:
            continue  # "两张卡都办": both of two named things, not two of one
        made = bool(follows) and (re.match(r"[\u3400-\u9fffA-Za-z]", follows) is not None)
        closes = (not follows or follows[0] in ",，。;；!！") and before[-1:] in _CN_WANT and before != ""
        if not (made or closes):
            continue
        cut = len(before) - 1
        if made or not text[:cut].rstrip().endswith((",", "，")):
            said = text[:m.start()] + "一" + classifier + text[m.end():]
        else:  # "..., 要20笔": the clause that only says how many goes
            said = (text[:cut].rstrip(" ,，") + text[m.end():]).strip()
        out.append(CountReading(n, m.start(1), m.end(1), m[0], said))
    return out


def _singular(noun: str) -> str:
    low = noun.lower()
    if low.endswith("ies") and len(low) > 4:
        return noun[:-3] + "y"
    if low.endswith(("sses", "ches", "shes", "xes", "zes")):
        return noun[:-2]
    return noun[:-1]


def _en_counts(text: str) -> list[CountReading]:
    out = []
    for m in EN_COUNT.finditer(text):
        n, mods, noun = _value(m[1]), m[2].split(), m[3]
        low = noun.lower()
        words = text[:m.start()].split()
        previous = words[-1].lower().strip(",.;") if words else ""
        if (n is None or previous in _EN_VALUE_CUES or low in _EN_MEASURES or not low.endswith("s")
                or low.endswith(("ss", "us", "is")) or any(w.lower() in _EN_NOT_MODIFIERS for w in mods)):
            continue
        head = " ".join([*mods, _singular(noun)])
        article = "an" if head[:1].lower() in "aeio" or head.lower().startswith(("un", "up")) else "a"
        out.append(CountReading(n, m.start(1), m.end(1), m[0], f"{text[:m.start()]}{article} {head}{text[m.end():]}"))
    return out


def _dropped(text: str, m: re.Match[str], group: int) -> CountReading | None:
    """A count said apart from the thing ("5 copies of", "x20", ", 5 of them"): the words go."""
    n = _value(m[group])
    if n is None:
        return None
    rest = (text[:m.start()] + " " + text[m.end():]).strip()
    return CountReading(n, m.start(group), m.end(group), m[0].strip(" ,，"), re.sub(r"\s{2,}", " ", rest))


def _apart(text: str) -> list[CountReading]:
    found = []
    for pattern in (COPIES_OF, OF_THEM, TIMES_X_BEFORE, TIMES_X_AFTER):
        for m in pattern.finditer(text):
            if pattern is TIMES_X_AFTER and _SIZE_BEFORE.search(text[:m.start()]):
                continue
            if (r := _dropped(text, m, 1)) is not None:
                found.append(r)
    for m in TIMES.finditer(text):
        if (r := _dropped(text, m, 1 if m[1] else 2)) is not None:
            found.append(r)
    return found


def read_count(text: str) -> CountReading | None:
    """The count of copies the request states, if it states one (more than one, and only one count:
    "20 paid and 5 shipped orders" are two requests, so none is read)."""
    values = [s for s in find_spans(text, date(2000, 1, 1)) if s.kind in _VALUE_KINDS]  # positions only
    # (一笔 is one; "has 5000 calls already" is what there is, not how many to make)
    readings = [r for r in _apart(text) + _cn_counts(text) + _en_counts(text)
                if r.copies > 1 and not any(v.start < r.end and r.start < v.end for v in values)
                and not _HAS_BEFORE.search(text[max(0, r.start - 24):r.start])]
    if len({r.copies for r in readings}) != 1:
        return None
    return min(readings, key=lambda r: r.start)


_HAS_BEFORE = re.compile(rf"(?i)\b(?:{'|'.join(sorted(HAVING))})\s+(?:(?:already|now|currently|about|around)\s+)?$")


def names_a_parameter(reading: CountReading, params: set[str]) -> bool:
    """Whether the words of a count name a parameter ("3 copies" where a tool takes `copies`)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", reading.said)}
    return any(w in params or _singular(w) in params for w in words if len(w) > 2)


Writes = Callable[[str, str], bool]  # (kind "rule" | "tool", name) -> whether it changes data
_NUMBERS = re.compile(rf"(?i)(?<![A-Za-z0-9_.\-])(?:{_EN_NUM})(?![A-Za-z0-9_\-])|[一二两三四五六七八九十百千万]+")


def stated(n: int, text: str) -> bool:
    """Whether the text says the number `n` (digits, a Chinese numeral or an English number word):
    a count the LLM answers must be one the request states."""
    return any(_value(m[0]) == n for m in _NUMBERS.finditer(text))


def counts_copies(plan: Plan, writes: Writes) -> bool:
    """Whether a count may apply to this plan: it writes (reads are asked for once). A question
    keeps the count when what it asks about writes, so its answer runs the copies."""
    if plan.status == "planned":
        return any(writes("tool", s.tool_name) for s in plan.steps if not s.skipped)
    if plan.status == "needs_input":
        named = [("rule", c.rule) if c.rule else ("tool", c.tool or "") for c in plan.choices]
        if plan.rule or plan.tool:
            named.append(("rule", plan.rule) if plan.rule else ("tool", plan.tool or ""))
        return any(writes(kind, name) for kind, name in named)
    return False


def not_copied(reading: CountReading) -> str:
    return (f"{reading.said!r} {NOT_COPIED} {reading.copies} copies: a request that deletes, cancels or revokes "
            "runs once; ask for each one separately")


def with_copies(plan: Plan, reading: CountReading) -> Plan:
    plan.copies = reading.copies
    plan.notes.append(f"copies: {reading.copies} (said as {reading.said!r}); each is a run of its own")
    return plan


def inherit_copies(plan: Plan, previous: Plan | None, writes: Writes) -> Plan:
    """An answer to the thread's question keeps the count the question was asked with."""
    if previous is None or previous.status != "needs_input" or previous.copies <= 1 or plan.copies > 1:
        return plan
    asked = {previous.rule, previous.tool} | {c.rule or c.tool for c in previous.choices}
    if (plan.rule or plan.tool) in asked - {None} and counts_copies(plan, writes):
        plan.copies = previous.copies
    return plan
