"""Direct messages (plain and the assistant panel) and the `/datasmith` slash command."""

from __future__ import annotations

import json

from tests.bot.conftest import Harness
from tests.bot.test_channel_flow import final_update


def test_plain_dm_needs_no_mention_and_a_follow_up_dm_answers_the_question(harness: Harness) -> None:
    resp, _ = harness.send.message("造一笔已发货的订单", channel="D1", channel_type="im", user="U3")
    assert resp.status_code == 200
    asked = final_update(harness.slack, "D1", "❓")
    first = harness.slack.posted("D1")[0]
    assert "thread_ts" not in first.args  # a plain DM is answered in line, not in a thread
    harness.send.message("商品123456", channel="D1", channel_type="im", user="U3")
    done = final_update(harness.slack, "D1", "✅")
    assert "order_lifecycle" in json.dumps(done["blocks"]) and asked["ts"] != done["ts"]
    assert harness.slack.of("assistant.threads.setStatus") == []  # no assistant status in a plain DM


def test_assistant_panel_offers_prompts_from_the_knowledge_and_shows_status(harness: Harness) -> None:
    started = {"type": "assistant_thread_started", "event_ts": "1800000001.000001",
               "assistant_thread": {"user_id": "U4", "channel_id": "D2", "thread_ts": "1800000001.000000",
                                    "context": {"channel_id": "C1", "team_id": "T0TEAM"}}}
    assert harness.send.event(started).status_code == 200
    prompts = harness.slack.wait_call("assistant.threads.setSuggestedPrompts")
    offered = [p["message"] for p in prompts["prompts"]]
    examples = {e.user_query for r in harness.bot.core.knowledge.rules.values() for e in r.examples}
    assert 1 <= len(offered) <= 4 and set(offered) <= examples
    assert prompts["thread_ts"] == "1800000001.000000"

    harness.send.message(offered[0], channel="D2", channel_type="im", user="U4", thread_ts="1800000001.000000")
    answer = harness.slack.wait_call("chat.postMessage", lambda a: a["channel"] == "D2" and a["text"][0] == "✅")
    assert answer["thread_ts"] == "1800000001.000000"
    statuses = [a for a in harness.slack.of("assistant.threads.setStatus") if a["thread_ts"] == answer["thread_ts"]]
    assert statuses[0]["status"] == "is working…" or statuses[0]["status"] == "正在处理…"
    assert any("/" in a["status"] for a in statuses)  # step k/n while the run goes
    # the panel shows status instead of a "working" message: the greeting and the answer, nothing else
    assert len(harness.slack.posted("D2")) == 2


def test_slash_command_help_lists_examples_from_the_knowledge(harness: Harness) -> None:
    resp = harness.send.command("help")
    body = resp.json()
    assert resp.status_code == 200 and body["response_type"] == "ephemeral"
    text = json.dumps(body["blocks"], ensure_ascii=False)
    first_rule = next(iter(harness.bot.core.knowledge.rules.values()))
    assert first_rule.examples[0].user_query in text and "shop" in text and "/datasmith runs" in text


def test_slash_command_tools_rules_and_unknown(harness: Harness) -> None:
    tools = json.dumps(harness.send.command("tools").json()["blocks"], ensure_ascii=False)
    assert f"{len(harness.bot.core.knowledge.tools)} tools" in tools and "`create_order`" in tools
    rules = json.dumps(harness.send.command("rules").json()["blocks"], ensure_ascii=False)
    assert "`return_refund`" in rules and "8 steps" in rules
    unknown = json.dumps(harness.send.command("frobnicate").json()["blocks"], ensure_ascii=False)
    assert "frobnicate" in unknown and "/datasmith tools" in unknown


def test_slash_command_runs_mine_and_run_detail(harness: Harness) -> None:
    assert "no runs of yours" in harness.send.command("runs mine", user="U5").json()["text"]
    harness.send.mention("给商品123456下一单", channel="C1", user="U5")
    final_update(harness.slack, "C1", "✅")
    run = harness.bot.core.store.list(limit=1)[0]
    mine = json.dumps(harness.send.command("runs mine", user="U5").json()["blocks"], ensure_ascii=False)
    assert run.run_id in mine
    theirs = harness.send.command("runs mine", user="U6").json()
    assert run.run_id not in json.dumps(theirs)
    detail = json.dumps(harness.send.command(f"run {run.run_id}", user="U5").json()["blocks"], ensure_ascii=False)
    assert run.trace_id in detail and "create_order" in detail
    missing = harness.send.command("run nope", user="U5").json()["text"]
    assert "DS-104" in missing


def test_runs_are_shown_only_to_their_requester_and_maintainers(start_bot) -> None:  # noqa: ANN001
    from bot.config import BotConfig

    h = start_bot(BotConfig(maintainers=["UMAINT"], progress_interval_s=0.05))
    h.send.mention("给商品123456下一单", channel="C1", user="U5")
    final_update(h.slack, "C1", "✅")
    run = h.bot.core.store.list(limit=1)[0]
    for words in ("runs", "runs mine", f"run {run.run_id}"):  # someone else, in the same channel
        answer = json.dumps(h.send.command(words, user="U6", channel="C1").json(), ensure_ascii=False)
        assert run.trace_id not in answer and "123456" not in answer and "create_order" not in answer, words
    assert "DS-104" in h.send.command(f"run {run.run_id}", user="U6").json()["text"]  # not said to exist
    channel = json.dumps(h.send.command("runs", user="UMAINT", channel="C1").json(), ensure_ascii=False)
    assert run.run_id in channel  # a maintainer sees the channel's runs
    elsewhere = json.dumps(h.send.command("runs", user="UMAINT", channel="C2").json(), ensure_ascii=False)
    assert run.run_id not in elsewhere
