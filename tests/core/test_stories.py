"""Stories: live record → fixture → zero-LLM replay; stale fixtures and regressions fail loudly."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from core.assistant import Assistant
from core.errors import PackError
from core.knowledge import load_knowledge
from core.models import Request
from core.settings import BUNDLED_KNOWLEDGE, Settings
from core.stories.loader import load_stories
from core.stories.runner import StoryRunner
from sandbox.server import BackgroundServer
from tests.conftest import write_pack
from tests.e2e.test_shop_over_http import faults

ROOT = Path(__file__).parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture
def settings(tmp_path: Path, sandbox: BackgroundServer) -> Settings:
    return Settings(home=tmp_path / "home", environ={**os.environ, "SHOP_SANDBOX_PORT": str(sandbox.port)},
                    backoff_base_s=0.001, backoff_max_s=0.01)


def runner(settings: Settings, pack: Path = BUNDLED_KNOWLEDGE / "shop", fixtures: Path = FIXTURES,
           live: bool = False) -> StoryRunner:
    kn = load_knowledge([pack])
    assistant = Assistant(settings, kn) if live else None
    return StoryRunner(kn, settings, load_stories(kn), fixtures, assistant=assistant)


def test_the_shop_ships_at_least_25_stories_with_fixtures_incl_multi_turn_and_failures() -> None:
    stories = load_stories(load_knowledge([BUNDLED_KNOWLEDGE / "shop"]))
    assert len(stories) >= 25
    assert sum(len(s.steps) > 1 for s in stories.values()) >= 3
    assert sum(any(st.status == "failed" for st in s.steps) for s in stories.values()) >= 3
    for s in stories.values():
        assert (FIXTURES / "shop" / s.id).is_dir(), f"story {s.id} has no recorded fixture"


def test_replay_makes_no_llm_call_even_with_an_llm_configured(settings: Settings, monkeypatch) -> None:  # noqa: ANN001
    import litellm

    def forbidden(*args, **kwargs):  # noqa: ANN002, ANN003
        raise AssertionError("replay must not call a model")

    monkeypatch.setattr(litellm, "acompletion", forbidden)
    monkeypatch.setattr(litellm, "completion", forbidden)
    s = settings.model_copy(update={"planner": "llm", "llm_model": "openai/none", "llm_api_key": "x"})
    r = runner(s)
    try:
        results = [asyncio.run(r.replay(story)) for story in r.stories.values()]
    finally:
        r.close()
    assert all(x.ok for x in results), [(x.story_id, x.failures) for x in results if not x.ok]


def test_a_changed_story_makes_its_fixture_stale_and_the_replay_fails(settings: Settings, tmp_path: Path) -> None:
    pack = tmp_path / "shop"
    shutil.copytree(BUNDLED_KNOWLEDGE / "shop", pack)
    path = pack / "stories" / "lifecycle.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("给商品123456造一笔待支付的订单", "给商品123456造一笔待付款的订单"),
                    encoding="utf-8")
    r = runner(settings, pack)
    try:
        stale = asyncio.run(r.replay(r.stories["created-order"]))
        missing = asyncio.run(r.replay(r.stories["paid-order"].model_copy(update={"id": "never-recorded"})))
    finally:
        r.close()
    assert not stale.ok and "stale fixture" in stale.failures[0] and "stories record --story created-order" in stale.failures[0]
    assert not missing.ok and "no fixture" in missing.failures[0]


def test_a_regression_in_a_tool_fails_the_replay_with_what_differed(settings: Settings,
                                                                    sandbox: BackgroundServer) -> None:
    r = runner(settings.model_copy(update={"max_attempts": 1}))
    try:
        with faults(sandbox, method="POST", path="/pay$", status=400, times=1):
            result = asyncio.run(r.replay(r.stories["paid-order"]))
    finally:
        r.close()
    text = "\n".join(result.failures)
    assert not result.ok
    assert "diverged from the recording" in text and "('pay_order', 'failed')" in text
    assert "status: expected succeeded, got failed" in text


def test_record_then_replay_round_trip_with_dependencies(settings: Settings, tmp_path: Path) -> None:
    fixtures = tmp_path / "fixtures"
    live = runner(settings, fixtures=fixtures, live=True)
    try:
        for sid in ("shipped-order", "cancel-shipped-order-refused"):
            rec = asyncio.run(live.record(live.stories[sid]))
            assert rec.ok, rec.failures
        first = (fixtures / "shop" / "shipped-order" / "pre.json").read_bytes()
        again = asyncio.run(live.record(live.stories["shipped-order"]))  # same behaviour: no diff to review
        assert again.ok and again.fixture_path is None
        assert (fixtures / "shop" / "shipped-order" / "pre.json").read_bytes() == first
    finally:
        live.close()
        live.assistant.close()  # type: ignore[union-attr]
    data = json.loads((fixtures / "shop" / "cancel-shipped-order-refused" / "pre.json").read_text(encoding="utf-8"))
    assert data["steps"][0]["tool_calls"][0]["tool"] == "cancel_order" and data["steps"][0]["status"] == "failed"
    assert data["recorded_at"] and data["story_digest"]
    again = runner(settings, fixtures=fixtures)
    try:
        assert asyncio.run(again.replay(again.stories["cancel-shipped-order-refused"])).ok
    finally:
        again.close()


def test_story_errors_name_the_file_story_and_step(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "p", {
        "pack.yaml": "name: p\nenvironments: {default: dev, dev: {}}\n",
        "tools/t.yaml": "tool_name: t\ndescription: 工具\nexamples: [{user_query: 用工具}]\ncall: {python: 'm:f'}\n",
        "m.py": "def f():\n    return {}\n",
        "stories/s.yaml": "- id: a\n  steps: [{user_message: x, tool_calls: [nope]}]\n",
    })
    with pytest.raises(PackError, match=r"s\.yaml.*story a, step 1: unknown tool 'nope'"):
        load_stories(load_knowledge([pack]))
    (pack / "stories" / "s.yaml").write_text(
        "- {id: a, depends_on: [b], steps: [{user_message: x}]}\n- {id: b, depends_on: [a], steps: [{user_message: y}]}\n")
    with pytest.raises(PackError, match="cycle"):
        load_stories(load_knowledge([pack]))


def test_a_run_from_production_becomes_a_story_in_one_command(settings: Settings, tmp_path: Path) -> None:
    pack = tmp_path / "shop"
    shutil.copytree(BUNDLED_KNOWLEDGE / "shop", pack)
    a = Assistant(settings.model_copy(update={"knowledge": [pack]}), load_knowledge([pack]))
    report = asyncio.run(a.handle(Request(text="给商品123456生成一笔已支付的订单", surface="slack", user="U1")))
    a.close()
    env = {**settings.environ, "DATASMITH_HOME": str(settings.home), "DATASMITH_KNOWLEDGE": str(pack)}
    out = subprocess.run([sys.executable, "-m", "core.cli", "stories", "export", report.run.run_id, "--fixtures",
                          str(tmp_path / "fx")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    replay = subprocess.run([sys.executable, "-m", "core.cli", "stories", "replay", "--story", f"run-{report.run.run_id}",
                             "--fixtures", str(tmp_path / "fx")], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert f"✓ run-{report.run.run_id}" in replay.stdout and "1/1 stories passed" in replay.stdout


def test_a_run_that_answered_a_question_is_exported_with_the_whole_conversation(settings: Settings,
                                                                                tmp_path: Path) -> None:
    """Slack thread: a question, then the answer that ran. The story has both turns, replays, and can
    be recorded again (it once lost the question turn and could not)."""
    pack = tmp_path / "shop"
    shutil.copytree(BUNDLED_KNOWLEDGE / "shop", pack)
    a = Assistant(settings.model_copy(update={"knowledge": [pack]}), load_knowledge([pack]))
    asked = asyncio.run(a.handle(Request(text="帮我造一笔已支付的订单", surface="slack", user="U1")))
    assert asked.plan.status == "needs_input" and asked.plan.conversation == ["帮我造一笔已支付的订单"]
    ran = asyncio.run(a.handle(Request(text="商品123456", surface="slack", user="U1", previous=asked.plan)))
    a.close()
    assert ran.run is not None and ran.run.status == "succeeded"
    assert ran.plan.conversation == ["帮我造一笔已支付的订单", "商品123456"]
    env = {**settings.environ, "DATASMITH_HOME": str(settings.home), "DATASMITH_KNOWLEDGE": str(pack)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "core.cli", "stories", *args, "--fixtures", str(tmp_path / "fx")],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)

    assert cli("export", ran.run.run_id).returncode == 0
    story = yaml.safe_load((pack / "stories" / "exported.yaml").read_text(encoding="utf-8"))[-1]
    assert [(s["user_message"], s.get("status")) for s in story["steps"]] == [
        ("帮我造一笔已支付的订单", "needs_input"), ("商品123456", "succeeded")]
    replay = cli("replay", "--story", story["id"])
    assert replay.returncode == 0 and "1/1 stories passed" in replay.stdout, replay.stdout + replay.stderr
    record = cli("record", "--story", story["id"])
    assert record.returncode == 0 and "1/1 stories passed" in record.stdout, record.stdout + record.stderr


def test_plain_pytest_collects_stories_with_readable_failures(tmp_path: Path, sandbox: BackgroundServer) -> None:
    pack = tmp_path / "shop"
    shutil.copytree(BUNDLED_KNOWLEDGE / "shop", pack, ignore=shutil.ignore_patterns("stories"))
    (pack / "stories").mkdir()
    shutil.copy(BUNDLED_KNOWLEDGE / "shop" / "stories" / "lifecycle.yaml", pack / "stories" / "lifecycle.yaml")
    text = (pack / "stories" / "lifecycle.yaml").read_text(encoding="utf-8")
    (pack / "stories" / "lifecycle.yaml").write_text(text.replace(
        "tool_calls: [create_order, pay_order, ship_order]", "tool_calls: [create_order, ship_order, pay_order]"),
        encoding="utf-8")
    env = {**os.environ, "SHOP_SANDBOX_PORT": str(sandbox.port), "DATASMITH_HOME": str(tmp_path / "home")}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(pack / "stories"),
                          "--stories-fixtures", str(FIXTURES), "--rootdir", str(tmp_path)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert "1 failed, 8 passed" in out.stdout, out.stdout[-3000:]
    assert "story shipped-order (replay) failed" in out.stdout and "stale fixture" in out.stdout


def test_replay_and_contract_checks_leave_the_users_sandbox_and_runs_alone(tmp_path: Path,
                                                                           sandbox: BackgroundServer) -> None:
    import httpx

    base = f"http://127.0.0.1:{sandbox.port}/pre"
    mine = httpx.post(f"{base}/orders", json={"item_id": "123456", "buyer_id": "B2001", "quantity": 1}).json()
    before = httpx.get(f"{base}/orders").json()["orders"]
    project = httpx.get(f"http://127.0.0.1:{sandbox.port}/project/orders").json()["orders"]
    home = tmp_path / "home"
    env = {**os.environ, "SHOP_SANDBOX_PORT": str(sandbox.port), "DATASMITH_HOME": str(home)}
    fixture_before = (FIXTURES / "shop" / "shipped-order" / "pre.json").read_bytes()
    replay = subprocess.run([sys.executable, "-m", "core.cli", "stories", "replay", "--story", "shipped-order"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    verify = subprocess.run([sys.executable, "-m", "core.cli", "contracts", "verify", "--pack", "shop",
                             "--env", "project", "--writes"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert " verified, 0 failed" in verify.stdout, verify.stdout + verify.stderr
    # the order made before is still there and nothing the tests made landed in the user's shop
    orders = httpx.get(f"{base}/orders").json()["orders"]
    assert mine in orders and orders == before
    assert httpx.get(f"http://127.0.0.1:{sandbox.port}/project/orders").json()["orders"] == project
    assert not (home / "runs.sqlite3").exists() or "run" not in subprocess.run(
        [sys.executable, "-m", "core.cli", "runs", "list"], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60).stdout
    assert (FIXTURES / "shop" / "shipped-order" / "pre.json").read_bytes() == fixture_before
