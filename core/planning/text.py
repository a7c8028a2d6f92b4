"""Pure text helpers for the rule planner: normalising, phrase matching, similarity, casting."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_ID_OR_NUMBER = re.compile(r"[A-Za-z]*\d[A-Za-z0-9_.-]*")
_SPACE = re.compile(r"\s+")
CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def normalize(text: str) -> str:
    """NFKC (full-width to half-width), control characters dropped, spaces folded."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if ch in "\t\n" or unicodedata.category(ch)[0] != "C")
    return _SPACE.sub(" ", text).strip()


def is_ascii_word(word: str) -> bool:
    return word.isascii() and any(ch.isalnum() for ch in word)


@dataclass(frozen=True)
class PhraseHit(Generic[T]):
    start: int
    end: int
    phrase: str
    payload: T


def phrase_pattern(phrase: str, *, case_sensitive: bool = False) -> re.Pattern[str]:
    """Case-insensitive unless asked; ASCII words only match whole (no 'pre' inside 'prepare')."""
    body = re.escape(phrase)
    if is_ascii_word(phrase):
        body = rf"(?<![A-Za-z0-9]){body}(?![A-Za-z0-9])"
    return re.compile(body, 0 if case_sensitive else re.IGNORECASE)


def gapped_pattern(phrase: str) -> re.Pattern[str] | None:
    """The phrase with one gap inside it ("约核磁" in "约个明天的核磁", "outbound shipment" in "outbound
    UPS shipment"): a looser match, worth less than the phrase itself."""
    words = phrase.split()
    if len(words) >= 2 and all(is_ascii_word(w) for w in words):
        parts = [r"\s+".join(re.escape(w) for w in words[:i]) + r"(?:\s+\S+){1,3}\s+"
                 + r"\s+".join(re.escape(w) for w in words[i:]) for i in range(1, len(words))]
        return re.compile(rf"(?<![A-Za-z0-9])(?:{'|'.join(parts)})(?![A-Za-z0-9])", re.IGNORECASE)
    if len(phrase) >= 3 and not any(c.isspace() for c in phrase) and not phrase.isascii():
        parts = [re.escape(phrase[:i]) + r"[^,，。;；!！?？\s]{1,6}?" + re.escape(phrase[i:])
                 for i in range(1, len(phrase)) if len(phrase[:i]) >= 1 and len(phrase[i:]) >= 1]
        return re.compile("|".join(parts), re.IGNORECASE)
    return None


def separable_pattern(phrase: str, kinds: Iterable[str] = ()) -> re.Pattern[str] | None:
    """A Chinese verb-object phrase said the way Chinese splits it (离合词): 请三天病假 and 请个年假 say
    请假, 调个薪 says 调薪, 请病假 says 请假 where 病假 is one of `kinds` (the knowledge's values); a one-character verb before a longer object takes 一下/个 (办一下入职 says
    办入职) — the phrase itself, not a loose match."""
    if len(phrase) == 2 and _CJK_PAIR.fullmatch(phrase):
        # 请病假 says 请假 too, when 病假 is one of the knowledge's values (a kind of 假)
        kind = sorted((k for k in kinds if len(k) > 1 and k.endswith(phrase[1]) and k != phrase), key=len, reverse=True)
        split = re.escape(phrase[0]) + _MEASURE_GAP + re.escape(phrase[1])
        if kind:
            split += "|" + re.escape(phrase[0]) + f"(?:{_MEASURE_GAP})?(?:{'|'.join(map(re.escape, kind))})"
        return re.compile(split)
    if len(phrase) > 2 and phrase[0] in _LIGHT_VERBS and _CJK_RUN.fullmatch(phrase):
        # 办入职 said 办一下入职 / 办个入职: a one-character verb and its object, "a bit of" between
        return re.compile(re.escape(phrase[0]) + r"(?:一下|一个|个|下)" + re.escape(phrase[1:]))
    return None


_CJK_PAIR = re.compile(r"[\u3400-\u9fff]{2}")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_LIGHT_VERBS = "办走做搞弄开提发调加请录建造签转批跑申退取删改换补约排查拉"
_MEASURE_GAP = r"(?:[\d一二两三四五六七八九十半几]+\s*(?:个|天|日|周|次|小时|个月)?|个)(?:(?!的)[\u3400-\u9fff]){0,2}?"


def find_phrases(text: str, phrases: Iterable[tuple[re.Pattern[str], str, T]]) -> list[PhraseHit[T]]:
    """All occurrences, then longest-match-wins: overlapping shorter hits are dropped."""
    hits = [PhraseHit(m.start(), m.end(), phrase, payload)
            for pattern, phrase, payload in phrases for m in pattern.finditer(text)]
    hits.sort(key=lambda h: (-(h.end - h.start), h.start))
    kept: list[PhraseHit[T]] = []
    for hit in hits:
        if all(hit.end <= k.start or hit.start >= k.end for k in kept):
            kept.append(hit)
    return sorted(kept, key=lambda h: h.start)


def shingles(text: str) -> frozenset[str]:
    """Character unigrams and bigrams of the text with ids and numbers masked."""
    masked = _ID_OR_NUMBER.sub("#", text.lower())
    chars = [c for c in masked if not c.isspace()]
    grams = set(chars)
    grams.update(a + b for a, b in zip(chars, chars[1:], strict=False))
    return frozenset(grams)


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Dice coefficient of two shingle sets (0..1)."""
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


_CN_UNITS = {"十": 10, "百": 100, "千": 1000}


def cn_number(text: str) -> int | None:
    """Chinese numerals: 三 -> 3, 十二 -> 12, 二十 -> 20, 两 -> 2, 三百五十 -> 350, 两万 -> 20000,
    一万五千 -> 15000; digit strings like 二零二四 -> 2024. None when it is not a numeral."""
    if not text or any(ch not in CN_DIGITS and ch not in _CN_UNITS and ch != "万" for ch in text):
        return None
    if not any(ch in _CN_UNITS or ch == "万" for ch in text):
        value = 0
        for ch in text:
            value = value * 10 + CN_DIGITS[ch]
        return value
    high, wan, low = text.partition("万")
    if wan:
        if not high:
            return None  # 万一 ("in case") is not a number
        head = _below_wan(high)
        tail = _below_wan(low) if low else 0
        if head is None or tail is None:
            return None
        if low and len(low) == 1 and low in CN_DIGITS:  # 一万五 = 15000
            tail = CN_DIGITS[low] * 1000
        return head * 10_000 + tail
    return _below_wan(text)


def _below_wan(text: str) -> int | None:
    total, digit, last_unit, zero = 0, None, 0, False
    for ch in text:
        if ch in CN_DIGITS:
            if digit is not None and ch != "零":
                return None  # two digits in a row inside a unit numeral: not a numeral
            zero = zero or ch == "零"
            digit = CN_DIGITS[ch] if ch != "零" else None
        elif ch in _CN_UNITS:
            total += (digit if digit is not None else 1) * _CN_UNITS[ch]
            digit, last_unit = None, _CN_UNITS[ch]
        else:
            return None
    if digit is not None and last_unit > 10 and not zero:
        return total + digit * last_unit // 10  # 三千五 = 3500, 两百五 = 250
    return total + (digit or 0)


def cast(value: Any, json_type: str) -> Any:
    """Cast an extracted string to the parameter's JSON type; raise ValueError if it cannot be."""
    if json_type == "string":
        return str(value).strip()
    if json_type in ("integer", "number"):
        if isinstance(value, bool):
            raise ValueError("boolean is not a number")
        if isinstance(value, str):
            text = value.strip()
            number = cn_number(text)
            value = number if number is not None else float(text)
        number = float(value)
        if json_type == "integer":
            if not number.is_integer():
                raise ValueError(f"{value} is not an integer")
            return int(number)
        return int(number) if number.is_integer() else number
    if json_type == "boolean":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "y", "1", "是", "要", "开启"):
            return True
        if text in ("false", "no", "n", "0", "否", "不要", "关闭"):
            return False
        raise ValueError(f"{value!r} is not a yes/no")
    return value


def mostly_ascii(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(c.isascii() for c in letters) / len(letters) > 0.8
