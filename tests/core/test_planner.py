"""Rule planner semantics from the pack spec, on the shop pack and on small purpose-built packs."""

from __future__ import annotations

import pytest

from core.errors import InputError
from core.knowledge import Knowledge, load_knowledge
from core.models import Plan, Request, StepRef
from core.planning import RulePlanner
from tests.conftest import write_pack


@pytest.fixture(scope="module")
def planner(shop_knowledge: Knowledge) -> RulePlanner:
    return RulePlanner(shop_knowledge)


def plan(planner: RulePlanner, text: str, **kw: object) -> Plan:
    return planner.plan(Request(text=text, **kw))  # type: ignore[arg-type]


def tools(p: Plan) -> list[str]:
    return [s.tool_name for s in p.steps]


def test_the_headline_request_plans_the_eight_step_chain_exactly(planner: RulePlanner) -> None:
    p = plan(planner, "给商品id为123456的商品生成一笔退货退款的订单")
    assert p.spec_json()["status"] == "planned"
    assert (p.rule, p.environment) == ("return_refund", "pre")
    assert tools(p) == ["create_order", "pay_order", "ship_order", "confirm_receipt", "apply_return_refund",
                        "approve_return", "return_goods", "approve_refund"]
    first, second = p.steps[0], p.steps[1]
    assert first.arguments["item_id"] == "123456" and first.sources["item_id"] == "request"
    assert first.arguments["buyer_id"] == "B2001" and first.sources["buyer_id"] == "defaults"
    assert second.arguments == {"order_id": StepRef(from_step=1, path="order_id")}
    assert second.dependencies == [1]
    assert p.spec_json()["steps"][1]["arguments"] == {"order_id": {"from_step": 1, "path": "order_id"}}


@pytest.mark.parametrize(("text", "rule", "last_tool"), [
    ("给商品123456造一笔待支付的订单", "order_lifecycle", "create_order"),
    ("给商品123456生成一笔已支付的订单", "order_lifecycle", "pay_order"),
    ("给商品123456造一笔已发货的订单", "order_lifecycle", "ship_order"),
    ("给商品123456造一笔交易完成的订单", "order_lifecycle", "review_order"),
    ("商品123456生成一笔退货退款申请中的订单", "return_refund", "apply_return_refund"),
])
def test_a_named_state_keeps_its_step_and_ancestors_only(planner: RulePlanner, text: str, rule: str,
                                                        last_tool: str) -> None:
    p = plan(planner, text)
    assert p.rule == rule and tools(p)[-1] == last_tool
    assert p.target_state is not None


def test_several_states_named_target_the_furthest(planner: RulePlanner) -> None:
    p = plan(planner, "给商品123456造一笔订单:先待支付,再已支付,最后到已发货")
    assert tools(p)[-1] == "ship_order"


def test_single_tool_request_plans_that_tool_alone(planner: RulePlanner) -> None:
    p = plan(planner, "帮买家B2002买3件商品445566")
    assert (p.rule, p.tool, tools(p)) == (None, "create_order", ["create_order"])
    assert p.steps[0].arguments["quantity"] == 3 and p.steps[0].arguments["buyer_id"] == "B2002"
    assert p.steps[0].arguments["currency"] == "USD" and p.steps[0].sources["currency"] == "tool_default"


def test_enum_synonyms_longest_match_wins(planner: RulePlanner) -> None:
    ddu = plan(planner, "给商品123456造一笔发往巴西的跨境订单,不包税")
    ddp = plan(planner, "给商品123456造一笔发往巴西的跨境订单,包税")
    assert ddu.step(2).arguments["tax_mode"] == "DDU"  # 不包税 contains 包税: the longer word wins
    assert ddp.step(2).arguments["tax_mode"] == "DDP"


def test_environment_by_alias_and_flag(planner: RulePlanner) -> None:
    assert plan(planner, "线上给商品123456造一笔已发货订单").environment == "online"
    assert plan(planner, "在项目环境给商品223344造一笔退货退款订单").steps[0].arguments["buyer_id"] == "B4001"
    assert plan(planner, "给商品123456下一单", environment="project").environment == "project"
    with pytest.raises(InputError, match="not defined in pack shop"):
        plan(planner, "给商品123456下一单", environment="moon")


def test_missing_required_value_asks_a_question_never_guesses(planner: RulePlanner) -> None:
    p = plan(planner, "帮我造一笔退货退款的订单")
    assert p.status == "needs_input" and p.missing == ["item_id"]
    assert "商品ID (item_id)" in (p.question or "")
    english = plan(planner, "make a return and refund order")
    assert english.status == "needs_input" and "I still need" in (english.question or "")


def test_follow_up_answers_the_question_and_keeps_what_was_known(planner: RulePlanner) -> None:
    first = plan(planner, "在项目环境帮我造一笔退货退款的订单")
    assert first.status == "needs_input" and first.missing == ["item_id"] and first.language == "zh"
    for reply in ("123456", "商品是123456", "就是 123456。"):  # a bare value answers the one thing asked
        answered = planner.plan(Request(text=reply, previous=first))
        assert answered.status == "planned" and answered.rule == "return_refund", reply
        assert answered.steps[0].arguments["item_id"] == "123456"
        assert answered.environment == "project" and answered.steps[0].arguments["buyer_id"] == "B4001"
    wrong = planner.plan(Request(text="abc", previous=first))  # not an item id: asked again, in Chinese
    assert wrong.status == "needs_input" and wrong.missing == ["item_id"] and "还需要" in (wrong.question or "")
    english = planner.plan(Request(text="no idea, sorry", previous=first))  # the thread stays Chinese
    assert english.status == "needs_input" and "还需要" in (english.question or "")


@pytest.mark.parametrize("text", ["今天天气怎么样", "SELECT * FROM orders; DROP TABLE orders;--", "😀😀😀",
                                  "asdfghjkl", "帮我订一张去上海的机票"])
def test_nothing_fits_is_no_match_with_what_i_can_do(planner: RulePlanner, text: str) -> None:
    p = plan(planner, text)
    assert p.status == "no_match" and p.steps == []
    assert "•" in (p.question or "")  # offers concrete things the knowledge can do


def test_condition_decided_by_the_request_does_not_ask_for_its_inputs(planner: RulePlanner) -> None:
    without = plan(planner, "给商品123456造一笔已发货的订单")
    assert without.status == "planned"
    assert without.step(2).skipped and "coupon_id" not in without.step(2).arguments
    with_coupon = plan(planner, "给商品123456造一笔已发货的订单,使用优惠券C7001")
    assert with_coupon.step(2).skipped is None and with_coupon.step(2).arguments["coupon_id"] == "C7001"


def test_request_values_replace_a_producing_step(planner: RulePlanner) -> None:
    p = plan(planner, "用优惠券C7001给商品123456下单")
    assert p.rule == "coupon_order" and tools(p) == ["create_order", "pay_order"]
    assert p.steps[0].arguments["coupon_id"] == "C7001" and p.steps[0].dependencies == []
    assert any("dropped step 1" in n for n in p.notes)


def test_existing_entity_and_an_action_is_that_action(planner: RulePlanner) -> None:
    p = plan(planner, "订单O100000012申请退货退款")
    assert tools(p) == ["apply_return_refund"] and p.steps[0].arguments["order_id"] == "O100000012"


# --- value priority and carrying, on a purpose-built pack ---------------------------------

PRIORITY_PACK = {
    "pack.yaml": """
        name: prio
        environments: {default: a, a: {base_url: 'http://127.0.0.1:1/a'}, b: {base_url: 'http://127.0.0.1:1/b', aliases: [B环境]}}
    """,
    "defaults.yaml": "all: {color: red, size: 2}\nb: {color: blue}\n",
    "tools/t.yaml": """
        - tool_name: paint
          description: paint a thing
          parameters:
            - {name: thing_id, type: string, required: true, patterns: ['(T\\d+)']}
            - {name: color, type: string, required: true, enum: [red, blue, green], synonyms: {green: [绿色]}}
            - {name: size, type: integer, required: false, default: 1}
            - {name: finish, type: string, required: false, default: matte}
          examples: [{user_query: 把T1刷成绿色, extracted_params: {thing_id: T1, color: green}}]
          call: {http: {path: /paint}}
        - tool_name: find_thing
          description: find a thing by its label
          parameters: [{name: label, type: string, required: true}]
          examples: [{user_query: 找一下标签为圆桌的东西, extracted_params: {label: 圆桌}}]
          returns: {type: object, required: [thing_id]}
          call: {http: {path: /find}}
    """,
    "rules/r.yaml": """
        rule_name: paint_by_label
        description: find a thing by label and paint it
        trigger_phrases: [按标签刷漆]
        examples: [{user_query: "按标签刷漆,标签为圆桌", extracted_params: {label: 圆桌}}]
        dag_definition:
          - {step_id: 1, tool_name: find_thing, parameter_mapping: {label: {source: initial_query, value: label}}}
          - step_id: 2
            tool_name: paint
            dependencies: [1]
            parameter_mapping:
              thing_id: {source: step_output, step_id: 1, value: thing_id}
              color: {source: initial_query, value: color}
              size: {source: defaults, value: size}
    """,
}


@pytest.fixture(scope="module")
def prio(tmp_path_factory: pytest.TempPathFactory) -> RulePlanner:
    root = write_pack(tmp_path_factory.mktemp("prio") / "prio", PRIORITY_PACK)
    kn: Knowledge = load_knowledge([root])
    return RulePlanner(kn)


def test_request_beats_defaults_beats_tool_default(prio: RulePlanner) -> None:
    p = prio.plan(Request(text="按标签刷漆,标签为方凳"))
    paint = p.step(2)
    assert p.step(1).arguments == {"label": "方凳"}  # learnt from the example's context
    assert (paint.arguments["color"], paint.sources["color"]) == ("red", "defaults")
    assert (paint.arguments["size"], paint.sources["size"]) == (2, "defaults")
    assert (paint.arguments["finish"], paint.sources["finish"]) == ("matte", "tool_default")
    green = prio.plan(Request(text="按标签刷漆,标签为方凳,绿色"))
    assert (green.step(2).arguments["color"], green.step(2).sources["color"]) == ("green", "request")
    in_b = prio.plan(Request(text="B环境按标签刷漆,标签为方凳"))
    assert in_b.environment == "b" and in_b.step(2).arguments["color"] == "blue"  # env section over `all`


def test_a_carried_value_drops_the_lookup_step(prio: RulePlanner) -> None:
    p = prio.plan(Request(text="按标签刷漆,直接刷T42"))
    assert [s.tool_name for s in p.steps] == ["paint"]
    assert p.steps[0].arguments["thing_id"] == "T42" and p.steps[0].dependencies == []


def test_the_answer_to_a_question_keeps_the_state_the_question_was_about(shop_knowledge) -> None:  # noqa: ANN001
    from core.models import Request
    from core.planning import RulePlanner
    planner = RulePlanner(shop_knowledge)
    asked = planner.plan(Request(text="造一笔已发货的订单"))
    assert asked.status == "needs_input" and asked.target_state
    answered = planner.plan(Request(text="商品123456", previous=asked))
    assert answered.status == "planned" and answered.target_state == asked.target_state
    assert [s.tool_name for s in answered.steps if not s.skipped][-1] == "ship_order"
