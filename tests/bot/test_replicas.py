"""Two bot replicas in HTTP mode on one PostgreSQL, as behind a load balancer: Slack's event (or its
retry) may reach either, every mention is run and answered exactly once, and when the replica
driving a run is killed the other one posts Retry / Skip / Abort in its thread and resumes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core.runstore import RunStore
from sandbox.server import BackgroundServer, free_port
from tests.bot.conftest import SECRET
from tests.bot.test_slack_faults import results, thread
from tests.conftest import SHOP
from tests.fixtures.processes import wait_until_up
from tests.fixtures.slack_api import FakeSlack
from tests.fixtures.slack_events import SlackSender, new_ts

ROOT = Path(__file__).parents[2]


class Replica:
    def __init__(self, name: str, env: dict[str, str], home: Path) -> None:
        self.name = name
        self.port = free_port()
        home.mkdir(parents=True)
        self.log = home / "bot.log"  # a file, not a pipe: a busy replica's log would fill a pipe and stall it
        with self.log.open("w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "bot", "--http", "--host", "127.0.0.1", "--port", str(self.port)], cwd=ROOT,
                env={**env, "DATASMITH_HOME": str(home), "DATASMITH_REPLICA": name}, text=True,
                stdout=subprocess.DEVNULL, stderr=log)
        self.send = SlackSender(f"http://127.0.0.1:{self.port}/slack/events", SECRET)

    def wait_up(self) -> None:
        try:
            wait_until_up(f"http://127.0.0.1:{self.port}/health", self.proc, ready=lambda r: r.json()["ok"],
                          timeout=120)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self.log.read_text()[-3000:]}") from None

    def stop(self) -> None:
        self.send.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture
def replicas(tmp_path: Path, sandbox: BackgroundServer, pg_url: str) -> Iterator[tuple[Replica, Replica, FakeSlack]]:
    slack = FakeSlack().start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    env.update({"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_API_URL": slack.base_url.rstrip("/"),
                "SLACK_SIGNING_SECRET": SECRET, "DATASMITH_KNOWLEDGE": str(SHOP),
                "SHOP_SANDBOX_PORT": str(sandbox.port), "DATASMITH_DATABASE_URL": pg_url})
    a, b = Replica("bot-a", env, tmp_path / "a"), Replica("bot-b", env, tmp_path / "b")
    try:
        a.wait_up()
        b.wait_up()
        yield a, b, slack
    finally:
        a.stop()
        b.stop()
        slack.stop()


def _answered(slack: FakeSlack, channel: str, run_ids: list[str], timeout: float = 240) -> dict[str, list[str]]:
    """Each run's result messages in the channel, once every run has one (or the time is up)."""
    deadline = time.monotonic() + timeout
    while True:
        messages = thread(slack, channel)
        found = {rid: results(messages, rid) for rid in run_ids}
        if all(found.values()) or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def test_two_replicas_run_and_answer_each_mention_exactly_once(replicas, pg_url: str) -> None:
    a, b, slack = replicas
    # Slack delivers one event to both (its retry reaching the other replica): one run, one answer
    ts = new_ts()
    for replica in (a, b):
        resp, _ = replica.send.mention("给商品123456下一单", channel="CDUP", ts=ts, event_id="EvSAME")
        assert resp.status_code == 200
    # 100 distinct mentions spread over both
    sent = []
    for i in range(100):
        _, mention_ts = (a, b)[i % 2].send.mention("给商品123456下一单", channel="CMANY", user=f"U{i % 7}")
        sent.append(mention_ts)

    store = RunStore(pg_url)
    try:
        deadline = time.monotonic() + 240
        while store.count() < 101 and time.monotonic() < deadline:
            time.sleep(0.5)
        time.sleep(2)  # a duplicate run would show up now
        assert store.count(status="succeeded") == store.count() == 101
        dup = [r.run_id for r in store.list(limit=200) if r.run_id and store.get(r.run_id).request.channel == "CDUP"]
        assert len(dup) == 1
        many = [r.run_id for r in store.list(limit=200) if store.get(r.run_id).request.channel == "CMANY"]
        assert len(many) == 100 and {store.get(rid).request.thread for rid in many} == set(sent)
    finally:
        store.close()
    assert [len(v) for v in _answered(slack, "CDUP", dup).values()] == [1]
    answers = _answered(slack, "CMANY", many)
    assert sorted(len(v) for v in answers.values()) == [1] * 100  # each run answered once, in its own thread


def test_a_killed_replica_s_run_is_announced_by_the_other_and_resumes(replicas, sandbox: BackgroundServer,
                                                                      pg_url: str) -> None:
    a, b, slack = replicas
    admin = httpx.Client(base_url=f"http://127.0.0.1:{sandbox.port}", timeout=10)
    admin.post("/_faults", json={"method": "POST", "path": "/ship$", "status": 200, "delay_ms": 120_000})
    store = RunStore(pg_url)
    try:
        _, ts = a.send.mention("给商品123456生成一笔已发货的订单", channel="CKILL", user="U1")
        deadline = time.monotonic() + 90
        run_id = None
        while run_id is None and time.monotonic() < deadline:
            time.sleep(0.3)
            runs = store.list(limit=1)
            if runs and any(s.tool_name == "ship_order" and s.status == "running"
                            for s in store.get(runs[0].run_id).steps):
                run_id = runs[0].run_id
        assert run_id, "the run never reached the slow step"
        done_before = [s.step_id for s in store.get(run_id).steps if s.status == "succeeded"]
        a.proc.send_signal(signal.SIGKILL)
        a.proc.wait(timeout=10)
        killed = time.monotonic()
        admin.delete("/_faults")

        notice = slack.wait_call("chat.postMessage", lambda m: m.get("channel") == "CKILL"
                                 and m.get("thread_ts") == ts and str(m.get("text", "")).startswith("⚠️"), timeout=45)
        took = time.monotonic() - killed
        print(f"resume buttons posted {took:.1f} s after the kill")  # pytest -s: the README's figure
        assert took < 30, f"announced {took:.1f} s after the kill"
        assert store.get(run_id).status == "interrupted"
        values = {e["action_id"]: e["value"] for blk in notice["blocks"] if blk["type"] == "actions"
                  for e in blk["elements"]}
        assert values["ds_resume_retry"] == run_id and "ds_resume_abort" in values

        msg_ts = next(c.result["ts"] for c in slack.posted("CKILL") if c.args is notice)
        b.send.press("ds_resume_retry", run_id, user="U1", channel="CKILL", message_ts=msg_ts, thread_ts=ts)
        deadline = time.monotonic() + 60
        while store.get(run_id).status != "succeeded" and time.monotonic() < deadline:
            time.sleep(0.3)
        run = store.get(run_id)
        assert run.status == "succeeded"
        # the steps that had succeeded before the kill were not run again
        started = [e["step_id"] for e in store.events(run_id) if e["kind"] == "step_started"]
        assert all(started.count(sid) == 1 for sid in done_before)
        order_id = run.steps[0].output["order_id"]  # type: ignore[index]
        assert admin.get(f"/pre/orders/{order_id}").json()["status"] == "shipped"
    finally:
        admin.delete("/_faults")
        admin.close()
        store.close()
