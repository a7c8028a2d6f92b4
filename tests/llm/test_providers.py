"""Recorded answers of the common providers, through litellm's parser for each: the structured-
output mode chosen per model is what is sent, and the plan is taken on the first call."""

from __future__ import annotations

import asyncio
import json

import pytest

from core.models import Request
from tests.fixtures import provider_replies as replies
from tests.fixtures.llm_stub import LLMStub
from tests.llm.conftest import answer_for

ASK = "我想要个退了钱也退了货的单子,商品是123456"
PLAN_FOR = "给商品123456生成一笔退货退款的订单"


def _run(llm_assistant, stub: LLMStub, model: str, root: bool = False):
    a = llm_assistant(llm_model=model, llm_api_base=f"http://127.0.0.1:{stub.port}" if root else stub.api_base)
    report = asyncio.run(a.handle(Request(text=ASK), execute=False))
    assert len(stub.seen) == 1 and report.usage.calls == 1
    assert report.plan.planner == "llm" and report.plan.fallback is None and report.plan.rule == "return_refund"
    assert a.store.requests(limit=1)[0].llm_output == report.usage.output_mode  # in the request record
    return report, stub.seen[0].body


def test_openai_with_a_response_schema_gets_json_schema(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    stub.then(replies.openai(answer_for(shop_knowledge, PLAN_FOR)))
    report, sent = _run(llm_assistant, stub, "openai/gpt-4o-mini")
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"]["required"] == ["status", "steps", "missing", "question"]
    assert report.usage.output_mode == "json_schema" and report.usage.prompt_tokens == 1843
    assert report.usage.cost_usd and report.usage.cost_usd > 0  # priced from litellm's table


def test_deepseek_reasoning_content_is_set_aside(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    draft = '{"status": "no_match", "steps": [], "missing": [], "question": "?"}'  # a draft, not the answer
    stub.then(replies.deepseek_reasoner(answer_for(shop_knowledge, PLAN_FOR), f"Maybe {draft}... no, return_refund."))
    report, sent = _run(llm_assistant, stub, "deepseek/deepseek-reasoner")
    assert sent["response_format"]["type"] == "json_schema" and report.plan.status == "planned"
    assert "reasoning returned apart from the answer was set aside" in report.plan.notes[0]


def test_qwen_on_dashscope_answers_through_a_forced_function_call(llm_assistant, stub: LLMStub,
                                                                  shop_knowledge) -> None:
    stub.then(replies.dashscope_tool_call(json.loads(answer_for(shop_knowledge, PLAN_FOR))))
    report, sent = _run(llm_assistant, stub, "dashscope/qwen-plus")
    assert sent["tool_choice"]["function"]["name"] == "submit_plan" and "response_format" not in sent
    assert sent["tools"][0]["function"]["parameters"]["properties"]["status"]["enum"][0] == "planned"
    assert report.usage.output_mode == "tool_call"


def test_ollama_native_chat_in_json_mode(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    stub.then(replies.ollama_chat(f"```json\n{answer_for(shop_knowledge, PLAN_FOR)}\n```"))
    report, sent = _run(llm_assistant, stub, "ollama_chat/qwen2.5", root=True)
    assert stub.seen[0].path == "/api/chat" and sent["format"] == "json"
    assert report.usage.output_mode == "json_object" and report.usage.prompt_tokens == 1843


def test_anthropic_through_litellm_json_tool(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    stub.then(replies.anthropic_tool_use(json.loads(answer_for(shop_knowledge, PLAN_FOR))))
    report, sent = _run(llm_assistant, stub, "anthropic/claude-sonnet-4-20250514", root=True)
    assert stub.seen[0].path == "/v1/messages" and sent["tool_choice"]["name"] == "json_tool_call"
    assert report.usage.output_mode == "json_schema" and report.usage.prompt_tokens == 1843


@pytest.mark.parametrize("mode", ["json_object", "prompt"])
def test_the_mode_can_be_set_for_a_model_whose_table_is_wrong(mode: str, llm_assistant, stub: LLMStub,
                                                              shop_knowledge) -> None:
    stub.then(replies.openai(answer_for(shop_knowledge, PLAN_FOR)))
    a = llm_assistant(llm_model="openai/gpt-4o-mini", llm_output=mode)
    report = asyncio.run(a.handle(Request(text=ASK), execute=False))
    sent = stub.seen[0].body
    assert report.plan.planner == "llm" and report.usage.output_mode == mode
    assert sent.get("response_format") == ({"type": "json_object"} if mode == "json_object" else None)
