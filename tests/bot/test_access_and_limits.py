"""Per-channel packs/environments, an environment's allowed_users, and answers too long for a message."""

from __future__ import annotations

import json
from pathlib import Path

from bot.config import BotConfig, ChannelAccess
from core.knowledge import load_knowledge
from core.settings import BUNDLED_KNOWLEDGE
from tests.bot.test_channel_flow import final_update
from tests.conftest import write_pack

OPS_BACKEND = '''
def fetch_log(job: str) -> dict:
    lines = [f"{i:05d} job {job} step ok " + "x" * 40 for i in range(400)]
    return {"log_id": "L-" + job, "status": "complete", "text": "\\n".join(lines)}

def restart_job(job: str) -> dict:
    return {"job": job, "status": "restarted"}
'''


def ops_pack(root: Path) -> Path:
    return write_pack(root / "ops", {
        "pack.yaml": """
            name: ops
            description: 运维:任务日志与重启
            environments:
              default: lab
              lab: {allowed_users: [U1]}
        """,
        "ops_backend.py": OPS_BACKEND,
        "tools/t.yaml": """
            - tool_name: fetch_log
              description: 拉取任务日志 fetch the log of a job
              parameters: [{name: job, type: string, required: true, patterns: ['(J\\d+)']}]
              examples: [{user_query: 拉取任务J42的日志, extracted_params: {job: J42}}]
              call: {python: "ops_backend:fetch_log"}
              side_effects: false
            - tool_name: restart_job
              description: 重启任务 restart a job
              parameters: [{name: job, type: string, required: true, patterns: ['(J\\d+)']}]
              examples: [{user_query: 重启任务J42, extracted_params: {job: J42}}]
              call: {python: "ops_backend:restart_job"}
        """,
    })


def test_output_too_long_for_a_message_goes_into_a_file_in_the_thread(start_bot, tmp_path: Path) -> None:
    h = start_bot(knowledge=load_knowledge([ops_pack(tmp_path)]))
    _, ts = h.send.mention("拉取任务J42的日志", channel="C1")
    done = final_update(h.slack, "C1", "✅")
    assert all(len(b["text"]["text"]) <= 3000 for b in done["blocks"] if b["type"] == "section")
    assert "attached" in json.dumps(done["blocks"]) or "附件" in json.dumps(done["blocks"], ensure_ascii=False)
    completed = h.slack.wait_call("files.completeUploadExternal")
    assert completed["thread_ts"] == ts and completed["channel_id"] == "C1"
    content = b"".join(h.slack.uploads.values()).decode()
    run = h.bot.core.store.list(limit=1)[0]
    full = h.bot.core.store.get(run.run_id).step(1).output["text"]
    assert full in json.loads(content)["steps"][0]["output"]["text"]  # the whole output, nothing cut


def test_environment_allowed_users_and_channel_scope_refuse_with_a_reason(start_bot, tmp_path: Path) -> None:
    config = BotConfig(progress_interval_s=0.05, channels={
        "CSHOP": ChannelAccess(packs=["shop"]),
        "CPROJ": ChannelAccess(packs=["shop"], environments=["project"]),
    })
    h = start_bot(config, knowledge=load_knowledge([ops_pack(tmp_path), BUNDLED_KNOWLEDGE / "shop"]))

    h.send.mention("重启任务J42", channel="COPS", user="U2")  # not in the lab's allowed_users
    refused = final_update(h.slack, "COPS", "❌")
    assert "DS-204" in json.dumps(refused["blocks"]) and "权限" in json.dumps(refused["blocks"], ensure_ascii=False)
    h.send.mention("重启任务J42", channel="COPS", user="U1")
    final_update(h.slack, "COPS", "✅")

    h.send.mention("重启任务J42", channel="CSHOP", user="U1")  # right user, wrong channel for the pack
    wrong = json.dumps(final_update(h.slack, "CSHOP", "❌")["blocks"], ensure_ascii=False)
    assert "DS-204" in wrong and "ops" in wrong and "shop" in wrong

    h.send.mention("给商品123456下一单", channel="CPROJ", user="U1")  # pack default env `pre` is not allowed here
    env = json.dumps(final_update(h.slack, "CPROJ", "❌")["blocks"], ensure_ascii=False)
    assert "pre" in env and "project" in env
    h.slack.clear()
    h.send.mention("项目环境给商品123456下一单", channel="CPROJ", user="U1")
    assert "project" in json.dumps(final_update(h.slack, "CPROJ", "✅")["blocks"])
    assert [r.status for r in h.bot.core.store.list()] == ["succeeded", "succeeded"]  # refusals ran nothing


FLAKY_BACKEND = '''
CALLS = []
def restart_job(job: str) -> dict:
    CALLS.append(job)
    if len(CALLS) <= 2:
        raise ConnectionRefusedError("scheduler not up yet")  # never reached it: safe to retry
    return {"job": job, "status": "restarted"}
'''


def test_a_maintainer_outside_allowed_users_cannot_retry_a_write_there(start_bot, tmp_path: Path) -> None:
    from tests.bot.test_buttons import buttons

    pack = write_pack(tmp_path / "ops", {
        "pack.yaml": "name: ops\nenvironments: {default: lab, lab: {allowed_users: [U1]}}\n",
        "ops_backend.py": FLAKY_BACKEND,
        "tools/t.yaml": """
            tool_name: restart_job
            description: 重启任务 restart a job
            parameters: [{name: job, type: string, required: true, patterns: ['(J\\\\d+)']}]
            examples: [{user_query: 重启任务J42, extracted_params: {job: J42}}]
            call: {python: "ops_backend:restart_job"}
        """,
    })
    h = start_bot(BotConfig(maintainers=["UMAINT"], progress_interval_s=0.05), knowledge=load_knowledge([pack]),
                  max_attempts=2)
    _, ts = h.send.mention("重启任务J42", channel="COPS", user="U1")
    paused = final_update(h.slack, "COPS", "⏸️")
    run_id = buttons(paused)["ds_resume_retry"]
    h.send.press("ds_resume_retry", run_id, user="UMAINT", channel="COPS", message_ts=paused["ts"], thread_ts=ts)
    refused = h.slack.wait_call("chat.postEphemeral", lambda a: a["user"] == "UMAINT")
    assert "DS-204" in refused["text"] and h.bot.core.store.get(run_id).status == "paused"
    h.send.press("ds_resume_retry", run_id, user="U1", channel="COPS", message_ts=paused["ts"], thread_ts=ts)
    assert final_update(h.slack, "COPS", "✅")["ts"] == paused["ts"]
