"""The bot as users start it: `python -m bot` in HTTP mode and in Socket Mode, and its manifest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.server import ServerConnection, serve

from sandbox.server import BackgroundServer, free_port
from tests.bot.conftest import SECRET
from tests.conftest import SHOP
from tests.fixtures.processes import wait_until_up
from tests.fixtures.slack_api import BOT_USER, TEAM, FakeSlack
from tests.fixtures.slack_events import SlackSender, new_ts

ROOT = Path(__file__).parents[2]
MANIFEST = json.loads((ROOT / "bot" / "manifest.json").read_text(encoding="utf-8"))


def test_manifest_subscribes_to_everything_the_bot_listens_for() -> None:
    events = set(MANIFEST["settings"]["event_subscriptions"]["bot_events"])
    assert {"app_mention", "message.channels", "message.im", "assistant_thread_started", "app_home_opened"} <= events
    scopes = set(MANIFEST["oauth_config"]["scopes"]["bot"])
    # what the bot calls: chat.postMessage/update/postEphemeral, files_upload_v2, assistant.threads.*, commands
    assert {"chat:write", "files:write", "assistant:write", "commands", "app_mentions:read", "im:history",
            "channels:history"} <= scopes
    assert [c["command"] for c in MANIFEST["features"]["slash_commands"]] == ["/datasmith"]
    assert MANIFEST["settings"]["interactivity"]["is_enabled"] is True
    assert MANIFEST["features"]["assistant_view"]["assistant_description"]
    assert MANIFEST["settings"]["socket_mode_enabled"] is True  # `python -m bot` defaults to Socket Mode


def run_bot(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "bot", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def bot_env(tmp_path: Path, sandbox: BackgroundServer) -> Iterator[tuple[dict[str, str], FakeSlack]]:
    fake = FakeSlack().start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    env.update({"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_API_URL": fake.base_url.rstrip("/"),
                "DATASMITH_HOME": str(tmp_path / "home"), "DATASMITH_KNOWLEDGE": str(SHOP),
                "SHOP_SANDBOX_PORT": str(sandbox.port)})
    yield env, fake
    fake.stop()


def test_missing_tokens_are_named_and_nothing_starts(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    out = subprocess.run([sys.executable, "-m", "bot"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and "SLACK_BOT_TOKEN, SLACK_APP_TOKEN not set" in out.stderr
    out = subprocess.run([sys.executable, "-m", "bot", "--http"], cwd=ROOT, capture_output=True, text=True,
                         env={**env, "SLACK_BOT_TOKEN": "x"}, timeout=60)
    assert out.returncode == 2 and "SLACK_SIGNING_SECRET not set" in out.stderr and "Traceback" not in out.stderr


def test_http_mode_process_answers_a_mention_and_stops_cleanly_on_sigterm(bot_env) -> None:
    env, fake = bot_env
    port = free_port()
    proc = run_bot("--http", "--host", "127.0.0.1", "--port", str(port), env={**env, "SLACK_SIGNING_SECRET": SECRET})
    try:
        wait_until_up(f"http://127.0.0.1:{port}/health", proc, ready=lambda r: r.json()["ok"])
        sender = SlackSender(f"http://127.0.0.1:{port}/slack/events", SECRET)
        resp, ts = sender.mention("给商品123456下一单", channel="CP")
        assert resp.status_code == 200
        fake.wait_call("chat.update", lambda a: a["channel"] == "CP" and a["text"].startswith("✅"), timeout=60)
        sender.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err


def test_socket_mode_receives_envelopes_and_acks_them(bot_env) -> None:
    env, fake = bot_env
    acks: list[dict[str, Any]] = []
    got_ack = threading.Event()
    ts = new_ts()

    def session(ws: ServerConnection) -> None:
        ws.send(json.dumps({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "ADATASMITH"}}))
        event = {"type": "app_mention", "user": "U1", "text": f"<@{BOT_USER}> 给商品123456下一单", "ts": ts,
                 "channel": "CS", "event_ts": ts}
        ws.send(json.dumps({"envelope_id": "env-1", "type": "events_api", "accepts_response_payload": False,
                            "retry_attempt": 0, "retry_reason": "",
                            "payload": {"type": "event_callback", "team_id": TEAM, "api_app_id": "ADATASMITH",
                                        "event_id": "EvSOCKET1", "event_time": int(time.time()), "event": event,
                                        "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}]}}))
        for raw in ws:
            msg = json.loads(raw)
            if "envelope_id" in msg:
                acks.append(msg)
                got_ack.set()

    with serve(session, "127.0.0.1", 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        fake.socket_url = f"ws://127.0.0.1:{server.socket.getsockname()[1]}/link"
        proc = run_bot(env={**env, "SLACK_APP_TOKEN": "xapp-test"})
        try:
            assert got_ack.wait(90), proc.stderr.read() if proc.poll() is not None else "no ack"
            fake.wait_call("chat.update", lambda a: a["channel"] == "CS" and a["text"].startswith("✅"), timeout=60)
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
            server.shutdown()
    assert acks[0]["envelope_id"] == "env-1"
    assert fake.posted("CS")[0].args["thread_ts"] == ts
    assert proc.returncode == 0, err


def _start_fails(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", "--http", "--port", "0"], cwd=ROOT, capture_output=True,
                          text=True, env={**env, "SLACK_SIGNING_SECRET": SECRET}, timeout=120)


def test_an_unreachable_web_api_ends_with_one_line_saying_what_to_check(bot_env) -> None:
    env, _ = bot_env
    out = _start_fails({**env, "SLACK_API_URL": f"http://127.0.0.1:{free_port()}/api"})
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1, out.stderr
    assert "cannot reach Slack's Web API" in lines[0] and "SLACK_API_URL" in lines[0]


def test_a_bad_token_or_missing_scopes_end_with_one_line_saying_what_to_do(bot_env) -> None:
    env, fake = bot_env
    fake.fail("auth.test", error="invalid_auth")
    out = _start_fails(env)
    assert out.returncode == 2 and out.stderr.strip().splitlines() == [out.stderr.strip()], out.stderr
    assert "refused SLACK_BOT_TOKEN (invalid_auth)" in out.stderr and "OAuth & Permissions" in out.stderr
    fake.scopes = "app_mentions:read,channels:history,commands"
    out = _start_fails(env)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "lacks the scopes chat:write, im:history" in out.stderr and "reinstall" in out.stderr


def test_a_normal_start_logs_no_bolt_warning_and_a_forged_request_no_body(bot_env) -> None:
    env, fake = bot_env
    fake.scopes = ",".join(MANIFEST["oauth_config"]["scopes"]["bot"])
    port = free_port()
    proc = run_bot("--http", "--host", "127.0.0.1", "--port", str(port), env={**env, "SLACK_SIGNING_SECRET": SECRET})
    try:
        wait_until_up(f"http://127.0.0.1:{port}/health", proc, ready=lambda r: r.json()["ok"])
        forged = SlackSender(f"http://127.0.0.1:{port}/slack/events", "not-the-secret")
        resp, _ = forged.mention("my secret request text 机密", channel="CX")
        assert resp.status_code == 401
        forged.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "token will be unused" not in err and "WARNING" not in err
    assert "Invalid request signature" in err and "secret request text" not in err and "机密" not in err
