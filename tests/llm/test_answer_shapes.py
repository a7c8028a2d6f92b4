"""The shapes real models answer in (no JSON mode): each taken on the first call, no repair round."""

from __future__ import annotations

import asyncio
import json

import pytest

from core.llm.answer import extract_object
from core.models import Request
from core.output_contract import checked
from tests.fixtures.llm_stub import Answer, LLMStub
from tests.llm.conftest import answer_for

ASK = "我想要个退了钱也退了货的单子,商品是123456"
PLAN_FOR = "给商品123456生成一笔退货退款的订单"


def _shapes(plan: str) -> dict[str, Answer]:
    comma = plan[:-1] + ",}"  # a trailing comma after the last member
    return {
        "fenced with prose": Answer(f"好的,计划如下:\n```json\n{plan}\n```\n如需调整请告诉我。"),
        "prose, no fence": Answer(f"Here is the plan: {plan} Hope this helps!"),
        "think block": Answer(f"<think>The user wants {{refund}}; rule return_refund fits.</think>\n{plan}"),
        "trailing comma and comment": Answer(f"```json\n// the plan\n{comma}\n```"),
        "reasoning_content apart": Answer(plan, message={
            "reasoning_content": 'Maybe {"status": "no_match", "steps": []}? No: return_refund fits.'}),
    }


@pytest.mark.parametrize("shape", list(_shapes("{}")))
def test_each_answer_shape_is_taken_on_the_first_call(shape: str, llm_assistant, stub: LLMStub,
                                                      shop_knowledge) -> None:
    stub.then(_shapes(answer_for(shop_knowledge, PLAN_FOR))[shape])
    report = asyncio.run(llm_assistant().handle(Request(text=ASK), execute=False))
    assert len(stub.seen) == 1 and report.usage.calls == 1  # no paid repair round
    assert report.plan.planner == "llm" and report.plan.fallback is None
    assert report.plan.status == "planned" and report.plan.rule == "return_refund"
    assert report.plan.steps[0].arguments["item_id"] == "123456"


def test_a_cut_off_answer_still_gets_the_repair_round(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    plan = answer_for(shop_knowledge, PLAN_FOR)
    stub.then(f"```json\n{plan[: len(plan) // 2]}", plan)
    report = asyncio.run(llm_assistant().handle(Request(text=ASK), execute=False))
    assert len(stub.seen) == 2 and "not JSON" in stub.seen[1].last_user
    assert report.plan.planner == "llm" and report.plan.rule == "return_refund"


@pytest.mark.parametrize(("content", "expected", "how"), [
    ('{"status": "planned"}', {"status": "planned"}, []),
    ('Sure.\n```json\n{"status": "planned"}\n```\nDone.', {"status": "planned"}, ["from a fenced block"]),
    ('Example {"x": 1} then {"status": "planned", "q": "a}b"} ok', {"status": "planned", "q": "a}b"},
     ["from the text around it"]),
    ("{'status': 'planned', /* why */ 'steps': [1, 2,],}", {"status": "planned", "steps": [1, 2]},
     ["repaired by json-repair"]),
    ('```json\n// the plan\n{"status": "planned",}\n```', {"status": "planned"},
     ["from a fenced block", "repaired by json-repair"]),
    ("<think>{draft}</think>{\"status\": \"planned\"}", {"status": "planned"}, ["a <think> block was set aside"]),
    ("reasoning without an opening tag</think>\n{\"status\": \"planned\"}", {"status": "planned"},
     ["reasoning before </think> was set aside"]),
    ('Sure! Here is the plan: {status: planned', None, []),
    ("no plan at all", None, []),
])
def test_the_object_is_found_in_what_the_model_wrapped_it_in(content: str, expected: object, how: list[str]) -> None:
    found = extract_object(content)
    assert found.data == expected and found.how == how
    assert (found.error is None) == (expected is not None)


def test_the_plan_says_how_it_was_taken(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    stub.then(_shapes(answer_for(shop_knowledge, PLAN_FOR))["think block"])
    report = asyncio.run(llm_assistant().handle(Request(text=ASK), execute=False))
    # litellm itself moves a leading <think> block into reasoning_content; what is left is the answer
    assert report.plan.notes[0] == ("LLM answer asked as json_object; "
                                    "reasoning returned apart from the answer was set aside")
    assert report.usage.output_mode == "json_object"
    spec = json.loads(json.dumps(report.spec_json(with_run=False)))
    assert spec["usage"]["output_mode"] == "json_object" and checked(spec) == spec  # the published contract
