"""Typed spans, Chinese numerals, person names and value validation: table tests of the recognisers
the rule planner reads a request with."""

from __future__ import annotations

from datetime import date

import pytest

from core.models import ParamSpec
from core.planning.names import person_names
from core.planning.spans import find_spans
from core.planning.text import cn_number
from core.planning.typed import MISSING, explain, validate

TODAY = date(2026, 11, 23)  # a Monday


def spans(text: str) -> list[tuple[str, object, object]]:
    return [(s.kind, s.value, s.unit) for s in find_spans(text, TODAY)]


@pytest.mark.parametrize(("text", "expected"), [
    ("mail qa.buyer@acme.io now", [("email", "qa.buyer@acme.io", None)]),
    ("see https://x.io/a?b=1&c=2.", [("url", "https://x.io/a?b=1&c=2", None)]),
    ('ref "PO-7781" please', [("quoted", "PO-7781", None)]),
    ("原因写“医生停诊”", [("quoted", "医生停诊", None)]),
    ("2 x SKU-88121 in a 1.8 kg carton, out of WH3",
     [("number", 2, "x"), ("id", "SKU-88121", None), ("number", 1.8, "kg"), ("id", "WH3", None)]),
    ("tracking 1Z4F82E30398765432", [("id", "1Z4F82E30398765432", None)]),
    ("write off -3 units", [("number", -3, "units")]),
    ("$640.50 and 450 EUR and €75", [("amount", 640.5, "USD"), ("amount", 450, "EUR"), ("amount", 75, "EUR")]),
    ("押金1000块,保费1.2万元,保额50万", [("amount", 1000, "CNY"), ("amount", 12000, "CNY"), ("amount", 500000, None)]),
    ("20000 港币", [("amount", 20000, "HKD")]),
    ("开3盒,吃5天,5号窗口", [("number", 3, "盒"), ("number", 5, "天"), ("number", 5, "号")]),
    ("请半天,一天半,三天,两万", [("number", 0.5, "天"), ("number", 1.5, "天"), ("number", 3, "天"),
                           ("amount", 20000, None)]),  # 两万 is an amount, as 50万 is
    ("发两百美元的额度,基数一万二", [("amount", 200, "USD"), ("amount", 12000, None)]),
    ("试用期延长一个月,请一天假,最后一天,第一天", [("number", 1, "月"), ("number", 1, "天")]),  # which day is no count
    ("数量为三,天数是两,为一下", [("number", 3, None), ("number", 2, None)]),  # a bare numeral said as the value
    ("给商品123456下一单", [("number", 123456, None), ("id", "123456", None)]),  # 一单 is no number
    ("due 15 March 2025", [("date", "2025-03-15", None)]),
    ("on 2024/11/28 or 12月1号", [("date", "2024-11-28", None), ("date", f"{TODAY.year}-12-01", None)]),
    ("tomorrow", [("date", "2026-11-24", None)]),
    ("next Monday", [("date", "2026-11-30", None)]),
    ("Friday", [("date", "2026-11-27", None)]),
    ("in 2 days", [("date", "2026-11-25", None)]),
    ("明天 下周一 上周五 3天后 下个月1号", [("date", "2026-11-24", None), ("date", "2026-11-30", None),
                                  ("date", "2026-11-20", None), ("date", "2026-11-26", None),
                                  ("date", "2026-12-01", None)]),
    ("月底离职, 下个月底, 年底", [("date", "2026-11-30", None), ("date", "2026-12-31", None),
                              ("date", "2026-12-31", None)]),
    ("until end of month", [("date", "2026-11-30", None)]),
    ("这周六 2025-07-26 加班", [("date", "2025-07-26", None)]),  # one day said twice: the written date
    ("2024年5月的工资条, May 2024", [("month", "2024-05", None), ("month", "2024-05", None)]),
    ("三月份的工资条, 12月的报表", [("month", "2026-03", None), ("month", "2025-12", None)]),  # the latest such month
    ("近3月的流水, 3月内", [("number", 3, "月"), ("number", 3, "月")]),  # durations, not months
    ("试用期三个月, 每月3号", [("number", 3, "月"), ("number", 3, "号")]),  # a duration and a day stay numbers
    ("18:30走的, cancel my 3pm", [("time", "18:30", None), ("time", "15:00", None)]),
    ("3:30开会", [("time", "03:30", None)]),
    ("scraping at 40k rps, raise to 12000 rpm", [("number", 40000, "rps"), ("number", 12000, "rpm")]),
    ("credit them 15 percent", [("number", 15, "percent")]),
    ("on sub_Q9w8E7r6: 50% off", [("id", "sub_Q9w8E7r6", None), ("number", 50, "%")]),  # no 6:50 in an id
    ("asdfghjkl" * 40, []),  # no catastrophic backtracking on a long word
])
def test_typed_spans(text: str, expected: list[tuple[str, object, object]]) -> None:
    assert spans(text) == expected


@pytest.mark.parametrize(("text", "value"), [
    ("三", 3), ("十二", 12), ("二十", 20), ("两", 2), ("三百五十", 350), ("两万", 20000), ("一万五千", 15000),
    ("一万五", 15000), ("三千五", 3500), ("二零二四", 2024), ("万一", None), ("abc", None),
])
def test_chinese_numerals(text: str, value: int | None) -> None:
    assert cn_number(text) == value


@pytest.mark.parametrize(("text", "names"), [
    ("李娜还剩几天年假", ["李娜"]),
    ("张伟下周一开始请3天年假", ["张伟"]),
    ("帮忙看下欧阳晨今年 AL 还剩多少", ["欧阳晨"]),
    ("给欧阳晨提一个 sick leave", ["欧阳晨"]),
    ("张伟从研发调到产品部", ["张伟"]),  # 从 ("from") ends the name
    ("测试环境查一下PL2024000555", []),
    ("司马青换到 R&D", ["司马青"]),        # 换 ("move to") ends the name
    ("邮箱a@b.cn对应的客户", []),          # 应 is a surname, but 的 is never a given name  # 查 is a surname; 查一下 is "have a look"
    ("这个假单驳回", []),          # 单 ends 假单 here, it is no surname
    ("支付宝付款", []),
    ("这个季度的离职率是多少", []),  # 季度 ("quarter") starts with the surname 季: a word, not a name
    ("把工资条发给全员", []),        # 全员 ("everyone")
    ("名字叫文静,高级经理", ["文静"]),  # a word said as a name is one; 高级 ("senior") is not
])
def test_chinese_person_names(text: str, names: list[str]) -> None:
    own = {"假单", "还剩", "年假", "付款", "支付", "支付宝"}
    found = [n for n, _, _ in person_names(text, lambda w: w in own, frozenset())
             if not n.isascii()]
    assert found == names


def test_values_validate_against_every_schema_keyword() -> None:
    customer = ParamSpec(name="customer_id", pattern=r"^CUS-\d{5}$")
    assert validate("lena.k", customer) is MISSING and validate("CUS-12345", customer) == "CUS-12345"
    assert validate("me", ParamSpec(name="email", format="email")) is MISSING
    assert validate("for", ParamSpec(name="d", format="date")) is MISSING
    quantity = ParamSpec(name="quantity", type="integer", minimum=1)
    assert validate(0, quantity) is MISSING and validate("3", quantity) == 3 and validate(3.5, quantity) is MISSING
    assert "minimum of 1" in explain(0, quantity)
    assert validate("de", ParamSpec(name="country", enum=["DE", "FR"])) == "DE"  # enum matched case-insensitively


def test_a_context_is_learnt_where_the_value_stands_alone() -> None:
    """The example "给PL2024000123生成第2期续期应收" (period 2) teaches "第…期", not the 2 inside the
    policy number; the two characters that frame a number find it in other wording."""
    from core.models import Example
    from core.planning.vocabulary import context_patterns

    learnt = context_patterns(Example(user_query="给PL2024000123生成第2期续期应收", extracted_params={"period": 2}),
                              "period")
    found = {m.group(1) for p in learnt for m in [p.search("PL2024000888 续期缴费,第3期,走支付宝")] if m}
    assert found == {"3"}


def test_an_id_is_never_named_for_a_date_parameter() -> None:
    """"surrender PL2024000135": the word before the id names surrender_date, but an id is no date."""
    from core.planning.extraction import _kind_fits
    from core.planning.spans import Span

    span = Span(10, 22, "PL2024000135", "id", "PL2024000135")
    assert not _kind_fits(span, ParamSpec(name="surrender_date", type="string", description="退保日期"))
    assert _kind_fits(span, ParamSpec(name="policy_no", type="string", description="保单号"))


def test_a_unit_that_is_the_parameters_initials_names_it() -> None:
    """"12000 rpm" is for requests_per_minute; a bare number is not hinted to it."""
    from core.planning.extraction import HINTED, _number
    from core.planning.spans import Span

    param = ParamSpec(name="requests_per_minute", type="integer", description="new limit")
    assert _number(Span(0, 9, "12000 rpm", "number", 12000, "rpm"), param, {}, False, []) == HINTED
    assert _number(Span(0, 9, "12000 gb", "number", 12000, "gb"), param, {}, False, []) == 0.0


def test_a_description_lists_the_values_it_expects() -> None:
    from core.planning.vocabulary import listed_values

    assert listed_values("用人部门,如 技术部、数据部、市场部") == {"技术部", "数据部", "市场部"}
    assert listed_values("plan tier, e.g. pro, scale") == {"pro", "scale"}
    assert listed_values("部门名称") == frozenset()
