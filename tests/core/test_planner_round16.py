"""Round of 2026-11-29 (thirteenth session): requests to undo a change, orders on a pronoun after what is
told of the thing, and English requests led by a verb the write does not know.

End-to-end on blind packs kept in this repository (benchmarks/generality/…), written from
docs/knowledge-format.md alone. Each wrote the wrong data on the planner before this round (c196ee8)
unless it says it holds what a step of the round could break.
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


@pytest.mark.parametrize("text", ["unpublish evt_T4cW8b", "pls undo the publish on evt_T4cW8b"])
def test_unpublishing_is_no_publishing(tixly: Assistant, text: str) -> None:
    """publish_event's example is the nearest text, but the request undoes publishing and nothing here
    does that: no match — before, the event was published."""
    p = plan(tixly, text)
    assert p.status == "no_match" and not writes(tixly, p)


def test_cancelling_a_suspension_offers_the_reactivation(devhub: Assistant) -> None:
    """"cancel the suspension on org_…": the dunning recipe that suspends was planned; now the one write
    that lifts a suspension is offered, though "cancel" is no word of it."""
    p = plan(devhub, "cancel the suspension on org_z2x4c")
    assert p.status == "needs_input" and not writes(devhub, p)
    assert [c.tool for c in p.choices] == ["reactivate_org"]


@pytest.mark.parametrize("pack, text", [
    ("xindai", "U100098765 解除冻结"),
    ("fleetops", "FC-200117 解除冻结"),
    ("wuye", "MJ00012345 解除挂失"),
    ("kuajing", "把 B0D3F8L1ZP 取消下架"),
    ("saasdesk", "stop the trial on ws-310"),
    ("devhub", "re-enable we_0p9o8i"),
    ("devhub", "undo the disable on we_0p9o8i"),
])
def test_undoing_a_change_never_makes_it(request: pytest.FixtureRequest, pack: str, text: str) -> None:
    """冻结/挂失/下架/trial/disable undone: the tool that freezes, reports the card lost, makes a
    cancelled order, starts a trial or disables the webhook was planned; now nothing is written."""
    assistant: Assistant = request.getfixturevalue(pack)
    p = plan(assistant, text)
    assert p.status in ("needs_input", "no_match") and not writes(assistant, p)


def test_the_undoing_named_in_one_word_is_offered_first(xindai: Assistant) -> None:
    """"U… 解除冻结": freeze_account was planned; 解冻用户账户 is what undoes it."""
    p = plan(xindai, "U100098765 解除冻结")
    assert p.choices and p.choices[0].tool == "unfreeze_account"


@pytest.mark.parametrize("pack, text, tool", [
    ("xindai", "U100098765 解冻", "unfreeze_account"),
    ("fleetops", "unbind 860123456700011 from its van, sending it back to the vendor for RMA", "unbind_device"),
    ("devhub", "unsuspend org_z2x4c", "reactivate_org"),
    ("devhub", "disable we_0p9o8i", "disable_webhook"),
    ("liveops", "unban PLR-00042731", "lift_ban"),
    ("itdesk", "remove the eng vpn from lpark", "revoke_vpn"),
    # (the review's: an id or an email after the noun is not what is undone; a setter-like tool whose
    # name says "add" with the asked change as its type is no opposite)
    ("rentals", "cancel the booking RS-880021, card declined", "cancel_reservation"),
    ("flagdeck", "remove the member bob@fernbank.io from ws_8F2kQx", "remove_member"),
    ("claimdesk", "remove a driver from POL-2023-000877", "add_endorsement"),
    ("mailhub", "unsubscribe mark@oldclient.com on ws_8f3k2", "add_suppression"),
])
def test_the_undoing_itself_still_runs(request: pytest.FixtureRequest, pack: str, text: str, tool: str) -> None:
    """Holds: a write named for the undoing (un-, re-, lift, 解冻) or the plain order runs as before."""
    assistant: Assistant = request.getfixturevalue(pack)
    p = plan(assistant, text)
    assert p.status == "planned" and tools(p) == [tool]


def test_a_made_state_named_by_an_undoing_word_is_still_made(shop_assistant: Assistant) -> None:
    """Holds: "造一个取消状态的订单" names the state of what is made (取消状态的), it undoes nothing."""
    p = plan(shop_assistant, "商品223344造一个取消状态的订单")
    assert p.status == "planned" and p.rule == "cancel_unpaid_order"


def test_an_order_on_them_after_what_is_told_is_no_new_lifecycle(saasdesk: Assistant) -> None:
    """"northwind (ops@…) is leaving us, cancel them": the lifecycle recipe would start a trial, activate
    and fail a renewal before cancelling — making what "them" says exists. Nothing is written."""
    p = plan(saasdesk, "northwind (ops@northwind.co) is leaving us, cancel them")
    assert p.status == "needs_input" and not writes(saasdesk, p)


@pytest.mark.parametrize("text", ["upgrade ws-12 to enterprise", "ws-12 is on pro. upgrade it to enterprise"])
def test_values_that_fit_do_not_stand_for_a_verb_nothing_knows(saasdesk: Assistant, text: str) -> None:
    """start_trial takes ws-12 and "enterprise", but it starts a trial; nothing here upgrades. It was
    planned (a trial started); now it is only offered."""
    p = plan(saasdesk, text)
    assert p.status == "needs_input" and not writes(saasdesk, p)


def test_values_and_a_verb_the_write_knows_still_run(saasdesk: Assistant) -> None:
    """Holds: the trial asked in its own words runs with the values given."""
    p = plan(saasdesk, "start a 30-day business trial on ws-310")
    assert p.status == "planned" and tools(p) == ["start_trial"]
    assert args(p, "start_trial")["workspace_id"] == "ws-310"


@pytest.mark.parametrize("pack, text, rule", [
    ("saasdesk", 'open a P1 ticket from jane@acme.io about "SSO login broken", escalate it to engineering',
     "ticket_escalation"),
    ("mailhub", "issue an invoice to ws_8f3k2, pay it, then refund it", "invoice_lifecycle"),
])
def test_a_pronoun_after_an_order_that_makes_the_thing_is_that_thing(
        request: pytest.FixtureRequest, pack: str, text: str, rule: str) -> None:
    """Holds: "open a ticket …, escalate it" escalates the ticket it opens — the recipe runs, nothing is
    asked about an existing one (the review found these asked after the first version of the round)."""
    assistant: Assistant = request.getfixturevalue(pack)
    p = plan(assistant, text)
    assert p.status == "planned" and p.rule == rule
