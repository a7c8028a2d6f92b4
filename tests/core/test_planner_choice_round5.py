"""Choosing on weak evidence: values that speak for a write, and a rival that explains less.

End-to-end cases run on two blind packs kept in this repository (benchmarks/generality/zhaopin, a
Chinese recruiting desk, and rentals, an English car-rental desk), through the assistant's real
retrieval; the decision rules themselves are also checked on hand-made candidates.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.assistant import Assistant
from core.models import Plan, Request
from core.planning.choice import ASK_MIN, WRITE_MIN, Candidate, decide, score
from core.planning.extraction import Assignment, Found
from core.planning.names import person_names
from core.settings import Settings

GENERALITY = Path(__file__).parents[2] / "benchmarks" / "generality"


def _assistant(pack: str) -> Iterator[Assistant]:
    with tempfile.TemporaryDirectory() as home:
        yield Assistant.from_settings(Settings(home=Path(home), knowledge=[GENERALITY / pack], planner="rules"))


@pytest.fixture(scope="module")
def zhaopin() -> Iterator[Assistant]:
    yield from _assistant("zhaopin")


@pytest.fixture(scope="module")
def rentals() -> Iterator[Assistant]:
    yield from _assistant("rentals")


def plan(assistant: Assistant, text: str) -> Plan:
    return assistant.plan(Request(text=text, bypass_cache=True))


def args(p: Plan, tool: str) -> dict[str, object]:
    return next(s.arguments for s in p.steps if s.tool_name == tool)


# --- a write below the bar whose stated values speak for it -----------------------------------------

def test_a_long_paraphrase_of_a_recipe_with_its_values_is_planned(zhaopin: Assistant) -> None:
    """No example is near this wording, but name, phone and salary are all the pipeline's inputs."""
    p = plan(zhaopin, "给我弄一条数据：一个人从投简历一路走到正式入职，姓名郑爽，手机13366665555，offer月薪22000")
    assert (p.status, p.rule) == ("planned", "recruit_pipeline")
    assert {k: args(p, "create_candidate")[k] for k in ("name", "phone")} == {"name": "郑爽", "phone": "13366665555"}
    assert args(p, "issue_offer")["salary"] == 22000


def test_a_transfer_said_in_everyday_words_is_planned_with_its_values(zhaopin: Assistant) -> None:
    """"李娜下个月起…": 下个月 is a time, not the end of her name; department, title and salary are the recipe's."""
    p = plan(zhaopin, "李娜下个月起去市场部做品牌经理，工资涨到两万二")
    assert (p.status, p.rule) == ("planned", "transfer_employee_flow")
    assert args(p, "find_employee")["name"] == "李娜"
    moved = args(p, "transfer_employee")
    assert (moved["new_department"], moved["new_position"]) == ("市场部", "品牌经理")
    assert args(p, "adjust_salary")["new_salary"] == 22000


def _weak_write(values: dict[str, Found]) -> Candidate:
    c = Candidate("rule", "transfer_flow", True, cov=0.8, core=0.15, rank=0.2, fit=1.0, fill=1.0, alien=0.12,
                  intent=1.0, mass=1.0, lex=0.1)
    c.assignment = Assignment(values=values, refused={})
    return c


def test_one_stated_value_does_not_carry_a_weak_write_but_several_do() -> None:
    """A thing's id is taken by any write on that thing: alone it says nothing of which write is meant
    ("send the renewal reminder to the owner of ws_…" is no data export). Several values the request
    states, all taken, do."""
    dept = Found("市场部", 5, 8, "known", 2.2)
    phone = Found("13366665555", 12, 23, "pattern", 3.0)
    salary = Found(22000, 30, 34, "span:amount", 2.35)
    rival = Candidate("tool", "get_payslip", False, cov=0.4, rank=0.5, fill=1.0, intent=-1.0)
    alone = _weak_write({"phone": phone})
    assert ASK_MIN <= score(alone) < WRITE_MIN  # below the bar for a write: the case this rule is about
    assert decide([alone, rival], {"transfer_flow": set()}).verdict == "ask"
    several = _weak_write({"phone": phone, "new_department": dept, "new_salary": salary})
    assert decide([several, rival], {"transfer_flow": set()}).verdict == "plan"
    unstated = _weak_write({"new_department": dept, "new_salary": Found(22000, 30, 34, "context", 1.2)})
    assert decide([unstated, rival], {"transfer_flow": set()}).verdict == "ask"  # none in a declared shape
    close = Candidate("tool", "adjust_pay", True, cov=0.7, core=0.1, rank=0.3, fit=1.0, fill=1.0, intent=1.0,
                      mass=1.0, lex=0.1)
    assert 0 < score(several) - score(close) < 1.0
    assert decide([several, close], {"transfer_flow": set()}).verdict == "ask"  # an unrelated write is near


# --- a close rival that explains less of the request ------------------------------------------------

def test_a_close_rival_that_leaves_much_of_the_request_unexplained_is_no_rival(rentals: Assistant) -> None:
    """"should drop down to silver status": the new-customer tool takes the email too, but knows
    nothing of the tier change the whole sentence is about."""
    p = plan(rentals, "tom.h@example.net should drop down to silver status")
    assert (p.status, p.rule) == ("planned", "loyalty_tier_change")
    assert args(p, "find_customer_by_email") == {"email": "tom.h@example.net"}
    assert args(p, "set_loyalty_tier")["loyalty_tier"] == "silver"


def test_of_two_close_writes_the_one_that_explains_every_word_is_chosen() -> None:
    partial = Candidate("tool", "create_candidate", True, cov=0.66, core=0.34, rank=1.0, fit=0.78, fill=1.0,
                        intent=1.0, mass=0.98, lex=0.23)
    whole = Candidate("rule", "arrange_interview", True, cov=1.0, core=0.24, rank=0.33, fit=1.0, fill=1.0,
                      intent=1.0, mass=1.0, lex=0.25)
    assert 0 <= score(partial) - score(whole) < 0.5  # close, the partial one a little ahead
    decision = decide([partial, whole], {"arrange_interview": set()})
    assert (decision.verdict, decision.best) == ("plan", whole)


def test_a_time_word_after_a_name_is_not_part_of_it() -> None:
    names = [n for n, _, _ in person_names("李娜下个月起去市场部", lambda w: False)]
    assert names == ["李娜"]
    assert [n for n, _, _ in person_names("王芳上个月入职", lambda w: False)] == ["王芳"]
