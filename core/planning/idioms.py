"""Everyday idioms: what a phrasal verb or a colloquial phrase means in plain words.

People write "kick E1 out of admins", "sign off REQ-7", "any update on INC-3?", "bring up the
report", "把他踢出群", "帮我瞅瞅"; packs write "remove a member", "approve a request", "ticket
status", "show", "移除", "查看". This is a small table of the language, not of any domain: each
idiom says which plain words it may mean, and the knowledge decides which of them it knows. An
idiom is read as its plain words only where the knowledge knows at least one of them; otherwise
its own words stay (and count as unknown, as before).

Patterns are matched on text whose values are masked out (blanks), so a gap of a few words
between a verb and its particle ("kick E10233 out") still reads as one idiom.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# "~" marks where the verb's object may sit (up to three words); verbs take their usual endings.
# The plain words are listed most likely first; the first one the knowledge knows is what the
# idiom "says" for deciding whether the request asks for a change, a look-up or a deletion.
IDIOMS_EN: tuple[tuple[str, str], ...] = (
    # removing someone or something from a group / place
    ("kick ~ out|kick ~ off of|kick ~ from|boot ~ out|boot ~ off|boot ~ from|throw ~ out|chuck ~ out|"
     "take ~ off of|take ~ out of|pull ~ out of|pull ~ off of|yank ~ from|yank ~ out", "remove revoke delete"),
    # adding someone or something to a group / place
    ("pop ~ into|pop ~ in|pop ~ onto|stick ~ into|stick ~ onto|slot ~ into|slot ~ in|put ~ into|put ~ onto|"
     "throw ~ into|hook ~ onto|hook ~ into|hook ~ up with|bring ~ into|bring ~ onto|bring ~ on board|"
     "get ~ into|get ~ onto|loop ~ in", "add assign grant join invite"),
    # approving / rejecting
    ("sign off on|sign ~ off|signoff|green-light|greenlight|rubber-stamp|thumbs up on|give ~ the go-ahead|"
     "okay ~ for", "approve"),
    ("turn ~ down|knock ~ back|shoot ~ down|push back on|say no to", "reject decline deny"),
    # asking how something stands
    ("any update on|any updates on|any update about|any news on|any word on|what's up with|whats up with|"
     "what's happening with|what is happening with|where are we on|where are we with|what's the latest on|"
     "whats the latest on|how's ~ going|how is ~ going|how's ~ looking|check up on|check on",
     "status check show get"),
    # showing
    ("bring ~ up|pull ~ up|dig ~ up|look ~ up|fetch ~ up|call ~ up|show me|let me see|give me a look at|"
     "have a look at|take a look at", "show view get find lookup list check"),
    # making, starting
    ("spin ~ up|stand ~ up|set ~ up|whip ~ up|knock ~ up|rustle ~ up|wire ~ up", "create provision make new add open start"),
    # replacing a thing with a new one of the same kind
    ("swap ~ for a fresh one|swap ~ for a new one|swap ~ out for a new one|swap ~ out|replace ~ with a fresh one|"
     "replace ~ with a new one|cycle ~ out", "rotate replace regenerate reissue renew"),
    # making up for something
    ("comp|make it up to|make ~ up to", "credit compensate refund goodwill"),
    # a role up or down
    ("promote ~ to|demote ~ to", "promote demote change update set role"),
    ("fire ~ up|boot ~ up|start ~ up|power ~ on|turn ~ on|switch ~ on|kick off|kick ~ off", "start enable launch activate run"),
    # stopping
    ("shut ~ down|shut ~ off|power ~ off|power ~ down|turn ~ off|switch ~ off", "stop disable deactivate shutdown suspend"),
    ("put ~ on hold|put ~ on ice", "suspend hold pause freeze"),
    ("take ~ off hold|unfreeze|unpause", "resume reactivate unfreeze"),
    # undoing
    ("call ~ off|back out of|pull out of|pull the plug on", "cancel"),
    ("tear ~ down|take ~ down|wipe ~ out|get rid of|clean ~ out", "delete remove destroy decommission"),
    ("roll ~ back", "rollback revert"),
    # handing over, moving up
    ("hand ~ over to|hand ~ off to|hand ~ over|hand ~ off|pass ~ over to|pass ~ on to|pass ~ to",
     "assign reassign transfer handover"),
    ("bump ~ up|move ~ up|kick ~ upstairs|push ~ up|bump ~ to", "escalate upgrade raise increase promote"),
    ("drop down to|drop back to|drop ~ down to|drop them to|drop it to|drop him to|drop her to|bump ~ down to|knock ~ down to|move ~ down to|step ~ down to",
     "downgrade lower decrease reduce change"),
    ("move ~ to|move ~ onto|move ~ over to|switch ~ to|switch ~ over to|put ~ on", "change switch move transfer"),
    ("top ~ up|top-up", "topup credit add recharge"),
    ("pay ~ off|settle ~ up", "pay payment settle"),
    ("chase ~ up|follow up on|follow up with|nudge|ping", "remind notify follow"),
    ("let ~ know|give ~ a heads up|heads up", "notify inform email message"),
    ("wrap ~ up|close ~ out|finish ~ off|finish ~ up", "close complete finish resolve"),
    ("sign ~ up for|sign ~ up|enrol ~ in|put ~ down for", "register enroll signup subscribe"),
    ("look into|dig into", "investigate check"),
    ("roll ~ out|push ~ out|ship ~ out", "deploy release publish"),
)

IDIOMS_ZH: tuple[tuple[str, str], ...] = (
    ("踢出|踢掉|踢了|移出|请出|拉出", "移除 删除 退出 撤销"),
    ("拉进|拉入|加进|拉到|塞进|加到", "加入 添加 授予 分配"),
    ("批了|批一下|批掉|批下|签字|签了|给过了|放行", "审批 批准 通过 同意"),
    ("打回|退回去|不批", "驳回 拒绝"),
    ("瞅瞅|瞅一眼|瞧瞧|瞄一眼|瞄下|看看|看一眼|看下", "查看 查询 查"),
    ("怎么样了|到哪了|到哪一步|啥情况|什么情况|进展如何|有进展吗", "状态 进度 查询"),
    ("催一下|催催|催办", "提醒 通知"),
    ("关掉|停掉|下掉", "停用 关闭 停止"),
    ("打开|开起来|启起来", "开启 启用 启动"),
    ("挪到|调到|转到|换到", "调动 转移 变更"),
)


# How-is-it-going with no thing in the gap: small talk, not a status question.
_SMALL_TALK = re.compile(r"\S+(?:\s+(?:is|are))?\s+(?:it|things|everything|life|you|ya|u|that|stuff|your day)\s+"
                         r"(?:going|looking)", re.I)
_HEADS: set[str] = set()  # every form of every English idiom's first word: a cheap "none here" test


def _verb(word: str) -> str:
    """A verb with its usual endings (kick, kicks, kicked, kicking; set -> sets, setting)."""
    if not re.fullmatch(r"[a-z]+", word):
        _HEADS.add(word.lower())
        return re.escape(word)
    irregular = {"bring": "brought", "take": "took|taken", "throw": "threw|thrown", "pay": "paid", "spin": "spun",
                 "stand": "stood", "get": "got|gotten", "dig": "dug", "give": "gave|given", "say": "said",
                 "shoot": "shot", "tear": "tore|torn"}
    forms = {word, word + "s", word + "es", word + "ed", word + "d", word + "ing"}
    if word.endswith("e"):
        forms |= {word[:-1] + "ing"}
    if re.search(r"[^aeiou][aeiou][bdgmnpt]$", word):
        forms |= {word + word[-1] + "ed", word + word[-1] + "ing"}
    forms |= {f for f in irregular.get(word, "").split("|") if f}
    _HEADS.update(forms)
    return "(?:" + "|".join(sorted(forms, key=lambda f: (-len(f), f))) + ")"


def _compile_en(phrase: str) -> str:
    words = phrase.split()
    body = _verb(words[0])
    for word in words[1:]:
        body += r"(?:\s+\S+){0,3}?" if word == "~" else r"\s+" + re.escape(word)
    return body


def _build() -> tuple[re.Pattern[str], list[tuple[tuple[str, ...], bool]]]:
    """One pattern for every idiom (a named group each, longest phrases first), and per group
    what it means and whether it has a gap for the verb's object."""
    phrases: list[tuple[str, str, tuple[str, ...], bool]] = []
    for table, english in ((IDIOMS_EN, True), (IDIOMS_ZH, False)):
        for alternatives, means in table:
            for phrase in alternatives.split("|"):
                body = _compile_en(phrase) if english else re.escape(phrase)
                if english:
                    body = rf"(?<![A-Za-z]){body}(?![A-Za-z])"
                phrases.append((phrase, body, tuple(means.split()), "~" in phrase))
    phrases.sort(key=lambda p: -len(p[0]))
    pattern = re.compile("|".join(f"(?P<g{i}>{body})" for i, (_, body, _, _) in enumerate(phrases)), re.I)
    return pattern, [(means, gap) for _, _, means, gap in phrases]


_PATTERN, _GROUPS = _build()
_CHINESE = tuple(p for phrases, _ in IDIOMS_ZH for p in phrases.split("|"))


@dataclass(frozen=True)
class IdiomHit:
    start: int
    end: int
    means: tuple[str, ...]  # plain words, most likely first
    parts: tuple[tuple[int, int], ...]  # the idiom's own words (not the object in its gap)


@lru_cache(maxsize=2048)
def idiom_hits(text: str) -> tuple[IdiomHit, ...]:
    """Every idiom in the text (leftmost first, the longer phrase where two start together)."""
    words = set(re.findall(r"[a-z][a-z'-]*", text.lower()))
    if words.isdisjoint(_HEADS) and not any(p in text for p in _CHINESE):
        return ()
    hits = []
    for m in _PATTERN.finditer(text):
        if m.end() == m.start() or m.lastgroup is None:
            continue
        means, gap = _GROUPS[int(m.lastgroup[1:])]
        if gap and means[0] == "status" and _SMALL_TALK.fullmatch(m.group(0)):
            continue  # "how's it going?" greets; "how's INC-3 going?" asks
        hits.append(IdiomHit(m.start(), m.end(), means, _own_words(text, m.start(), m.end()) if gap
                             else ((m.start(), m.end()),)))
    return tuple(hits)


def _own_words(text: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    """An idiom's verb and its particle: the object in between stays the request's own."""
    words = [(start + m.start(), start + m.end()) for m in re.finditer(r"\S+", text[start:end])]
    return (words[0], words[-1]) if len(words) > 1 else ((start, end),)


def plain(text: str, known: frozenset[str] | None = None, *, stem=None) -> str:  # type: ignore[no-untyped-def]
    """The text with each idiom's own words replaced by its first plain word (the first the
    knowledge knows, when `known` and `stem` are given): what `intent` and `destructive` read."""
    out = text
    for hit in reversed(idiom_hits(text)):
        word = hit.means[0]
        if known is not None and stem is not None:
            word = next((w for w in hit.means if stem(w) in known or w in known), "")
            if not word:
                continue
        for s, e in reversed(hit.parts[1:]):
            out = out[:s] + " " * (e - s) + out[e:]
        s, e = hit.parts[0]
        out = out[:s] + word + out[e:]
    return out
