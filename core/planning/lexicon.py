"""Words of a request and of a pack, for "how much of the request does this candidate explain".

English words are lower-cased and lightly stemmed (shipped/shipping/ships -> ship); Chinese is
split into character bigrams. Function words of either language are never content: they
neither count for a candidate nor against it, and they are never parameter values.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

from core.planning.idioms import idiom_hits

STOP_EN = frozenset("""
a an the this that these those it its it's i me my mine we us our you your yours he him his she her they them
their there here is am are was were be been being do does did done doing have has had having will would shall
should can could may might must need needs needed want wants wanted like please pls plz thanks thank thx hi hey
hello ok okay yes yeah no not just also too very really quite so then than now right asap quick quickly some
any all every each both either neither one ones of to for from in on at by with without into onto out over under
about as and or but if when while because so up down off again once only own same other another such what which
who whom whose why how where get got gets getting make made makes making let lets go going gone give gave help
me can't don't won't isn't aren't i'm i'd i'll we'd we'll you'd you'll let's gonna wanna kindly sure thing things
stuff something anything someone somebody guys team folks still already even maybe though via per etc e.g i.e
set sets setting put take takes took do come comes came coming
u ur atm rn fyi btw tbh imo lol ty tysm thnx tks np cheers
""".split())
STOP_ZH = ("麻烦你", "麻烦", "帮我", "给我", "帮忙", "请你", "请", "一下", "一个", "一笔", "一张", "一份",
           "能不能", "可不可以", "可以", "是否", "顺便", "然后", "现在", "马上", "赶紧", "谢谢", "你好", "好的",
           "的", "了", "吗", "呢", "吧", "啊", "呀", "哦", "嘛", "我", "你", "您", "他", "她", "它", "们", "帮",
           "给", "把", "个", "这", "那", "在", "是", "就", "也", "还", "都", "和", "跟", "与", "及", "并", "又",
           "很", "太", "更", "最", "先", "再", "着", "过", "啦", "咯",
           # "帮忙走下流程": go through the procedure, whichever it is — no word of any one of them
           "走一下流程", "走一遍流程", "走下流程", "走个流程", "走流程")
VALUE_WEIGHT = 2.0  # a value the request states weighs like a fairly telling word
_STOP_ZH = re.compile("|".join(sorted(map(re.escape, STOP_ZH), key=len, reverse=True)))
_WORD = re.compile(r"[A-Za-z][A-Za-z']*|[\u3400-\u9fff]+")
_CJK = re.compile(r"[\u3400-\u9fff]")


HAVING = frozenset({"has", "have", "had", "having"})  # "they have 5 seats": what there is, not what to do
READ_CUES_ZH = ("查询", "查看", "查下", "查一下", "看看", "看下", "看一下", "状态", "进度", "详情", "有没有", "多少", "哪个",
                "哪些", "什么", "吗", "余额", "还剩", "搜", "列出", "清单", "名单")
WRITE_CUES_ZH = ("建", "造", "生成", "创建", "新建", "下单", "挂", "约", "开", "缴", "付", "退", "取消", "申请", "提交",
                 "发", "办", "登记", "注册", "删", "清空", "注销", "改", "修改", "变更", "添加", "设置", "录入", "安排",
                 "补", "扣", "涨", "同意", "驳回", "批掉", "批了", "更新",
                 "走流程", "走下流程", "走一下流程", "走个流程", "走一遍流程")  # (no word of any one procedure: STOP_ZH)
# ... and words that undo or refuse (cancel, revoke, reject, 取消, 撤销, 驳回): only a candidate that knows the word may answer
# them — "cancel the credit card 6225…" is never the card's issuing rule tailored to "activate"
REFUSALS_ZH = ("驳回", "否决", "拒绝")
DESTRUCTIVE_ZH = ("删除", "删掉", "删了", "清空", "清除", "注销", "销毁", "抹掉", "清库", "清理",
                  "取消", "撤销", "撤回", "作废", "销户", "停用", "退订", "解约", "清零", "收回", "回收",
                  *REFUSALS_ZH)  # a refusal: an approval that does not know the word would approve


def stem(word: str) -> str:
    """A light English stemmer: plural and -ed/-ing endings, a final e (invoice/invoiced -> invoic)."""
    w = word.lower().removesuffix("'s")
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("sses", "ches", "shes", "xes", "zes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if len(w) >= 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]  # shipped -> ship
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


READ_CUES = frozenset(stem(w) for w in """look show view see check status find lookup what whats which where when how
who whom pull display read fetch list search track tell quote much many available exist details detail info balance
remaining left""".split())
WRITE_CUES = frozenset(stem(w) for w in """create make add new book schedule register record send issue raise submit apply
cancel delete remove update change move transfer approve reject pay ship dispatch generate build spin open close
assign grant revoke reset deliver mark write adjust bump reserve replace report log file purge wipe drop erase clear
destroy truncate""".split())
DESTRUCTIVE_CUES = frozenset(stem(w) for w in """delete remove purge wipe drop erase clear destroy truncate nuke
cancel revoke terminate void deactivate reject withdraw reclaim unassign""".split())
REFUSALS = frozenset([*REFUSALS_ZH, stem("reject")])
# Verbs that say only "make something" or "show me something": any write, any read explains them.
GENERIC_WRITE = frozenset([*(stem(w) for w in """create make add new generate build spin open prepare produce give bump
raise increase decrease lower comp hand issue""".split()), "造", "建", "生", "成", "生成", "创", "创建", "新", "新建", "弄", "搞",
                           "做", "开", "来", "办", "给"])
GENERIC_READ = READ_CUES | frozenset(["查", "看", "查询", "查看", "看看", "查下", "多", "少", "多少"])


# "the booking", "this car", "这笔订单", "该员工": a thing that already exists. "a paid order" or "new
# hire" is one to make; a request that makes something says so (the cues below).
_DETERMINERS = r"(?:the|this|that|these|those|its|their|his|her|our|my|your)"
# ("the same scope": like something else, no thing said to exist; "the other org" is one that exists)
_DEFINITE_EN = re.compile(rf"\b{_DETERMINERS}\s+(?!same\b)"
                          rf"([a-z][a-z-]+)(?:\s+([a-z][a-z-]+))?", re.I)
_DEFINITE_ZH = re.compile(r"(?:这|那|该|此)(?:个|笔|单|张|位|辆|份|条|件|台|次|批|场|门|项|间|套|本|封)?([\u4e00-\u9fff]{1,2})")
_BESIDE_EN = re.compile(rf"\b(?:for|on|to|onto|against|from)\s+{_DETERMINERS}\s+([a-z][a-z-]+)(?:\s+([a-z][a-z-]+))?", re.I)
# 这季度, 这学期, 那阵子: a time, not a thing that exists
_TIMES_ZH = frozenset("季度 月份 星期 礼拜 学期 阵子 时候 会儿 周末 几天 两天 一阵 段时 年度 财年 半年".split())
# (the name may already be masked out as a value: a run of spaces)
_NAMED_OWNER_ZH = re.compile(r"([\u4e00-\u9fff][\u4e00-\u9fff](?<![号码]))\s*(?:[「“\"《『][^」”\"》』]{1,40}[」”\"》』]| {2,})\s*的")
MAKE_CUES = frozenset(stem(w) for w in "create make new generate build spin set register book open add produce fake "
                      "seed mock prepare".split())
MAKE_CUES_ZH = ("造", "生成", "创建", "新建", "新增", "新的", "个新", "新员工", "新人", "建", "来一", "下一", "弄一", "搞一",
                "做一", "开一", "录入", "添加", "注册")


_MAKER_VERBS = frozenset(stem(w) for w in "create new generate register make open provision issue".split())
# Verbs that change a thing which exists before them (approve_claim acts on a claim filed earlier)
_CHANGER_VERBS = frozenset(stem(w) for w in "approve reject cancel change update set adjust extend renew complete "
                           "confirm activate deactivate transfer return verify close archive suspend resume "
                           "pay refund void revoke remove delete disable enable toggle finalize ship".split())


UNKNOWN_RUN = 4  # Chinese characters nothing here knows, up to this many in a row, are one word (a name)


def name_stems(name: str) -> list[str]:
    """A tool's or rule's name as word stems: create_integration -> [creat, integr]."""
    return [stem(w) for w in name_words(name).lower().split()]


_STARTER_VERBS = frozenset(stem(w) for w in "start submit".split())


def starts_by_name(name: str) -> bool:
    """A step named for making or starting a thing later steps act on (create_sim, submit_ban_appeal,
    start_trial) — a wider reading than made_by_name's, for a recipe's later steps."""
    words = name_stems(name)
    return bool(words) and (words[0] in _MAKER_VERBS or words[0] in _STARTER_VERBS)


def made_by_name(name: str) -> frozenset[str]:
    """What a tool says in its name that it makes: create_integration -> {integr}; set_status,
    add_item_to_claim -> nothing (they change or add to something that exists)."""
    words = name_stems(name)
    return frozenset(words[1:]) if words and words[0] in _MAKER_VERBS else frozenset()


def changes_by_name(name: str) -> bool:
    """A tool whose name says it changes a thing that exists already (approve_claim, close_ticket)."""
    words = name_stems(name)
    return bool(words) and words[0] in _CHANGER_VERBS


# Verbs of a tool that sets a thing's values, any of which it may be told (set_limits, update_profile)
_SETTER_VERBS = frozenset(stem(w) for w in "set update change edit modify override adjust configure patch".split())


def sets_by_name(name: str) -> bool:
    """A tool whose name says it sets values of a thing that exists (set_workspace_limits, update_profile)."""
    words = name_stems(name)
    return bool(words) and words[0] in _SETTER_VERBS


def asks_to_make(text: str) -> bool:
    """Whether the request asks to make something ("make 3 paid orders", "造一笔订单")."""
    return bool({stem(w) for w in re.findall(r"[A-Za-z]+", text)} & MAKE_CUES) or any(c in text for c in MAKE_CUES_ZH)


def definite_things(text: str) -> list[str]:
    """Words for things the request speaks of as already existing ("the booking" -> book), unless it
    also asks to make something."""
    out = [stem(w) for m in _DEFINITE_EN.finditer(text) for w in m.groups() if w and not is_stopword(w)]
    rest = _DEFINITE_EN.sub(" ", text)  # "the booking" names a thing; "book a car" makes one
    if asks_to_make(rest):  # (the sub above touches only English words)
        # what is made is the verb's object; the thing it is made for or on exists ("generate an
        # invoice for the customer", "add roaming to the line", "put a credit on the invoice")
        return [stem(w) for m in _BESIDE_EN.finditer(text) for w in m.groups() if w and not is_stopword(w)]
    # (a noun with the suffix 子 is its first character: 那张单子 is that 单)
    out += [w[0] if w.endswith("子") else w for m in _DEFINITE_ZH.finditer(text)
            if len(w := m.group(1)) == 2 and w not in _TIMES_ZH]
    return out + [m.group(1) for m in _NAMED_OWNER_ZH.finditer(text)]  # 课程「高效沟通」的课件: that course exists


def pointed_at_zh(text: str) -> set[str]:
    """Chinese things pointed at with 这/那/该 ("这个授信申请": that application, one that exists). The two
    characters after 这个 are often no noun (这边, 那就): only meaningful against what a candidate makes
    (`Candidate.presumes`). A noun ending in 子 is its first character (这个单子: 单)."""
    return {w[0] if w.endswith("子") else w for m in _DEFINITE_ZH.finditer(text)
            if len(w := m.group(1)) == 2 and w not in _TIMES_ZH}


# Nouns that make the word before them a modifier: "离职证明" is a certificate, not a resignation;
# "离职率" a figure; "cancellation policy" a policy, "churn rate" a figure. Only where the knowledge never uses the noun (a pack
# with a certificate tool keeps the compound its own).
THING_HEADS_ZH = re.compile(r"(?=(证明|证书|率|政策|制度))")
THING_HEADS_EN = frozenset(stem(w) for w in "certificate certificates policy policies rate rates".split())


def modifiers(text: str, known: Callable[[str], bool], said: Callable[[str], bool]) -> list[tuple[int, int]]:
    """Where the request uses a word of the knowledge (`known`) only to qualify a noun the knowledge
    never says (`said`): "开一张离职证明" speaks of a certificate, so 离职 asks for nothing."""
    out = []
    for m in THING_HEADS_ZH.finditer(text):
        head, at = m.group(1), m.start()
        word = text[at - 2:at]
        if at >= 2 and re.fullmatch(r"[\u3400-\u9fff]{2}", word) and known(word) and not said(head) and not said(word + head):
            out.append((at - 2, at))
    words = list(re.finditer(r"[A-Za-z]+", text))
    for a, b in zip(words, words[1:], strict=False):
        head = stem(b.group(0))
        if head in THING_HEADS_EN and text[a.end():b.start()].strip() == "" and known(stem(a.group(0))) \
                and not said(head):
            out.append((a.start(), a.end()))
    return out


@cache
def common_words_zh() -> frozenset[str]:
    """Common two-character Chinese words (data/words_zh.txt, built from jieba's dictionary by
    data/build_words.py)."""
    text = (Path(__file__).parent / "data" / "words_zh.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def intent(text: str) -> int:
    """+1 the request wants something done, -1 it asks about something, 0 unclear (both or neither)."""
    text = _SEND_TO_SEE_ZH.sub("查看", text)  # "还款计划发我看下": shown, not sent
    raw = re.findall(r"[A-Za-z]+", _ARRIVED.sub(" ", text))
    words = {stem(w) for w in raw}
    if is_question(text) and not ("?" in text or "？" in text):
        return -1  # "假单批了没": asked about, whatever verb it names
    asked = ("?" in text or "？" in text) and not is_polite_request(text)
    reads = bool(words & READ_CUES) or asked or any(c in text for c in READ_CUES_ZH if c != "吗")
    zh = _NOT_WRITING_ZH.sub(" ", text)  # (开始 begins, it opens nothing: "查下E1 下周一开始三天年假的余额")
    writes = bool(words & WRITE_CUES) or any(c in zh for c in WRITE_CUES_ZH) or bool(_DO_ONE_ZH.search(text))
    if reads and writes and not any(c in zh for c in WRITE_CUES_ZH) and not _DO_ONE_ZH.search(text) and \
            not {stem(w) for w in raw if not w.lower().endswith("ed")} & WRITE_CUES:
        return -1  # "list the revoked keys": a participle says which ones to show, not what to do
    return 0 if reads == writes else 1 if writes else -1


_NOT_WRITING_ZH = re.compile(r"开始|离开|公开|开心|开会")  # words with a write cue's character that write nothing
_SEND_TO_SEE_ZH = re.compile(r"(?:发|拉|导)(?:给)?我(?:看|瞅|瞧|查|(?=\s*(?:[,，。!！~～]|$)))")  # (not 发我邮箱)
# "TO-1 showed up in Reno": arrived, not "show me"; "looks like a real crash": it seems, not "look it up"
_ARRIVED = re.compile(r"(?i)\bshow(?:s|ed|n|ing)?\s+up\b(?!-)|\blook(?:s|ed)?\s+like\b")
# A character before 个 that is a verb, not a demonstrative, a numeral or a verb of looking or finding
_VERB_BEFORE_GE = r"[^\W\d这那哪每一几两三四五六七八九十整各某半多单是有找拉算列搜翻查看]"
# "给他选个课", "请个假": a verb with 个 and its object asks for one thing to be done
_DO_ONE_ZH = re.compile(rf"(?:给|替)[^,，。;；]{{0,16}}?({_VERB_BEFORE_GE})个(?![月人小])[\u4e00-\u9fff]")


# "can you / could someone / would you mind ...?", "能不能帮我...吗": a request put politely, not a question
_POLITE = re.compile(r"^\s*(?:please\s+|hey\s+|hi\s+)?(?:can|could|would|will)\s+(?!i\b|we\b)\S+|"
                     r"^\s*(?:能不能|可不可以|能否|可否|麻烦|请|可以|能|可)?\s*帮(?:我|忙|个忙)", re.I)


def is_polite_request(text: str) -> bool:
    """A request put as a question out of politeness ("can the driver pick it up tomorrow?"), also
    after what it is about ("ORD-1 is stuck, can you push the payment through?")."""
    return any(_POLITE.match(clause) for clause in re.split(r"[,，.;!?？]\s*", text))


def is_question(text: str) -> bool:
    """Put as a question: a question mark, or a Chinese question particle at the end — unless it is
    a request put politely ("can you ...?", "帮我...吗")."""
    stripped = text.strip()
    if is_polite_request(stripped):
        return False
    return "?" in text or "？" in text or stripped.endswith(("吗", "呢", "么", "没有", "没")) or "有没有" in text \
        or "是否" in text or any(not _CONCESSIVE.search(stripped[:m.start()]) and not _ANY_WILL_DO.match(stripped, m.end())
                                for m in _ASKING_WORD_ZH.finditer(stripped))


# A Chinese question needs no question mark: an interrogative word asks ("这台是谁在用", "工号是多少").
# Not 几 or 什么 alone: "造几笔订单" makes a few, "没什么问题" asks nothing
# (哪 neither: "属于哪个部还没定" tells what is not known yet)
# A verb asked both ways asks whether ("转没转正", "批没批", "是不是"): not 能不能/可不可 (a polite
# request), 好不好/行不行 (a tag after one), nor 时不时/动不动 (now and then, at every turn)
_ASKING_WORD_ZH = re.compile(r"是谁|谁(?:在|的|来)|(?:是|有|剩|还剩)多少|多少钱|是什么|(?:什么|啥)(?:状态|时候|情况)|"
                             r"(?![能可好行时动])([\u4e00-\u9fff])[没不]\1")
# ... unless it says "whoever / whatever": 不管是什么原因, 谁来审批都行, 有多少退多少
_CONCESSIVE = re.compile(r"(?:不管|无论|不论)[^,，。;；]*$")
_ANY_WILL_DO = re.compile(r"[^,，。;；]{0,6}?(?:都|也)(?:行|可以|可|好|成)|[^,，。;；]{0,2}[退给发补扣][^,，。;；]{0,2}多少")


_INQUIRY = re.compile(r"^\s*(?:what|what's|whats|how|which|when|who|whose|why|where|is|are|was|were|does|do|did|has|have)\b|"
                      r"什么|多少|几[个天次笔号]?|哪|谁|是否|(?:吗|呢|没|没有)[?？]?\s*$", re.I)


# Questions that ask when, why or how long: information only a read can give ("王芳什么时候转正" is no
# request to confirm her, "why was INV-7 charged twice?" none to charge it).
_FACT_QUESTION = re.compile(r"什么时候|啥时候|几时|为什么|为啥|多久|多长时间|"
                            r"^\s*(?:when|why|how\s+(?:long|come|many|much))\b", re.I)


def asks_when_or_why(text: str) -> bool:
    return bool(_FACT_QUESTION.search(text))


# What a message may open with before the question itself: "quick one – is org_1 suspended?", "hey team, …"
_LEAD_IN = re.compile(r"^\s*(?:(?:quick|small|dumb|silly|random)\s+(?:one|q|question)|qq|hey(?:\s+(?:team|all|folks|guys))?|hi|"
                      r"hello|yo|ok(?:ay)?|so|also|btw|fyi|sorry|question)\s*(?:[-–—:,!]+\s*|\s+(?=[-–—]))?\s*(?=\S)", re.I)


def without_lead_in(text: str) -> str:
    m = _LEAD_IN.match(text)
    return text[m.end():] if m and m.end() < len(text) else text


def inquires(text: str) -> bool:
    """A question that asks for information ("what's our churn rate?", "批了没"), not a request put
    as a question ("can we shift 40 units…?")."""
    return is_question(text) and bool(_INQUIRY.search(without_lead_in(text)))


_QUESTION_START = re.compile(r"\s*(?:what|what's|whats|how|which|when|who|who's|whose|why|where|where's|wheres|is|are|"
                             r"was|were|does|do|did|has|have|had|any)\b", re.I)


_ID_LIKE = re.compile(r"\S*\d\S*")  # ids and numbers: E20260137, HR2603180007, 2026-03-01


def only_asks(text: str) -> bool:
    """A request every clause of which is a question ("where's SO-1 at? has it shipped or not",
    "E1 现在啥状态,转没转正", "E1 转正了吗"): nothing in it asks for a change, however it names a
    state or a recipe's trigger."""
    if _CJK.search(text):
        # each clause a question: a Chinese one by its own marks, an English one by how it starts ("批没批?
        # approve it" asks for the approval); a clause of ids alone says nothing
        clauses = [c for c in re.split(r"[,，。;；!！?？]+", text) if _CJK.search(c) or re.search(r"[A-Za-z]{2,}", c)]
        return bool(clauses) and all(
            is_question(c) if _CJK.search(c) else
            (not re.search(r"[A-Za-z]{3,}", _ID_LIKE.sub(" ", c)) or bool(_QUESTION_START.match(c)))
            for c in clauses)
    if not inquires(text):
        return False
    clauses = [c for c in re.split(r"[?!.;,]+", without_lead_in(text)) if re.search(r"[A-Za-z]", c)]
    return bool(clauses) and all(_QUESTION_START.match(c) and not _ASKED_AS_REQUEST.match(c) for c in clauses)


# "just want to look, don't change anything", "只看一下,别改": whatever else it says, no write (not
# "read-only": that is often what to give someone)
_NO_CHANGES = re.compile(r"(?i)\b(?:don'?t|do not|without|no)\s+(?:change|chang|touch|modify|edit)(?:e|ing)?\s+(?:anything|a thing)\b|"
                         r"\bjust (?:want to |wanna |need to )?(?:look|peek)(?:ing)?\b(?! (?:it )?up\b)|"
                         r"只(?:是)?(?:看|查)(?:看|一下|下)?[,，。\s]*(?:别|不要|不用)(?:改|动)|(?:别|不要)(?:改|动)(?:任何)?(?:东西|数据)|"
                         # ... yet: "走流程前先问我", "ask me first", "check with me before you do it"
                         # (not 先跟我们…, nor what was checked already: 先跟我确认过了)
                         r"(?<!不用)(?<!不要)(?<!不必)(?<!无需)(?<!别)(?:先|请先)(?:问|问问|问一下|跟|和)我(?![们过]|确认过)|问过我再|"
                         r"等我确认(?!过)|走(?:一下|下)?流程(?:之)?前")
# ... "ask me first", "check with me before", unless said not to ("you don't need to ask me first")
_ASK_FIRST_EN = re.compile(r"(?i)\b(?:ask|check with|confirm with)\s+me\s+(?:first(?!\s+thing)|before)\b|"
                           # (held for the requester: "…, wait for me to confirm", "hold until I say so" — not
                           # how long a state lasts: "disable it until I say otherwise"; nor "I told them to wait")
                           r"(?<!\bto\s)\bwait\s+(?:for\s+(?:me|my)\b|until\s+I\b|till\s+I\b)|"
                           r"(?<!\bon\s)\bhold(?:\s+(?:off|on))?\s+(?:until|till)\s+I\b")
_NOT_BEFORE = re.compile(r"(?i)\b(?:don'?t|do not|does not|doesn'?t|no need|never|without|not)\b[\w\s']{0,24}$")


# "…customer overpaid - sort it out": a situation told, and a verb that leaves the change to whoever
# reads it — which write is meant, the request does not say. (Not 帮忙处理一下: Chinese says that after
# saying the change, "工资涨到22000，帮忙弄一下")
_LEAVES_IT_TO_US = re.compile(r"\b(?:sort|figure)\s+(?:it|this|that|them)\s+out\b"
                              r"|\b(?:deal\s+with|take\s+care\s+of|handle|fix)\s+(?:it|this|that|them)\s*(?:pls|please)?\s*[.!]*\s*$",
                              re.I)


def leaves_it_to_us(text: str, verbs: frozenset[str] = frozenset()) -> bool:
    """Whether the request's only ask is to "handle it", the change left unsaid: no other part of it
    starts with a verb of change, general or one the knowledge's writes are named by ("revoke ak_1, it
    leaked - handle it", "evt_1 refund everyone and sort it out" say which change)."""
    m = _LEAVES_IT_TO_US.search(text)
    if m is None:
        return False
    change = (_CHANGE_VERBS | verbs) - _NEVER_VERBS
    for part in _PARTS.split(f"{text[:m.start()]} {text[m.end():]}"):
        # (past an id, a courtesy: "org_1's webhook is spamming us" starts with webhook)
        tokens = [t for t in re.findall(r"[\w'-]+", part) if t.lower() not in _COURTESY]
        words = [(i, t.lower()) for i, t in enumerate(tokens) if not any(c.isdigit() for c in t)]
        if not words or stem(words[0][1]) not in change:
            continue
        # a verb acts on something: alone ("update: sub_1 wants fewer seats") it is a label, and one
        # followed by a verb or a preposition is a noun ("refund requests are piling up", "issue on evt_1")
        after = tokens[words[0][0] + 1:]
        if after and not _NOUN_NEXT.fullmatch(after[0]) and not after[0].lower().endswith("'s"):
            return False
    return True


_CHANGE_VERBS = WRITE_CUES | _CHANGER_VERBS | DESTRUCTIVE_CUES | frozenset(
    stem(w) for w in "set upgrade downgrade rotate escalate extend refund".split())
_NEVER_VERBS = frozenset(stem(w) for w in "new".split())  # (an adjective: "new complaint about ord_1")
_NOUN_NEXT = re.compile(r"(?i)(?:requests?|is|are|was|were|has|have|had|about|of|"
                        r"keeps?|went|got|seems?|looks?|failed|stuck|pending)")
_PARTS = re.compile(r"[,;:.!?()]+|\s[-–—]+\s|\s[–—]+|[–—]+\s|\b(?:and|then|also)\b", re.I)
_THEN = frozenset("then and also plus afterwards next".split())
_COURTESY = frozenset("please pls plz kindly just can could would will you we someone".split())


# "离职，帮忙走下流程": the whole procedure for what is said, not its first step alone
_PROCEDURE = r"走(?:一下|一遍|下|个|完)?(?:全|整个|完整)?(?:的)?流程"
_PROCEDURE_ZH = re.compile(rf"(?:帮忙|帮我|麻烦|请)?{_PROCEDURE}(?:吧|哈|了)?")
# ... or says not to ("不用走流程", "先别走流程了"), or to stop before it ("走流程前先问我")
_NO_PROCEDURE_ZH = re.compile(rf"(?:(?:不|不用|不要|别|先别|不需要|无需|无须|不必|暂不|先不|没必要)(?:用|要|再|去)?{_PROCEDURE}(?:了)?"
                              r"|(?:全|整个)?流程(?:就|也|都)?(?:不用|不要|别|不需要|无需|不必|先别)(?:再)?走(?:了)?"
                              rf"|{_PROCEDURE}(?:之)?前)(?!不行|可不行|是不行|不可以)")  # (不走流程不行: it must)


def procedure_phrases(text: str) -> list[tuple[int, int]]:
    """Where the request speaks of a procedure, asked for or not: words about how to go about it, not
    about what to do (流程 is in every recipe's description)."""
    return [m.span() for m in (*_NO_PROCEDURE_ZH.finditer(text), *_PROCEDURE_ZH.finditer(text))]


def asks_for_procedure(text: str) -> bool:
    """The request asks to go through the procedure (走下流程) of whatever it names — not when it
    says not to, or to stop before it."""
    return bool(_PROCEDURE_ZH.search(_NO_PROCEDURE_ZH.sub(lambda m: " " * len(m.group(0)), text)))


# "inv_1 was refunded today", "org_1 got suspended": a report of what happened, in the passive past —
# not inside a description of what is wanted ("an order that was paid", "I need a key that was revoked")
_PASSIVE_PAST = re.compile(r"(?i)(?<!\bthat )(?<!\bwhich )(?<!\bwho )\b(?:was|were|got|(?:has|have|had)\s+(?:already\s+|just\s+)?been)"
                           r"\s+(?:already\s+|just\s+|all\s+)?(?:[a-z]+(?:ed|en)|paid|lost|sent|sold|made|done|set|cut|shut|put"
                           r"|built|held|left|kept|spent|split|told|won)\b")
_ASKING_EN = re.compile(r"(?i)\b(?:i|we)\s+(?:need|want|would like|'d like)|\b(?:need|want)\s+(?:a|an|one|some|to)\b|"
                        r"\b(?:give|get|send|show)\s+me\b|\b(?:can|could|would|will)\s+(?:you|someone|we)\b|"
                        r"\b(?:please|pls|plz|kindly|let'?s|gimme)\b|\bmake\s+(?:a|an|me|sure)\b")


# "E1 的社保已经停掉了": a clause that tells what is already so (已经/已 … 了), and nothing in the request
# that asks (帮/请/麻烦/给我/一下/吧/要…, or a question)
_REPORT_ZH = re.compile(r"(?:已经|已)[^，,。;；!！?？]{0,10}?[了过](?:[呢啦哈呀]|的)?$")
_ASKING_ZH = re.compile(r"帮|请(?!了)|麻烦|给我|一下|吧|要|需要|想|能不能|可以|可不可以|得|再|把|[?？吗]")


def only_reports(text: str, verbs: frozenset[str] = frozenset()) -> bool:
    """A request that only reports what happened ("inv_1 was refunded today", "org_1 got suspended
    last week", "E1 的社保已经停掉了"): no part of it asks for anything, so no write is what it asks for.
    (Not what just happened: "业主刚用支付宝交了" asks to record the payment.)"""
    if _CJK.search(text):
        parts = [p.strip() for p in re.split(r"[，,。;；!！\n]+", text) if p.strip()]
        return bool(parts) and not _ASKING_ZH.search(text) and all(_REPORT_ZH.search(p) for p in parts)
    if not _PASSIVE_PAST.search(text) or _ASKING_EN.search(text) or "?" in text:
        return False
    return not any(starts_a_change(part, verbs | _DOING_VERBS) for part in _PARTS.split(text))


# verbs that ask for something done without saying a change ("handle the delivery problem", "bring a
# fresh test purchase all the way to refunded", "get a replacement out")
_DOING_VERBS = frozenset(stem(w) for w in """handle get bring do run fix sort deal take put send check look push
kick bump give try fire process redo retry resend reissue start stop finish kill nuke unban reship reopen restore
undo"""
                         .split())


def starts_a_change(part: str, verbs: frozenset[str] = frozenset()) -> bool:
    """Whether a part of a request starts (past a courtesy or a "then") with a verb of change that
    acts on something."""
    tokens = [t for t in re.findall(r"[\w'-]+", part) if t.lower() not in _COURTESY | _THEN]
    if not tokens or stem(tokens[0].lower()) not in (_CHANGE_VERBS | verbs) - _NEVER_VERBS:
        return False
    return len(tokens) == 1 or not _NOUN_NEXT.fullmatch(tokens[1])  # ("…was leaked, revoke": a bare order)


def forbids_changes(text: str) -> bool:
    """The request says to change nothing ("just want to look, don't change anything"), or not yet
    ("ask me first", 先问我)."""
    return bool(_NO_CHANGES.search(text)) or any(not _NOT_BEFORE.search(text[:m.start()])
                                                   for m in _ASK_FIRST_EN.finditer(text))


# Requests worded as questions: "how about shipping SO-1 via UPS?", "is it ok to cancel SO-1?"
_ASKED_AS_REQUEST = re.compile(r"\s*(?:how about|what about|do you mind|would you mind|is it (?:ok|okay|possible|alright|"
                               r"fine|safe) (?:to|if)|are (?:we|you) able to|is there (?:a|any) way to|do we (?:need|want) to)\b",
                               re.I)


def whole_word(token: str) -> bool:
    """A token that is a word on its own: an English stem, or Chinese of two characters or more (a
    single character is a piece of many words)."""
    return len(token) > 1 or token.isascii()


# "约一下", "回复一下", "帮我看下": the verb before 一下 is what the request asks to do. These say only
# "do it" or "look at it", and any candidate does them.
_ACTION_ZH = re.compile(r"([\u4e00-\u9fff]{1,2})(?:一下|一把)")
_ONE_FOR_ME_ZH = re.compile(rf"(?:帮我|帮忙|给我|替我)({_VERB_BEFORE_GE})个")  # "帮我订个会议室": 订
_HELPERS_ZH = "我你他她它忙帮把给请再先就都也来去"
GENERIC_ACTIONS_ZH = frozenset("办 弄 搞 做 整 处理 安排 跑 走 点 操作 提 看 查 瞅 瞧 瞄 确认 核对 核实 试 测 测试 造 建 "
                               "生成 改 调 批 审 开 加 跟进 执行 登记 记 录 补 统计 算 对 过 准备 弄好 办理 完成 配置 设置 申请 拉 捞 列 "
                               "搜 找 翻 等 稍等 发 填 转 推 更新 刷新 同步".split())


def named_actions(text: str) -> list[tuple[str, int]]:
    """The verbs a Chinese request names with 一下 ("入职体检帮我约一下" -> 约), with where each starts,
    unless they only say "do it"."""
    out = []
    for m in [*_ACTION_ZH.finditer(text), *_ONE_FOR_ME_ZH.finditer(text)]:
        verb, at = m.group(1), m.start(1)
        if len(verb) == 2 and verb[0] in _HELPERS_ZH:
            verb, at = verb[1], at + 1
        if verb not in GENERIC_ACTIONS_ZH and verb[-1] not in GENERIC_ACTIONS_ZH:
            out.append((verb, at))
    return out


# What the request says has not happened yet ("重修费还没交", "批了就行,先别缴费", "not paid yet"):
# the recipe stops before the step that does it.
# Only "not yet" (还没, 尚未, 先别, "not … yet", "hasn't been …"): a plain "don't"/不要/别 says how to do
# what is asked ("don't pack it in a large box", "不要重复建学生"), not where to stop.
_NOT_YET_ZH = re.compile(r"(?:还没有?|尚未|还未|先别|先不用|先不要?|暂不|暂时不用|暂时不要?|暂时别)\s*([\u4e00-\u9fff]{1,2})")
_NOT_YET_EN = re.compile(r"\b(?:(?:not|n't)\s+(?:been\s+|be\s+)?([a-z]+)\s+yet|not\s+yet\s+(?:been\s+)?([a-z]+)|"
                         r"(?:hasn't|haven't|has\s+not|have\s+not)\s+(?:been\s+|yet\s+)?([a-z]+ed))\b", re.I)
_NOT_YET_FILLER_ZH = frozenset("问题 关系 事 必要 着急 急".split())
_COMPLEMENTS_ZH = "下来完好掉上去出的了呢啊吧呀"  # 批下来, 交的: the verb without what follows it


_DONT_EN = re.compile(r"\b(?:don't|dont|do\s+not|never|no\s+need\s+to)\s+([a-z]+)", re.I)


def told_not_to(text: str) -> list[str]:
    """What an English request says not to do ("don't invoice them" -> invoic), as stems."""
    return [stem(m.group(1).lower()) for m in _DONT_EN.finditer(text)
            if not is_stopword(m.group(1).lower()) and m.group(1).lower() not in _NO_DOING]


# "don't forget to pay", "dont worry about the fee": said with don't, and no doing refused
_NO_DOING = frozenset("forget worry mind hesitate bother know think care".split())


def not_yet(text: str) -> list[str]:
    """The actions the request says are not done yet (Chinese as written, 1–2 characters; English stems)."""
    # (not 还没接过单: 过 tells what someone has never done, not a step still to come)
    # (nor 还没交的话…: a condition, "if it is not paid yet")
    verbs = (m.group(1).rstrip(_COMPLEMENTS_ZH) for m in _NOT_YET_ZH.finditer(text)
             if not m.group(1).endswith("过") and "的话" not in text[m.start(1):m.end(1) + 3])
    out = [v for v in verbs if v and v not in _NOT_YET_FILLER_ZH and v[0] not in "的了过着"]
    out += [stem(w.lower()) for m in _NOT_YET_EN.finditer(text) for w in m.groups() if w and not is_stopword(w.lower())]
    return out


# An English request's leading verb, after the politeness before it ("pls send …", "can you refund …")
_LEADING = re.compile(r"\s*(?:(?:please|pls|plz|kindly|just|hey|hi|can you|could you|would you|can we|could we)\s+)*"
                      r"([A-Za-z]+)", re.I)


def leading_verb(text: str) -> str | None:
    """The action an English imperative starts with ("send jane@… a pre-arrival email" -> send), when it
    is a verb of changing something that says which change (not make/create/add: any maker does that)."""
    word = first_verb(text)
    return word if (word in WRITE_CUES or word in _LEADING_ONLY) and word not in MAKE_CUES and word not in _LIGHT_VERBS \
        else None


def first_verb(text: str) -> str | None:
    """The stem of the word an English imperative starts with, whatever verb it is ("send cmp_1" -> send)."""
    m = _LEADING.match(text)
    return stem(m.group(1).lower()) if m else None


# Verbs of change only where they lead: "refund for inv_1?" and "the refund on inv_1" ask about one
_LEADING_ONLY = frozenset({stem("refund")})


# Verbs that put in or hand out whatever follows ("issue a refund", "raise a ticket", "log it"): they
# say no particular change either
_LIGHT_VERBS = frozenset(stem(w) for w in "issue raise submit apply record log file report write schedule "
                                          "deliver".split())


_OBJECT = re.compile(r" ?(?:(?:the|a|an|this|that|these|those|my|our|their|his|her|its|them|him|it|me|us) )*"
                     r"((?:[A-Za-z][A-Za-z'-]*(?: (?=[A-Za-z]))?){1,3})")
_OBJECT_END = frozenset("on for to in at of with from by as and or but so because since pls please asap now today "
                        "tomorrow".split())


_PRONOUN = re.compile(r"\s+(?:it|them|this(?: one)?|that(?: one)?)(?=\s*(?:$|[,.;!?]|\b(?:to|into|as|for|with|please|pls|now|asap)\b))",
                      re.I)


# A person the request acts for, at the start of a clause: "帮新来的同事做下社保增员", "给新员工签劳动合同",
# "给他开通邮箱" — someone who exists (not 给我/帮忙: the one asking, or a polite word).
_FOR_PERSON_ZH = re.compile(r"(?:^|[\s,，。;；!！?？]|请|麻烦|帮我|帮忙)(?:给|帮|替|为)(?![我咱俺忙])"
                            r"([\u4e00-\u9fff]{0,5}?(?:同事|员工|新人|同学|小伙伴|候选人|客户|顾客|用户|买家|业主|"
                            r"老师|学生|骑手|司机|他们|她们|他|她|这位|那位))")


def acts_for_person(text: str) -> str | None:
    """The person a Chinese request does something for, said as someone who exists ("帮新来的同事做下
    社保增员": that colleague — a recipe that would first make a new employee is not asked for)."""
    m = _FOR_PERSON_ZH.search(text)
    if m is None or _MAKES_ONE_ZH.search(text, m.end()):
        return None  # "给业务同事造一个离职员工": the colleague asks for test data; something is made
    if m.group(1) in _PRONOUNS_ZH:  # "研发部新来的同事，帮他签合同": who 他 is, said in the clause before
        before = _CLAUSE_END_ZH.split(_HELPING_ZH.sub("", text[:m.start(1)]))[-2:]
        said = next((c for c in reversed(before) if c.strip()), "")
        if _PERSON_NOUN_ZH.search(said) and not _MAKES_ONE_ZH.search(said):
            return said.strip()  # (the person as said — it may be shown in a question — not 他)
    return m.group(1)


_HELPING_ZH = re.compile(r"(?:麻烦|帮忙|请|帮|替|给|为|我|\s)+$")  # "…，麻烦帮|他": the words before the pronoun


_PRONOUNS_ZH = frozenset({"他", "她", "他们", "她们"})
_CLAUSE_END_ZH = re.compile(r"[,，。;；!！?？\n]")
_PERSON_NOUN_ZH = re.compile(r"同事|员工|新人|同学|小伙伴|候选人|客户|顾客|用户|买家|业主|老师|学生|骑手|司机")


_MAKES_ONE_ZH = re.compile(r"造|生成|创建|新建|(?:来|弄|搞|做|建)一")


def verb_on_pronoun(text: str) -> str | None:
    """The verb of an imperative whose object is a pronoun ("escalate it to T&S", "close this one"),
    as a stem: the thing it acts on exists already. The imperative may follow what is told of the thing
    ("northwind is leaving us, cancel them")."""
    # (a later clause only after what is told, not after an order that makes the thing: "open a P1
    # ticket …, escalate it to engineering" escalates the ticket it opens)
    told = first_verb(text) not in WRITE_CUES | GENERIC_WRITE and not asks_to_make(text)
    for start in [0] + ([m.end() for m in _CLAUSE_START.finditer(text)] if told else []):
        m = _LEADING.match(text, start)
        if m and _PRONOUN.match(text, m.end()):
            return stem(m.group(1).lower())
    return None


# Where a clause may start with an imperative: after a comma, a full stop, a semicolon or a dash
_CLAUSE_START = re.compile(r"[,;.!?\n]\s*|\s[-–—]\s")


def opening_verbs(text: str) -> list[str]:
    """The verbs an English request (its values masked) leads with, as stems: its first word, or the verb
    of a later clause acting on a pronoun ("ws-12 is on pro. upgrade it to enterprise") — not a function
    word, nor a verb any write explains ("make", "add")."""
    if not text.lstrip()[:1].isascii():
        return []
    return [w for w in (first_verb(text), verb_on_pronoun(text))
            if w and w.isalpha() and not is_stopword(w) and w not in GENERIC_WRITE]


# Asking to undo a change: "unpublish evt_1", "cancel the suspension on org_1", "lift the ban on …", "undo
# the disable", 解除冻结, 取消下架, 解冻. A write that does the change undone goes the other way; one
# that knows the undoing word but nothing of what is undone undoes something else.
_UNDO_OBJECT_EN = re.compile(r"(?i)\b(undo|reverse|revert|lift|cancel|remove|stop|end|withdraw|"
                             r"roll\s+back|take\s+back)\s+(?:the|this|that|their|its|his|her|our|my|your)\s+"
                             r"([a-z]+)(?=[\s,;:!?.]|$)(?:\s+([a-z]+)(?=\s|[,;:!?]|\.(?!\w)|$))?")
_UNDO_ZH = re.compile(r"(解除|取消|撤销|撤回)(?:掉|对)?(?:这个|那个|这笔|那笔|这张|那张|该)?"
                      r"((?![的了一过着])[\u4e00-\u9fff]{2})(?!的)")  # (not 取消状态的订单: what it is)
_UNDONE_BY_ONE_ZH = {"解冻": "冻结", "解锁": "锁定", "解封": "封禁"}
# Words of undoing (a write named by one of them, other than the change undone, may be the undoing)
UNDOING_EN = frozenset(stem(w) for w in "undo reverse revert lift cancel remove stop end withdraw release drop delete "
                                        "void close terminate deactivate unbind unassign restore reactivate resume "
                                        "reopen reinstate enable disable revoke reject deny archive".split())
UNDOING_ZH = ("解除", "取消", "撤销", "撤回", "终止", "作废")


def undone_by_one_zh(what: str) -> list[str]:
    """The one words that undo a Chinese change (冻结 -> 解冻)."""
    return [word for word, undone in _UNDONE_BY_ONE_ZH.items() if undone == what]


_NOT_UNDOING = frozenset("under until unless units unique universe university unknown unusual unable unhappy "
                         "unfortunately".split())


# A clause that puts its change off or refuses it ("解冻等我通知", "don't unpublish it yet"): nothing asked now
_PUT_OFF = re.compile(r"(?i)等我|以后|之后再|不要|不用|别|\b(?:don'?t|do not|never|not|no|wait|hold|later|until|"
                      r"till|once|when|after|if)\b")
# A clause: the text between punctuation (either language's)
CLAUSE = re.compile(r"[^,，。;；!！?？\n]+")


def undoings(text: str) -> list[tuple[str, str]]:
    """What the request asks to undo and the word it undoes it with: (stem, stem) in English —
    ("publish", "unpublish"), ("suspension", "cancel") — and as written in Chinese: ("冻结", "解除").
    Not in a clause that puts it off beside one that asks something now ("U1 冻结，解冻等我通知" asks no
    unfreezing; "cancel the suspension once they pay" still asks to undo, later)."""
    clauses = [(m.start(), m.end(), bool(_PUT_OFF.search(m.group(0)))) for m in CLAUSE.finditer(text)]
    put_off = [(a, b) for a, b, off in clauses if off] if not all(off for *_, off in clauses) else []
    return [u for at, u in _undoings(text) if not any(a <= at < b for a, b in put_off)]


def _undoings(text: str) -> list[tuple[int, tuple[str, str]]]:
    out: list[tuple[int, tuple[str, str]]] = []
    for start in [0] + [m.end() for m in _CLAUSE_START.finditer(text)]:
        m = _LEADING.match(text, start)
        word = m.group(1).lower() if m else ""
        if m and word.startswith("un") and len(word) >= 5 and not word.endswith(("ed", "paid")) \
                and word not in _NOT_UNDOING:
            out.append((m.start(1), (stem(word[2:]), stem(word))))  # (an imperative: "unpaid invoices" is none)
    for m in _UNDO_OBJECT_EN.finditer(text):
        head, tail = m.group(2).lower(), (m.group(3) or "").lower()
        head = tail if tail and not is_stopword(tail) else head  # "remove the fraud hold on …": hold
        if not is_stopword(head):
            out.append((m.start(), (stem(head), stem(m.group(1).split()[0].lower()))))
    out += [(m.start(), (m.group(2), m.group(1))) for m in _UNDO_ZH.finditer(text)]
    out += [(m.start(), (what, word)) for word, what in _UNDONE_BY_ONE_ZH.items() for m in re.finditer(word, text)]
    return out


def opposed(a: str, b: str) -> bool:
    """Two English stems that say opposite changes of one word: enable/disable, bind/unbind,
    activate/deactivate ("re-enable we_1" is no disable_webhook; "remove a driver" may well be an
    add_endorsement of type remove_driver)."""
    return {a, b} == {stem("enable"), stem("disable")} or any(
        x == p + y for x, y in ((a, b), (b, a)) for p in ("un", "de", "dis"))


def akin(a: str, b: str) -> bool:
    """Two English stems of one word ("suspension", "suspend"; "enrollment", "enroll")."""
    if a == b:
        return True
    n = len(os.path.commonprefix([a, b]))
    return n >= 5 and n >= min(len(a), len(b)) - 2


def leading_object(text: str) -> str:
    """The thing a leading verb acts on ("refund the room charge on …" -> "room charge"): the words
    after the verb up to a preposition, a value (masked as blanks) or punctuation."""
    m = _LEADING.match(text)
    if not m or leading_verb(text) is None:
        return ""
    rest = _OBJECT.match(text, m.end())
    words: list[str] = []
    for w in (rest.group(1).split() if rest else []):
        if w.lower() in _OBJECT_END:
            break
        words.append(w)
    return " ".join(words)


# Rolling something back, not to a value ("回滚掉那条审批记录", not "手机号回滚成 138…": that sets one)
_ROLLBACK = re.compile(r"(?i)\broll(?:ed|ing)?[\s-]?back\b(?!\s+to\b)|回滚(?!\s*(?:成|到|为|至))")


# Waiting for the requester: 等我确认, 等我通知 (a step held, or how to go about it — not a reason)
WAIT_FOR_ME_ZH = r"等我(?:确认|通知|说|拍板|点头)"


# Verbs of adding and of taking away: two tools that do opposite things to the same thing (社保增员 /
# 社保减员, enable / disable) are no rivals when the request says one side of the pair. The language's
# words, not any domain's; a time said as a start ("从2026-07开始停掉", "starting Monday") is no side.
_ADDING_ZH = ("增员", "增加", "新增", "参保", "加入", "添加", "开通", "启用", "开启", "绑定", "上架", "恢复")
_TAKING_ZH = ("减员", "减少", "停缴", "停保", "停掉", "停用", "关闭", "关掉", "解绑", "下架", "移除", "退出", "取消")
_ADDING_EN = frozenset(stem(w) for w in "add enable start open activate grant assign subscribe enroll join resume".split())
_TAKING_EN = frozenset(stem(w) for w in "remove disable stop close deactivate revoke unassign unsubscribe unenroll "
                       "leave pause suspend".split())
_STARTING = re.compile(r"从[^，,。;；]{0,16}?开始|(?i:\bstart(?:ing|s)?\s+(?:on|from|at|in)\b|\bstarting\b)")


# A clause that tells what is already so ("旧车已经关闭了", "the old key was revoked"): its verbs are no side asked
_REPORTED = re.compile(r"[^，,。;；!！?？]*(?:已经|已)[^，,。;；!！?？]*|(?i:[^,;.!?]*\b(?:was|were|has been|had been|already)\b[^,;.!?]*)")
_FIRST_CLAUSE = re.compile(r"[^，,。;；!！?？]*")
_NEGATED = re.compile(r"(?i)不要|不用|别|不必|无需|\b(?:don'?t|do not|no need|never|not)\b")


def without_reports(text: str) -> str:
    """The text without its clauses that report what is already so (the first clause stays: the ask)."""
    head = _FIRST_CLAUSE.match(text).end()  # (matches every text, if only the empty string)
    return text[:head] + _REPORTED.sub(" ", text[head:])


def asked_side(text: str) -> tuple[int, list[str]]:
    """The side (see `direction`) the request's first clause — its ask — speaks of, and its words in
    it; none where that clause negates ("不要解绑，绑到 VH-1") or says both."""
    clause = _FIRST_CLAUSE.match(text).group(0)
    return (0, []) if _NEGATED.search(clause) else _sided(clause)


def _sided(text: str) -> tuple[int, list[str]]:
    """The side the text speaks of (+1 adding, -1 taking away, 0 both or neither) and its words of it."""
    text = _STARTING.sub(" ", text)
    stems = {stem(w) for w in re.findall(r"[A-Za-z]+", text)}
    adds = sorted(stems & _ADDING_EN) + [w for w in _ADDING_ZH if w in text]
    takes = sorted(stems & _TAKING_EN) + [w for w in _TAKING_ZH if w in text]
    if bool(adds) == bool(takes):
        return 0, []
    return (1, adds) if adds else (-1, takes)


def direction(text: str) -> int:
    """+1 when the text speaks only of adding (增员, enable), -1 only of taking away (减员, disable),
    0 when of both or neither."""
    return _sided(text)[0]


# An order and why, nothing more: "revoke ak_1 asap, it was exposed in a public gist", "scrap VH-1 pls -
# it was totalled". The order is a verb, one id and at most an urgency; the remark, one statement of what
# is or was so (it/they/the customer's endpoint … was/has been/keeps …), with no word that takes the order
# back, limits it or makes it wait (nah, j/k, false alarm, only, provided, when, until, harsh …).
_ORDER = re.compile(r"(?i)^\s*(?:(?:pls|please|plz|kindly)\s+)?[a-z]+\s+(?:the\s+)?[A-Za-z0-9][\w./#-]*\d[\w./#-]*"
                    r"(?:\s+(?:asap|now|right\s+now|right\s+away|immediately|pls|please|plz|today))*"
                    r"\s*(?:[,;:.!]|\s[-–—]+)\s*")
_REASON = re.compile(r"(?i)(?:it|they|he|she|this|that|(?:the|their|our|his|her)\s+[a-z]+(?:'s\s+[a-z]+)?)"
                     r"(?:'s|\s+(?:was|were|is|are|has|have|had|got|gets|keeps|kept|just))\b[^,;:!?]*[.!]?\s*(?:\S{1,2}\s*)?$")
_TAKEN_BACK = re.compile(
    r"(?i)\b(?:no|nope|nah|not|never|don'?t|doesn'?t|isn'?t|wasn'?t|j/?k|kidding|belay|false\s+alarm|hold|wait|keep"
    r"|scratch|ignore|only|unless|provided|as\s+long|when|whenever|once|if|after|before|until|till|whether|harsh"
    r"|enough|maybe|perhaps|might|tbd|later|tomorrow|tonight|next|but|though|instead|except|ask|check)\b|n't\b|[?？]")


def order_with_reason(text: str) -> bool:
    """Whether the text is an order on one thing by its id and a plain statement of why."""
    head = _ORDER.match(text)
    if head is None or _CJK.search(text):
        return False
    remark = text[head.end():]
    return bool(remark) and _REASON.match(remark) is not None and not _TAKEN_BACK.search(remark)


def destructive(text: str) -> list[str]:
    """Words that destroy data (delete, wipe, 删除, 注销, 回滚掉...), as stems or as written."""
    words = {stem(w) for w in re.findall(r"[A-Za-z]+", text)}
    rolled = [m[0] for m in _ROLLBACK.finditer(text)][:1]
    return sorted(words & DESTRUCTIVE_CUES) + [w for w in DESTRUCTIVE_ZH if w in text] + rolled


def is_stopword(word: str) -> bool:
    w = word.lower()
    return w in STOP_EN or (bool(_CJK.match(w)) and not _STOP_ZH.sub("", w))


def tokens(text: str) -> list[str]:
    """Content tokens: English stems; for Chinese (function words taken out) each character and
    each bigram, the usual way to match Chinese text without a segmenter."""
    out: list[str] = []
    for m in _WORD.finditer(text):
        word = m.group(0)
        if _CJK.match(word):
            part = _STOP_ZH.sub("", word.replace("一单", "单"))  # 下一单 -> 下单
            out.extend(part)
            out.extend(part[i:i + 2] for i in range(len(part) - 1))
        elif len(word) > 1 and word.lower() not in STOP_EN:
            out.append(stem(word))
    return out


def name_words(name: str) -> str:
    """create_shipment / getLeaveBalance -> "create shipment" / "get leave balance"."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ")


class Alias(str):
    """A request word read as any of several words: an idiom ("kick ... out") as the plain words it
    may mean that the knowledge knows ("remove", "revoke"), and its own words."""

    alts: frozenset[str]

    def __new__(cls, value: str, alts: Iterable[str]) -> Alias:
        token = super().__new__(cls, value)
        token.alts = frozenset(alts) | {value}
        return token


def _in(token: str, words: frozenset[str]) -> bool:
    return token in words or (isinstance(token, Alias) and not token.alts.isdisjoint(words))


class Lexicon:
    """Each candidate's words, and how telling each word is across the knowledge (idf)."""

    def __init__(self, texts: dict[str, Iterable[str]]) -> None:
        self.words: dict[str, frozenset[str]] = {name: frozenset(t for text in parts for t in tokens(text))
                                                 for name, parts in texts.items()}
        df = Counter(t for words in self.words.values() for t in words)
        n = max(1, len(self.words))
        self.idf = {t: math.log(1 + n / c) for t, c in df.items()}
        self.unknown_weight = math.log(1 + n)  # a word no candidate knows weighs like the rarest word
        self.known = frozenset(df)
        holders: dict[str, set[str]] = {}
        for name, words in self.words.items():
            for t in words:
                holders.setdefault(t, set()).add(name)
        self.holders = {t: frozenset(names) for t, names in holders.items()}

    def rare_holders(self, tokens: Iterable[str], most: int) -> set[str]:
        """The candidates that know a word of the request few others know (at most `most` do)."""
        out: set[str] = set()
        for token in tokens:
            for t in (token.alts if isinstance(token, Alias) else (token,)):
                names = self.holders.get(t, frozenset())
                if len(names) <= most:
                    out |= names
        return out

    def request_tokens(self, text: str) -> list[str]:
        """A request's content tokens, read against the knowledge: Chinese bigrams only where the
        knowledge has them (others straddle two words), a run of characters the knowledge has never
        seen as one token (a drug or product name is one unknown, not seven), and two English words
        written apart that the knowledge writes as one ("pick up" -> pickup)."""
        text, out = self._idioms(text)
        for m in _WORD.finditer(text):
            word = m.group(0)
            if _CJK.match(word):
                out += self._cjk_tokens(_STOP_ZH.sub("", word.replace("一单", "单")))
            elif len(word) > 1 and word.lower() not in STOP_EN:
                out.append(stem(word))
        words = re.findall(r"[A-Za-z]+", text)
        for a, b in zip(words, words[1:], strict=False):
            joined = stem(a + b)
            if joined in self.known and joined not in out:
                # "pick up" read as the knowledge's "pickup": one word, not three
                # (still either word to a candidate that writes them apart: "on sale" is a status value
                # onsale and the "sale" of a look-up that lists the statuses)
                parts = [stem(w) for w in (a, b) if len(w) > 1 and w.lower() not in STOP_EN]
                out = [t for t in out if t not in (stem(a), stem(b))] + [Alias(joined, parts)]
        return out

    def _idioms(self, text: str) -> tuple[str, list[str]]:
        """Idioms whose plain words the knowledge knows, as one Alias each; their own words are
        taken out of the text (the object between verb and particle stays)."""
        out: list[str] = []
        for hit in reversed(idiom_hits(text)):
            means = [w if not w.isascii() else stem(w) for w in hit.means]
            known = [w for w in means if w in self.known]
            if not known:
                continue
            own = [t for s, e in hit.parts for t in tokens(text[s:e])]
            out.append(Alias(known[0], [*known, *own]))
            for s, e in hit.parts:
                text = text[:s] + " " * (e - s) + text[e:]
        return text, out

    def _cjk_tokens(self, part: str) -> list[str]:
        out: list[str] = []
        run = ""
        words = common_words_zh()
        skip = 0
        word_end = 0  # where the last word read left to right ends (订单 of 订单发票: 单发 is no word here)
        for i, ch in enumerate(part):
            pair = part[i:i + 2]
            if skip:
                skip -= 1
                continue
            if len(pair) == 2 and pair in words and i >= word_end:
                if pair in self.known:
                    word_end = i + 2
                elif not (part[i + 1:i + 3] in self.known and part[i + 1:i + 3] in words):
                    # a word of the language the knowledge never says (发票): unknown as a whole, not
                    # the 发 of 发货 and the 票 of 车票
                    run += pair
                    skip, word_end = 1, i + 2
                    continue
            if ch in self.known:
                if run:
                    out.append(run)
                    run = ""
                out.append(ch)
            else:
                run += ch
            if len(pair) == 2 and pair in self.known:
                out.append(pair)
        if run:
            out.append(run)
        return out

    def stems(self, text: str) -> list[str]:
        """Every English word's stem, in order, function words included (for phrase matching)."""
        return [stem(w) for w in re.findall(r"[A-Za-z]+", text)]

    def knows(self, name: str, word: str) -> bool:
        """Whether a candidate's own words include `word` (a stem, or Chinese as written)."""
        words = self.words.get(name, frozenset())
        if isinstance(word, Alias):
            return not word.alts.isdisjoint(words)
        parts = tokens(word) if not word.isascii() else [word]
        whole = [p for p in parts if whole_word(p)]
        return bool(parts) and all(p in words for p in whole or parts)  # 删了 is 删: known only if 删 is

    def knows_akin(self, name: str, word: str) -> bool:
        """Whether a candidate knows `word` in some form (English: a stem `akin` to it)."""
        if not word.isascii():
            return self.knows(name, word)
        return any(akin(word, w) for w in self.words.get(name, frozenset()) if w.isascii())

    def weight(self, token: str) -> float:
        if isinstance(token, Alias):
            return max((self.idf[t] for t in token.alts if t in self.idf), default=self.unknown_weight)
        if token in self.idf:
            return self.idf[token]
        if len(token) > UNKNOWN_RUN and _CJK.match(token):  # "课件传到共享盘" is a clause nothing here knows, not one word
            return self.unknown_weight * len(token) / UNKNOWN_RUN
        return self.unknown_weight

    def coverage(self, request_tokens: list[str], name: str, values: int = 0, explained: int = 0,
                 writes: bool | None = None, asked: bool = False) -> float:
        """Share of the request (idf-weighted words, and the values it states) that the candidate
        explains: its own words, the values it can take, and — for `writes` given — the generic
        verbs of what it does ("pull up", "show" for a read; "make", "add" for a write). In a request
        that only `asked`, a generic verb of making is what a read reports ("does X have mfa set up?")."""
        if not request_tokens:
            return 0.0  # values alone ("1234567") say nothing of what to do with them
        words = self.words.get(name, frozenset())
        if writes is not None:
            words = words | (GENERIC_WRITE if writes else GENERIC_READ | (GENERIC_WRITE if asked else frozenset()))
        total = sum(self.weight(t) for t in request_tokens) + VALUE_WEIGHT * values
        known = sum(self.weight(t) for t in request_tokens if _in(t, words)) + VALUE_WEIGHT * explained
        return known / total

    def mass(self, request_tokens: list[str], name: str) -> float:
        """How much telling evidence the candidate's own words find in the request: the idf of the
        words it knows, summed, where one word no other candidate has is 1.0 (a Chinese character
        counts only outside a bigram it knows). "订单O100000001" says "order" — a word nearly every
        candidate has — and so almost nothing about what to do."""
        words = self.words.get(name, frozenset())
        found = {t for t in request_tokens if _in(t, words)}
        pairs = {t for t in found if len(t) == 2 and _CJK.match(t)}
        singles = {t for t in found if len(t) == 1 and any(t in p for p in pairs)}
        return min(1.0, sum(self.weight(t) if t in self.idf or isinstance(t, Alias) else 0.0
                            for t in found - singles) / self.unknown_weight)

    def alien(self, request_tokens: list[str]) -> float:
        """Share of the request's content words that no candidate of the knowledge knows (off-domain)."""
        if not request_tokens:
            return 0.0
        return sum(1 for t in request_tokens if not _in(t, self.known)) / len(request_tokens)

    def has(self, token: str) -> bool:
        """Whether any candidate of the knowledge knows the token (or one of an idiom's words)."""
        return _in(token, self.known)
