"""End to end over real HTTP: the assistant plans and runs against the sandbox shop, and the
result is checked in the sandbox's own database."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx

from core.assistant import Assistant
from core.knowledge import Knowledge
from core.models import Request
from core.settings import Settings
from sandbox.server import BackgroundServer


def db_row(sandbox: BackgroundServer, env: str, sql: str, *args: object) -> sqlite3.Row:
    db = sqlite3.connect(sandbox._server.config.app.state.store.path(env))  # type: ignore[attr-defined]
    db.row_factory = sqlite3.Row
    try:
        return db.execute(sql, args).fetchone()
    finally:
        db.close()


@contextmanager
def faults(sandbox: BackgroundServer, **fault: object) -> Iterator[None]:
    """Script the sandbox to fail matching requests, and clear it afterwards."""
    httpx.post(f"{sandbox.url}/_faults", json=fault)
    try:
        yield
    finally:
        httpx.delete(f"{sandbox.url}/_faults")


def test_return_refund_chain_reaches_refunded_in_the_shop_database(shop_assistant: Assistant,
                                                                  sandbox: BackgroundServer) -> None:
    report = asyncio.run(shop_assistant.handle(Request(text="给商品id为123456的商品生成一笔退货退款的订单")))
    assert report.error is None and report.run is not None and report.run.status == "succeeded"
    order_id = report.run.step(1).output["order_id"]
    order = db_row(sandbox, "pre", "SELECT * FROM orders WHERE order_id = ?", order_id)
    assert (order["status"], order["item_id"], order["buyer_id"]) == ("refunded", "123456", "B2001")
    assert order["return_logistics_no"] and order["refund_amount"] == order["total"]
    events = db_row(sandbox, "pre", "SELECT group_concat(action, '>') AS a FROM order_events WHERE order_id = ?",
                    order_id)["a"]
    assert events == ("create>pay>ship>confirm_receipt>apply_return_refund>approve_return>return_goods>"
                      "approve_refund")
    stored = shop_assistant.store.get(report.run.run_id)
    assert stored.status == "succeeded" and stored.trace_id == report.trace_id


def test_environments_keep_separate_data(shop_assistant: Assistant, sandbox: BackgroundServer) -> None:
    report = asyncio.run(shop_assistant.handle(Request(text="项目环境给商品223344造一笔已发货的订单")))
    assert report.run is not None and report.run.status == "succeeded"
    order_id = report.run.step(1).output["order_id"]
    assert db_row(sandbox, "project", "SELECT status FROM orders WHERE order_id = ?", order_id)["status"] == "shipped"
    assert db_row(sandbox, "project", "SELECT buyer_id FROM orders WHERE order_id = ?", order_id)["buyer_id"] == "B4001"


def test_a_wrong_plan_fails_loudly_with_the_shops_reason(shop_assistant: Assistant) -> None:
    report = asyncio.run(shop_assistant.handle(Request(text="给订单O999999999发货")))
    assert report.run is not None and report.run.status == "failed"
    assert report.error is not None and report.error.code == "DS-302"
    assert "order 'O999999999' not found" in report.error.message and report.error.trace_id == report.trace_id


def test_transient_http_failures_are_retried_then_succeed(shop_assistant: Assistant,
                                                         sandbox: BackgroundServer) -> None:
    with faults(sandbox, method="POST", path="/pre/orders$", status=503, times=2):
        report = asyncio.run(shop_assistant.handle(Request(text="给商品123456下一单")))
    assert report.run is not None and report.run.status == "succeeded"
    assert report.run.step(1).attempts == 3


def test_breakpoint_over_http_then_resume(shop_assistant: Assistant, sandbox: BackgroundServer) -> None:
    with faults(sandbox, method="POST", path="/pay$", status=500, times=5):
        paused = asyncio.run(shop_assistant.handle(Request(text="给商品123456生成一笔已支付的订单")))
    assert paused.run is not None and paused.run.status == "paused"
    pay = next(s for s in paused.run.steps if s.tool_name == "pay_order")
    assert pay.status == "paused" and pay.attempts == 5
    resumed = asyncio.run(shop_assistant.resume(paused.run.run_id, "retry", by="U1"))
    assert resumed.run is not None and resumed.run.status == "succeeded"
    assert next(s for s in resumed.run.steps if s.tool_name == "pay_order").output["status"] == "paid"


def test_confirm_environment_waits_for_yes(settings_for: Callable[..., Settings], shop_knowledge: Knowledge) -> None:
    assistant = Assistant(settings_for(), shop_knowledge)
    try:
        waiting = asyncio.run(assistant.handle(Request(text="线上给商品123456下一单")))
        assert waiting.run is None and "confirm" in (waiting.plan.question or "")  # type: ignore[union-attr]
        assert assistant.store.list() == []
        done = asyncio.run(assistant.handle(Request(text="线上给商品123456下一单"), confirmed=True))
        assert done.run is not None and done.run.status == "succeeded"
    finally:
        assistant.close()


def test_skipping_a_failed_ship_step_ends_partial_and_says_which_state_was_reached(
        shop_assistant: Assistant, sandbox: BackgroundServer) -> None:
    """The order never shipped: the run must not say `succeeded`; it names the skipped step, the goal
    it did not confirm and the last state it did (and the shop's database agrees)."""
    with faults(sandbox, method="POST", path="/ship$", status=500, times=5):
        paused = asyncio.run(shop_assistant.handle(Request(text="给商品123456造一笔已发货的订单")))
    assert paused.run is not None and paused.run.status == "paused"
    done = asyncio.run(shop_assistant.resume(paused.run.run_id, "skip", by="U1"))
    assert done.run is not None and done.run.status == "partial"
    assert done.error is not None and done.error.code == "DS-308"
    # the pack's own state names: goal 已发货 (shipped) not confirmed, last confirmed 待发货 (paid)
    assert "ship_order" in done.error.message and "`已发货`" in done.error.message and "`待发货`" in done.error.message
    order_id = done.run.step(1).output["order_id"]
    assert db_row(sandbox, "pre", "SELECT status FROM orders WHERE order_id = ?", order_id)["status"] == "paid"
    assert shop_assistant.store.get(done.run.run_id).status == "partial"
