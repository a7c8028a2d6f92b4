"""Round of 2026-11-29 (twelfth session): orders said plainly beside a remark, writes that go the other
way from what the request says, orders held for the requester, and writes short of a value.

End-to-end on blind packs kept in this repository (benchmarks/generality/…), written from
docs/knowledge-format.md alone. Each failed on the planner before this round (9a7330f) unless it
says it holds what a step of the round could break.
"""

from __future__ import annotations

import pytest

from core.assistant import Assistant
from core.models import Plan, Request
from tests.conftest import args_of as args
from tests.conftest import plan_of as plan
from tests.conftest import writes_of as writes


def tools(p: Plan) -> list[str]:
    return [s.tool_name for s in p.running()]


def test_an_order_in_the_tools_own_verb_runs_whatever_remark_follows(devhub: Assistant) -> None:
    """"revoke ak_… asap, it was exposed in a public gist": the key named in its declared shape, the
    verb the tool is named by, nothing else plausible — the remark explains why, it asks nothing."""
    p = plan(devhub, "revoke ak_f4g5h6j7 asap, it was exposed in a public gist")
    assert p.status == "planned" and tools(p) == ["revoke_api_key"]
    assert args(p, "revoke_api_key")["key_id"] == "ak_f4g5h6j7"


@pytest.mark.parametrize("text", [
    "revoke ak_f4g5h6j7 later, it was exposed in a public gist",
    "revoke ak_f4g5h6j7 asap, it was exposed in a public gist. no wait",
    "revoke ak_f4g5h6j7 if it was exposed in a public gist",
    "revoke ak_f4g5h6j7 tomorrow, it was exposed in a public gist",
])
def test_an_order_held_back_or_taken_back_is_no_plain_order(devhub: Assistant, text: str) -> None:
    """Holds: the same order put off, taken back or made conditional stays a question — nothing revoked."""
    p = plan(devhub, text)
    assert p.status != "planned" and not writes(devhub, p)


def test_unbinding_is_not_planned_as_the_binding_its_example_resembles(fleetops: Assistant) -> None:
    """"把 860… 从 VH-2231 上解绑": the binding's example is the nearest text, but 解绑 takes away —
    the unbinding is offered first, nothing is bound."""
    p = plan(fleetops, "把860123456789012从VH-2231上解绑")
    assert p.status == "needs_input" and not writes(fleetops, p)
    assert p.choices[0].tool == "unbind_device"


def test_binding_still_binds(fleetops: Assistant) -> None:
    """Holds: the asked way and the best's way agree — planned as before."""
    p = plan(fleetops, "把860123456789012绑定到VH-2231")
    assert p.status == "planned" and tools(p) == ["bind_device"]
    assert args(p, "bind_device") == {"imei": "860123456789012", "vehicle_id": "VH-2231"}


def test_unbinding_said_beside_a_reported_closing_still_binds(fleetops: Assistant) -> None:
    """Holds: "绑到 VH-2231 上，旧车已经关闭了" — what the old vehicle went through is told, not asked."""
    p = plan(fleetops, "把860123456789012绑到VH-2231上，旧车已经关闭了")
    assert p.status == "planned" and tools(p) == ["bind_device"]


@pytest.mark.parametrize(("pack", "text"), [
    ("hetong", "E20240552 社保公积金已经停掉了"),
    ("rensha", "E10023 已经离职了"),
])
def test_a_chinese_report_of_what_is_already_so_writes_nothing(request: pytest.FixtureRequest, pack: str,
                                                               text: str) -> None:
    """"…已经停掉了", "已经离职了" tell what is so: doing it (again) is not asked."""
    assistant: Assistant = request.getfixturevalue(pack)
    p = plan(assistant, text)
    assert not writes(assistant, p)


def test_a_report_beside_an_order_still_orders(hetong: Assistant) -> None:
    """Holds: "已经离职了，社保停掉" — the second clause asks."""
    p = plan(hetong, "E20240552 已经离职了，社保停掉")
    assert p.status == "planned" and tools(p) == ["si_hf_stop"]


def test_what_just_happened_is_recorded(wuye: Assistant) -> None:
    """Holds: "业主刚用支付宝交了" asks to record the payment (刚, not 已经)."""
    p = plan(wuye, "ZD202611270015 业主刚用支付宝交了")
    assert p.status == "planned" and tools(p) == ["pay_bill"]


@pytest.mark.parametrize("text", [
    "disable jdoe's account, wait for me to confirm",
    "disable jdoe's account and hold until I say so",
])
def test_an_english_order_held_for_the_requester_waits(itdesk: Assistant, text: str) -> None:
    """"…, wait for me to confirm": nothing is disabled until they do."""
    p = plan(itdesk, text)
    assert p.status == "needs_input" and not writes(itdesk, p)


def test_not_waiting_is_no_hold(itdesk: Assistant) -> None:
    """Holds: "don't wait for me, disable …" orders it now."""
    p = plan(itdesk, "don't wait for me, disable jdoe's account")
    assert p.status == "planned" and tools(p) == ["disable_user"]


def test_a_step_held_in_the_words_it_was_asked_in_waits(rensha: Assistant) -> None:
    """"停缴社保，停缴等我通知" where the pack says 减员: the only change asked is the one held."""
    p = plan(rensha, "E10023 停缴社保，停缴等我通知")
    assert p.status == "needs_input" and not writes(rensha, p)
    p = plan(rensha, "E10023 停缴社保")
    assert p.status == "planned" and tools(p) == ["remove_social_insurance"]


def test_a_write_short_of_a_value_asks_for_it_though_a_stated_one_goes_unused(devhub: Assistant) -> None:
    """"disable the webhook for org_…, it's spamming their logs": the org says where to look, the
    endpoint is what the tool needs — asked for, and the reply runs it (not "which one?")."""
    p = plan(devhub, "disable the webhook for org_8f3k2, it's spamming their logs")
    assert p.status == "needs_input" and p.missing == ["endpoint_id"] and not p.choices
    answered = devhub.plan(Request(text="we_3k9d2s", previous=p, bypass_cache=True))
    assert answered.status == "planned" and args(answered, "disable_webhook") == {"endpoint_id": "we_3k9d2s"}
    p = plan(devhub, "bump the rate limit on org_b6n1m, they keep hitting 429s")
    assert p.status == "needs_input" and p.missing == ["requests_per_minute"]


def test_a_read_named_by_the_requests_own_verb_is_no_change_asked_for(flagdeck: Assistant) -> None:
    """"export the audit log as csv": export_audit_log, asked for its workspace — not a change offered
    because "export" sounded like one."""
    p = plan(flagdeck, "export the audit log as csv")
    assert p.status == "needs_input" and p.missing == ["workspace_id"] and tools(p) == ["export_audit_log"]


def test_an_id_said_as_where_its_own_thing_is_asks_for_that_thing(mailhub: Assistant) -> None:
    """"revoke the leaked API key on ws_…": the key is the tool's own thing, the workspace where it
    is — its id is asked for, not "nothing here fits"."""
    p = plan(mailhub, "revoke the leaked API key on ws_8f3k2")
    assert p.status == "needs_input" and p.missing == ["key_id"] and tools(p) == ["revoke_api_key"]


def test_an_id_said_as_the_thing_itself_is_still_about_something_else(tixly: Assistant) -> None:
    """Holds: "cancel payout po_…" — the payout is the thing; nothing here cancels payouts."""
    p = plan(tixly, "cancel payout po_8QkM2r, wrong bank acct")
    assert p.status == "no_match"
