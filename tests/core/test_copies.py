"""Copies: "造20笔已支付订单" is one plan with copies=20, run as 20 runs of their own, each making its
own order in the sandbox; a number said as a value is never a count; reads are asked for once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from core.assistant import Assistant
from core.knowledge import Knowledge
from core.models import Request
from core.output_contract import problems
from core.planning import RulePlanner
from sandbox.server import BackgroundServer
from tests.core.test_cli_scripting import SHOP, datasmith
from tests.e2e.test_shop_over_http import db_row, faults


@pytest.fixture(scope="module")
def planner(shop_knowledge: Knowledge) -> RulePlanner:
    return RulePlanner(shop_knowledge)


@pytest.mark.parametrize(("text", "copies", "rule", "item_id"), [
    ("给商品123456造20笔已支付的订单", 20, "order_lifecycle", "123456"),
    ("给商品123456造二十笔已支付的订单", 20, "order_lifecycle", "123456"),
    ("给商品123456造3单已发货的订单", 3, "order_lifecycle", "123456"),
    ("make 20 paid orders for item 123456", 20, "order_lifecycle", "123456"),
    ("make twenty paid orders for item 123456", 20, "order_lifecycle", "123456"),
    ("5 copies of a paid order for item 123456", 5, "order_lifecycle", "123456"),
    ("a paid order for item 123456, 3 of them", 3, "order_lifecycle", "123456"),
    ("给商品123456造一笔已支付的订单,要3笔", 3, "order_lifecycle", "123456"),
    ("给商品123456下3单", 3, "create_order", "123456"),
])
def test_a_count_of_things_made_is_copies_of_one_plan(planner: RulePlanner, text: str, copies: int, rule: str,
                                                      item_id: str) -> None:
    plan = planner.plan(Request(text=text))
    assert (plan.status, plan.rule or plan.tool, plan.copies) == ("planned", rule, copies)
    first = plan.steps[0]
    assert first.arguments["item_id"] == item_id and first.arguments["quantity"] == 1  # one order per copy
    assert plan.spec_json()["copies"] == copies and not problems({**plan.spec_json(), "trace_id": "0" * 32})


def test_a_count_without_the_item_asks_for_it_and_the_answer_keeps_the_count(planner: RulePlanner) -> None:
    asked = planner.plan(Request(text="造20笔已支付订单"))
    assert (asked.status, asked.rule, asked.missing, asked.copies) == ("needs_input", "order_lifecycle", ["item_id"], 20)
    answered = planner.plan(Request(text="123456", previous=asked))
    assert (answered.status, answered.copies) == ("planned", 20)
    assert answered.steps[0].arguments["item_id"] == "123456"


@pytest.mark.parametrize("text", ["cancel 5 orders for item 123456", "取消5笔订单O100000001", "删除3笔订单",
                                  "void 4 orders of item 123456"])
def test_a_count_on_an_undoing_verb_never_repeats_the_undoing(planner: RulePlanner, text: str) -> None:
    # five copies of "cancel O1" would cancel the same thing five times: planned as said instead
    plan = planner.plan(Request(text=text))
    assert plan.copies == 1 and any("runs once" in note for note in plan.notes)  # the count is not dropped silently


def test_an_english_count_of_refunded_orders(planner: RulePlanner) -> None:
    plan = planner.plan(Request(text="create 5 refunded orders for item 123456"))
    assert (plan.status, plan.copies) == ("planned", 5)
    assert plan.rule in ("refund_only", "return_refund")


@pytest.mark.parametrize(("text", "quantity"), [
    ("给商品123456造一笔数量为2的订单", 2),
    ("create an order of 3 items for item 123456", 3),
    ("给商品123456造两个已发货的订单", 2),  # the shop's own pattern reads "N个" as a quantity: the pack decides
])
def test_a_number_said_as_a_value_is_that_value_not_copies(planner: RulePlanner, text: str, quantity: int) -> None:
    plan = planner.plan(Request(text=text))
    assert plan.status == "planned" and plan.copies == 1 and "copies" not in plan.spec_json()
    create = next(s for s in plan.steps if s.tool_name == "create_order")
    assert create.arguments["quantity"] == quantity and create.arguments["item_id"] == "123456"


def test_an_id_is_never_a_count(planner: RulePlanner) -> None:
    plan = planner.plan(Request(text="给商品123456造一笔已支付的订单"))
    assert plan.copies == 1 and plan.steps[0].arguments["item_id"] == "123456"


@pytest.mark.parametrize("text", ["show me 5 orders", "查询最近5笔订单"])
def test_copies_of_a_read_are_ignored(planner: RulePlanner, shop_knowledge: Knowledge, text: str) -> None:
    plan = planner.plan(Request(text=text))
    assert plan.copies == 1
    assert not any(shop_knowledge.tools[s.tool_name].side_effects for s in plan.steps)


def test_n_copies_make_n_runs_and_n_distinct_orders(shop_assistant: Assistant, sandbox: BackgroundServer) -> None:
    before = db_row(sandbox, "pre", "SELECT COUNT(*) AS n FROM orders")["n"]
    tallies: list[tuple[int, int]] = []
    report = asyncio.run(shop_assistant.handle(Request(text="给商品123456造6笔已支付的订单"),
                                               on_copy=lambda t: tallies.append((t.ended, t.total))))
    runs = report.runs
    assert report.error is None and len(runs) == 6 and all(r.status == "succeeded" for r in runs)
    assert len({r.run_id for r in runs}) == 6 and len({r.trace_id for r in runs}) == 1  # one request, six runs
    orders = {r.step(1).output["order_id"] for r in runs}
    assert len(orders) == 6
    assert db_row(sandbox, "pre", "SELECT COUNT(*) AS n FROM orders")["n"] == before + 6
    for order_id in orders:
        assert db_row(sandbox, "pre", "SELECT status FROM orders WHERE order_id = ?", order_id)["status"] == "paid"
    stored = {r.run_id for r in shop_assistant.store.list(limit=50)}
    assert {r.run_id for r in runs} <= stored  # each copy is a run in the RunStore
    assert tallies[0] == (0, 6) and tallies[-1] == (6, 6)  # progress counts the copies
    data = report.spec_json(with_run=True)
    assert data["copies"] == 6 and len(data["runs"]) == 6 and not problems(data)


def test_more_copies_than_allowed_are_refused_in_the_requests_language(settings_for, shop_knowledge: Knowledge,
                                                                      sandbox: BackgroundServer) -> None:
    assistant = Assistant(settings_for(max_copies=3), shop_knowledge)
    try:
        before = db_row(sandbox, "pre", "SELECT COUNT(*) AS n FROM orders")["n"]
        report = asyncio.run(assistant.handle(Request(text="给商品123456造4笔已支付的订单")))
        assert report.run is None and report.runs == [] and report.error.code == "DS-403"
        assert "最多 3 份" in report.error.message_zh and "at most 3" in report.error.message
        assert db_row(sandbox, "pre", "SELECT COUNT(*) AS n FROM orders")["n"] == before
        planned = asyncio.run(assistant.handle(Request(text="make 4 paid orders for item 123456"), execute=False))
        assert planned.error.code == "DS-403"  # `plan` says so too
    finally:
        assistant.close()


def test_cli_ask_lists_the_runs_and_exits_3_when_a_copy_failed(tmp_path: Path, sandbox: BackgroundServer) -> None:
    out = datasmith("ask", "--knowledge", str(SHOP), "--json", "make 3 paid orders for item 123456",
                    home=tmp_path, sandbox=sandbox)
    data = json.loads(out.stdout)
    assert out.returncode == 0, out.stderr
    assert data["copies"] == 3 and [r["status"] for r in data["runs"]] == ["succeeded"] * 3
    assert data["run"]["run_id"] == data["runs"][0]["run_id"] and not problems(data)

    with faults(sandbox, method="POST", path="/pay$", status=400, times=1):
        out = datasmith("ask", "--knowledge", str(SHOP), "给商品123456造3笔已支付的订单", home=tmp_path, sandbox=sandbox)
    assert out.returncode == 3, out.stderr  # one copy failed: the failing code of `ask`
    assert "Copies: 3 runs, 2 succeeded, 1 did not" in out.stdout
    assert out.stdout.count("run ") >= 3 and "copies [3/3]" in out.stderr


def test_cli_human_error_for_too_many_copies_is_in_chinese(tmp_path: Path, sandbox: BackgroundServer) -> None:
    out = datasmith("ask", "--knowledge", str(SHOP), "给商品123456造500笔已支付的订单", home=tmp_path, sandbox=sandbox)
    assert out.returncode == 6 and "DS-403" in out.stdout and "单次最多 100 份" in out.stdout


DOCS_PACK = {
    "pack.yaml": """
        name: docs
        environments: {default: demo, demo: {}}
    """,
    "tools/print.yaml": """
        tool_name: print_letter
        description: print a signed letter for a person and mail it
        side_effects: true
        parameters:
          - {name: person, type: string, required: true, patterns: ['for (\\w+)']}
          - {name: copies, type: integer, default: 1, minimum: 1, maximum: 10}
        examples: [{user_query: print a letter for alice, extracted_params: {person: alice}}]
        call: {python: "docs_backend:print_letter"}
    """,
    "docs_backend.py": """
        def print_letter(person, copies=1):
            return {"letter_id": "L1", "copies": copies}
    """,
}


def test_a_count_whose_words_name_a_parameter_is_that_parameter(tmp_path: Path) -> None:
    from core.knowledge import load_knowledge
    from tests.conftest import write_pack

    planner = RulePlanner(load_knowledge([write_pack(tmp_path / "docs", DOCS_PACK)]))
    letter = planner.plan(Request(text="print a letter for alice, 3 copies"))
    assert letter.status == "planned" and letter.copies == 1  # `copies` is the tool's own parameter here
    letters = planner.plan(Request(text="print 3 letters for alice"))
    assert letters.status == "planned" and letters.copies == 3
