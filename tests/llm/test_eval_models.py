"""`datasmith eval --planner llm --model A --model B`: models compared on a pack's own cases."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from tests.fixtures.llm_stub import Answer, LLMStub
from tests.llm.conftest import answer_for

CASES = """
- query: 给商品id为123456的商品生成一笔退货退款的订单
  expect: {status: planned, rule: return_refund, arguments: {create_order: {item_id: "123456"}}}
- query: 帮我下一单
  expect: {status: needs_input, missing: [item_id]}
"""
ASK_ITEM = {"status": "needs_input", "rule": None, "tool": "create_order", "environment": None,
            "steps": [{"step_id": 1, "tool_name": "create_order", "dependencies": [], "arguments": {}}],
            "missing": ["item_id"], "question": "哪个商品?"}


def _models(kn) -> Any:
    good = {"给商品id为123456的商品生成一笔退货退款的订单": answer_for(kn, "给商品123456生成一笔退货退款的订单"),
            "帮我下一单": json.dumps(ASK_ITEM, ensure_ascii=False)}
    invented = answer_for(kn, "给商品123456下一单")  # whatever is asked: an order of item 123456

    def answer(body: dict[str, Any]) -> Answer:
        text = re.search(r"Request: (.*)", body["messages"][-1]["content"]).group(1).strip()
        return Answer(good[text] if body["model"] == "good" else invented)
    return answer


@pytest.fixture
def eval_env(tmp_path: Path, stub: LLMStub, shop_knowledge, monkeypatch: pytest.MonkeyPatch) -> Path:
    stub.default = _models(shop_knowledge)
    monkeypatch.setenv("DATASMITH_LLM_API_BASE", stub.api_base)
    monkeypatch.setenv("DATASMITH_LLM_API_KEY", "sk-test")
    cases = tmp_path / "cases.yaml"
    cases.write_text(CASES, encoding="utf-8")
    return cases


def test_each_model_gets_its_row(eval_env: Path, tmp_path: Path, stub: LLMStub, capsys) -> None:
    code = main(["eval", str(eval_env), "--home", str(tmp_path / "home"), "--planner", "llm",
                 "--model", "openai/good", "--model", "openai/inventor", "--json"])
    assert code == 0
    good, inventor = json.loads(capsys.readouterr().out)["models"]
    assert (good["model"], good["plan_exact"], good["unsafe_writes"], good["fallbacks"]) == ("openai/good", 1.0, 0, 0)
    assert good["usage"]["calls"] == 2 and good["usage"]["prompt_tokens"] > 0
    # The inventor orders item 123456 for both: a plain order instead of the return recipe is an
    # unsafe write; "帮我下一单" is asked about (grounding), not written
    assert inventor["plan_exact"] == 0.5 and inventor["unsafe_writes"] == 1
    assert [f["query"] for f in inventor["failures"]] == ["给商品id为123456的商品生成一笔退货退款的订单"]
    assert len(stub.seen) == 4  # every case planned afresh for each model (no cache)


def test_the_table_compares_models(eval_env: Path, tmp_path: Path, capsys) -> None:
    assert main(["eval", str(eval_env), "--home", str(tmp_path / "home"), "--planner", "llm",
                 "--model", "openai/good", "--model", "openai/inventor"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:5] == ["model", "exact", "status", "arg_f1", "unsafe"]
    assert out[1].split()[:5] == ["openai/good", "100.0%", "100.0%", "1.000", "0"]
    assert out[2].split()[:5] == ["openai/inventor", "50.0%", "100.0%", "1.000", "1"]
    assert any("UNSAFE WRITE" in line for line in out[3:])


def test_llm_eval_without_a_model_says_how_to_name_one(tmp_path: Path, eval_env: Path, capsys) -> None:
    assert main(["eval", str(eval_env), "--home", str(tmp_path / "home"), "--planner", "llm"]) == 1
    assert "--model" in capsys.readouterr().err
