"""The CLI contract, exercised the way automation calls it: a real `datasmith` process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from core.services import healthy
from sandbox.server import BackgroundServer, free_port
from tests.conftest import SHOP, write_pack

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli-home")


def datasmith(*args: str, home: Path, stdin: str | None = None, env: dict[str, str] | None = None,
              ) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "DATASMITH_HOME": str(home), **(env or {})}
    return subprocess.run([sys.executable, "-m", "core.cli", *args], input=stdin, capture_output=True, text=True,
                          env=environ, cwd=ROOT, timeout=120)


def test_plan_json_is_the_spec_object(home: Path) -> None:
    out = datasmith("plan", "--knowledge", str(SHOP), "--json", "给商品id为123456的商品生成一笔退货退款的订单", home=home)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert list(data)[:6] == ["status", "rule", "environment", "steps", "missing", "question"]
    assert data["status"] == "planned" and data["rule"] == "return_refund" and len(data["steps"]) == 8
    assert data["steps"][0]["arguments"]["item_id"] == "123456"
    assert data["steps"][1]["arguments"] == {"order_id": {"from_step": 1, "path": "order_id"}}


def test_batch_mode_answers_one_line_per_request_in_order(home: Path) -> None:
    stdin = "给商品123456生成一笔已支付的订单\n\n今天天气怎么样\n帮我造一笔退货退款的订单\n"
    out = datasmith("plan", "--knowledge", str(SHOP), "--json", "-", home=home, stdin=stdin)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [d["status"] for d in lines] == ["planned", "no_match", "no_match", "needs_input"]
    assert lines[1]["error"]["code"] == "DS-101" and lines[3]["missing"] == ["item_id"]


def test_knowledge_error_is_one_line_and_non_zero(home: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "pack.yaml").write_text("name: bad\nenvironments: [oops\n")
    out = datasmith("plan", "--knowledge", str(bad), "--json", "x", home=home)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("datasmith: DS-201:") and "pack.yaml" in out.stderr


def test_eval_reports_the_contract_metrics_and_meets_the_bar(home: Path) -> None:
    out = datasmith("eval", "--knowledge", str(SHOP), str(SHOP / "eval" / "dev.yaml"), "--json", home=home)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for key in ("cases", "status_accuracy", "rule_accuracy", "plan_exact", "node_f1", "edge_f1", "argument_f1",
                "p50_ms", "p95_ms", "failures"):
        assert key in data
    assert data["cases"] >= 60 and data["plan_exact"] >= 0.95, data["failures"]


def test_ask_json_runs_and_reports_the_run(home: Path, sandbox: BackgroundServer) -> None:
    env = {"SHOP_SANDBOX_PORT": str(sandbox.port)}
    out = datasmith("ask", "--knowledge", str(SHOP), "--json", "给商品123456生成一笔已支付的订单", home=home, env=env)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    run = data["run"]
    assert run["status"] == "succeeded" and set(run) >= {"run_id", "trace_id", "status", "steps"}
    assert [s["status"] for s in run["steps"]] == ["succeeded", "skipped", "succeeded"]
    assert run["steps"][2]["output"]["status"] == "paid"
    listed = json.loads(datasmith("runs", "list", "--json", home=home).stdout)["runs"]
    assert run["run_id"] in [r["run_id"] for r in listed]


def test_ask_in_a_confirm_environment_needs_yes(home: Path, sandbox: BackgroundServer) -> None:
    env = {"SHOP_SANDBOX_PORT": str(sandbox.port)}
    out = datasmith("ask", "--knowledge", str(SHOP), "--json", "--env", "online", "给商品123456下一单", home=home,
                    env=env)
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["status"] == "planned" and data["run"] is None and data["question"]
    yes = json.loads(datasmith("ask", "--knowledge", str(SHOP), "--json", "--env", "online", "--yes",
                               "给商品123456下一单", home=home, env=env).stdout)
    assert yes["run"]["status"] == "succeeded"


def test_ask_starts_the_embedded_sandbox_when_none_is_running(home: Path) -> None:
    port = free_port()
    env = {"SHOP_SANDBOX_PORT": str(port), "DATASMITH_SERVICE_IDLE_S": "0.5"}
    out = datasmith("ask", "--knowledge", str(SHOP), "--json", "给商品123456造一笔已取消的订单", home=home, env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["run"]["status"] == "succeeded"
    deadline = time.monotonic() + 15  # started for the call, stopped once its last user is gone
    while time.monotonic() < deadline and healthy(f"http://127.0.0.1:{port}/health"):
        time.sleep(0.2)
    with pytest.raises(httpx.TransportError):
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)


def test_runs_show_and_resume_errors(home: Path) -> None:
    out = datasmith("runs", "show", "nope", home=home)
    assert out.returncode == 1 and "DS-104" in out.stderr


def test_argv_bytes_that_are_not_utf8_are_errors_in_words_not_tracebacks(home: Path) -> None:
    environ = {**os.environ, "DATASMITH_HOME": str(home)}
    show = subprocess.run([sys.executable, "-m", "core.cli", "runs", "show", b"r\xff"], capture_output=True,
                          env=environ, cwd=ROOT, timeout=120)
    assert show.returncode == 1 and b"DS-104" in show.stderr and b"Traceback" not in show.stderr
    plan = subprocess.run([sys.executable, "-m", "core.cli", "plan", "--json", "--knowledge", str(SHOP), "--env",
                           b"pre\xff", "\u7ed9\u5546\u54c1123456\u4e0b\u4e00\u5355"], capture_output=True,
                          env=environ, cwd=ROOT, timeout=120)
    data = json.loads(plan.stdout)
    assert plan.returncode == 0 and data["error"]["code"] == "DS-103" and "pre\ufffd" in data["error"]["message"]


def test_an_empty_filter_says_so_and_an_empty_store_says_how_to_start(tmp_path: Path) -> None:
    empty = datasmith("runs", "list", home=tmp_path / "fresh")
    assert empty.returncode == 0 and empty.stdout.startswith("no runs yet") and "datasmith ask" in empty.stdout
    pack = write_pack(tmp_path / "fan", FAN)
    assert datasmith("ask", "--knowledge", str(pack), "work piece 3", home=tmp_path / "fresh").returncode == 0
    paused = datasmith("runs", "list", "--status", "paused", home=tmp_path / "fresh")
    assert paused.stdout.startswith("no runs match the filter (status paused)")
    assert "work piece 3" in datasmith("runs", "list", home=tmp_path / "fresh").stdout


def test_human_output_shows_each_steps_state(home: Path, sandbox: BackgroundServer) -> None:
    env = {"SHOP_SANDBOX_PORT": str(sandbox.port)}
    out = datasmith("ask", "--knowledge", str(SHOP), "给商品123456造一笔已发货的订单", home=home, env=env)
    assert out.returncode == 0, out.stderr
    states = [line.split("status=")[1].split(",")[0] for line in out.stdout.splitlines() if "status=" in line]
    assert states == ["created", "paid", "shipped"]


FAN = {
    "pack.yaml": "name: fan\nenvironments: {default: dev, dev: {}}\n",
    "fan_tools.py": "import time\n\ndef work(n: int) -> dict:\n    time.sleep(0.05)\n    return {'n': n}\n",
    "tools/work.yaml": """
        tool_name: work
        description: do a piece of work
        parameters: [{name: n, type: integer, required: true, description: the piece}]
        examples: [{user_query: work piece 5, extracted_params: {n: 5}}]
        returns: {type: object, required: [n]}
        call: {python: 'fan_tools:work'}
    """,
    "rules/fan.yaml": """
        - rule_name: fan_out
          description: fan the work out over three parallel pieces and join them
          trigger_phrases: [fan out]
          examples: [{user_query: fan out piece 1, extracted_params: {n: 1}}]
          dag_definition:
            - {step_id: 1, tool_name: work, parameter_mapping: {n: {source: initial_query, value: n}}}
            - {step_id: 2, tool_name: work, dependencies: [1], parameter_mapping: {n: {source: step_output, step_id: 1, value: n}}}
            - {step_id: 3, tool_name: work, dependencies: [1], parameter_mapping: {n: {source: step_output, step_id: 1, value: n}}}
            - {step_id: 4, tool_name: work, dependencies: [1], parameter_mapping: {n: {source: step_output, step_id: 1, value: n}}}
            - {step_id: 5, tool_name: work, dependencies: [2, 3, 4], parameter_mapping: {n: {source: step_output, step_id: 2, value: n}}}
    """,
}


def test_progress_counts_finished_steps_one_by_one_even_when_they_end_together(home: Path, tmp_path: Path) -> None:
    """Three parallel steps end in one wake: the counter still rises by one per finished step, never
    jumps, never goes back, and ends at the total."""
    pack = write_pack(tmp_path / "fan", FAN)
    out = datasmith("ask", "--knowledge", str(pack), "fan out piece 7", home=home)
    assert out.returncode == 0, out.stderr
    lines = [line.strip() for line in out.stderr.splitlines() if line.strip().startswith("[")]
    counts = [int(line[1:line.index("/")]) for line in lines]
    ended = [line.endswith(": succeeded") for line in lines]
    assert sum(ended) == 5 and counts[-1] == 5 and all(line.split("/")[1].startswith("5]") for line in lines)
    previous = 0
    for count, finished in zip(counts, ended, strict=True):
        assert count == previous + (1 if finished else 0), lines
        previous = count


def test_ask_json_keeps_the_published_output_contract(home: Path, sandbox: BackgroundServer) -> None:
    from core.output_contract import problems
    env = {"SHOP_SANDBOX_PORT": str(sandbox.port)}
    stdin = "给商品123456生成一笔已支付的订单\n帮我造一笔退货退款的订单\n\n今天天气怎么样\n线上给商品123456下一单\n"
    out = datasmith("ask", "--knowledge", str(SHOP), "--json", "-", home=home, stdin=stdin, env=env)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [d["status"] for d in lines] == ["planned", "needs_input", "no_match", "no_match", "planned"]
    assert lines[0]["run"]["status"] == "succeeded" and lines[4]["run"] is None  # online waits for --yes
    for d in lines:
        assert problems(d) == [], d


def test_a_malformed_answer_is_replaced_by_a_valid_error_not_passed_on() -> None:
    from core.output_contract import checked, problems
    bad = {"status": "planned", "rule": None, "environment": "pre", "steps": [{"step_id": 1}], "missing": [],
           "question": None, "trace_id": "t" * 32, "surprise": True}
    out = checked(bad)
    assert problems(out) == [] and out["error"]["code"] == "DS-500" and "surprise" in out["error"]["message"]
    assert out["trace_id"] == "t" * 32 and out["steps"] == []


def test_llm_planner_without_a_model_says_so_and_the_rule_planner_answers(home: Path) -> None:
    out = datasmith("plan", "--knowledge", str(SHOP), "--json", "--planner", "llm", "给商品123456下一单", home=home,
                    env={"DATASMITH_LLM_MODEL": ""})
    data = json.loads(out.stdout)
    assert data["status"] == "planned" and data["planner"] == "rules" and data["fallback"].startswith("DS-503")
