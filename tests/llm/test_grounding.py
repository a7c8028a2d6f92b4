"""A model's invented values: every literal argument is traced, an invented one is asked for."""

from __future__ import annotations

import asyncio
import dataclasses
import json

from core.models import Plan, PlanStep, Request, ValueMapping
from core.planning import RulePlanner
from core.planning.grounding import Grounding
from sandbox.server import BackgroundServer
from tests.e2e.test_shop_over_http import db_row
from tests.fixtures.llm_stub import LLMStub
from tests.llm.conftest import answer_for

ORDER_123456 = "给商品123456下一单"


def test_an_invented_item_is_asked_for_and_nothing_is_written(llm_assistant, stub: LLMStub, shop_knowledge,
                                                                sandbox: BackgroundServer) -> None:
    stub.then(answer_for(shop_knowledge, ORDER_123456))  # schema-valid, but 123456 is the model's own
    before = db_row(sandbox, "pre", "SELECT COUNT(*) AS n FROM orders")["n"]
    report = asyncio.run(llm_assistant().handle(Request(text="帮我下一单")))
    plan = report.plan
    assert len(stub.seen) == 1 and plan.planner == "llm" and plan.fallback is None
    assert plan.status == "needs_input" and plan.missing == ["item_id"] and "商品ID" in plan.question
    assert "item_id" not in plan.steps[0].arguments and "item_id" not in plan.known
    assert any("dropped item_id='123456'" in n for n in plan.notes)
    assert report.run is None and db_row(sandbox, "pre", "SELECT COUNT(*) AS n FROM orders")["n"] == before


def test_the_answer_to_the_question_completes_the_plan(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    a = llm_assistant()
    stub.then(answer_for(shop_knowledge, ORDER_123456))
    first = asyncio.run(a.handle(Request(text="帮我下一单"), execute=False))
    stub.then(answer_for(shop_knowledge, ORDER_123456))
    second = asyncio.run(a.handle(Request(text="123456", previous=first.plan), execute=False))
    assert second.plan.status == "planned" and second.plan.planner == "llm"
    assert second.plan.steps[0].arguments["item_id"] == "123456"
    assert second.plan.steps[0].sources["item_id"] == "request"


def test_sources_say_where_each_value_was_found(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    stub.then(answer_for(shop_knowledge, "给商品123456生成一笔退货退款的订单"))
    plan = asyncio.run(llm_assistant().handle(Request(text="我想要个退了钱也退了货的单子,商品是123456"),
                                              execute=False)).plan
    first = plan.steps[0]
    assert first.sources["item_id"] == "request" and first.sources["buyer_id"] == "defaults"
    assert first.arguments["buyer_id"] == "B2001"  # pre's buyer, from defaults.yaml
    assert plan.step(5).sources == {"order_id": "step_output", "reason": "defaults"}
    assert all(set(s.arguments) == set(s.sources) for s in plan.steps)  # no literal without its source


def test_typed_values_of_the_request_are_grounded(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    """The rule planner's typed reading: 两件 is quantity 2, 美国 is country US."""
    data = json.loads(answer_for(shop_knowledge, ORDER_123456))
    data["steps"][0]["arguments"].update({"quantity": 2, "country": "US"})
    stub.then(json.dumps(data))
    plan = asyncio.run(llm_assistant().handle(Request(text="给商品123456下两件发往美国的订单"), execute=False)).plan
    args, sources = plan.steps[0].arguments, plan.steps[0].sources
    assert plan.status == "planned" and (args["quantity"], args["country"]) == (2, "US")
    assert sources["quantity"] == sources["country"] == "request"


def test_an_invented_optional_value_is_dropped_and_defaults_fill_the_rest(llm_assistant, stub: LLMStub,
                                                                         shop_knowledge) -> None:
    data = json.loads(answer_for(shop_knowledge, ORDER_123456))
    data["steps"][0]["arguments"].update({"coupon_id": "C9999", "quantity": 7, "buyer_id": "B7777"})
    stub.then(json.dumps(data))
    plan = asyncio.run(llm_assistant().handle(Request(text=ORDER_123456), execute=False)).plan
    args, sources = plan.steps[0].arguments, plan.steps[0].sources
    assert plan.status == "planned" and "coupon_id" not in args
    assert (args["quantity"], sources["quantity"]) == (1, "defaults")
    assert (args["buyer_id"], sources["buyer_id"]) == ("B2001", "defaults")
    assert sum("the model invented it" in n for n in plan.notes) == 3


def test_a_value_from_earlier_in_the_thread_is_grounded_as_conversation(llm_assistant, stub: LLMStub,
                                                                        shop_knowledge) -> None:
    a = llm_assistant()
    stub.then(answer_for(shop_knowledge, "帮我造一笔退货退款的订单"))
    first = asyncio.run(a.handle(Request(text="来一单要退货退款的,买家B2002"), execute=False))
    assert first.plan.status == "needs_input"
    data = json.loads(answer_for(shop_knowledge, "给商品123456生成一笔退货退款的订单"))
    data["steps"][0]["arguments"]["buyer_id"] = "B2002"
    stub.then(json.dumps(data))
    second = asyncio.run(a.handle(Request(text="商品是123456", previous=first.plan), execute=False))
    step = second.plan.steps[0]
    assert second.plan.status == "planned"
    assert (step.arguments["buyer_id"], step.sources["buyer_id"]) == ("B2002", "conversation")
    assert step.sources["item_id"] == "request"


def test_a_found_value_is_given_as_its_parameter_takes_it(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    data = json.loads(answer_for(shop_knowledge, ORDER_123456))
    data["steps"][0]["arguments"].update({"item_id": 123456, "country": "us"})  # a number; lower case
    stub.then(json.dumps(data))
    plan = asyncio.run(llm_assistant().handle(Request(text="给商品123456下一单,发往美国"), execute=False)).plan
    assert len(stub.seen) == 1 and plan.status == "planned" and plan.planner == "llm"
    assert (plan.steps[0].arguments["item_id"], plan.steps[0].arguments["country"]) == ("123456", "US")


def test_a_constant_of_the_chosen_rule_is_grounded_and_another_value_is_not(shop_knowledge) -> None:
    """A rule that fixes a value (reason=七天无理由) makes that value traceable, and only that one."""
    rule = shop_knowledge.rules["return_refund"].model_copy(deep=True)
    rule.step(5).parameter_mapping["reason"] = ValueMapping(source="constant", value="七天无理由")
    kn = dataclasses.replace(shop_knowledge, rules={**shop_knowledge.rules, "return_refund": rule})

    def plan(reason: str) -> Plan:
        return Plan(status="planned", rule="return_refund", pack="shop", environment="pre", planner="llm",
                    steps=[PlanStep(step_id=5, tool_name="apply_return_refund",
                                    arguments={"order_id": "O1", "reason": reason})])

    request = Request(text="订单O1申请退货退款")
    fixed, other = plan("七天无理由"), plan("尺码不合适")
    assert Grounding(kn, RulePlanner(kn), request).apply(fixed) == []
    assert fixed.steps[0].sources == {"order_id": "request", "reason": "constant"}
    dropped = Grounding(kn, RulePlanner(kn), request).apply(other)
    assert [(d.name, d.value) for d in dropped] == [("reason", "尺码不合适")]


def test_a_question_never_gets_a_write_from_the_model(llm_assistant, stub: LLMStub) -> None:
    """The write bar: "what state is order X in?" answered with cancel_order (its id grounded) is
    sent back, then the rule planner answers with the read."""
    cancel = {"status": "planned", "rule": None, "tool": "cancel_order", "environment": None, "missing": [],
              "question": None, "steps": [{"step_id": 1, "tool_name": "cancel_order", "dependencies": [],
                                           "arguments": {"order_id": "O100000123"}}]}
    stub.then(json.dumps(cancel), json.dumps(cancel))
    report = asyncio.run(llm_assistant().handle(Request(text="订单O100000123现在是什么状态?"), execute=False))
    assert "changes data" in stub.seen[1].last_user
    assert report.plan.planner == "rules" and report.plan.fallback.startswith("DS-205")
    assert report.plan.tool == "get_order" and report.plan.steps[0].arguments["order_id"] == "O100000123"


def test_a_question_of_the_model_also_asks_for_what_it_invented(llm_assistant, stub: LLMStub,
                                                                shop_knowledge) -> None:
    data = json.loads(answer_for(shop_knowledge, ORDER_123456))
    data.update({"status": "needs_input", "missing": ["quantity"], "question": "要几件?"})
    stub.then(json.dumps(data))
    plan = asyncio.run(llm_assistant().handle(Request(text="帮我下一单"), execute=False)).plan
    assert plan.status == "needs_input" and plan.missing == ["quantity", "item_id"] and "商品ID" in plan.question
