"""The CLI as a scripting surface: stdout under --json is only JSON lines, and `ask`'s exit code
says how its run ended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core.settings import BUNDLED_KNOWLEDGE
from sandbox.server import BackgroundServer

ROOT = Path(__file__).resolve().parents[2]
SHOP = BUNDLED_KNOWLEDGE / "shop"
PAID = "给商品123456生成一笔已支付的订单"


def datasmith(*args: str, home: Path, sandbox: BackgroundServer | None = None,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "DATASMITH_HOME": str(home), "DATASMITH_BACKOFF_BASE_S": "0.001",
               "DATASMITH_BACKOFF_MAX_S": "0.01", **(env or {})}
    if sandbox is not None:
        environ["SHOP_SANDBOX_PORT"] = str(sandbox.port)
    return subprocess.run([sys.executable, "-m", "core.cli", *args], capture_output=True, text=True, env=environ,
                          cwd=ROOT, timeout=180)


@pytest.fixture
def fault(sandbox: BackgroundServer) -> Iterator[None]:
    yield
    httpx.delete(f"{sandbox.url}/_faults")


def test_json_stdout_stays_json_with_an_unreachable_llm(tmp_path: Path) -> None:
    llm = {"DATASMITH_LLM_MODEL": "openai/unreachable", "DATASMITH_LLM_API_BASE": "http://127.0.0.1:9/v1",
           "DATASMITH_LLM_API_KEY": "x", "DATASMITH_LLM_TIMEOUT_S": "2", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    out = subprocess.run(
            [sys.executable, "-m", "core.cli", "plan", "--knowledge", str(SHOP), "--json", "--planner", "llm", "-"],
            input=f"{PAID}\n帮我造一笔退货退款的订单\n", capture_output=True, text=True, cwd=ROOT, timeout=180,
            env={**os.environ, "DATASMITH_HOME": str(tmp_path), **llm})
    lines = out.stdout.splitlines()
    assert out.returncode == 0 and len(lines) == 2, out.stderr
    answers = [json.loads(line) for line in lines]  # every line parses
    assert answers[0]["fallback"].startswith("DS-503") and answers[0]["status"] == "planned"


def test_json_stdout_keeps_what_libraries_print_and_write_off_it() -> None:
    code = ("import os; from core.stdout_guard import json_only_stdout\n"
            "with json_only_stdout() as out:\n"
            "    print('Give Feedback / Get Help'); os.write(1, b'raw fd write\\n'); print('{\"ok\": 1}', file=out)\n"
            "print('after')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    assert out.stdout.splitlines() == ['{"ok": 1}', "after"]
    assert "Give Feedback" in out.stderr and "raw fd write" in out.stderr


def test_ask_exits_3_when_its_run_fails(tmp_path: Path, sandbox: BackgroundServer, fault: None) -> None:
    httpx.post(f"{sandbox.url}/_faults", json={"path": r"/pay$", "status": 409, "times": 5})
    out = datasmith("ask", "--knowledge", str(SHOP), "--json", PAID, home=tmp_path, sandbox=sandbox)
    assert out.returncode == 3, out.stderr
    assert json.loads(out.stdout)["run"]["status"] == "failed"


def test_ask_exits_4_when_its_run_pauses(tmp_path: Path, sandbox: BackgroundServer, fault: None) -> None:
    httpx.post(f"{sandbox.url}/_faults", json={"path": r"/pay$", "status": 503, "times": 20})
    out = datasmith("ask", "--knowledge", str(SHOP), "--json", PAID, home=tmp_path, sandbox=sandbox,
                    env={"DATASMITH_MAX_ATTEMPTS": "2"})
    assert out.returncode == 4, out.stderr
    assert json.loads(out.stdout)["run"]["status"] == "paused"


def test_runs_resume_exits_as_ask_does(tmp_path: Path, sandbox: BackgroundServer, fault: None) -> None:
    httpx.post(f"{sandbox.url}/_faults", json={"path": r"/pay$", "status": 503, "times": 2})
    paused = datasmith("ask", "--knowledge", str(SHOP), "--json", PAID, home=tmp_path, sandbox=sandbox,
                       env={"DATASMITH_MAX_ATTEMPTS": "2"})
    run_id = json.loads(paused.stdout)["run"]["run_id"]
    assert paused.returncode == 4
    done = datasmith("runs", "resume", run_id, "--action", "retry", "--json", "--knowledge", str(SHOP),
                     home=tmp_path, sandbox=sandbox)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["run"]["status"] == "succeeded"
    again = datasmith("runs", "resume", run_id, "--action", "retry", "--knowledge", str(SHOP), home=tmp_path,
                      sandbox=sandbox)
    assert again.returncode == 6 and "DS-105" in again.stderr  # refused before anything ran, as ask's 6
    missing = datasmith("runs", "resume", "nope", "--action", "abort", "--knowledge", str(SHOP), home=tmp_path)
    assert missing.returncode == 1 and "DS-104" in missing.stderr

    httpx.post(f"{sandbox.url}/_faults", json={"path": r"/pay$", "status": 503, "times": 2})
    paused = datasmith("ask", "--knowledge", str(SHOP), "--json", PAID, home=tmp_path, sandbox=sandbox,
                       env={"DATASMITH_MAX_ATTEMPTS": "2"})
    aborted = datasmith("runs", "resume", json.loads(paused.stdout)["run"]["run_id"], "--action", "abort",
                        "--knowledge", str(SHOP), home=tmp_path, sandbox=sandbox)
    assert aborted.returncode == 3 and "aborted" in aborted.stdout  # ended without its data, as a failed ask


def test_ask_exits_0_for_success_and_for_plan_outcomes(tmp_path: Path, sandbox: BackgroundServer) -> None:
    ok = datasmith("ask", "--knowledge", str(SHOP), "--json", PAID, home=tmp_path, sandbox=sandbox)
    assert ok.returncode == 0 and json.loads(ok.stdout)["run"]["status"] == "succeeded"
    question = datasmith("ask", "--knowledge", str(SHOP), "--json", "帮我造一笔退货退款的订单", home=tmp_path)
    assert question.returncode == 0 and json.loads(question.stdout)["status"] == "needs_input"


def test_ask_exits_6_when_the_run_is_refused(tmp_path: Path, sandbox: BackgroundServer) -> None:
    pack = tmp_path / "shop"
    subprocess.run(["cp", "-r", str(SHOP), str(pack)], check=True)
    text = (pack / "pack.yaml").read_text(encoding="utf-8")
    (pack / "pack.yaml").write_text(text.replace("    aliases: [预发, 预发环境, staging, pre环境]",
                                                 "    aliases: [预发, 预发环境, staging, pre环境]\n    allowed_users: [alice]"),
                                    encoding="utf-8")
    out = datasmith("ask", "--knowledge", str(pack), "--json", "--user", "bob", PAID, home=tmp_path / "h",
                    sandbox=sandbox)
    assert out.returncode == 6 and json.loads(out.stdout)["error"]["code"] == "DS-204"


def test_a_usage_error_exits_2_as_the_readme_says(tmp_path: Path) -> None:
    out = datasmith("ask", "--no-such-flag", PAID, home=tmp_path)
    assert out.returncode == 2 and "usage:" in out.stderr and out.stdout == ""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "2 for a usage error" in readme


HEAVY = ("lancedb", "litellm", "fastapi", "streamlit", "torch", "sentence_transformers", "httpx")
LOADED = ("import json, sys\nfrom core.cli import main\ntry:\n    code = main(sys.argv[1:])\nexcept SystemExit as e:\n"
          "    code = e.code\nheavy = [m for m in " + repr(HEAVY) + " if m in sys.modules]\n"
          "print(json.dumps({'code': code, 'heavy': heavy}), file=sys.stderr)\n")


def loaded(*args: str, home: Path, sandbox: BackgroundServer | None = None) -> dict[str, object]:
    """Run the CLI in a fresh interpreter; which heavy libraries the command loaded."""
    environ = {**os.environ, "DATASMITH_HOME": str(home)}
    if sandbox is not None:
        environ["SHOP_SANDBOX_PORT"] = str(sandbox.port)
    out = subprocess.run([sys.executable, "-c", LOADED, *args], capture_output=True, text=True, env=environ,
                         cwd=ROOT, timeout=180)
    return json.loads(out.stderr.strip().splitlines()[-1])


def test_commands_that_only_read_or_plan_load_only_what_they_use(tmp_path: Path, sandbox: BackgroundServer) -> None:
    assert loaded("--help", home=tmp_path) == {"code": 0, "heavy": []}
    assert loaded("runs", "list", home=tmp_path) == {"code": 0, "heavy": []}  # the RunStore alone
    first = loaded("plan", "--knowledge", str(SHOP), PAID, home=tmp_path)
    assert first["code"] == 0 and "lancedb" in first["heavy"] and "httpx" not in first["heavy"]  # retrieval, no tools
    again = loaded("plan", "--knowledge", str(SHOP), PAID, home=tmp_path)
    assert again == {"code": 0, "heavy": []}  # the plan cache answered: no index opened
    asked = loaded("ask", "--knowledge", str(SHOP), PAID, home=tmp_path, sandbox=sandbox)
    assert asked["code"] == 0 and "httpx" in asked["heavy"] and "lancedb" not in asked["heavy"]
