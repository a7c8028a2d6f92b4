"""Human in the loop over real interactivity payloads: Run / Cancel, and Retry / Skip / Abort."""

from __future__ import annotations

import json
from typing import Any

from bot.config import BotConfig
from sandbox.server import BackgroundServer
from tests.bot.conftest import Harness
from tests.bot.test_channel_flow import final_update
from tests.e2e.test_shop_over_http import db_row, faults


def buttons(update: dict[str, Any]) -> dict[str, str]:
    """action_id → value of the message's buttons."""
    return {e["action_id"]: e["value"] for b in update["blocks"] if b["type"] == "actions" for e in b["elements"]}


def test_confirm_environment_runs_only_on_run_and_only_for_the_requester(harness: Harness,
                                                                        sandbox: BackgroundServer) -> None:
    _, ts = harness.send.mention("线上给商品123456下一单", channel="C1", user="U1")
    shown = final_update(harness.slack, "C1", "⚠️")
    assert "online" in json.dumps(shown["blocks"], ensure_ascii=False)
    cid = buttons(shown)["ds_confirm_run"]
    assert buttons(shown)["ds_confirm_cancel"] == cid
    assert harness.bot.core.store.list() == []  # nothing ran yet

    r = harness.send.press("ds_confirm_run", cid, user="U9", message_ts=shown["ts"], thread_ts=ts)
    assert r.status_code == 200
    refused = harness.slack.wait_call("chat.postEphemeral", lambda a: a["user"] == "U9")
    assert "只有发起人" in refused["text"] or "Not yours" in refused["text"]
    assert harness.bot.core.store.list() == []

    harness.send.press("ds_confirm_run", cid, user="U1", message_ts=shown["ts"], thread_ts=ts)
    done = final_update(harness.slack, "C1", "✅")
    assert done["ts"] == shown["ts"]  # the confirmation message becomes the result
    run = harness.bot.core.store.list()[0]
    order_id = harness.bot.core.store.get(run.run_id).step(1).output["order_id"]
    assert db_row(sandbox, "online", "SELECT status FROM orders WHERE order_id = ?", order_id)["status"] == "created"

    harness.send.press("ds_confirm_run", cid, user="U1", message_ts=shown["ts"], thread_ts=ts)
    harness.slack.wait_call("chat.postEphemeral", lambda a: a["user"] == "U1")  # already handled
    assert len(harness.bot.core.store.list()) == 1


def test_cancel_runs_nothing_and_a_maintainer_may_decide(start_bot) -> None:
    h = start_bot(BotConfig(maintainers=["UMAINT"], progress_interval_s=0.05))
    _, ts = h.send.mention("线上给商品123456下一单", channel="C1", user="U1")
    shown = final_update(h.slack, "C1", "⚠️")
    h.send.press("ds_confirm_cancel", buttons(shown)["ds_confirm_cancel"], user="UMAINT", message_ts=shown["ts"])
    cancelled = final_update(h.slack, "C1", "🚫")
    assert "UMAINT" in cancelled["text"] and not buttons(cancelled)
    assert h.bot.core.store.list() == []


def test_breakpoint_shows_retry_skip_abort_and_retry_resumes_the_run(harness: Harness,
                                                                     sandbox: BackgroundServer) -> None:
    with faults(sandbox, method="POST", path="/pay$", status=500, times=5):
        _, ts = harness.send.mention("给商品123456生成一笔已支付的订单", channel="C1", user="U1")
        paused = final_update(harness.slack, "C1", "⏸️")
    acts = buttons(paused)
    run_id = acts["ds_resume_retry"]
    assert acts == {"ds_resume_retry": run_id, "ds_resume_skip": run_id, "ds_resume_abort": run_id}
    assert harness.bot.core.store.get(run_id).status == "paused"

    harness.send.press("ds_resume_abort", run_id, user="U2", message_ts=paused["ts"], thread_ts=ts)
    harness.slack.wait_call("chat.postEphemeral", lambda a: a["user"] == "U2")
    assert harness.bot.core.store.get(run_id).status == "paused"  # not theirs: nothing changed

    harness.send.press("ds_resume_retry", run_id, user="U1", message_ts=paused["ts"], thread_ts=ts)
    done = final_update(harness.slack, "C1", "✅")
    assert done["ts"] == paused["ts"] and "U1" in done["text"] + json.dumps(done["blocks"])
    run = harness.bot.core.store.get(run_id)
    assert run.status == "succeeded"
    pay = next(s for s in run.steps if s.tool_name == "pay_order")
    assert pay.output["status"] == "paid" and pay.attempts == 6


def test_abort_ends_a_paused_run(harness: Harness, sandbox: BackgroundServer) -> None:
    with faults(sandbox, method="POST", path="/pay$", status=500, times=5):
        harness.send.mention("给商品123456生成一笔已支付的订单", channel="C1", user="U1")
        paused = final_update(harness.slack, "C1", "⏸️")
    run_id = buttons(paused)["ds_resume_abort"]
    harness.send.press("ds_resume_abort", run_id, user="U1", message_ts=paused["ts"])
    ended = harness.slack.wait_call("chat.update", lambda a: a["ts"] == paused["ts"] and a["text"].startswith("🛑"))
    assert not buttons(ended)
    assert harness.bot.core.store.get(run_id).status == "aborted"


def test_a_run_cut_off_by_a_restart_is_announced_in_its_thread_and_can_be_retried(
        start_bot, sandbox: BackgroundServer, tmp_path) -> None:
    import sqlite3
    first = start_bot(home=tmp_path / "home")
    with faults(sandbox, method="POST", path="/pay$", status=500, times=5):
        _, ts = first.send.mention("给商品123456生成一笔已支付的订单", channel="C9", user="U1")
        final_update(first.slack, "C9", "⏸️")
    run_id = first.bot.core.store.list(limit=1)[0].run_id
    first.close()
    # What a kill -9 mid-step leaves behind: the run and its step still `running`.
    db = sqlite3.connect(tmp_path / "home" / "runs.sqlite3")
    with db:
        db.execute("UPDATE runs SET status='running' WHERE run_id=?", (run_id,))
        db.execute("UPDATE steps SET status='running' WHERE run_id=? AND status='paused'", (run_id,))
    db.close()

    second = start_bot(home=tmp_path / "home")
    second.slack.clear()
    assert run_id in second.bot.core.recovered
    second.bot.announce_recovered()
    notice = second.slack.wait_call("chat.postMessage", lambda a: a["channel"] == "C9")
    assert notice["thread_ts"] == ts and notice["text"].startswith("⚠️")
    assert buttons(notice)["ds_resume_retry"] == run_id
    msg_ts = second.slack.posted("C9")[0].result["ts"]
    second.send.press("ds_resume_retry", run_id, user="U1", channel="C9", message_ts=msg_ts, thread_ts=ts)
    final_update(second.slack, "C9", "✅")
    assert second.bot.core.store.get(run_id).status == "succeeded"


def test_close_candidates_are_offered_as_buttons_only_the_requester_may_press(harness: Harness) -> None:
    _, ts = harness.send.mention("订单O100000001", channel="C1", user="U1")  # which change? not said
    asked = final_update(harness.slack, "C1", "❓")
    offered = buttons(asked)
    assert {"ds_choose_1", "ds_choose_2"} <= set(offered) and harness.bot.core.store.list() == []
    labels = [e["text"]["text"] for b in asked["blocks"] if b["type"] == "actions" for e in b["elements"]]
    pick = next(i for i, label in enumerate(labels, 1) if label.endswith("ship_order"))

    harness.send.press(f"ds_choose_{pick}", offered[f"ds_choose_{pick}"], user="U9", message_ts=asked["ts"],
                       thread_ts=ts)
    refused = harness.slack.wait_call("chat.postEphemeral", lambda a: a["user"] == "U9")
    assert refused["thread_ts"] == ts and harness.bot.core.store.list() == []

    harness.send.press(f"ds_choose_{pick}", offered[f"ds_choose_{pick}"], user="U1", message_ts=asked["ts"],
                       thread_ts=ts)
    chosen = final_update(harness.slack, "C1", "👉")
    assert chosen["ts"] == asked["ts"] and "ship_order" in chosen["text"] and not buttons(chosen)
    run = harness.slack.wait_call("chat.update", lambda a: a["channel"] == "C1" and "run `" in json.dumps(a["blocks"]))
    record = harness.bot.core.store.get(harness.bot.core.store.list()[0].run_id)
    assert record.plan.tool == "ship_order" and record.steps[0].arguments == {"order_id": "O100000001"}
    assert record.request.user == "U1" and record.request.thread == ts and run["ts"] != asked["ts"]

    harness.send.press(f"ds_choose_{pick}", offered[f"ds_choose_{pick}"], user="U1", message_ts=asked["ts"],
                       thread_ts=ts)  # a second press: already handled, nothing runs twice
    harness.slack.wait_call("chat.postEphemeral", lambda a: a["user"] == "U1")
    assert len(harness.bot.core.store.list()) == 1


UNSURE_PACK = {
    "pack.yaml": "name: lab\nenvironments: {default: dev, dev: {}}\n",
    "lab_tools.py": "CALLS = []\ndef send_gift(n: int) -> dict:\n    CALLS.append(n)\n"
                    "    if len(CALLS) == 1:\n        raise TimeoutError('no answer')\n    return {'sent': n}\n",
    "tools/t.yaml": """
        tool_name: send_gift
        description: 给客户寄一份礼物
        parameters: [{name: n, type: integer, required: true, patterns: ['(\\d+)份']}]
        examples: [{user_query: 寄3份礼物, extracted_params: {n: 3}}]
        call: {python: "lab_tools:send_gift"}
    """,
}


def test_a_write_that_may_have_happened_asks_before_it_is_repeated(start_bot, tmp_path) -> None:  # noqa: ANN001
    from tests.bot.conftest import knowledge_with
    from tests.conftest import write_pack

    h = start_bot(knowledge=knowledge_with(write_pack(tmp_path / "lab", UNSURE_PACK)))
    _, ts = h.send.mention("寄3份礼物", channel="C1", user="U1")
    paused = final_update(h.slack, "C1", "⏸️")
    assert "DS-307" in json.dumps(paused["blocks"], ensure_ascii=False)
    run_id = buttons(paused)["ds_resume_retry"]
    h.send.press("ds_resume_retry", run_id, user="U1", message_ts=paused["ts"], thread_ts=ts)
    unsure = final_update(h.slack, "C1", "⚠️")
    assert set(buttons(unsure)) == {"ds_resume_force", "ds_resume_skip", "ds_resume_abort"}
    assert h.bot.core.store.get(run_id).status == "paused"  # nothing repeated on a plain retry
    h.send.press("ds_resume_force", run_id, user="U1", message_ts=unsure["ts"], thread_ts=ts)
    done = final_update(h.slack, "C1", "✅")
    assert done["ts"] == paused["ts"] and h.bot.core.store.get(run_id).status == "succeeded"
