"""Round of 2026-11-29 (tenth session): what the independent review of 69c5057 found.

End-to-end cases on blind packs kept in this repository (benchmarks/generality/…), written from
docs/knowledge-format.md alone. Each wrote data (or took the wrong value) on the planner before this
round (058e825) unless it says it holds what a step of the round could break.
"""

from __future__ import annotations

import pytest

from core.assistant import Assistant
from core.models import Plan
from tests.conftest import args_of as args
from tests.conftest import plan_of as plan
from tests.conftest import writes_of as writes


def tools(p: Plan) -> list[str]:
    return [s.tool_name for s in p.running()]


@pytest.mark.parametrize("text", ["E10035 离职，不用走流程", "E10035 离职，先别走流程", "E10035 离职，不走流程",
                                  "E10035 离职，别走流程了", "E10035 离职，无需走流程"])
def test_a_procedure_said_not_to_go_through_is_not_gone_through(rensha: Assistant, text: str) -> None:
    """"不用走流程": the resignation alone — it ran the whole offboarding (four writes)."""
    assert tools(plan(rensha, text)) == ["submit_resignation"]


def test_the_procedure_of_something_is_a_recipe_about_it(rensha: Assistant, hetong: Assistant) -> None:
    """"开个在职证明，走下流程": the certificate, not the visa papers that start with it; "造个员工，走下流程":
    onboarding or offboarding both start by making one — it resigned a new employee."""
    assert tools(plan(rensha, "E10035 开个在职证明，走下流程")) == ["issue_employment_certificate"]
    p = plan(hetong, "造个员工，走下流程")
    assert p.status == "needs_input" and not writes(hetong, p) and len(p.choices) >= 2
    p = plan(rensha, "E10035 离职，帮忙走下流程")  # holds
    assert p.rule == "offboard_employee" and "remove_housing_fund" in tools(p)


@pytest.mark.parametrize("text", ["造个离职待审批的员工，不用建员工", "造个离职待审批的员工，别建新员工",
                                  "造个合同即将到期的员工，不用签合同"])
def test_a_refused_step_that_must_run_is_asked_about(hetong: Assistant, text: str) -> None:
    """The recipe cut short at a state still runs the step the request refuses: nothing is written on
    that guess (it made the employee, signed the contract)."""
    p = plan(hetong, text)
    assert p.status == "needs_input" and not writes(hetong, p)


def test_a_refusal_of_what_a_write_is_named_for(xindai: Assistant) -> None:
    """"不用绑卡", "不用放款": refusals though 绑 and 放款 are no verb every description disclaims; the
    disbursement is refused, not the loan application whose description says it awaits one."""
    p = plan(xindai, "造个逾期借据，到已放款就行，不用绑卡")
    assert "bind_bank_card" not in tools(p)
    assert tools(plan(xindai, "U123456789 借款5000，不用放款")) == ["apply_loan"]


@pytest.mark.parametrize("text", ["refund requests are piling up for evt_20481, sort it out",
                                  "issue on evt_20481 - fix it", "new complaint about ord_88123, handle it"])
def test_a_noun_that_is_also_a_verb_says_no_change(tixly: Assistant, text: str) -> None:
    """"refund requests are piling up …, sort it out": refund is a noun here; which change is meant, the
    request does not say (it refunded the whole event)."""
    p = plan(tixly, text)
    assert p.status == "needs_input" and not writes(tixly, p)


def test_a_change_said_beside_sort_it_out_is_made(tixly: Assistant) -> None:
    """Holds: "evt_… refund everyone and sort it out" says the change."""
    assert tools(plan(tixly, "evt_20481 refund everyone and sort it out")) == ["refund_event_orders"]


@pytest.mark.parametrize(("text", "tier"), [("CU-990001 was gold; make it platinum", "platinum"),
                                            ("CU-990001 is now platinum, was gold", "platinum"),
                                            ("CU-990001 tier was silver, now gold", "gold"),
                                            ("CU-990001 is gold; she wants platinum", "platinum"),
                                            ("CU-990001 the target tier is platinum", "platinum")])
def test_what_it_was_is_not_what_it_is_to_be(rentals: Assistant, text: str, tier: str) -> None:
    """"was gold; make it platinum": it set gold back."""
    assert args(plan(rentals, text), "set_loyalty_tier")["loyalty_tier"] == tier


def test_an_id_typed_in_capitals_is_the_one_its_examples_write(devhub: Assistant, saasdesk: Assistant) -> None:
    """"ORG_AC42X" is org_ac42x (the examples write ids in lower case); "SUB_9ZK2" stays sub_9ZK2
    where the examples write capitals after the prefix."""
    assert args(plan(devhub, "look up ORG_AC42X"), "get_org")["org_id"] == "org_ac42x"
    p = plan(saasdesk, "cancel SUB_9ZK2 too expensive")
    assert args(p, "cancel_subscription")["subscription_id"] == "sub_9ZK2"


def test_a_look_up_that_leaves_the_dates_unused_is_not_the_request(rensha: Assistant) -> None:
    """"给 E… 请个调休,明天,一天": the leave (a date and a number of days), not the balance read that
    takes neither — retrieval ranked the two within a hair of each other."""
    p = plan(rensha, "UAT 给 E10099 请个调休,明天,一天")
    assert p.rule == "leave_application" and args(p, "submit_leave_request")["days"] == 1
    assert tools(plan(rensha, "E10099 还剩几天调休")) == ["get_leave_balance"]  # holds


# --- what the independent review of this round (11382dc) found

@pytest.mark.parametrize("text", ["E10035 离职，走流程前先问我", "E10035 离职，走流程前别动社保", "E10035 离职，先问我"])
def test_ask_me_first_writes_nothing_yet(rensha: Assistant, text: str) -> None:
    """"走流程前先问我": nothing is written before the person is asked (it submitted the resignation)."""
    assert not writes(rensha, plan(rensha, text))


def test_ask_me_first_in_english_and_its_negation(devhub: Assistant) -> None:
    assert not writes(devhub, plan(devhub, "revoke ak_f4g5h6j7 but ask me first"))
    assert tools(plan(devhub, "revoke ak_f4g5h6j7, don't ask me first")) == ["revoke_api_key"]  # holds


def test_the_procedure_refused_topic_first_or_required_twice_over(rensha: Assistant) -> None:
    """"流程不用走了" refuses the procedure (it ran the offboarding); "不走流程不行" requires it."""
    assert tools(plan(rensha, "E10035 离职，流程不用走了")) == ["submit_resignation"]
    assert plan(rensha, "E10035 离职，不走流程不行").rule == "offboard_employee"


def test_a_refusal_ends_where_the_next_ask_begins(xindai: Assistant) -> None:
    """"不用审批直接放款": 放款 is asked for, not refused with 审批."""
    p = plan(xindai, "LN20240520000123 不用审批直接放款")
    assert p.choices and p.choices[0].tool == "disburse_loan" or tools(p) == ["disburse_loan"]


@pytest.mark.parametrize(("pack", "text", "tool"), [
    ("stackhost", "upgrade to enterprise for org_acme42, handle it", "change_plan"),
    ("saasdesk", "cancel at period end for sub_7HX1, sort it out", "cancel_subscription")])
def test_a_verb_with_its_preposition_says_the_change(request: pytest.FixtureRequest, pack: str, text: str,
                                                     tool: str) -> None:
    """A verb of change followed by to/for/at is still the change ("upgrade to enterprise for …, handle it")."""
    assert tools(plan(request.getfixturevalue(pack), text)) == [tool]


def test_an_id_whose_case_matters_typed_in_one_case_is_not_guessed(tixly: Assistant) -> None:
    """Examples write order ids in both cases (ord_Tt9Qp1a): "refund ORD_7TQ2MZ9" is no id to re-case
    (it refunded ord_7tq2mz9)."""
    assert not writes(tixly, plan(tixly, "refund ORD_7TQ2MZ9"))
    assert args(plan(tixly, "refund ORD_Tt9Qp1a"), "issue_refund")["order_id"] == "ord_Tt9Qp1a"  # holds


def test_the_word_of_what_a_tool_does_is_no_flag(xindai: Assistant, jiaowu: Assistant) -> None:
    """"U… 销户" is no force=true (是否强制销户); "强制销户" is; "学位先不审" still says include_degree=false."""
    assert args(plan(xindai, "U100098765 销户"), "close_account")["force"] is False
    assert args(plan(xindai, "U100098765 强制销户"), "close_account")["force"] is True
    assert not writes(xindai, plan(xindai, "U100098765 销户，不用冻结"))
    p = plan(jiaowu, "给2019080901跑一下毕业审核,学位先不审")
    assert args(p, "run_graduation_audit")["include_degree"] is False


def test_begins_opens_nothing(rensha: Assistant) -> None:
    """"查下E… 下周一开始三天年假的余额": a look-up — 开始 (begins) was read as 开 (open), a write, and the
    leave was submitted."""
    p = plan(rensha, "查下E10099 下周一开始三天年假的余额")
    assert p.status == "planned" and tools(p) == ["get_leave_balance"]
    assert tools(plan(rensha, "E10099 下周一开始休三天年假")) == ["submit_leave_request"]  # holds


@pytest.mark.parametrize(("pack", "text"), [("stackhost", "inv_x9q3ld was refunded"),
                                            ("stackhost", "TCK-4411 was resolved"),
                                            ("devhub", "ak_f4g5h6j7 was revoked"),
                                            ("devhub", "org_ab12c got suspended last week")])
def test_a_report_of_what_happened_is_no_request_to_do_it(request: pytest.FixtureRequest, pack: str,
                                                          text: str) -> None:
    """"inv_… was refunded": told, not asked — it refunded the invoice (again)."""
    assistant = request.getfixturevalue(pack)
    assert not writes(assistant, plan(assistant, text))


def test_a_report_beside_an_ask_is_still_asked(freight: Assistant) -> None:
    """Holds: "… got crushed by the courier, handle the delivery problem and get a replacement out"."""
    p = plan(freight, "box for SHP-2024-00230 got crushed by the courier, handle the delivery problem and get a "
                      "replacement out")
    assert p.status == "planned" and "create_shipment" in tools(p)


# --- what the quick review of cc71153 found

@pytest.mark.parametrize(("text", "tool"), [("ak_3x5c7v9b was leaked, revoke", "revoke_api_key"),
                                            ("ak_3x5c7v9b was compromised. revoke.", "revoke_api_key")])
def test_a_bare_order_after_a_report_is_an_order(devhub: Assistant, text: str, tool: str) -> None:
    """"… was leaked, revoke": a one-word order is an order (the report rule had made it a question)."""
    assert tools(plan(devhub, text)) == [tool]


@pytest.mark.parametrize("text", ["inv_8a2f91 was paid", "ak_3x5c7v9b has already been revoked, fyi"])
def test_irregular_and_perfect_reports_are_reports(devhub: Assistant, text: str) -> None:
    assert not writes(devhub, plan(devhub, text))


@pytest.mark.parametrize("text", ["revoke ak_f4g5h6j7, you don't need to check with me first",
                                  "revoke ak_f4g5h6j7, you do not have to ask me first"])
def test_told_not_to_ask_first_is_no_hold(devhub: Assistant, text: str) -> None:
    assert tools(plan(devhub, text)) == ["revoke_api_key"]


def test_checked_already_is_no_hold(hetong: Assistant) -> None:
    """"先跟我们部门确认过了": checked already (and 我们 is no 我) — not "ask me first"."""
    assert writes(hetong, plan(hetong, "E20261234 转正，先跟我们部门确认过了，考核优秀"))


def test_a_report_in_an_idiom_is_a_report(tixly: Assistant) -> None:
    """"evt_… was called off": the idiom read as "cancel" hid the report — it cancelled the event and
    refunded everyone; "… is off — cancel it and refund everyone" still does."""
    assert not writes(tixly, plan(tixly, "evt_P0lk22 was called off"))
    p = plan(tixly, "evt_P0lk22 is off, hurricane 🌀 — cancel it and refund everyone")
    assert tools(p) == ["cancel_event", "refund_event_orders"]
