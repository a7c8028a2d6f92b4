"""The leaky bucket in front of the LLM, and the plan cache."""

from __future__ import annotations

import asyncio
import time

from core.errors import LimitError
from core.llm.limiter import LeakyBucket
from core.models import Request
from tests.fixtures.llm_stub import Answer, LLMStub
from tests.fixtures.stats import max_in_window
from tests.llm.conftest import answer_for


def test_200_concurrent_llm_calls_never_exceed_the_configured_rate(llm_assistant, stub: LLMStub) -> None:
    """Through litellm to the stub: the bucket's grants stay within capacity + rate x window, and the
    provider sees no more than the configured rate over the run."""
    stub.default = lambda body: Answer('{"status": "no_match", "steps": [], "missing": [], "question": "?"}')
    a = llm_assistant(llm_peak_concurrency=5, llm_requests_per_minute=3000, llm_max_wait_s=60)  # 40/s, burst 6
    client = a.llm.client

    async def burst() -> list[float]:
        await asyncio.gather(*[client.complete([{"role": "user", "content": f"q{i}"}]) for i in range(200)])
        return [s.at for s in stub.seen]

    arrivals = asyncio.run(burst())
    grants = list(client.bucket.granted)
    assert len(arrivals) == len(grants) == 200
    rate, capacity = a.settings.llm_rate_per_s, a.settings.llm_capacity
    for window in (0.25, 0.5, 1.0, 2.0):
        assert max_in_window(grants, window) <= capacity + rate * window + 1
    # every call the provider saw went through the bucket first: its long-run rate is the bucket's
    assert min(arrivals) >= min(grants) and (200 - capacity) / (max(arrivals) - min(grants)) <= rate * 1.05


def test_a_wait_past_the_bound_fails_fast_with_ds401_and_waiters_see_their_place() -> None:
    bucket = LeakyBucket(capacity=2, rate_per_s=1.0, max_wait_s=1.5)
    places: list[tuple[int, float]] = []

    async def go() -> list[object]:
        return await asyncio.gather(*[bucket.acquire(lambda pos, wait: places.append((pos, wait)))
                                      for _ in range(5)], return_exceptions=True)

    start = time.monotonic()
    results = asyncio.run(go())
    refused = [r for r in results if isinstance(r, LimitError)]
    assert refused and all(r.code == "DS-401" and "try again" in r.message for r in refused)
    assert time.monotonic() - start < 3  # refused at once, not after hanging
    assert places and places[0][0] == 1 and 0 < places[0][1] <= 1.5


def test_the_second_identical_request_is_a_cache_hit_with_no_llm_call(llm_assistant, stub: LLMStub,
                                                                      shop_knowledge) -> None:
    stub.then(answer_for(shop_knowledge, "给商品123456下一单"))
    a = llm_assistant()
    first = asyncio.run(a.handle(Request(text="order item 123456"), execute=False))
    second = asyncio.run(a.handle(Request(text="  order   item 123456 "), execute=False))  # same once normalised
    assert (first.cache, second.cache) == ("miss", "hit") and len(stub.seen) == 1
    assert second.plan.model_dump() == first.plan.model_dump()
    stub.then(answer_for(shop_knowledge, "给商品123456下一单"))
    bypass = asyncio.run(a.handle(Request(text="order item 123456", bypass_cache=True), execute=False))
    assert bypass.cache == "bypass" and len(stub.seen) == 2
    assert [r.cache for r in a.store.requests(limit=3)] == ["bypass", "hit", "miss"]
    other_env = asyncio.run(a.handle(Request(text="order item 123456", environment="project"), execute=False))
    assert other_env.cache == "miss"


def test_a_failed_llm_plan_is_cached_briefly(llm_assistant, stub: LLMStub, shop_knowledge) -> None:
    stub.then(Answer(status=500), Answer(status=500))
    a = llm_assistant(cache_failure_ttl_s=0.5)
    first = asyncio.run(a.handle(Request(text="给商品123456下一单"), execute=False))
    assert first.plan.fallback and len(stub.seen) == 2
    again = asyncio.run(a.handle(Request(text="给商品123456下一单"), execute=False))
    assert again.cache == "hit" and len(stub.seen) == 2  # a broken provider is not hammered
    time.sleep(0.7)
    stub.then(answer_for(shop_knowledge, "给商品123456下一单"))
    later = asyncio.run(a.handle(Request(text="给商品123456下一单"), execute=False))
    assert later.cache == "miss" and later.plan.planner == "llm" and len(stub.seen) == 3


def test_plans_holding_pii_are_not_cached_and_requests_are_stored_redacted(llm_assistant) -> None:
    a = llm_assistant(planner="rules")
    text = "给买家B2001添加一个收货地址,电话是13800138000"
    first = asyncio.run(a.handle(Request(text=text), execute=False))
    assert first.plan.tool == "add_address" and first.plan.steps[0].arguments["phone"] == "13800138000"
    assert asyncio.run(a.handle(Request(text=text), execute=False)).cache == "miss"  # never written to the cache
    stored = a.store.requests(limit=1)[0].text
    assert "13800138000" not in stored and "B2001" in stored


def test_a_plan_an_older_planner_made_is_not_served_after_an_upgrade(llm_assistant, monkeypatch) -> None:
    """The cache key holds a digest of the planning code: a fixed planner answers afresh at once
    instead of replaying its predecessor's plan for 30 minutes."""
    import core.plan_cache

    a = llm_assistant(planner="rules")
    first = asyncio.run(a.handle(Request(text="给商品123456下一单"), execute=False))
    again = asyncio.run(a.handle(Request(text="给商品123456下一单"), execute=False))
    assert (first.cache, again.cache) == ("miss", "hit")
    monkeypatch.setattr(core.plan_cache, "planner_fingerprint", lambda: "a-newer-planner")
    upgraded = asyncio.run(a.handle(Request(text="给商品123456下一单"), execute=False))
    assert upgraded.cache == "miss" and upgraded.plan.model_dump() == first.plan.model_dump()
