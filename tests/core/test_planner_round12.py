"""Round of 2026-11-28 (ninth session): what this round's blind packs taught.

End-to-end cases on blind packs kept in this repository (benchmarks/generality/…), written from
docs/knowledge-format.md alone. Each failed on the planner before this round (a06e238) unless it says
it holds what a step of the round could break.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.assistant import Assistant
from core.models import Plan
from core.settings import BUNDLED_KNOWLEDGE
from tests.conftest import args_of as args
from tests.conftest import pack_assistant
from tests.conftest import plan_of as plan
from tests.conftest import writes_of as writes


def tools(p: Plan) -> list[str]:
    return [s.tool_name for s in p.running()]


@pytest.fixture(scope="module")
def shop() -> Iterator[Assistant]:
    yield from pack_assistant(BUNDLED_KNOWLEDGE / "shop")


# --- values --------------------------------------------------------------------------------------------

def test_what_a_thing_is_now_is_not_what_it_is_to_become(devhub: Assistant) -> None:
    """"org_1 is on starter, upgrade it to pro": the plan named first is the current one; the upgrade
    wrote new_plan=starter (a wrong write)."""
    for text in ("org_f2g4h is on starter, upgrade it to pro", "org_f2g4h is currently on starter, move it to pro"):
        p = plan(devhub, text)
        assert p.status == "planned" and args(p, "change_plan")["new_plan"] == "pro", text
    p = plan(devhub, "move org_f2g4h from starter to pro")  # holds
    assert args(p, "change_plan")["new_plan"] == "pro"


def test_a_chinese_w_is_ten_thousand(xindai: Assistant) -> None:
    """"额度3w" is 30000: the pack's own pattern (额度(\\d+)) stopped before the w and approved a limit of 3."""
    p = plan(xindai, "造一个授信通过的用户 额度3w")
    assert p.status == "planned" and args(p, "approve_credit_application")["approved_limit"] == 30000
    p = plan(xindai, "造一个授信通过的用户 额度2.5万")
    assert args(p, "approve_credit_application")["approved_limit"] == 25000
    p = plan(xindai, "造一个授信通过的用户 额度 30000")  # holds
    assert args(p, "approve_credit_application")["approved_limit"] == 30000


def test_a_pattern_digit_before_a_unit_is_not_scaled(freight: Assistant) -> None:
    """Holds: the k of 12kg is kilograms, not a thousand (the scaling above must not read it so)."""
    p = plan(freight, "need a shipment for ops@northwind.com that's booked with UPS express — 12kg box to France, "
                      'ref "PO-7781"')
    assert p.status == "planned" and args(p, "add_parcel")["weight_kg"] == 12


def test_an_id_typed_in_lower_case_is_the_id(fleetops: Assistant) -> None:
    """"vh-3310" is VH-3310: people type ids as they come; it listed every vehicle's alerts."""
    p = plan(fleetops, "vh-3310 有没有疲劳驾驶的告警")
    assert p.status == "planned" and args(p, "list_alerts")["vehicle_id"] == "VH-3310"


# --- what the request says is not to be done, or is done to something that exists ----------------------

def test_a_chinese_request_that_refuses_a_step_does_not_run_it(hetong: Assistant, clinic: Assistant) -> None:
    """"只建档案不签合同", "不用签合同": the onboarding recipe signs a contract — it ran anyway."""
    for text in ("造个新员工，只建档案不签合同", "新员工入职，不用签合同"):
        p = plan(hetong, text)
        assert not writes(hetong, p) and p.status == "needs_input", (text, p.rule, tools(p))
        assert "create_employee" in [c.tool for c in p.choices], text
    # holds: what is refused is a value the step takes (use_insurance), not the step
    p = plan(clinic, "ZY20240031 今天出院，自费结算，不走医保")
    assert p.status == "planned" and args(p, "discharge_settle")["use_insurance"] is False


def test_who_he_is_said_before_is_someone_who_exists(hetong: Assistant) -> None:
    """"研发部新来的同事，帮他签合同": 他 is the colleague of the clause before — sign their contract (which
    employee?), not the onboarding recipe that makes a new employee first."""
    p = plan(hetong, "研发部新来的同事，帮他签合同")
    assert p.status == "needs_input" and p.tool == "sign_contract" and p.missing == ["employee_id"]


def test_going_through_the_procedure_names_no_procedure(hetong: Assistant) -> None:
    """"E… 要调岗，帮忙走下流程": 流程 is any procedure; it ran the whole resignation recipe (six writes)."""
    p = plan(hetong, "E20240552 要调岗，帮忙走下流程")
    assert not writes(hetong, p) and p.status == "needs_input" and p.rule == "transfer_with_raise"


def test_a_state_said_of_an_existing_thing_is_done_to_it(xindai: Assistant, shop: Assistant) -> None:
    """"审批通过一下这个授信申请": approve that application (which one?) — it made a user and an application
    to approve; "这笔订单推进到已发货" made a new order."""
    p = plan(xindai, "审批通过一下这个授信申请,额度2w")
    assert p.status == "needs_input" and p.tool == "approve_credit_application" and p.missing == ["application_id"]
    p = plan(shop, "这笔订单推进到已发货")
    assert p.status == "needs_input" and p.missing == ["order_id"] and not writes(shop, p)
    p = plan(shop, "把订单O100000001推进到已发货")  # holds: the order named, the recipe pushes it
    assert p.status == "planned" and p.rule == "order_lifecycle" and "ship_order" in tools(p)


# --- the steps of a recipe the request names ------------------------------------------------------------

def test_a_step_named_after_a_state_runs(tixly: Assistant) -> None:
    """"cancel it and refund everyone": the state cancelled stopped the recipe before the refunds."""
    p = plan(tixly, "evt_P0lk22 is off, hurricane 🌀 — cancel it and refund everyone")
    assert tools(p) == ["cancel_event", "refund_event_orders"]
    assert tools(plan(tixly, "cancel evt_P0lk22")) == ["cancel_event"]  # holds
    p = plan(tixly, 'just need a draft event on qa called "Draft Only Test" for 2027-02-01, dont publish it')
    assert tools(p) == ["create_event"]  # holds: a step refused is not named


def test_a_step_its_condition_skips_is_asked_for_when_named(idcloud: Assistant) -> None:
    """"… and issue a credit": the credit step runs only with an amount; it was skipped silently and the
    escalation alone ran. The amount is asked for."""
    p = plan(idcloud, "escalate tn_p3j6ft sev2 and issue a credit")
    assert p.status == "needs_input" and p.missing == ["amount"] and not writes(idcloud, p)


def test_a_look_up_that_ends_a_recipe_still_reports(xindai: Assistant) -> None:
    """"LN… 提前结清": settled at the repayment, the last step (the loan's detail, a read) was cut."""
    p = plan(xindai, "LN20240520000123 提前结清")
    assert tools(p) == ["get_repay_plan", "repay", "get_loan_detail"]


# --- questions and requests to look ---------------------------------------------------------------------

def test_a_state_asked_about_is_a_look_up(tixly: Assistant) -> None:
    """"is evt_1 still on sale?" asks what the event is; it offered the recipe that makes one on sale."""
    p = plan(tixly, "is evt_Rb4Tn7 still on sale?")
    assert p.status == "planned" and tools(p) == ["get_event"]


def test_send_it_to_me_to_see_is_a_read(xindai: Assistant, xinchou: Assistant) -> None:
    """"还款计划发我看下": shown, not sent (发 read as a change: it offered the settlement recipe)."""
    for text in ("LN20240520000123 还款计划发我看下", "把LN20240520000123的还款计划发我"):
        p = plan(xindai, text)
        assert p.status == "planned" and tools(p) == ["get_repay_plan"], text
    assert plan(xinchou, "导出全公司花名册发我邮箱").status == "no_match"  # holds: mailing a roster is a send


def test_sort_it_out_names_no_change(devhub: Assistant) -> None:
    """"… got double charged last month - sort it out": a situation told; which write is meant, the
    request leaves to the reader — asked, not guessed."""
    p = plan(devhub, "org_f2g4h got double charged last month - sort it out")
    assert p.status == "needs_input" and p.choices and not writes(devhub, p)


def test_a_recipe_nobody_named_does_not_freeze_or_unbind_on_a_guess(fleetops: Assistant) -> None:
    """"VH-2231 要下线了 帮忙处理一下" (going offline: out of service, or retired?) ran the retirement
    recipe — unassign the driver, unbind the tracker, freeze the fuel card — on a loose paraphrase."""
    p = plan(fleetops, "VH-2231 要下线了 帮忙处理一下")
    assert p.status == "needs_input" and not writes(fleetops, p) and "retire_vehicle" in [c.rule for c in p.choices]
    for text in ("VH-2231 退役", "retire VH-0815"):  # holds: named, it runs
        p = plan(fleetops, text)
        assert p.status == "planned" and p.rule == "retire_vehicle" and "freeze_fuel_card" in tools(p), text
