"""Every console page driven through AppTest: widgets set, results asserted."""

from __future__ import annotations

import asyncio
from pathlib import Path

from core.assistant import Assistant
from core.knowledge import load_knowledge
from core.models import Request
from core.settings import BUNDLED_KNOWLEDGE, Settings


def text_of(at) -> str:  # noqa: ANN001
    parts = [m.value for m in at.markdown] + [e.value for e in at.info] + [e.value for e in at.success]
    parts += [e.value for e in at.error] + [e.value for e in at.warning] + [h.value for h in at.subheader]
    parts += [c.value for c in at.caption] + [t.value for t in at.title]
    return "\n".join(str(p) for p in parts)


def test_knowledge_page_searches_and_shows_a_rule_dag_and_a_tool(console) -> None:  # noqa: ANN001
    at = console("knowledge")
    assert "35 tools" in text_of(at) and "12 rules" in text_of(at)
    at.text_input(key="kn_search").set_value("退货退款").run()
    hits = at.dataframe[0].value
    top = list(zip(hits["kind"], hits["name"], strict=True))[:3]
    assert ("rule", "return_refund") in top and list(hits["rank"]) == sorted(hits["rank"])
    at.selectbox(key="kn_rule").set_value("return_refund").run()
    mapping = at.dataframe[2].value  # hits, rules, mapping
    assert {"create_order", "approve_refund"} <= set(mapping["tool"]) and "step_output" in set(mapping["source"])
    at.selectbox(key="kn_tool").set_value("pay_order").run()
    assert "http POST" in text_of(at)


def test_an_invalid_edit_is_refused_with_its_location_and_never_written(console, pack_copy: Path,
                                                                        tmp_path: Path) -> None:  # noqa: ANN001
    at = console("knowledge", knowledge=pack_copy, home=tmp_path / "home")
    orders = pack_copy / "shop" / "tools" / "orders.yaml"
    before = orders.read_text(encoding="utf-8")
    at.selectbox(key="kn_edit_name").set_value("pay_order").run()
    area = at.text_area(key="kn_yaml_tool_pay_order")
    area.set_value(area.value.replace("type: string", "type: strng", 1)).run()
    at.button(key="kn_save").click().run()
    errors = [e.value for e in at.error]
    assert any("Nothing was written" in e for e in errors) and any("pay_order" in e for e in errors)
    assert orders.read_text(encoding="utf-8") == before

    area = at.text_area(key="kn_yaml_tool_pay_order")  # fix the type, and change the description
    fixed = area.value.replace("type: strng", "type: string", 1)
    area.set_value(fixed.replace("description: ", "description: 已编辑 ", 1)).run()
    at.button(key="kn_validate").click().run()
    assert any("Valid" in s.value for s in at.success)
    at.button(key="kn_save").click().run()
    assert any("Saved" in s.value for s in at.success)
    after = orders.read_text(encoding="utf-8")
    assert "description: 已编辑 " in after and after.count("\n") == before.count("\n")  # only that line changed
    assert load_knowledge([pack_copy / "shop"]).tools["pay_order"].description.startswith("已编辑")


def test_a_value_cut_by_a_yaml_comment_is_shown_on_load_and_when_an_edit_is_checked(
        console, pack_copy: Path, tmp_path: Path) -> None:  # noqa: ANN001
    orders = pack_copy / "shop" / "tools" / "orders.yaml"
    text = orders.read_text(encoding="utf-8")
    orders.write_text(text.replace("description: ", "description: pays order #O1 and ", 1), encoding="utf-8")
    at = console("knowledge", knowledge=pack_copy, home=tmp_path / "home")
    warnings = [w.value for w in at.warning]
    assert any("orders.yaml" in w and "'description' is read as 'pays order'" in w for w in warnings), warnings

    at.selectbox(key="kn_edit_name").set_value("ship_order").run()
    area = at.text_area(key="kn_yaml_tool_ship_order")
    area.set_value(area.value.replace("description: ", "description: ships #O2 now ", 1)).run()
    at.button(key="kn_validate").click().run()
    assert any("Valid" in s.value for s in at.success)  # it loads …
    assert any("'description' is read as 'ships'" in w.value for w in at.warning)  # … but says what it lost


def test_playground_plans_executes_and_answers_a_question_in_place(console) -> None:  # noqa: ANN001
    at = console("playground")
    assert any("nothing runs" in i.value for i in at.info)
    at.text_input(key="pg_text").set_value("帮我造一笔已发货的订单").run()
    at.button(key="pg_go").click().run()
    assert any("item_id" in w.value or "商品" in w.value for w in at.warning)
    at.text_input(key="pg_answer").set_value("商品123456").run()
    at.button(key="pg_send").click().run()
    args = at.dataframe[-1].value
    assert ("item_id", "123456", "request") in set(zip(args["argument"], args["value"], args["source"], strict=True))
    assert "buyer_id" in set(args[args["source"] == "defaults"]["argument"])
    at.button(key="pg_dry").click().run()
    assert any("Nothing was executed" in s.value for s in at.success)
    at.button(key="pg_exec").click().run()
    assert not at.exception
    assert "succeeded" in text_of(at)
    steps = at.dataframe[-1].value
    assert set(steps["status"]) <= {"succeeded", "skipped"}
    assert dict(zip(steps["tool"], steps["status"], strict=True))["ship_order"] == "succeeded"


def test_runs_page_filters_pages_and_shows_a_run(console, console_home: Path, sandbox) -> None:  # noqa: ANN001
    settings = Settings(home=console_home, knowledge=[BUNDLED_KNOWLEDGE / "shop"],
                        environ={"SHOP_SANDBOX_PORT": str(sandbox.port)})
    a = Assistant(settings, load_knowledge([BUNDLED_KNOWLEDGE / "shop"]))
    for text in ("给商品123456下一单", "给商品123456生成一笔已支付的订单"):
        asyncio.run(a.handle(Request(text=text, user="U_RUNS", surface="slack")))
    a.close()
    at = console("runs")
    at.text_input(key="rn_user").set_value("U_RUNS").run()
    table = at.dataframe[0].value
    assert len(table) == 2 and set(table["surface"]) == {"slack"} and set(table["status"]) == {"succeeded"}
    at.selectbox(key="rn_name").set_value("order_lifecycle").run()
    assert len(at.dataframe[0].value) == 1
    steps = at.dataframe[1].value
    assert [t for t, s in zip(steps["tool"], steps["status"], strict=True) if s != "skipped"] == ["create_order", "pay_order"]
    assert "trace" in text_of(at)
    at.button(key="rn_rerun").click().run()
    assert any(s.value.startswith("New run") and "succeeded" in s.value for s in at.success)
    at.button(key="rn_replay").click().run()
    assert any(s.value.startswith("Replayed as run") and "succeeded" in s.value for s in at.success)
    at.text_input(key="rn_text").set_value("nothing like this").run()
    assert any("No run matches" in i.value for i in at.info)


def test_runs_page_on_an_empty_store_says_how_to_make_one(console, tmp_path: Path) -> None:  # noqa: ANN001
    at = console("runs", home=tmp_path / "empty")
    assert any("No runs yet" in i.value and "datasmith ask" in i.value for i in at.info)


def test_monitoring_shows_rates_and_what_the_knowledge_is_missing(console, tmp_path: Path, sandbox) -> None:  # noqa: ANN001
    home = tmp_path / "mon"
    at = console("monitoring", home=home)
    assert any("No requests" in i.value for i in at.info)  # a helpful empty state
    settings = Settings(home=home, environ={"SHOP_SANDBOX_PORT": str(sandbox.port)})
    a = Assistant(settings, load_knowledge([BUNDLED_KNOWLEDGE / "shop"]))
    for text in ("给商品123456下一单", "今天天气怎么样", "今天天气怎么样", "帮我造一笔退货退款的订单"):
        asyncio.run(a.handle(Request(text=text, surface="cli")))
    a.close()
    at.run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Requests"] == "4" and metrics["Success rate"] == "100%"
    missing = at.dataframe[-1].value
    assert missing.iloc[0]["request"] == "今天天气怎么样" and missing.iloc[0]["times"] == 2
    assert "needs_input" in set(missing["status"])
