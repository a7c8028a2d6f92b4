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
