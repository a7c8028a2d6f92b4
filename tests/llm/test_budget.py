"""The prompt's size: retrieved candidates only, and trimmed by rank to fit a model's context."""

from __future__ import annotations

import asyncio
import dataclasses

from core.llm.client import context_tokens, count_tokens
from core.llm.prompts import plan_messages
from core.models import Request, RetrievalHit
from tests.fixtures.llm_stub import LLMStub
from tests.llm.conftest import answer_for

ASK = "我想要个退了钱也退了货的单子,商品是123456"
RANKED = [("rule", "return_refund"), ("rule", "refund_only"), ("tool", "create_order"), ("rule", "coupon_order"),
          ("tool", "get_buyer"), ("tool", "create_subsidy"), ("tool", "top_up_balance")]


def _hits(kn) -> list[RetrievalHit]:
    assert all(n in (kn.rules if k == "rule" else kn.tools) for k, n in RANKED)
    return [RetrievalHit(kind=k, name=n, score=1.0, rank=i) for i, (k, n) in enumerate(RANKED)]  # type: ignore[arg-type]


def test_the_prompt_holds_the_retrieved_candidates_whatever_the_index_size(shop_knowledge) -> None:
    template = shop_knowledge.tools["get_buyer"]
    many = {f"synthetic_tool_{i:05d}": template.model_copy(update={"tool_name": f"synthetic_tool_{i:05d}"})
            for i in range(10_000)}
    big = dataclasses.replace(shop_knowledge, tools={**shop_knowledge.tools, **many})
    hits = _hits(shop_knowledge)
    small_prompt, _ = plan_messages(Request(text=ASK), shop_knowledge, hits)
    big_prompt, _ = plan_messages(Request(text=ASK), big, hits)
    assert big_prompt == small_prompt and "synthetic_tool" not in big_prompt[1]["content"]
    unindexed, _ = plan_messages(Request(text=ASK), big, None)  # no index: capped, not 10,000 tools
    assert count_tokens(unindexed) < 8_000


def test_a_prompt_over_the_context_is_trimmed_by_rank_and_still_answered(llm_assistant, stub: LLMStub,
                                                                         shop_knowledge) -> None:
    full, _ = plan_messages(Request(text=ASK), shop_knowledge, _hits(shop_knowledge))
    budget = count_tokens(full) - 200  # a little too small for every candidate
    stub.then(answer_for(shop_knowledge, "给商品123456生成一笔退货退款的订单"))
    a = llm_assistant(llm_max_prompt_tokens=budget)
    plan, _, usage = asyncio.run(a.aplan(Request(text=ASK), hits=_hits(shop_knowledge)))
    sent = stub.seen[0].messages
    assert plan.planner == "llm" and plan.status == "planned" and usage.calls == 1
    assert count_tokens(sent) <= budget and any(n.startswith("prompt trimmed to the") for n in plan.notes)
    assert "return_refund" in sent[1]["content"]  # the best-ranked candidate stays
    assert "top_up_balance" not in sent[1]["content"]  # the lowest-ranked one went first


def test_the_context_comes_from_litellm_model_info() -> None:
    assert context_tokens("openai/gpt-4o-mini") == 128_000
    assert context_tokens("openai/our-own-server-model") is None  # unknown: never trimmed
