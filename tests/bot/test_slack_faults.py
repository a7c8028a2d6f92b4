"""Every way Slack's Web API fails, injected one at a time into real conversations over the fake Web
API: 5xx and 429 on each kind of call, timeouts, a token revoked mid-run. Each test reads the
thread as a person would see it at the end: exactly one answer carrying the run id, no DS-500."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.knowledge import load_knowledge
from tests.bot.conftest import Harness
from tests.bot.test_access_and_limits import ops_pack
from tests.fixtures.slack_api import FakeSlack

ORDER = "给商品123456下一单"
Where = Callable[[dict[str, Any]], bool]


def placeholder(args: dict[str, Any]) -> bool:
    return str(args.get("text", "")).startswith("⏳ 收到")


def progress(args: dict[str, Any]) -> bool:
    return "执行中" in str(args.get("text", ""))


def final(args: dict[str, Any]) -> bool:
    return str(args.get("text", "")).startswith("✅")


def thread(slack: FakeSlack, channel: str) -> dict[str, dict[str, Any]]:
    """The bot's messages in a channel as they read now, by ts: posts and the edits Slack accepted."""
    messages: dict[str, dict[str, Any]] = {}
    with slack._cond:
        calls = list(slack.calls)
    for c in calls:
        if c.args.get("channel") != channel or "_failed" in c.args:
            continue
        if c.method == "chat.postMessage":
            messages[c.result["ts"]] = c.args
        elif c.method == "chat.update" and c.args["ts"] in messages:
            messages[c.args["ts"]] = c.args
    return messages


def settle(h: Harness, channel: str) -> dict[str, dict[str, Any]]:
    """Wait until the conversation in `channel` has finished, then read its thread."""
    h.slack.wait_for(lambda calls: any(c.args.get("channel") == channel or c.args.get("channel_id") == channel
                                       for c in calls))
    idle = threading.Event()
    while h.bot.worker.busy and not idle.wait(0.05):
        pass
    return thread(h.slack, channel)


def results(messages: dict[str, dict[str, Any]], run_id: str) -> list[str]:
    """The messages that carry the run's answer (its id is in their notification text)."""
    return [ts for ts, m in messages.items() if f"run {run_id}" in m.get("text", "")]


def first_post(slack: FakeSlack, channel: str) -> str:
    """The ts of the first message Slack accepted in the channel."""
    return next(c.result["ts"] for c in slack.posted(channel) if "_failed" not in c.args)


def failed(slack: FakeSlack, method: str) -> list[dict[str, Any]]:
    return [a for a in slack.of(method) if "_failed" in a]


def assert_one_answer(h: Harness, channel: str, root: str) -> tuple[str, dict[str, Any]]:
    """Exactly one message carries the succeeded run's id, in the request's thread, and no DS-500 anywhere."""
    messages = settle(h, channel)
    runs = h.bot.core.store.list(limit=1)
    assert runs, messages
    run = runs[0]
    assert run.status == "succeeded"
    answers = results(messages, run.run_id)
    assert len(answers) == 1, messages
    answer = messages[answers[0]]
    assert answer["text"].startswith("✅") and answer.get("thread_ts", root) == root
    assert "DS-500" not in json.dumps(list(messages.values()), ensure_ascii=False)
    return answers[0], answer


# ---------------------------------------------------------------------- one fault, retried away

ONE_FAULT = [
    pytest.param("chat.postMessage", placeholder, 500, id="placeholder-500"),
    pytest.param("chat.postMessage", placeholder, 429, id="placeholder-429"),
    pytest.param("chat.update", progress, 503, id="progress-503"),
    pytest.param("chat.update", progress, 429, id="progress-429"),
    pytest.param("chat.update", final, 500, id="answer-500"),
    pytest.param("chat.update", final, 502, id="answer-502"),
    pytest.param("chat.update", final, 429, id="answer-429"),
]


@pytest.mark.parametrize(("method", "where", "status"), ONE_FAULT)
def test_one_failed_call_in_a_channel_conversation_still_ends_in_one_answer(
        harness: Harness, method: str, where: Where, status: int) -> None:
    harness.slack.fail(method, status=status, where=where, retry_after=0 if status == 429 else None)
    _, ts = harness.send.mention(ORDER, channel="CF1")
    answer_ts, _ = assert_one_answer(harness, "CF1", ts)
    assert [a["_failed"] for a in failed(harness.slack, method)] == [status]  # the fault did happen
    assert answer_ts == first_post(harness.slack, "CF1")  # retried: the placeholder became the answer


def test_an_answer_slack_will_not_edit_in_is_posted_as_a_new_message(harness: Harness) -> None:
    harness.slack.fail("chat.update", status=500, where=final, times=3)  # every retry refused too
    _, ts = harness.send.mention(ORDER, channel="CF2")
    answer_ts, answer = assert_one_answer(harness, "CF2", ts)
    assert len(failed(harness.slack, "chat.update")) == 3
    assert answer_ts != first_post(harness.slack, "CF2") and answer["thread_ts"] == ts  # a new message, in the thread


def test_a_placeholder_slack_refuses_does_not_stop_the_run(harness: Harness) -> None:
    harness.slack.fail("chat.postMessage", status=503, where=placeholder, times=3)
    _, ts = harness.send.mention(ORDER, channel="CF3")
    _, answer = assert_one_answer(harness, "CF3", ts)
    assert len(thread(harness.slack, "CF3")) == 1 and answer["thread_ts"] == ts  # the answer is all there is
    assert harness.slack.of("chat.update") == []  # nothing to edit


# ---------------------------------------------------------------------- timeouts

def test_a_timed_out_answer_edit_is_sent_again(start_bot: Callable[..., Harness]) -> None:
    h = start_bot(api_timeout=1)
    h.slack.slow("chat.update", 2.5, where=final)  # Slack did it, but answered after the client gave up
    _, ts = h.send.mention(ORDER, channel="CT1")
    answer_ts, _ = assert_one_answer(h, "CT1", ts)
    assert answer_ts == first_post(h.slack, "CT1")
    assert len([a for a in h.slack.of("chat.update") if final(a)]) == 2  # repeating an edit changes nothing


def test_a_timed_out_post_is_not_repeated_and_the_answer_still_comes(start_bot: Callable[..., Harness]) -> None:
    h = start_bot(api_timeout=1)
    h.slack.slow("chat.postMessage", 2.5, where=placeholder)
    _, ts = h.send.mention(ORDER, channel="CT2")
    answer_ts, _ = assert_one_answer(h, "CT2", ts)
    assert len([a for a in h.slack.of("chat.postMessage") if placeholder(a)]) == 1  # no second "working" post
    assert h.slack.of("chat.update") == []  # its ts never arrived: the answer is a new message
    assert answer_ts != first_post(h.slack, "CT2")


# ---------------------------------------------------------------------- files

FILE_FAULTS = [
    pytest.param("files.getUploadURLExternal", 500, id="upload-url-500"),
    pytest.param("files.getUploadURLExternal", 429, id="upload-url-429"),
    pytest.param("upload", 500, id="upload-500"),
    pytest.param("files.completeUploadExternal", 503, id="complete-503"),
]


@pytest.mark.parametrize(("method", "status"), FILE_FAULTS)
def test_one_failed_file_call_still_attaches_the_full_output(start_bot: Callable[..., Harness], tmp_path: Path,
                                                              method: str, status: int) -> None:
    h = start_bot(knowledge=load_knowledge([ops_pack(tmp_path)]))
    h.slack.fail(method, status=status, retry_after=0 if status == 429 else None)
    _, ts = h.send.mention("拉取任务J42的日志", channel="CU1")
    assert_one_answer(h, "CU1", ts)
    done = [a for a in h.slack.of("files.completeUploadExternal") if "_failed" not in a]
    assert len(done) == 1 and done[0]["thread_ts"] == ts
    assert [c.args.get("_failed") for c in h.slack.calls if c.method == method][0] == status


def test_a_file_slack_will_not_take_is_said_and_the_answer_stands(start_bot: Callable[..., Harness],
                                                                  tmp_path: Path) -> None:
    h = start_bot(knowledge=load_knowledge([ops_pack(tmp_path)]))
    h.slack.fail("upload", status=500, times=2)
    _, ts = h.send.mention("拉取任务J42的日志", channel="CU2")
    answer_ts, _ = assert_one_answer(h, "CU2", ts)
    notes = [m for t, m in thread(h.slack, "CU2").items() if t != answer_ts and "could not be attached" in m["text"]]
    assert len(notes) == 1 and notes[0]["thread_ts"] == ts
    assert h.slack.of("files.completeUploadExternal") == []


# ---------------------------------------------------------------------- the assistant panel

PANEL = "1800000009.000000"


def open_panel(h: Harness, channel: str) -> None:
    started = {"type": "assistant_thread_started", "event_ts": "1800000009.000001",
               "assistant_thread": {"user_id": "U4", "channel_id": channel, "thread_ts": PANEL,
                                    "context": {"channel_id": "C1", "team_id": "T0TEAM"}}}
    assert h.send.event(started).status_code == 200


@pytest.mark.parametrize(("method", "status"), [
    pytest.param("assistant.threads.setSuggestedPrompts", 500, id="prompts-500"),
    pytest.param("assistant.threads.setSuggestedPrompts", 429, id="prompts-429"),
    pytest.param("chat.postMessage", 503, id="greeting-503"),
])
def test_one_failed_call_opening_the_panel_still_greets_and_offers_prompts(harness: Harness, method: str,
                                                                          status: int) -> None:
    harness.slack.fail(method, status=status, retry_after=0 if status == 429 else None)
    open_panel(harness, "DP1")
    prompts = harness.slack.wait_call("assistant.threads.setSuggestedPrompts", lambda a: "_failed" not in a)
    assert prompts["prompts"] and prompts["thread_ts"] == PANEL
    greeting = harness.slack.wait_call("chat.postMessage", lambda a: "_failed" not in a and a["channel"] == "DP1")
    assert greeting["thread_ts"] == PANEL and "one sentence" in greeting["text"]
    assert [c.args.get("_failed") for c in harness.slack.calls if c.method == method][0] == status


@pytest.mark.parametrize("status", [500, 429])
def test_a_failed_status_line_in_the_panel_does_not_cost_the_answer(harness: Harness, status: int) -> None:
    harness.slack.fail("assistant.threads.setStatus", status=status, retry_after=0 if status == 429 else None)
    harness.send.message(ORDER, channel="DP2", channel_type="im", user="U4", thread_ts=PANEL)
    assert_one_answer(harness, "DP2", PANEL)
    assert failed(harness.slack, "assistant.threads.setStatus")[0]["_failed"] == status
    assert any("_failed" not in a for a in harness.slack.of("assistant.threads.setStatus"))


# ---------------------------------------------------------------------- ephemeral notes

def test_a_failed_ephemeral_note_is_retried(harness: Harness) -> None:
    _, ts = harness.send.mention("线上给商品123456下一单", channel="CE1", user="U1")
    shown = harness.slack.wait_call("chat.update", lambda a: a["channel"] == "CE1" and a["text"].startswith("⚠️"))
    cid = next(e["value"] for b in shown["blocks"] if b["type"] == "actions" for e in b["elements"])
    harness.slack.fail("chat.postEphemeral", status=500)
    harness.send.press("ds_confirm_run", cid, user="U9", channel="CE1", message_ts=shown["ts"], thread_ts=ts)
    refused = harness.slack.wait_call("chat.postEphemeral", lambda a: "_failed" not in a)
    assert refused["user"] == "U9" and refused["thread_ts"] == ts
    assert harness.bot.core.store.list() == []


# ---------------------------------------------------------------------- a dead token

def test_a_token_revoked_mid_run_ends_quietly_with_the_run_kept(harness: Harness,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    harness.slack.revoke(after="chat.postMessage")  # the placeholder lands, then the token is gone
    with caplog.at_level(logging.ERROR, logger="datasmith.bot"):
        _, ts = harness.send.mention(ORDER, channel="CR1")
        messages = settle(harness, "CR1")
    run = harness.bot.core.store.list(limit=1)[0]
    assert run.status == "succeeded"  # the data was made; the console and /datasmith runs have it
    assert [placeholder(m) for m in messages.values()] == [True]  # what the thread shows: the placeholder only
    posts = harness.slack.of("chat.postMessage")
    assert len(posts) == 1  # no fallback post, no DS-500 attempt: Slack would refuse them all
    assert len([a for a in harness.slack.of("chat.update") if final(a)]) == 1  # not retried
    said = [r.getMessage() for r in caplog.records if run.run_id in r.getMessage()]
    assert said and "no longer valid" in said[0]
