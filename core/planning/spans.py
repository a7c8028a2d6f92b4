"""Typed spans: the values a request states, recognised before anything is assigned to a parameter.

Emails, URLs, quoted strings, dates (ISO, written, and relative: "tomorrow", "next Monday",
"明天", "下周一", "3天后"), amounts with a currency, numbers with a unit ("3.5 kg", "5天",
"三盒"), ids (tokens mixing letters and digits, or long digit runs) and plain numbers. Where two
readings overlap the more specific one wins (an email over the id inside it). Pure: the date
of "today" is passed in.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Any, Literal

from core.planning.text import cn_number

Kind = Literal["email", "url", "quoted", "date", "month", "time", "amount", "number", "id"]
# Most specific first: a span found by an earlier kind blocks overlapping later ones.
ORDER: tuple[Kind, ...] = ("email", "url", "quoted", "date", "month", "time", "amount", "number", "id")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str
    kind: Kind
    value: Any  # normalised: str, ISO date str, int or float
    unit: str | None = None  # kg, 天, 盒, EUR...

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


_B = r"(?<![A-Za-z0-9_])"  # ASCII token boundaries that also work beside CJK text
_E = r"(?![A-Za-z0-9_])"
EMAIL = re.compile(_B + r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
URL = re.compile(r"(?i)\b(?:https?|ftp)://[^\s<>\"'，。]+")
# A bare host name ("promo.acme-test.io", "news.bloomflorists.com"): a "url" value without a scheme.
# Lower case, and a top-level domain that is no English word or file type (not "report.pdf", "v1.2",
# "Node.js", "e.g.", "setup.sh", "now.it", "asap.so": a full stop with no space after it).
DOMAIN = re.compile(r"(?<![\w@./-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+"
                    r"(?:com|net|org|io|ai|app|dev|cloud|edu|gov|info|biz|uk|de|cn|jp|fr|eu|au|ca|nl|xyz|site|"
                    r"online|tech|test|local|internal|example|invalid|localhost))(?![\w@-]|\.[a-z0-9])")
QUOTED = re.compile(r"\"([^\"\n]{1,200})\"|“([^”\n]{1,200})”|「([^」\n]{1,200})」|『([^』\n]{1,200})』|"
                    r"(?<![A-Za-z0-9])'([^'\n]{1,200})'(?![A-Za-z0-9])|‘([^’\n]{1,200})’")
ISO_DATE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
ISO_CLOCK = re.compile(r"T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?(?![\w:])")  # after an ISO date
CN_DATE = re.compile(r"(?:(\d{4})年)?(\d{1,2})月(\d{1,2})[日号]")
MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m} | {
    m.lower(): i for i, m in enumerate(calendar.month_abbr) if m} | {"sept": 9}
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
EN_DATE_DM = re.compile(rf"(?i){_B}(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\.?(?:,?\s+(\d{{4}}))?{_E}")
EN_DATE_MD = re.compile(rf"(?i){_B}({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?{_E}")
WEEKDAYS_EN = {d.lower(): i for i, d in enumerate(calendar.day_name)} | {
    d.lower(): i for i, d in enumerate(calendar.day_abbr)}
_WD = "|".join(sorted(WEEKDAYS_EN, key=len, reverse=True))
EN_RELATIVE = re.compile(
    rf"(?i){_B}(?:(day after tomorrow)|(today|tonight)|(tomorrow|tmrw|tmr)|(yesterday)|"
    rf"(?:(next|this|coming)\s+)?({_WD})|in\s+(\d+|a|one|two|three|four|five|six|seven)\s+(days?|weeks?)|"
    rf"(next week)|(next month)){_E}")
WEEKDAYS_CN = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
CN_RELATIVE = re.compile(r"(大后天|后天|明天|明日|今天|今日|昨天|昨日)|(下下|下|这|本|上)?(?:个)?(?:周|星期|礼拜)([一二三四五六日天])|"
                         r"(下个?月)(\d{1,2}|[一二三四五六七八九十]+)[号日]|(\d+|[一二两三四五六七八九十]+)天(?:后|之后|以后)")
MONTH_END = re.compile(r"(?<![每去])(下个?|这个?|本|上个?)?月底(?![奖])|(今年|明年|去年)?年底(?![奖])|"
                       r"(?i:\bend\s+of\s+(?:the\s+)?(next\s+|this\s+)?(month|year)\b)")
CURRENCY_SYMBOL = {"€": "EUR", "$": "USD", "£": "GBP", "¥": "CNY", "￥": "CNY"}
ISO_CURRENCIES = ("USD EUR GBP CNY RMB JPY HKD TWD KRW SGD AUD CAD CHF SEK NOK DKK INR BRL MXN RUB ZAR NZD THB MYR "
                  "IDR PHP VND AED SAR TRY PLN CZK HUF ILS").split()
CURRENCY_WORD = {c.lower(): ("CNY" if c == "RMB" else c) for c in ISO_CURRENCIES} | {
    "euro": "EUR", "euros": "EUR", "dollar": "USD", "dollars": "USD", "bucks": "USD", "pound": "GBP",
    "pounds": "GBP", "quid": "GBP", "yen": "JPY", "元": "CNY", "块": "CNY", "块钱": "CNY", "人民币": "CNY",
    "美元": "USD", "美金": "USD", "欧元": "EUR", "英镑": "GBP", "港币": "HKD", "港元": "HKD", "日元": "JPY",
    "韩元": "KRW", "新台币": "TWD", "台币": "TWD", "澳元": "AUD", "加元": "CAD", "新加坡元": "SGD", "卢布": "RUB",
    "雷亚尔": "BRL", "卢比": "INR", "瑞郎": "CHF"}
_NUM = r"[-+]?\d+(?:,\d{3})*(?:\.\d+)?"
_CUR_EN = "|".join(sorted((w for w in CURRENCY_WORD if w.isascii()), key=len, reverse=True))
_CUR_CN = "|".join(sorted((w for w in CURRENCY_WORD if not w.isascii()), key=len, reverse=True))
AMOUNT = re.compile(
    rf"([€$£¥￥])\s*({_NUM})(万|k|K)?"                                      # €75, $640.50, ¥2000
    rf"|{_B}({_CUR_EN})\s*({_NUM})(万|k|K)?{_E}"                             # USD 310
    rf"|{_B}({_NUM})\s*(万|k|K)?\s*({_CUR_EN}){_E}"                           # 450 EUR, 1250 euros
    rf"|(?<![\d.])({_NUM})\s*(万)?\s*({_CUR_CN})"                             # 3000元, 1.2万元, 1000块
    rf"|(?<![\d.A-Za-z])({_NUM})\s*(万)(?![元块])", re.IGNORECASE)              # 50万
UNITS = ("kg", "kgs", "kilos", "kilograms", "g", "grams", "lb", "lbs", "km", "m", "cm", "mm", "h", "hrs", "hours",
         "hour", "mins", "minutes", "min", "days", "day", "weeks", "week", "months", "month", "years", "year",
         "units", "unit", "pcs", "pieces", "items", "boxes", "box", "x", "seats", "licenses", "people", "nights",
         "%", "percent", "pct", "gb", "mb", "tb", "rpm", "rps", "qps", "tps")
CN_UNITS = "件个份盒瓶支片粒袋箱台天日周月年次人位张单笔块元克斤公斤米号楼层床晚小时分钟岁"
CN_AMOUNT = re.compile(rf"(?<![一二两三四五六七八九十百千万零])([一二两三四五六七八九十百千万零]+)(?:\s*({_CUR_CN})|(?![{CN_UNITS}]|个月|个小时))")
HALF = re.compile(r"(?:([一二两三四五六七八九十\d]+)\s*(天|个?小时|周|个?月|年)\s*半|半\s*(天|个?小时))")
_UNIT = "|".join(sorted(UNITS, key=len, reverse=True))
_CN_UNIT = f"个月|个小时|[{CN_UNITS}]"  # 三个月, 两个小时: the 个 belongs to the unit
NUMBER = re.compile(  # not inside an id: SKU-88121 and 1Z4F8 are ids, 12kg and 5天 are numbers with units
    rf"(?<![A-Za-z0-9_.-])({_NUM})(?:\s*({_UNIT}){_E}|\s*({_CN_UNIT})"
    rf"|(?![A-Za-z0-9_]|\.\d))|([一二两三四五六七八九十百千万零]+)\s*({_CN_UNIT})?", re.IGNORECASE)
ID = re.compile(_B + r"[A-Za-z0-9]+(?:[-_./#][A-Za-z0-9]+)*" + _E)  # kept only when it holds a digit
EN_NUMBER_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def _number(text: str) -> int | float:
    value = float(text.replace(",", ""))
    return int(value) if value.is_integer() else value


def _safe_date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _next_weekday(today: date, weekday: int, *, week_offset: int | None) -> date:
    if week_offset is None:  # "Friday": the next one (today counts when it is that day)
        return today + timedelta(days=(weekday - today.weekday()) % 7)
    monday = today - timedelta(days=today.weekday()) + timedelta(weeks=week_offset)
    return monday + timedelta(days=weekday)


def _en_relative(m: re.Match[str], today: date) -> date | None:
    tomorrow_after, today_w, tomorrow_w, yesterday, which, weekday, n, per, next_week, next_month = m.groups()
    if tomorrow_after:
        return today + timedelta(days=2)
    if today_w:
        return today
    if tomorrow_w:
        return today + timedelta(days=1)
    if yesterday:
        return today - timedelta(days=1)
    if weekday:
        wd = WEEKDAYS_EN[weekday.lower()]
        if which and which.lower() == "next":
            return _next_weekday(today, wd, week_offset=1)
        return _next_weekday(today, wd, week_offset=None)
    if n:
        count = int(n) if n.isdigit() else EN_NUMBER_WORDS[n.lower()]
        return today + timedelta(days=count * (7 if per.lower().startswith("week") else 1))
    if next_week:
        return _next_weekday(today, 0, week_offset=1)
    if next_month:
        return _add_months(today.replace(day=1), 1)
    return None


def _add_months(d: date, months: int) -> date:
    month = d.month - 1 + months
    year = d.year + month // 12
    month = month % 12 + 1
    return date(year, month, min(d.day, calendar.monthrange(year, month)[1]))


def _cn_relative(m: re.Match[str], today: date) -> date | None:
    day_word, week_prefix, weekday, next_month, month_day, days_later = m.groups()
    if day_word:
        offset = {"大后天": 3, "后天": 2, "明天": 1, "明日": 1, "今天": 0, "今日": 0, "昨天": -1, "昨日": -1}[day_word]
        return today + timedelta(days=offset)
    if weekday:
        offset = {"下下": 2, "下": 1, "这": 0, "本": 0, "上": -1}.get(week_prefix or "")
        return _next_weekday(today, WEEKDAYS_CN[weekday], week_offset=offset)
    if next_month:
        day = int(month_day) if month_day.isdigit() else cn_number(month_day)
        first = _add_months(today.replace(day=1), 1)
        return _safe_date(first.year, first.month, day or 1)
    if days_later:
        n = int(days_later) if days_later.isdigit() else cn_number(days_later)
        return today + timedelta(days=n or 0)
    return None


def _dates(text: str, today: date) -> list[Span]:
    out: list[Span] = []
    for m in ISO_DATE.finditer(text):
        if d := _safe_date(int(m[1]), int(m[2]), int(m[3])):
            # "2026-04-15T14:30:00Z" is one value: its date, and (for a parameter that takes a time) all of it
            end = m.end() + (len(t[0]) if (t := ISO_CLOCK.match(text, m.end())) else 0)
            out.append(Span(m.start(), end, text[m.start():end], "date", d.isoformat()))
    for m in CN_DATE.finditer(text):
        if d := _safe_date(int(m[1]) if m[1] else today.year, int(m[2]), int(m[3])):
            out.append(Span(m.start(), m.end(), m[0], "date", d.isoformat()))
    for pattern, day_i, month_i in ((EN_DATE_DM, 1, 2), (EN_DATE_MD, 2, 1)):
        for m in pattern.finditer(text):
            year = int(m[3]) if m[3] else today.year
            if d := _safe_date(year, MONTHS[m[month_i].lower().rstrip(".")], int(m[day_i])):
                out.append(Span(m.start(), m.end(), m[0], "date", d.isoformat()))
    written = len(out)
    for pattern, resolve in ((EN_RELATIVE, _en_relative), (CN_RELATIVE, _cn_relative), (MONTH_END, _period_end)):
        for m in pattern.finditer(text):
            if d := resolve(m, today):
                out.append(Span(m.start(), m.end(), m[0], "date", d.isoformat()))
    return _restated_dates(text, out[:written], out[written:])


def _period_end(m: re.Match[str], today: date) -> date | None:
    """月底 / 下个月底 / 年底 / end of (next) month: the last day of that month or year."""
    cn_month, cn_year, en_which, en_unit = m.groups()
    if cn_year == "去年":
        return date(today.year - 1, 12, 31)
    following = cn_year == "明年" or (cn_month or "").startswith("下") or (en_which or "").strip().lower() == "next"
    if m[0].endswith("年底") or (en_unit or "").lower() == "year":
        return date(today.year + following, 12, 31)
    offset = 1 if following else -1 if (cn_month or "").startswith("上") else 0
    first = _add_months(today.replace(day=1), offset)
    return first.replace(day=calendar.monthrange(first.year, first.month)[1])


def _restated_dates(text: str, written: list[Span], relative: list[Span]) -> list[Span]:
    """"这周六 2026-11-28", "tomorrow (Nov 24)": a relative date said beside a written one is the same
    day said twice; the written date stands for both (not across a comma: "2026-11-24, 下周一" is two)."""
    by_start = {w.start: w for w in written}
    by_end = {w.end: w for w in written}
    merged: dict[Span, Span] = {}
    out: list[Span] = []
    for r in relative:
        after = re.match(r"\s*[(（]?\s*", text[r.end:])
        before = re.search(r"\s*[(（]?\s*$", text[max(0, r.start - 8):r.start])
        beside = by_start.get(r.end + after.end()) if after else None
        beside = beside or (by_end.get(r.start - len(before.group(0))) if before else None)
        if beside is None or beside in merged:
            out.append(r)
            continue
        start, end = min(r.start, beside.start), max(r.end, beside.end)
        merged[beside] = Span(start, end, text[start:end], "date", beside.value)
    return [merged.get(w, w) for w in written] + out


MONTH = re.compile(rf"(?<!\d)(\d{{4}})\s*年\s*(\d{{1,2}})\s*月(?!\s*\d{{1,2}}\s*[日号])|(?<![\d-])(\d{{4}})[-/](\d{{1,2}})(?![-/\d])"
                   rf"|{_B}({_MONTH})\.?\s+(\d{{4}}){_E}", re.IGNORECASE)
TIME = re.compile(r"(?:(?<![A-Za-z0-9_:])|(?<=\dT))([01]?\d|2[0-3])\s*[:：]\s*([0-5]\d)(?:\s*([ap])\.?m\.?)?(?![\d:A-Za-z])"
                  r"|(?<![\d:A-Za-z])(1[0-2]|0?[1-9])\s*([ap])\.?m\.?(?![A-Za-z])", re.IGNORECASE)


def _times(text: str) -> list[Span]:
    out = []
    for m in TIME.finditer(text):
        hour, minute, half = (int(m[1]), m[2], m[3]) if m[1] else (int(m[4]), "00", m[5])
        if half and half.lower() == "p" and hour < 12:
            hour += 12
        elif half and half.lower() == "a" and hour == 12:
            hour = 0
        out.append(Span(m.start(), m.end(), m[0], "time", f"{hour:02d}:{minute}"))
    return out


# 三月份, 3月: the latest such month ("三个月" and "近3月" are durations, "3月1日" a date, "2024年3月" above)
# (a digit before a Chinese numeral ends an id, "E10023七月份": it is no part of the month)
CN_MONTH = re.compile(r"(?:(?<![\d年一二三四五六七八九十两个每上下本这近前后])(1[0-2]|0?[1-9])"
                      r"|(?<![年一二三四五六七八九十两个每上下本这近前后])(十[一二]?|[一二三四五六七八九]))月(?:份)?"
                      r"(?!\s*(?:\d|[一二三四五六七八九十]+\s*[日号]|内|以内|之内))")


# 上个月, 本月, next month: the month itself (not 每月, not 月底 — an end of month is a date — nor
# 上个月5号, a day; nor inside a word: 基本月薪, 线上月活, 以下月份)
REL_MONTH = re.compile(r"(?<![每一两基成日资版样根原剧课账线以马早晚网地身加私相应])(上上个?|上个?|本|这个?|当|下个?)月(?![底初中末份度]|\s*(?:\d|[一二三四五六七八九十]+\s*[日号]))"
                       r"|(?i:\b(last|this|next|previous|current)\s+month\b)")
_MONTH_STEPS = {"上上": -2, "上": -1, "本": 0, "这": 0, "当": 0, "下": 1,
                "last": -1, "previous": -1, "this": 0, "current": 0, "next": 1}


def _months(text: str, today: date) -> list[Span]:
    out = []
    for m in REL_MONTH.finditer(text):
        word = (m[1] or m[2]).lower().rstrip("个")
        month = _add_months(today.replace(day=1), _MONTH_STEPS[word])
        out.append(Span(m.start(), m.end(), m[0], "month", f"{month.year:04d}-{month.month:02d}"))
    for m in MONTH.finditer(text):
        year, month = (m[1], m[2]) if m[1] else (m[3], m[4]) if m[3] else (m[6], str(MONTHS[m[5].lower()]))
        if 1 <= int(month) <= 12:
            out.append(Span(m.start(), m.end(), m[0], "month", f"{int(year):04d}-{int(month):02d}"))
    for m in CN_MONTH.finditer(text):
        month = int(m[1]) if m[1] else cn_number(m[2])
        if month and 1 <= month <= 12:
            year = today.year if month <= today.month else today.year - 1  # the latest such month
            out.append(Span(m.start(), m.end(), m[0], "month", f"{year:04d}-{month:02d}"))
    return out


def _amounts(text: str) -> list[Span]:
    out: list[Span] = []
    for m in AMOUNT.finditer(text):
        g = m.groups()
        if g[1]:
            raw, scale, currency = g[1], g[2], CURRENCY_SYMBOL[g[0]]
        elif g[4]:
            raw, scale, currency = g[4], g[5], CURRENCY_WORD[g[3].lower()]
        elif g[6]:
            raw, scale, currency = g[6], g[7], CURRENCY_WORD[g[8].lower()]
        elif g[9]:
            raw, scale, currency = g[9], g[10], CURRENCY_WORD[g[11]]
        else:
            raw, scale, currency = g[12], g[13], None
        value = _number(raw) * (10_000 if scale == "万" else 1_000 if scale else 1)
        out.append(Span(m.start(), m.end(), m[0], "amount", _number(str(value)), currency))
    for m in CN_AMOUNT.finditer(text):  # 两百美元, 三千块; 三万, 一万二 (as 50万 is an amount)
        if (n := cn_number(m[1])) is not None and (m[2] or "万" in m[1]) and m[1] != "万":
            out.append(Span(m.start(), m.end(), m[0], "amount", n, CURRENCY_WORD[m[2]] if m[2] else None))
    return out


SAID_AS_VALUE = re.compile(r"(?<=[为是:：=])\s*([一二两三四五六七八九十]+)(?![\u4e00-\u9fff])")
SCALE_LETTERS = "kKwW"  # 15k = 15000; in Chinese text 3w = 30000 (one list for finding and for reading them)
THOUSANDS = re.compile(rf"(?<![A-Za-z0-9_.-])(\d+(?:\.\d+)?)([{SCALE_LETTERS}])(?:\s*({_UNIT}))?(?![A-Za-z0-9_])", re.IGNORECASE)
_CJK_TEXT = re.compile(r"[\u4e00-\u9fff]")


_SPANS_OF_TIME = frozenset("天日周月年") | {"小时"}
_ORDINAL_BEFORE = frozenset("后第同每这那哪某前")  # 最后一天, 第一天: which day, not how many


# "25 of SKU-66012": a count of the thing named by its id (unit "of": a quantity that cannot be negative)
_COUNT_OF = re.compile(r"\s+of\s+[A-Za-z]+[-_]?\d")


def _numbers(text: str) -> list[Span]:
    # 40k rps; in Chinese text 3w is 三万 (in English "2w" is more likely two weeks: no number)
    chinese = bool(_CJK_TEXT.search(text))
    out: list[Span] = [Span(m.start(), m.end(), m[0], "number",
                            _number(str(float(m[1]) * (1000 if m[2] in "kK" else 10_000))),
                            m[3].lower() if m[3] else None) for m in THOUSANDS.finditer(text)
                       if m[2] in "kK" or chinese]
    for m in NUMBER.finditer(text):
        digits, unit_en, unit_cn, cn, cn_unit = m.groups()
        unit_cn, cn_unit = (u[1:] if u and len(u) > 1 and u[0] == "个" else u for u in (unit_cn, cn_unit))  # 三个月: 月
        if digits is not None:
            unit = (unit_en or unit_cn or "").lower() or ("of" if _COUNT_OF.match(text, m.end()) else None)
            out.append(Span(m.start(), m.end(), m[0], "number", _number(digits), unit))
        elif (cn_unit or any(c in cn for c in "十百千万")) and (n := cn_number(cn)) is not None and (
                cn != "一" or (cn_unit in _SPANS_OF_TIME and text[m.start() - 1:m.start()] not in _ORDINAL_BEFORE)):
            # 三天, 两万, 一个月 ("一单" is how Chinese says "an order"; a lone 一 or 万一 is no number)
            out.append(Span(m.start(), m.end(), m[0], "number", n, cn_unit))
    for m in SAID_AS_VALUE.finditer(text):  # "数量为三": a bare numeral said as a value is a number
        if (n := cn_number(m[1])) is not None and not any(s.start <= m.start(1) < s.end for s in out):
            out.append(Span(m.start(1), m.end(1), m[1], "number", n, None))
    for m in HALF.finditer(text):  # 半天 = 0.5 days, 一天半 = 1.5
        whole = 0 if m[3] else (int(m[1]) if m[1].isdigit() else cn_number(m[1]) or 0)
        unit = m[2] or m[3]
        out.append(Span(m.start(), m.end(), m[0], "number", whole + 0.5, unit[-1] if unit != "天" else "天"))
    return out


@lru_cache(maxsize=256)
def with_arabic_numerals(text: str) -> tuple[str, tuple[int, ...]]:
    """The text with its Chinese numerals written in digits (扣五个积分 -> 扣5个积分), and where each
    of its positions (one past the end too) was in the original: a pack pattern written for digits
    (`(\\d+)个?积分`) reads the number however it was said."""
    out: list[str] = []
    back: list[int] = []
    at = 0
    for span in sorted(_numbers(text), key=lambda sp: (sp.start, -sp.end)):  # (found kind by kind)
        m = re.match(r"[一二两三四五六七八九十百千万零]+", span.text)
        if m is None or span.start < at or not isinstance(span.value, int):
            continue
        out.append(text[at:span.start])
        back.extend(range(at, span.start))
        digits = str(span.value)
        out.append(digits)
        back.extend([span.start] * len(digits))
        at = span.start + m.end()
    out.append(text[at:])
    back.extend(range(at, len(text) + 1))
    return "".join(out), tuple(back)


def find_spans(text: str, today: date) -> list[Span]:
    """Every typed value the text states, left to right, no two overlapping."""
    found: dict[Kind, list[Span]] = {
        "email": [Span(m.start(), m.end(), m[0], "email", m[0]) for m in EMAIL.finditer(text)],
        "url": [Span(m.start(), m.end(), m[0].rstrip(".,;)"), "url", m[0].rstrip(".,;)")) for m in URL.finditer(text)]
        + [Span(m.start(), m.end(), m[0], "url", m[0]) for m in DOMAIN.finditer(text)],
        "quoted": [Span(m.start(), m.end(), m[0], "quoted", next(g for g in m.groups() if g is not None).strip())
                   for m in QUOTED.finditer(text)],
        "date": _dates(text, today),
        "month": _months(text, today),
        "time": _times(text),
        "amount": _amounts(text),
        "number": _numbers(text),
        "id": [Span(m.start(), m.end(), m[0], "id", m[0]) for m in ID.finditer(text)
               if any(c.isdigit() for c in m[0]) and (not re.fullmatch(r"\d+(?:\.\d+)?", m[0]) or len(m[0]) >= 5)
               and not re.fullmatch(rf"\d+(?:\.\d+)?[{SCALE_LETTERS}]", m[0])],  # (15k is fifteen thousand, not an id)
    }
    kept: list[Span] = []
    for kind in ORDER:
        for span in sorted(found[kind], key=lambda s: (s.start, -(s.end - s.start))):
            if kind == "id" and any(k.kind == "number" and k.unit is None and k.start == span.start
                                    and k.end == span.end for k in kept):
                # a long bare digit run (123456) is an id as much as a number: keep both readings
                kept.append(span)
            elif not any(span.overlaps(k) for k in kept):
                kept.append(span)
    return sorted(kept, key=lambda s: (s.start, ORDER.index(s.kind)))
