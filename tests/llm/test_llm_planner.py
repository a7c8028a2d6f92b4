"""LLM plans: executed when valid, repaired once, otherwise the rule planner answers and says so."""

from __future__ import annotations

import asyncio
import json

from core.models import Request
from sandbox.server import BackgroundServer
from tests.e2e.test_shop_over_http import db_row
from tests.fixtures.llm_stub import Answer, LLMStub
from tests.llm.conftest import answer_for

PARAPHRASE = "我想要个退了钱也退了货的单子,商品是123456"  # none of the knowledge's own phrases


def test_the_rule_planner_is_not_sure_of_the_paraphrase_so_auto_asks_the_llm(llm_assistant) -> None:
    plan = asyncio.run(llm_assistant(planner="rules").handle(Request(text=PARAPHRASE), execute=False)).plan
    assert not plan.confident  # no trigger phrase, target state or near-verbatim example matched


def test_a_valid_llm_plan_is_executed_and_its_usage_recorded(llm_assistant, stub: LLMStub, shop_knowledge,
                                                             sandbox: BackgroundServer) -> None:
    stub.then(answer_for(shop_knowledge, "给商品123456生成一笔退货退款的订单"))
    a = llm_assistant()
    report = asyncio.run(a.handle(Request(text=PARAPHRASE)))
    assert report.plan.planner == "llm" and report.plan.rule == "return_refund" and report.plan.fallback is None
    assert report.run.status == "succeeded"
    order_id = report.run.step(1).output["order_id"]
    assert db_row(sandbox, "pre", "SELECT status FROM orders WHERE order_id = ?", order_id)["status"] == "refunded"
    sent = stub.seen[0]
    assert PARAPHRASE in sent.last_user and "return_refund" in sent.last_user  # retrieved knowledge in the prompt
    assert sent.body["response_format"]["type"] in ("json_object", "json_schema") and sent.body["temperature"] == 0
    assert report.usage.calls == 1 and report.usage.prompt_tokens > 100
    row = a.store.requests(limit=1)[0]
    assert (row.planner, row.llm_calls, row.prompt_tokens, row.run_id) == ("llm", 1, report.usage.prompt_tokens,
                                                                           report.run.run_id)
    assert report.spec_json(with_run=True)["usage"]["calls"] == 1


def test_invalid_json_is_repaired_once_with_the_errors(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    stub.then("Sure! Here is the plan: {status: planned", answer_for(shop_knowledge, "给商品123456生成一笔退货退款的订单"))
    report = asyncio.run(llm_assistant().handle(Request(text=PARAPHRASE), execute=False))
    assert report.plan.planner == "llm" and report.plan.rule == "return_refund"
    assert len(stub.seen) == 2 and "not JSON" in stub.seen[1].last_user
    assert stub.seen[1].messages[-2]["role"] == "assistant"  # the bad answer is shown back to the model


def test_a_plan_that_breaks_the_knowledge_is_repaired_then_falls_back(llm_assistant, stub: LLMStub,
                                                                      shop_knowledge) -> None:
    bad = json.loads(answer_for(shop_knowledge, "给商品123456生成一笔退货退款的订单"))
    bad["steps"][0]["tool_name"] = "teleport_order"
    bad["steps"][1]["arguments"]["surprise"] = 1
    stub.then(json.dumps(bad), json.dumps(bad))
    report = asyncio.run(llm_assistant().handle(Request(text="给商品id为123456的商品生成一笔退货退款的订单"),
                                                execute=False))
    repair = stub.seen[1].last_user
    assert "teleport_order" in repair and "does not exist" in repair
    assert report.plan.planner == "rules" and report.plan.rule == "return_refund"  # the rule planner answered
    assert report.plan.fallback.startswith("DS-205") and any("rule planner" in n for n in report.plan.notes)


def test_unknown_argument_and_wrong_type_are_caught_by_the_contract(llm_assistant, stub: LLMStub,
                                                                   shop_knowledge) -> None:
    bad = json.loads(answer_for(shop_knowledge, "给商品123456下一单"))
    bad["steps"][0]["arguments"]["quantity"] = "lots"
    stub.then(json.dumps(bad), answer_for(shop_knowledge, "给商品123456下一单"))
    # "lots" is the request's word (grounded), but not an integer: the contract sends it back
    report = asyncio.run(llm_assistant().handle(Request(text="buy lots of item 123456 for me"), execute=False))
    assert "quantity" in stub.seen[1].last_user and report.plan.planner == "llm"
    assert report.plan.steps[0].arguments["quantity"] == 1


def test_server_errors_are_retried_once_then_the_rule_planner_answers(llm_assistant, stub: LLMStub) -> None:
    stub.then(Answer(status=500), Answer(status=503))
    report = asyncio.run(llm_assistant().handle(Request(text="给商品123456生成一笔已支付的订单"), execute=False))
    assert len(stub.seen) == 2  # llm_max_attempts = 2
    assert report.plan.planner == "rules" and report.plan.status == "planned"
    assert report.plan.fallback.startswith("DS-503")
    assert report.spec_json(with_run=False)["fallback"].startswith("DS-503")


def test_provider_429_is_reported_as_rate_limited(llm_assistant, stub: LLMStub) -> None:
    stub.then(Answer(status=429), Answer(status=429))
    report = asyncio.run(llm_assistant().handle(Request(text="给商品123456生成一笔已支付的订单"), execute=False))
    assert report.plan.fallback.startswith("DS-402") and report.plan.status == "planned"


def test_a_slow_answer_times_out_and_falls_back(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    slow = Answer(answer_for(shop_knowledge, "给商品123456下一单"), delay_s=2.0)
    stub.then(slow, slow)
    report = asyncio.run(llm_assistant(llm_timeout_s=0.5, llm_max_attempts=1).handle(
        Request(text="给商品123456下一单"), execute=False))
    assert report.plan.planner == "rules" and report.plan.fallback.startswith("DS-503")
    assert report.latency_ms < 1900  # gave up at the timeout, did not wait for the answer


def test_an_unreachable_provider_falls_back(llm_assistant) -> None:
    a = llm_assistant(llm_api_base="http://127.0.0.1:9/v1", llm_max_attempts=1)
    report = asyncio.run(a.handle(Request(text="给商品123456下一单"), execute=False))
    assert report.plan.fallback.startswith("DS-503") and report.plan.status == "planned"


def test_auto_asks_the_llm_only_when_the_rule_planner_is_not_sure(llm_assistant, stub: LLMStub,
                                                                 shop_knowledge) -> None:
    a = llm_assistant(planner="auto")
    sure = asyncio.run(a.handle(Request(text="给商品id为123456的商品生成一笔退货退款的订单"), execute=False))
    assert sure.plan.planner == "rules" and stub.seen == [] and sure.usage.calls == 0
    stub.then(answer_for(shop_knowledge, "给商品123456生成一笔退货退款的订单"))
    unsure = asyncio.run(a.handle(Request(text=PARAPHRASE), execute=False))
    assert unsure.plan.planner == "llm" and len(stub.seen) == 1


def test_a_follow_up_turn_carries_the_conversation(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    a = llm_assistant()
    stub.then(answer_for(shop_knowledge, "帮我造一笔退货退款的订单"))
    first = asyncio.run(a.handle(Request(text="来一单要退货退款的"), execute=False))
    assert first.plan.status == "needs_input" and first.plan.missing == ["item_id"]
    stub.then(answer_for(shop_knowledge, "给商品123456生成一笔退货退款的订单"))
    second = asyncio.run(a.handle(Request(text="123456", previous=first.plan), execute=False))
    assert second.plan.status == "planned"
    assert "earlier question" in stub.seen[1].last_user


def test_mock_response_unit_path(llm_assistant, shop_knowledge) -> None:
    """litellm's own mock_response: no server at all."""
    from core.llm.client import LLMClient
    from core.llm.limiter import LeakyBucket
    from core.planning.llm_planner import LLMPlanner
    a = llm_assistant()
    client = LLMClient(a.settings, LeakyBucket(5, 10, 5),
                       extra={"mock_response": answer_for(shop_knowledge, "给商品123456下一单")})
    plan, usage = asyncio.run(LLMPlanner(shop_knowledge, client, a.rules).plan(Request(text="order 123456 please")))
    assert plan.planner == "llm" and plan.tool == "create_order" and usage.calls == 1
