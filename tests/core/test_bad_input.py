"""Bad input never crashes: a clear error or no_match, and nothing written half-way."""

from __future__ import annotations

import asyncio

import pytest

from core.assistant import Assistant
from core.models import Request


@pytest.mark.parametrize(("text", "code"), [("", "DS-101"), ("   \n\t ", "DS-101"), ("给商品123456下一单" * 10_000, "DS-102")])
def test_empty_and_huge_requests_get_a_coded_error_and_write_nothing(shop_assistant: Assistant, text: str,
                                                                    code: str) -> None:
    report = asyncio.run(shop_assistant.handle(Request(text=text)))
    assert report.error is not None and report.error.code == code and report.error.trace_id == report.trace_id
    assert report.run is None and shop_assistant.store.list() == []
    data = report.spec_json(with_run=True)
    assert data["status"] == "no_match" and data["run"] is None and data["error"]["code"] == code


@pytest.mark.parametrize("text", ["😀🎉🔥", "'; DROP TABLE orders; --", "<script>alert(1)</script>", "\x00\x07\x1b[31m",
                                  "ñ" * 3000])
def test_odd_text_is_no_match_and_writes_nothing(shop_assistant: Assistant, text: str) -> None:
    report = asyncio.run(shop_assistant.handle(Request(text=text)))
    assert report.plan is not None and report.plan.status == "no_match" and report.run is None
    assert shop_assistant.store.list() == []


def test_control_characters_around_a_real_request_are_ignored(shop_assistant: Assistant) -> None:
    report = asyncio.run(shop_assistant.handle(Request(text="\x00给商品１２３４５６下一单\u200b"), execute=False))
    assert report.plan is not None and report.plan.status == "planned"
    assert report.plan.steps[0].arguments["item_id"] == "123456"  # full-width digits normalised


@pytest.mark.parametrize("text", ["帮买家B2002买0件商品445566", "给商品123456下一单,数量为0",
                                  "create an order for item 123456 with quantity 0"])
def test_a_stated_value_that_is_not_allowed_is_asked_about_never_replaced_by_a_default(
        shop_assistant: Assistant, text: str) -> None:
    report = asyncio.run(shop_assistant.handle(Request(text=text)))
    plan = report.plan
    assert plan is not None and plan.status == "needs_input" and plan.missing == ["quantity"]
    assert "minimum of 1" in (plan.question or "")  # the requester hears why, in the question
    assert report.run is None and shop_assistant.store.list() == []


def test_every_error_code_in_the_code_is_in_the_catalogue_in_both_languages() -> None:
    import re
    from pathlib import Path

    from core.errors import CATALOGUE, describe
    root = Path(__file__).parents[2]
    used = {m for d in ("core", "bot", "sandbox") for f in (root / d).rglob("*.py")
            for m in re.findall(r"DS-\d{3}", f.read_text(encoding="utf-8"))}
    assert used and used <= set(CATALOGUE), sorted(used - set(CATALOGUE))
    for entry in CATALOGUE.values():
        assert entry.en and entry.zh and entry.hint_en and entry.hint_zh and re.search(r"[\u4e00-\u9fff]", entry.zh)
    assert describe("DS-399") == describe("DS-300")  # a new code in a family still renders


@pytest.mark.parametrize("sources", [{"quantity": "request"}, {}])  # the rule planner's record; the LLM's none
def test_a_refused_value_the_requester_stated_is_their_error_not_the_packs(shop_assistant: Assistant,
                                                                         sources: dict[str, str]) -> None:
    """A plan (an LLM's, a replayed one) carrying the requester's own invalid value: DS-107 in their
    words, naming the parameter — not DS-303 'ask a maintainer to fix the pack'. Nothing runs."""
    from core.models import Plan, PlanStep

    plan = Plan(status="planned", tool="create_order", pack="shop", environment="pre", steps=[PlanStep(
        step_id=1, tool_name="create_order", sources=sources,
        arguments={"item_id": "123456", "buyer_id": "B2001", "quantity": 0})])
    report = asyncio.run(shop_assistant.execute(Request(text="给商品123456下一单,数量为0"), plan))
    assert report.error is not None and report.error.code == "DS-107" and report.run is None
    assert "quantity" in report.error.message_zh and "0" in report.error.message_zh
    assert shop_assistant.store.list() == []


def test_a_refused_value_nobody_stated_is_still_the_packs_contract_error(shop_assistant: Assistant) -> None:
    from core.models import Plan, PlanStep

    plan = Plan(status="planned", tool="create_order", pack="shop", environment="pre", steps=[PlanStep(
        step_id=1, tool_name="create_order", sources={"quantity": "defaults"},
        arguments={"item_id": "123456", "buyer_id": "B2001", "quantity": 0})])
    report = asyncio.run(shop_assistant.execute(Request(text="给商品123456下一单"), plan))
    assert report.error is not None and report.error.code == "DS-303"
