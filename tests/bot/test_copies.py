"""Copies in Slack: above `confirm_copies_above` the bot asks first (Run / Cancel), then answers in
the thread with one compact line per run; a small batch runs at once."""

from __future__ import annotations

import json

from sandbox.server import BackgroundServer
from tests.bot.test_buttons import buttons
from tests.bot.test_channel_flow import final_update
from tests.e2e.test_shop_over_http import db_row, faults


def orders(sandbox: BackgroundServer) -> int:
    return int(db_row(sandbox, "pre", "SELECT COUNT(*) AS n FROM orders")["n"])


def test_above_the_count_the_bot_asks_first_and_run_makes_every_copy(start_bot, sandbox: BackgroundServer) -> None:  # noqa: ANN001
    h = start_bot(confirm_copies_above=2)
    before = orders(sandbox)
    _, ts = h.send.mention("给商品123456造3笔已支付的订单", channel="C1", user="U1")
    shown = final_update(h.slack, "C1", "⚠️")
    assert "3 份" in shown["text"] and set(buttons(shown)) == {"ds_confirm_run", "ds_confirm_cancel"}
    assert h.bot.core.store.list() == [] and orders(sandbox) == before  # nothing ran yet

    h.send.press("ds_confirm_run", buttons(shown)["ds_confirm_run"], user="U1", message_ts=shown["ts"], thread_ts=ts)
    done = final_update(h.slack, "C1", "✅")
    assert done["ts"] == shown["ts"] and "3/3" in done["text"]
    runs = h.bot.core.store.list()
    assert len(runs) == 3 and {r.status for r in runs} == {"succeeded"} and orders(sandbox) == before + 3
    listed = json.dumps(done["blocks"], ensure_ascii=False)
    for run in runs:  # each run id and the order it made, one line each
        assert run.run_id in listed and h.bot.core.store.get(run.run_id).step(1).output["order_id"] in listed


def test_cancel_makes_no_copy(start_bot, sandbox: BackgroundServer) -> None:  # noqa: ANN001
    h = start_bot(confirm_copies_above=2)
    before = orders(sandbox)
    _, ts = h.send.mention("make 5 paid orders for item 123456", channel="C1", user="U1")
    shown = final_update(h.slack, "C1", "⚠️")
    assert "5 copies" in shown["text"]
    h.send.press("ds_confirm_cancel", buttons(shown)["ds_confirm_cancel"], user="U1", message_ts=shown["ts"],
                 thread_ts=ts)
    final_update(h.slack, "C1", "🚫")
    assert h.bot.core.store.list() == [] and orders(sandbox) == before


def test_a_small_batch_runs_at_once_and_counts_its_failures(start_bot, sandbox: BackgroundServer) -> None:  # noqa: ANN001
    h = start_bot(confirm_copies_above=5)
    with faults(sandbox, method="POST", path="/pay$", status=400, times=1):
        h.send.mention("给商品123456造2笔已支付的订单", channel="C1", user="U1")
        done = final_update(h.slack, "C1", "◐")
    listed = json.dumps(done["blocks"], ensure_ascii=False)
    assert "1/2" in done["text"] and "1 份未成功" in listed and "DS-302" in listed
    assert len(h.bot.core.store.list()) == 2
