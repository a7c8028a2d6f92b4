"""What real Slack sends besides plain messages: "also send to channel" replies, edits and bot
posts in a waiting thread, markup in mentions, DMs without threads, clicks on handled buttons."""

from __future__ import annotations

import json

from tests.bot.conftest import Harness
from tests.bot.test_buttons import buttons
from tests.bot.test_channel_flow import final_update
from tests.fixtures.slack_events import new_ts


def test_a_thread_broadcast_reply_answers_the_question_and_bot_posts_or_edits_do_not(harness: Harness) -> None:
    _, ts = harness.send.mention("帮我造一笔退货退款的订单", channel="CB1", user="U7")
    final_update(harness.slack, "CB1", "❓")
    # in the waiting thread: another bot's post, an edit of the question's message, a channel join
    harness.send.message("商品id是999", channel="CB1", thread_ts=ts, user="U7", subtype="bot_message", bot_id="BOTHER")
    harness.send.message("", channel="CB1", thread_ts=ts, subtype="message_changed",
                         message={"text": "商品id是999", "user": "U7", "ts": ts})
    harness.send.message("<@U7> has joined the channel", channel="CB1", user="U7", subtype="channel_join")
    # the person's answer, with "Also send to #channel" ticked
    resp, _ = harness.send.message("商品id是123456", channel="CB1", thread_ts=ts, user="U7",
                                   subtype="thread_broadcast", root={"ts": ts, "user": "U7"})
    assert resp.status_code == 200
    done = final_update(harness.slack, "CB1", "✅")
    assert "return_refund" in json.dumps(done["blocks"], ensure_ascii=False)
    runs = harness.bot.core.store.list(limit=10)
    assert [r.request_text for r in runs] == ["商品id是123456"]  # one run, from the human reply only
    assert all(p.args["thread_ts"] == ts for p in harness.slack.posted("CB1"))


def test_markup_in_a_mention_reaches_the_request_as_meant(harness: Harness) -> None:
    harness.slack.users["U0BOB"] = "bob"
    harness.send.mention("给商品123456下一单 cc <@U0BOB> <https://x.io/a?b=1&amp;c=2|x.io> &amp; <!here>",
                         channel="CB2")
    harness.slack.wait_call("chat.update", lambda a: a["channel"] == "CB2" and a["text"][0] in "✅❓❌")
    handled = [r for r in harness.bot.core.store.requests(limit=5) if r.channel == "CB2"]
    assert [r.text for r in handled] == ["给商品123456下一单 cc @bob (U0BOB) https://x.io/a?b=1&c=2 & @here"]


def test_a_question_in_a_plain_dm_does_not_ask_for_a_thread_reply(harness: Harness) -> None:
    harness.send.message("造一笔已发货的订单", channel="DB1", channel_type="im", user="U3")
    asked = final_update(harness.slack, "DB1", "❓")
    hints = [e["text"] for b in asked["blocks"] if b["type"] == "context" for e in b["elements"]]
    assert hints and "线程" not in hints[-1] and "thread" not in hints[-1] and "回复" in hints[-1]
    _, ts = harness.send.mention("造一笔已发货的订单", channel="CB3", user="U3")  # in a channel it does
    asked = final_update(harness.slack, "CB3", "❓")
    assert "线程" in json.dumps(asked["blocks"], ensure_ascii=False)


def test_a_click_on_an_already_handled_confirmation_is_answered_in_its_thread(harness: Harness) -> None:
    _, ts = harness.send.mention("线上给商品123456下一单", channel="CB4", user="U1")
    shown = final_update(harness.slack, "CB4", "⚠️")
    cid = buttons(shown)["ds_confirm_run"]
    harness.send.press("ds_confirm_run", cid, user="U1", channel="CB4", message_ts=shown["ts"], thread_ts=ts)
    final_update(harness.slack, "CB4", "✅")
    harness.send.press("ds_confirm_run", cid, user="U1", channel="CB4", message_ts=shown["ts"],
                       thread_ts=ts)  # a late double click
    gone = harness.slack.wait_call("chat.postEphemeral", lambda a: a["user"] == "U1")
    assert gone["thread_ts"] == ts and gone["channel"] == "CB4"
    assert len(harness.bot.core.store.list()) == 1


def test_a_reply_in_a_thread_nobody_asked_in_is_still_ignored_as_a_broadcast(harness: Harness) -> None:
    root = new_ts()
    harness.send.message("给商品123456下一单", channel="CB5", thread_ts=root, subtype="thread_broadcast")
    harness.send.mention("给商品123456下一单", channel="CB6")
    final_update(harness.slack, "CB6", "✅")
    assert harness.slack.posted("CB5") == []
