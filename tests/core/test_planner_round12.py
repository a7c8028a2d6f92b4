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


# --- what the review of this round found (each a wrong write or a lost value the round itself made) -----

def test_a_step_its_condition_rules_out_stays_out_however_it_is_named(zhaopin: Assistant, caigou: Assistant,
                                                                        freight: Assistant) -> None:
    """A step skipped by a condition the request's own values decide is not brought back by a word of its
    name: an intern's onboarding enrolled 社保 and 公积金 though the request refused them; a returned asset
    in good condition was scrapped; "create a delivery exception" made a replacement shipment."""
    for text in ("实习生赵敏办入职，不交社保公积金", "赵敏是实习生，办理入职，社保和公积金都不交"):
        p = plan(zhaopin, text)
        assert p.status == "planned" and args(p, "onboard_employee")["employment_type"] == "intern", text
        assert not {"social_insurance_add", "housing_fund_add"} & set(tools(p)), text
    for text in ("归还资产 AS2024000182，完好，无需报废", "return asset AS2024000182 in good condition and no scrap"):
        p = plan(caigou, text)
        assert p.status == "planned" and tools(p) == ["return_asset"], text
    p = plan(freight, "SHP-2024-00123 delayed - create a delivery exception")
    assert p.status == "planned" and "create_shipment" not in tools(p) and "report_delivery_exception" in tools(p)


def test_a_step_refused_or_only_mentioned_asks_for_nothing(idcloud: Assistant, saasdesk: Assistant,
                                                            shop: Assistant) -> None:
    """"no credit needed", "no refund", "without a coupon": the step skipped for want of its value is not
    asked for (it asked for an amount or a coupon the request had just declined)."""
    for text in ("escalate tn_p3j6ft sev2, no credit needed", "escalate tn_p3j6ft sev2 - customer is on credit hold"):
        p = plan(idcloud, text)
        assert p.status == "planned" and tools(p) == ["create_support_escalation"], text
    p = plan(saasdesk, "cancel sub_9ZK2 - too expensive. no refund")
    assert p.status == "planned" and "cancel_subscription" in tools(p) and not p.missing
    p = plan(shop, "make a paid order without a coupon")
    assert p.status == "needs_input" and p.missing == ["item_id"]


def test_a_target_said_after_is_stays_the_target(rentals: Assistant) -> None:
    """"desired tier is platinum, she's gold now": a bare "is" says nothing of now; it set gold."""
    for text in ("CU-990001 - desired tier is platinum, she's gold now", "CU-990001: target tier is platinum, she's on gold",
                 "CU-990001 is gold, upgrade to platinum"):  # (the last holds)
        p = plan(rentals, text)
        assert p.status == "planned" and args(p, "set_loyalty_tier")["loyalty_tier"] == "platinum", text


def test_a_decimal_before_w_or_k_is_scaled_wherever_it_is_found(renshi: Assistant) -> None:
    """"月薪调到1.8w" is 18000: found by the examples' context it was written as 1.8 (1.5k as 1.5)."""
    for text, salary in (("张伟转正，月薪调到1.8w", 18000), ("张伟转正，月薪调到1.5k", 1500), ("张伟转正，月薪调到2w", 20000)):
        p = plan(renshi, text)
        assert p.status == "planned" and args(p, "submit_salary_adjustment")["new_base_salary"] == salary, text


def test_an_id_keeps_the_case_its_pattern_leaves_free(tixly: Assistant, saasdesk: Assistant) -> None:
    """"refund ORD_Tt9Qp1a" is ord_Tt9Qp1a (the pattern fixes only the prefix's case); it refunded
    ord_tt9qp1a, a different order."""
    p = plan(tixly, "refund ORD_Tt9Qp1a")
    assert args(p, "issue_refund")["order_id"] == "ord_Tt9Qp1a"
    p = plan(saasdesk, "cancel SUB_9ZK2 too expensive")
    assert args(p, "cancel_subscription")["subscription_id"] == "sub_9ZK2"


def test_a_change_stated_beside_handle_it_is_made(devhub: Assistant, tixly: Assistant) -> None:
    """"revoke ak_…, it leaked - please handle it": the change is said; "handle it" only hands it over."""
    p = plan(devhub, "revoke ak_f4g5h6j7, it leaked - please handle it")
    assert p.status == "planned" and tools(p) == ["revoke_api_key"]
    p = plan(devhub, "set the rate limit on org_f2g4h to 2000 to fix it")
    assert p.status == "planned" and args(p, "set_rate_limit")["requests_per_minute"] == 2000
    p = plan(tixly, "evt_Rb4Tn7 refund everyone and sort it out")
    assert p.status == "planned" and tools(p) == ["refund_event_orders"]
    p = plan(devhub, "org_f2g4h's webhook is spamming us, fix it")  # holds: a situation, no change said
    assert p.status == "needs_input" and not writes(devhub, p)


def test_going_through_the_procedure_is_the_recipe_of_what_is_said(rensha: Assistant, hetong: Assistant) -> None:
    """"E… 离职，帮忙走下流程": the offboarding recipe, not the resignation alone; "离职，走流程" is no
    look-up of the resignation's progress."""
    p = plan(rensha, "E10035 离职，帮忙走下流程")
    assert p.status == "planned" and p.rule == "offboard_employee" and "remove_social_insurance" in tools(p)
    assert tools(plan(rensha, "E10035 离职")) == ["submit_resignation"]  # holds
    p = plan(hetong, "E20240552 离职，走流程")
    assert p.status == "needs_input" and p.choices and p.choices[0].rule == "resignation_process"


def test_a_step_refused_after_the_stop_is_what_the_stop_leaves_out(wuye: Assistant) -> None:
    """"到已签约就行,先别交租": the lease stops at signed; the refusal is of the rent after it, not of the
    lease whose description mentions rent (once 交 was read as a refusal, it was asked about)."""
    p = plan(wuye, "给 6-3-802 租个 B2-021 的车位,车牌苏E8K2M7,到已签约就行,先别交租")
    assert p.status == "planned" and p.rule == "parking_lease_flow" and "pay_bill" not in tools(p)


def test_two_recipes_that_differ_only_in_their_outcome_are_asked_between(xindai: Assistant, tixly: Assistant) -> None:
    """"造个授信审批走完的用户": approved or rejected — the two recipes differ only in their last write, and
    the request speaks of both in the same words; it made a rejected user (retrieval ranked it first).
    "a test order … for the refund + scanner tests" names each outcome; one plan makes one."""
    p = plan(xindai, "造个授信审批走完的用户")
    assert p.status == "needs_input" and {c.rule for c in p.choices} == {"credit_approved_user", "credit_rejected_user"}
    p = plan(xindai, "造个授信审批通过的用户")  # holds: the outcome said
    assert p.status == "planned" and p.rule == "credit_approved_user"
    p = plan(tixly, "need a test order on evt_Rb4Tn7 for the refund + scanner tests")
    assert p.status == "needs_input" and not writes(tixly, p)
    assert {"test_refunded_order", "test_checked_in_order"} <= {c.rule for c in p.choices}
    assert plan(tixly, "need a refunded test order on evt_Rb4Tn7").rule == "test_refunded_order"  # holds


def test_a_value_its_step_refuses_is_not_dropped_with_the_step(shop: Assistant) -> None:
    """"with coupon SAVE10" where coupons are C + 4 digits: the coupon step was skipped (no valid coupon)
    and a paid order without it was made; the coupon is asked about. A valid one is used."""
    p = plan(shop, "make a paid order with coupon SAVE10 for item 123456")
    assert p.status == "needs_input" and not writes(shop, p)
    p = plan(shop, "make a paid order for item 123456 with coupon C1001")  # holds
    assert p.status == "planned" and args(p, "apply_coupon")["coupon_id"] == "C1001"


# --- after the review -----------------------------------------------------------------------------------

def test_a_refusal_after_the_step_the_request_leads_with_stops_there(tixly: Assistant) -> None:
    """"hold 2 seats … for 30 min, dont buy them": the request leads with the hold and refuses a doing no
    step is named by — it created the order and paid it (a wrong write)."""
    p = plan(tixly, "hold 2 early bird seats on evt_M9vC3x for like 30 min, dont buy them")
    assert p.status == "planned" and tools(p) == ["list_ticket_tiers", "create_seat_hold"]
    assert args(p, "create_seat_hold")["ttl_minutes"] == 30
    p = plan(tixly, "hold 2 early bird seats on evt_M9vC3x, don't forget to pay")  # holds: no refusal
    assert "pay_order" in tools(p)


def test_what_is_enough_said_by_a_steps_words_stops_the_recipe_there(fleetops: Assistant, xindai: Assistant) -> None:
    """"新车…先登记+装好设备就行 别上线": register and fit the tracker, no more — it also issued a fuel card
    and put the van in service."""
    p = plan(fleetops, "新车粤B2Q908先登记+装好设备就行 别上线 VIN LGWEF4A53PH200322 IMEI 860123456700344")
    assert p.status == "planned" and tools(p) == ["create_vehicle", "bind_device"]
    p = plan(xindai, "来个已授信的号 年化 24% 额度 50000,测试环境就行")  # holds: where, not how far
    assert p.status == "planned" and "approve_credit_application" in tools(p)


def test_an_environment_word_inside_a_code_is_part_of_the_code(itdesk: Assistant) -> None:
    """"sg-eng-prod-ro" is a group: its "prod" was read as the environment and cut out of the value, and
    the group asked for again."""
    p = plan(itdesk, "access request for mkhan to sg-eng-prod-ro, only up to access granted, don't resolve the REQ yet")
    assert p.status == "planned" and args(p, "grant_group_access")["group"] == "sg-eng-prod-ro"
    assert tools(p) == ["create_ticket", "grant_group_access"]


def test_a_value_found_the_same_way_does_not_decide_between_two_writes(hetong: Assistant) -> None:
    """"E… 五险增员，从2026-08开始交": enrolment (增员), but the stop tool's examples put a month after 从 too,
    and that alone made it the surer reading — it stopped the employee's social insurance."""
    p = plan(hetong, "E20260417 五险增员，从2026-08开始交")
    assert not writes(hetong, p) and "si_hf_enroll" in [c.tool for c in p.choices]


def test_a_clause_whose_value_a_step_takes_is_a_clause_it_does(wuye: Assistant) -> None:
    """"新业主刘芳,6-3-802,电话13700001111,帮忙建下档案": the owner record takes the name and the phone, so
    those clauses are its own — it counted them as left undone and ran the move-in recipe instead (an
    access card and a fee bill nobody asked for)."""
    p = plan(wuye, "新业主刘芳,6-3-802,电话13700001111,帮忙建下档案")
    assert p.status == "planned" and tools(p) == ["create_owner"]
    assert args(p, "create_owner")["phone"] == "13700001111"
