"""The LLM's plan may carry `copies`: kept when the request states that count and the plan writes."""

from __future__ import annotations

import asyncio

from core.models import Request
from tests.fixtures.llm_stub import LLMStub
from tests.llm.conftest import answer_for

ONE = "给商品123456下一单"


def test_a_count_the_request_states_is_kept(llm_assistant, stub: LLMStub, shop_knowledge) -> None:  # noqa: ANN001
    stub.then(answer_for(shop_knowledge, ONE, copies=3))
    report = asyncio.run(llm_assistant().handle(Request(text="帮我弄三单,商品123456"), execute=False))
    assert report.plan.planner == "llm" and report.plan.copies == 3
    assert "copies" in stub.seen[0].messages[0]["content"]  # the model is told what copies are


def test_an_invented_count_is_dropped(llm_assistant, stub: LLMStub, shop_knowledge) -> None:  # noqa: ANN001
    stub.then(answer_for(shop_knowledge, ONE, copies=7))
    report = asyncio.run(llm_assistant().handle(Request(text="帮我弄个单子,商品123456"), execute=False))
    assert report.plan.planner == "llm" and report.plan.copies == 1
    assert any("copies=7 dropped" in n for n in report.plan.notes)


def test_copies_of_a_read_are_ignored(llm_assistant, stub: LLMStub, shop_knowledge) -> None:  # noqa: ANN001
    stub.then(answer_for(shop_knowledge, "查询订单O100000001的详情", copies=2))
    report = asyncio.run(llm_assistant().handle(Request(text="看2遍订单O100000001的详情"), execute=False))
    assert report.plan.copies == 1 and any("only reads" in n for n in report.plan.notes)


def test_the_rule_planners_count_holds_when_the_model_leaves_it_out(llm_assistant, stub: LLMStub,  # noqa: ANN001
                                                                   shop_knowledge) -> None:
    stub.then(answer_for(shop_knowledge, ONE))
    report = asyncio.run(llm_assistant().handle(Request(text="给商品123456下4单"), execute=False))
    assert report.plan.planner == "llm" and report.plan.copies == 4
