"""Channel mentions over the real Events API: ack, working message, live progress, final answer."""

from __future__ import annotations

import json

from sandbox.server import BackgroundServer
from tests.bot.conftest import Harness
from tests.e2e.test_shop_over_http import db_row
from tests.fixtures.slack_api import FakeSlack


def final_update(slack: FakeSlack, channel: str, marker: str) -> dict:
    """The edit that ends a request (its notification text starts with the outcome)."""
    return slack.wait_call("chat.update", lambda a: a["channel"] == channel and a["text"].startswith(marker))


def test_mention_answers_in_its_thread_with_progress_and_what_was_made(harness: Harness,
                                                                      sandbox: BackgroundServer) -> None:
    resp, ts = harness.send.mention("给商品id为123456的商品生成一笔退货退款的订单", channel="C1")
    assert resp.status_code == 200
    working = harness.slack.wait_call("chat.postMessage", lambda a: a["channel"] == "C1")
    assert working["thread_ts"] == ts and "处理" in working["text"]
    done = final_update(harness.slack, "C1", "✅")
    text = json.dumps(done["blocks"], ensure_ascii=False)
    run = harness.bot.core.store.list(limit=1)[0]
    assert run.status == "succeeded" and run.surface == "slack" and run.user == "U1"
    assert run.run_id in text and run.trace_id in text and "return_refund" in text and "pre" in text
    order_id = harness.bot.core.store.get(run.run_id).step(1).output["order_id"]
    assert order_id in text  # what was made: the order's id is in the answer
    assert db_row(sandbox, "pre", "SELECT status FROM orders WHERE order_id = ?", order_id)["status"] == "refunded"
    updates = harness.slack.of("chat.update")
    progress = [u for u in updates if "⏳" in u["text"] and "/8" in u["text"]]
    assert progress, "the message shows step k/n while the run goes"
    assert {u["ts"] for u in updates} == {harness.slack.posted("C1")[0].result["ts"]}  # one message, edited in place



def test_retried_and_doubled_deliveries_execute_once(harness: Harness) -> None:
    event_id = "EvDUPLICATE1"
    resp, ts = harness.send.mention("给商品123456下一单", channel="C2", event_id=event_id)
    # Slack's retry of the same event, and the `message` event the same mention also produces
    again, _ = harness.send.mention("给商品123456下一单", channel="C2", ts=ts, event_id=event_id, retry_num=1)
    twin, _ = harness.send.message("<@UDSBOT> 给商品123456下一单", channel="C2", ts=ts)
    assert resp.status_code == again.status_code == twin.status_code == 200
    final_update(harness.slack, "C2", "✅")
    harness.bot.worker.run(_idle(), timeout=5)
    assert len(harness.slack.posted("C2")) == 1
    assert len([r for r in harness.bot.core.store.list(limit=50) if r.request_text == "给商品123456下一单"]) == 1


async def _idle() -> None:
    """Yields once on the worker loop: jobs submitted before it have started."""


def test_bad_signature_and_stale_timestamp_are_rejected(harness: Harness) -> None:
    body = '{"type":"event_callback","event":{"type":"app_mention","text":"x","channel":"C1","ts":"1.1","user":"U1"}}'
    forged = harness.send.signed(body, "application/json", signature="v0=" + "0" * 64)
    stale = harness.send.signed(body, "application/json", timestamp=1_000_000_000)
    assert (forged.status_code, stale.status_code) == (401, 401)
    assert harness.slack.posted("C1") == []


def test_clarification_round_trip_in_the_thread_survives_a_restart(start_bot, sandbox: BackgroundServer,
                                                                   tmp_path) -> None:
    first = start_bot(home=tmp_path / "home")
    _, ts = first.send.mention("帮我造一笔退货退款的订单", channel="C3", user="U7")
    asked = final_update(first.slack, "C3", "❓")
    assert "item_id" in json.dumps(asked["blocks"], ensure_ascii=False) or "商品" in asked["text"]
    first.close()  # the bot restarts between the question and the answer

    second = start_bot(home=tmp_path / "home")
    second.slack.clear()
    other, _ = second.send.message("随便聊聊", channel="C3", thread_ts=ts, user="U8")  # someone else in the thread
    resp, _ = second.send.message("商品id是123456", channel="C3", thread_ts=ts, user="U7")  # no mention needed
    assert resp.status_code == 200
    done = final_update(second.slack, "C3", "✅")
    assert "return_refund" in json.dumps(done["blocks"], ensure_ascii=False)
    replies = second.slack.posted("C3")
    assert len(replies) == 1 and replies[0].args["thread_ts"] == ts  # the answer, in the same thread
    run = second.bot.core.store.list(limit=1)[0]
    order_id = second.bot.core.store.get(run.run_id).step(1).output["order_id"]
    assert db_row(sandbox, "pre", "SELECT item_id FROM orders WHERE order_id = ?", order_id)["item_id"] == "123456"


def test_thread_replies_without_an_open_question_are_not_requests(harness: Harness) -> None:
    _, ts = harness.send.mention("给商品123456下一单", channel="C4")
    final_update(harness.slack, "C4", "✅")
    harness.send.message("谢谢!", channel="C4", thread_ts=ts)
    harness.send.message("top-level chatter", channel="C4")
    harness.bot.worker.run(_idle(), timeout=5)
    assert len(harness.slack.posted("C4")) == 1


def test_rate_limited_slack_calls_are_retried(harness: Harness) -> None:
    harness.slack.fail("chat.postMessage", status=429, retry_after=1)
    harness.send.mention("给商品123456下一单", channel="C5")
    final_update(harness.slack, "C5", "✅")
    posts = [c for c in harness.slack.calls if c.method == "chat.postMessage"]
    assert posts[0].args.get("_failed") == 429 and posts[1].args["channel"] == "C5"


def test_a_failing_tool_reaches_the_user_as_code_and_trace_not_a_stack(harness: Harness,
                                                                      sandbox: BackgroundServer) -> None:
    from tests.e2e.test_shop_over_http import faults
    with faults(sandbox, method="POST", path="/pre/orders$", status=400, times=1):
        harness.send.mention("create an order for item 123456", channel="C6")
        failed = final_update(harness.slack, "C6", "❌")
    text = json.dumps(failed["blocks"], ensure_ascii=False)
    run = harness.bot.core.store.list(limit=1)[0]
    assert "DS-302" in text and run.trace_id in text and "Traceback" not in text
    assert failed["text"].startswith("❌ Failed")  # an English request gets an English answer


def test_a_bug_ends_the_working_message_with_ds500_and_a_trace_id(harness: Harness, monkeypatch) -> None:
    async def broken(*args, **kwargs):  # the safety net's job is exactly the failure nobody planned for
        raise RuntimeError("boom at /srv/secret/path.py line 3")

    monkeypatch.setattr(harness.bot.core, "handle", broken)
    harness.send.mention("给商品123456下一单", channel="C7")
    failed = final_update(harness.slack, "C7", "❌")
    text = json.dumps(failed["blocks"], ensure_ascii=False)
    assert failed["ts"] == harness.slack.posted("C7")[0].result["ts"]  # the "working" message itself, ended
    assert "DS-500" in text and "trace" in text and "boom" not in text and "secret" not in text


def test_llm_planning_from_slack_goes_through_the_core_limiter_and_shows_the_queue(start_bot, shop_knowledge) -> None:
    from tests.fixtures.llm_stub import Answer, LLMStub
    from tests.llm.conftest import answer_for
    stub = LLMStub().start()
    try:
        answer = Answer(answer_for(shop_knowledge, "给商品123456下一单"))
        stub.default = lambda body: answer
        h = start_bot(planner="llm", llm_model="openai/stub", llm_api_base=stub.api_base, llm_api_key="sk-x",
                      llm_peak_concurrency=0, llm_requests_per_minute=75)  # bucket of 1, one call a second
        h.send.mention("buy item 123456", channel="CQ1")
        h.send.mention("buy item 123456 please", channel="CQ2")
        for channel in ("CQ1", "CQ2"):
            final_update(h.slack, channel, "✅")
        queued = [u for u in h.slack.of("chat.update") if "Queued for the LLM" in u["text"]]
        assert len(queued) == 1 and "position 1" in queued[0]["text"]
        grants = list(h.bot.core.llm.client.bucket.granted)
        assert len(stub.seen) == len(grants) == 2 and grants[1] - grants[0] >= 0.95  # one drop a second
        assert all(r.planner == "llm" and r.llm_calls == 1 for r in h.bot.core.store.requests(limit=2))
    finally:
        stub.stop()
