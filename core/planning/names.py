"""Person names in a request, for parameters that take one (姓名, full name, assignee...).

Chinese names are found the way people read them: a common surname followed by one or two given
characters, ending where the sentence breaks or where the pack's own wording resumes. English
names are capitalised words (initials allowed). Candidates only: every one is still validated,
and pack words and function words are never names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

# The ~120 most common single-character surnames (about 90 % of people in mainland China).
SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔"
    "钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛"
    "邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路"
    "游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟"
    "应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝")
COMPOUND_SURNAMES = ("欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "尉迟", "公孙", "慕容", "长孙", "令狐", "夏侯")
PERSON_WORDS = re.compile(r"姓名|名字|人名|联系人|负责人|经办人|申请人|员工|本人|full.?name|person|assignee|owner|"
                          r"contact|employee|recipient|requester|reviewer|approver|^name$", re.I)
_BREAK = re.compile(r"[\s,，。;；:：!！?？、()（）\[\]【】\"“”'‘’/|]")
_EN_NAME = re.compile(r"(?<![A-Za-z.])((?:[A-Z][a-z]+|[A-Z]\.)(?:\s+(?:[A-Z][a-z]+|[A-Z]\.)){0,2})(?![A-Za-z])")
_CJK = re.compile(r"[\u3400-\u9fff]")
# Characters that end a name when they follow it (function words, verbs of asking).
_AFTER = frozenset("的还在是要想有和跟与给帮请把被让先再也都就已又着了呢吗吧啊那这不没，,。"
                   "提办报补申查看做开交转调加涨离入休来去走用说问等从到替换改挪搬弄搞造约")  # and verbs that follow a name
# Adverbs of time that end a full three-character name (黄晓婷刚入职) — not a shorter one: 志刚, 国正 and 文才
# are given names (李志刚入职).
_AFTER_FULL = frozenset("刚才正")
_WEEKDAY = re.compile(r"^周[一二三四五六日天末]")
# What follows a verb that is also a surname (查一下, 查下) — never a given name.
_NOT_GIVEN = frozenset({"一下", "下", "一个", "个", "一笔", "一张", "一份", "一单", "一条", "一次", "一遍", "一眼", "了", "过"})
_PARTICLES = frozenset("的了吗呢吧啊着们已个")  # never in a given name (对应的 is not Mr Ying)
_TIME_WORDS = ("今年", "去年", "明年", "今天", "明天", "昨天", "后天", "本月", "上月", "下月", "这周", "下周", "上周",
               "本周", "这个月", "下个月", "上个月", "最近")


_NAMING_CUE = re.compile(r"(?:叫|名为|名叫|姓名|名字|称为)\s*[:：是为]?\s*$")


@cache
def _not_names() -> frozenset[str]:
    """Common words that start like a name (季度, 全员, 高级, 江苏): data/not_names_zh.txt, built
    from jieba's dictionary by data/build_not_names.py."""
    text = (Path(__file__).parent / "data" / "not_names_zh.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def is_common_word(text: str) -> bool:
    """A Chinese word of the language that merely starts with a surname: not a name unless the
    request says it is one (名字叫…)."""
    return text in _not_names()


def looks_like_name(text: str, said_as_name: bool = False) -> bool:
    """A Chinese person name: a common surname and one or two given characters, and not a common word
    unless the pack's own pattern or example context put it where a name goes (said_as_name: 于洋, 文静)."""
    surname = 2 if text[:2] in COMPOUND_SURNAMES else 1 if text[:1] in SURNAMES else 0
    return bool(surname) and 1 <= len(text) - surname <= 2 and not _WEEKDAY.match(text) \
        and (said_as_name or not is_common_word(text))


# What a parameter named for a thing holds, whatever its description says of whose it is:
# "department — 员工当前所在部门" is a department, not an employee.
_THING_NAMED = re.compile(r"名称|标题")
_THING_WORDS = frozenset(
    "department dept team group org organization city region site store branch office location position title "
    "role level grade reason type kind category status state date day days time month months year period amount "
    "salary price count quantity number email phone mobile address url code prefix channel plan tier".split())


def takes_person(name: str, description: str) -> bool:
    if name.lower() == "name" and _THING_NAMED.search(description or "") and not PERSON_WORDS.search(description or ""):
        return False  # a bare "name" described as a thing's (围栏名称): no person's
    if PERSON_WORDS.search(name):
        return True
    if _THING_WORDS.intersection(w.lower() for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", name)):
        return False
    return bool(PERSON_WORDS.search(description or ""))


def person_names(text: str, is_own_word: Callable[[str], bool],
                 value_starts: frozenset[int] = frozenset()) -> Iterator[tuple[str, int, int]]:
    """Candidate person names (text, start, end): a surname and one given character where the
    text clearly breaks after it, else two given characters where it breaks after those."""
    def breaks(at: int) -> bool:
        rest = text[at:at + 2]
        return (not rest or bool(_BREAK.match(rest[0])) or rest[0] in _AFTER or not _CJK.match(rest[0])
                or text.startswith("一下", at + 1)  # 陈静退一下: the character before 一下 is a verb
                or at in value_starts or text.startswith(_TIME_WORDS, at)
                or (len(rest) == 2 and bool(_CJK.match(rest[1])) and is_own_word(rest)))

    taken_until = 0
    for i, ch in enumerate(text):
        if i < taken_until or (i > 0 and _CJK.match(text[i - 1]) and text[i - 1] in SURNAMES and ch not in SURNAMES):
            continue  # inside another name
        surname_len = 2 if text[i:i + 2] in COMPOUND_SURNAMES else 1 if ch in SURNAMES else 0
        if not surname_len or (i > 0 and _CJK.match(text[i - 1]) and is_own_word(text[i - 1:i + 1])):
            continue  # the "surname" ends a word of the pack (单 of 假单)
        for given in (1, 2):
            end = i + surname_len + given
            name = text[i:end]
            if len(name) < surname_len + given or not all(_CJK.match(c) for c in name) or is_own_word(name):
                break
            if _WEEKDAY.match(name) or name[surname_len:] in _NOT_GIVEN or _PARTICLES.intersection(name[surname_len:]) \
                    or (given == 2 and i > 0 and text[i - 1] in "老小" and is_own_word(name[surname_len:])):
                # (老张离职了: after 老 or 小 the surname is a nickname, and 离职 a word of the pack, not a given name)
                break  # 周一 is Monday, not Mr Zhou; 查一下 is "have a look", not Mr Zha
            if is_common_word(name) and not _NAMING_CUE.search(text[max(0, i - 6):i]):
                # 这个季度 is a quarter, 全员 everyone: words of the language, unless said as a name —
                # or the start of a longer name (王国 of 王国庆, not 申报 of 申报提交): no name starts
                # inside the word
                taken_until = max(taken_until, end)
                if end < len(text) and text[end] in _AFTER:
                    break
                continue
            if breaks(end) or (given == 2 and text[end:end + 1] in _AFTER_FULL):
                yield name, i, end
                taken_until = end
                break
    for m in _EN_NAME.finditer(text):
        if not is_own_word(m.group(1)) and m.start() > 0:  # the sentence's first word is not a name
            yield m.group(1), m.start(1), m.end(1)
