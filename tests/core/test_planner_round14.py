"""Round of 2026-11-29 (eleventh session): values the examples teach in shapes the planner did not read.

End-to-end cases on blind packs kept in this repository (benchmarks/generality/…), written from
docs/knowledge-format.md alone, and a small pack written here for the parts no blind pack shows.
Each failed (a value lost, or a question where the plan was plain) on the planner before this round
(8c8ff6f) unless it says it holds what a step of the round could break.
"""

from __future__ import annotations

import pytest

from core.assistant import Assistant
from core.models import Plan, Request
from core.planning import RulePlanner
from tests.conftest import args_of as args
from tests.conftest import plan_of as plan
from tests.conftest import rule_planner
from tests.conftest import writes_of as writes

SCREENS = {
    "pack.yaml": """
        name: screens
        description: Digital signage screens and money moves
        environments: {default: test, test: {}}
    """,
    "tools/screens.yaml": """
        - tool_name: set_resolution
          description: Set a signage screen's resolution
          parameters:
            - {name: screen_id, type: string, required: true, description: screen id, patterns: ['\\b(SCR-\\d{3})\\b']}
            - {name: width, type: integer, required: true, minimum: 320, maximum: 7680}
            - {name: height, type: integer, required: true, minimum: 240, maximum: 4320}
          examples:
            - {user_query: put SCR-101 on 1920x1080, extracted_params: {screen_id: SCR-101, width: 1920, height: 1080}}
          call: {http: {method: POST, path: /screens/resolution}}
        - tool_name: convert_budget
          description: Convert the screen budget into another currency
          parameters:
            - {name: amount, type: number, required: true, description: amount to convert}
            - {name: target_currency, type: string, required: true, enum: [USD, EUR, GBP]}
          examples:
            - {user_query: convert 500 of the screen budget into EUR, extracted_params: {amount: 500, target_currency: EUR}}
          side_effects: false
          call: {http: {method: GET, path: /fx}}
    """,
}


@pytest.fixture(scope="module")
def screens(tmp_path_factory: pytest.TempPathFactory) -> RulePlanner:
    return rule_planner(tmp_path_factory.mktemp("k") / "screens", SCREENS)


def tools(p: Plan) -> list[str]:
    return [s.tool_name for s in p.running()]


def test_two_numbers_written_as_the_examples_write_a_pair(fleetops: Assistant) -> None:
    """"22.6012,114.0530" where an example writes lat then lng: both numbers, in that order (neither
    was taken, and it asked which one was meant, offering the one recipe that fits)."""
    p = plan(fleetops, "在 22.6012,114.0530 画个禁行区围栏 半径500 VH-3108 进去就报警")
    assert p.rule == "geofence_setup"
    assert {k: args(p, "create_geofence")[k] for k in ("lat", "lng", "radius_m")} == \
        {"lat": 22.6012, "lng": 114.053, "radius_m": 500}


def test_a_pair_in_a_pack_written_for_it(screens: RulePlanner) -> None:
    """The same in a pack of another domain: "1280x720" is width then height."""
    p = screens.plan(Request(text="change the resolution of SCR-204 to 1280x720"))
    assert p.status == "planned" and p.steps[0].arguments == {"screen_id": "SCR-204", "width": 1280, "height": 720}


def test_a_name_after_a_naming_cue_keeps_its_numeral(fleetops: Assistant) -> None:
    """"名字叫 宝安二号仓": the name (the example's context "建个围栏 <name>" took "名字叫", and 二号 was
    read as a count left unused)."""
    p = plan(fleetops, "建个围栏 名字叫 宝安二号仓 22.5812,113.8826 半径 400 米 挂到 VH-2231 进出都报")
    assert p.rule == "geofence_setup" and tools(p) == ["create_geofence", "attach_geofence"]
    assert {k: args(p, "create_geofence")[k] for k in ("name", "lat", "lng")} == \
        {"name": "宝安二号仓", "lat": 22.5812, "lng": 113.8826}


@pytest.mark.parametrize(("text", "currency"), [("give tn_p3j6ft a $150 credit for the SLA breach", "USD"),
                                                ("give tn_p3j6ft a €80 credit, goodwill", "EUR")])
def test_an_amounts_symbol_says_its_currency(idcloud: Assistant, text: str, currency: str) -> None:
    """"a $150 credit" for a tool that takes the amount and a currency code: USD (it was left out)."""
    assert args(plan(idcloud, text), "issue_credit")["currency"] == currency


def test_a_currency_to_convert_into_is_not_the_amounts(screens: RulePlanner) -> None:
    """Holds: "convert $200" says nothing of the currency to convert into — asked, not USD."""
    p = screens.plan(Request(text="convert $200 of the screen budget"))
    assert p.status == "needs_input" and p.missing == ["target_currency"]


def test_a_synonym_phrase_with_its_verb_inflected(idcloud: Assistant) -> None:
    """"they got double charged" is the synonym "double charge" of billing_error (the default goodwill was kept)."""
    p = plan(idcloud, "give tn_p3j6ft a $150 credit, they got double charged last month")
    assert args(p, "issue_credit") == {"tenant_id": "tn_p3j6ft", "amount": 150, "currency": "USD",
                                       "reason": "billing_error"}


def test_today_in_a_request_that_names_nothing_still_writes_nothing(itdesk: Assistant) -> None:
    """Holds: "jdoe's last day is today" asks for nothing."""
    p = plan(itdesk, "jdoe's last day is today")
    assert not writes(itdesk, p)


def test_an_amount_after_for_is_the_claims_not_the_approvals(claimdesk: Assistant) -> None:
    """"a paid claim … for EUR 1,200": the claimed amount (the approval carries the reserve over). The
    approval's examples put "for" before its amount, and that took the 1,200 over a default claim of 1,500."""
    p = plan(claimdesk, "give me a paid claim on POL-2023-004518 for EUR 1,200 — theft")
    assert p.rule == "claim_lifecycle" and args(p, "file_claim")["claimed_amount"] == 1200
    assert args(p, "approve_claim")["approved_amount"].model_dump() == {"from_step": 3, "path": "reserve_amount"}


def test_an_amount_said_with_the_steps_own_verb_is_that_steps(claimdesk: Assistant) -> None:
    """Holds: "pay 800 GBP on CLM-…" is the payout of 800, not an approval of 800 and all after it."""
    p = plan(claimdesk, "pay 800 GBP on CLM-2024-000318 by cheque")
    assert tools(p) == ["issue_payout"] and args(p, "issue_payout")["amount"] == 800



@pytest.mark.parametrize("text", ["E20260417 调岗到财务部，岗位是会计，下周一生效", "把E20260417调到财务部，岗位为会计"])
def test_a_label_said_with_another_is_the_value_the_example_labels(hetong: Assistant, text: str) -> None:
    """The example says "岗位改成出纳"; "岗位是会计" names the position the same way (it was left out)."""
    assert args(plan(hetong, text), "transfer_employee")["to_position"] == "会计"


@pytest.mark.parametrize("text", ["thanks, that worked!", "ok thanks 🙏", "perfect, all good now"])
def test_thanks_is_no_request(mailhub: Assistant, text: str) -> None:
    """"thanks, that worked!" after a run: nothing to do (it asked which campaign to send)."""
    p = plan(mailhub, text)
    assert p.status == "no_match" and p.question == "Glad it helped. Ask me for something else any time."


def test_thanks_in_chinese_is_answered_in_chinese(rensha: Assistant) -> None:
    p = plan(rensha, "好的收到，辛苦了！")
    assert p.status == "no_match" and p.question == "不客气，有需要随时找我。"


def test_a_request_after_thanks_is_still_a_request(rensha: Assistant) -> None:
    """Holds: "谢谢，再帮E10035请三天年假" asks for something."""
    p = plan(rensha, "谢谢，再帮E10035请三天年假")
    assert p.status != "no_match"


def test_the_opposite_change_is_no_rival(zhaopin: Assistant) -> None:
    """"社保从2026-07开始停掉": the stop, not a question between it and the enrolment (从…开始 says when)."""
    p = plan(zhaopin, "E100345 的社保从2026-07开始停掉")
    assert tools(p) == ["social_insurance_remove"]
    assert args(p, "social_insurance_remove") == {"employee_id": "E100345", "effective_month": "2026-07"}



@pytest.mark.parametrize("text", ["给E10035明天请三天年假，先别审批", "给E10035明天请三天年假，审批等我确认"])
def test_a_step_held_or_refused_is_no_reason(rensha: Assistant, text: str) -> None:
    """"先别审批" / "审批等我确认" say how to go about it, not why: they were written as the leave's reason
    (and the held approval then ran, its refusal being "a value the plan takes")."""
    p = plan(rensha, text)
    assert "approve_leave" not in tools(p) and all("reason" not in s.arguments for s in p.steps)
    assert p.status == "planned" or not writes(rensha, p)


def test_a_reason_said_last_is_still_the_reason(rensha: Assistant) -> None:
    """Holds: "家里有事" is the reason."""
    assert args(plan(rensha, "给E10035明天请三天年假，家里有事"), "submit_leave_request")["reason"] == "家里有事"


def test_a_question_about_a_thing_named_by_its_id_reads_it(mailhub: Assistant) -> None:
    """"did cmp_31337 actually go out?": the campaign look-up, the one read that takes the id as its
    parameter declares it (it said nothing here fits: the request's words are not the pack's)."""
    p = plan(mailhub, "did cmp_31337 actually go out? customer says nobody got it")
    assert tools(p) == ["get_campaign"] and args(p, "get_campaign") == {"campaign_id": "cmp_31337"}


def test_an_order_in_unknown_words_is_no_look_up(idcloud: Assistant) -> None:
    """Holds: "线上把 tn_m8c2pk 停掉" asks for a change in words an English pack does not know: no read
    of the tenant stands in for it."""
    p = plan(idcloud, "线上把 tn_m8c2pk 停掉")
    assert not (p.status == "planned" and not writes(idcloud, p))


# What the independent review of 4e6c423 found (350 probes, old and new code): each wrote a wrong value
# (or lost one) on 4e6c423 and is right again.

@pytest.mark.parametrize("text", ["add a GA tier to evt_8Hn2Qa, gates open 7,30 pm",
                                  "add a VIP tier to evt_K2m9Xp, tables 4,6 and 8"])
def test_whole_numbers_with_a_comma_are_no_pair(tixly: Assistant, text: str) -> None:
    """"7,30 pm", "4,6 and 8": a time and a list, not a price and a quantity (a comma joins a pair of
    decimals only, as in 22.54,113.93)."""
    a = args(plan(tixly, text), "create_ticket_tier")
    assert a["price"] == 25.0 and a["quantity"] == 100


@pytest.mark.parametrize("text", ["give tn_p3j6ft a HK$500 credit", "give tn_p3j6ft a C$200 credit, they're in Toronto",
                                  "give tn_p3j6ft a ¥5000 credit, they are billed in yen"])
def test_another_dollar_or_yen_is_no_currency_code(idcloud: Assistant, text: str) -> None:
    assert "currency" not in args(plan(idcloud, text), "issue_credit")


def test_a_synonym_said_as_not_the_reason(idcloud: Assistant) -> None:
    """"not for double charging, just goodwill": goodwill (the inflected synonym won)."""
    p = plan(idcloud, "give tn_p3j6ft a $150 credit, not for double charging, just goodwill")
    assert args(p, "issue_credit")["reason"] == "goodwill"


def test_what_the_position_was_is_not_the_new_one(hetong: Assistant) -> None:
    """"原来岗位是研发工程师" is the old position."""
    assert "new_position" not in args(plan(hetong, "E20219903 升M1，原来岗位是研发工程师"), "promote_employee")


@pytest.mark.parametrize(("pack", "text", "tool", "name"), [
    ("idcloud", "造一个已冻结的测试租户,名字叫 星河 Data", "create_tenant", "星河 Data"),
    ("shop", "新建一个商家,名字叫 Samba Store", "create_seller", "Samba Store")])
def test_a_name_with_a_space_is_kept_whole(request: pytest.FixtureRequest, pack: str, text: str, tool: str,
                                           name: str) -> None:
    """A Chinese name is cut at a space only before numbers (宝安二号仓 22.58,113.88): "星河 Data" is the
    name; "商家,名字叫 Samba Store" is named though the pack's own pattern wants 商家名叫."""
    assistant = request.getfixturevalue("shop_rules" if pack == "shop" else pack)
    a = args(plan(assistant, text), tool)
    assert name in a.values()


@pytest.fixture(scope="module")
def shop_rules() -> object:
    from tests.conftest import SHOP, pack_assistant
    yield from pack_assistant(SHOP)


@pytest.mark.parametrize("text", ["works?", "it's working now?", "all good now?", "没问题吧？", "yes", "again"])
def test_a_question_or_a_yes_is_no_thanks(mailhub: Assistant, text: str) -> None:
    assert plan(mailhub, text).question != "Glad it helped. Ask me for something else any time."


def test_an_amount_after_the_steps_own_verb_and_for_is_that_steps(claimdesk: Assistant) -> None:
    """"approved for $2,500": the approval's amount, not the reserve's."""
    p = plan(claimdesk, "approved claim on POL-2023-000877, claimed $3,000, approved for $2,500")
    assert args(p, "approve_claim")["approved_amount"] == 2500
    assert args(p, "set_reserve")["amount"].model_dump() == {"from_step": 1, "path": "claimed_amount"}
    assert args(p, "file_claim")["claimed_amount"] == 3000


# What the second review (2c96002, 468 probes) found.

@pytest.mark.parametrize("text", ['PR2024060012 向供应商"联想华南"下采购单，下单等我确认',
                                  'PR2024060012 向供应商"联想华南"下采购单，采购单等我确认'])
def test_waiting_for_my_confirmation_holds_the_request(caigou: Assistant, text: str) -> None:
    """"下单等我确认": the order waits (it was written: 等我确认 after a step's words no longer held anything
    when those words were no write's)."""
    assert not writes(caigou, plan(caigou, text))


def test_a_name_that_goes_on_after_a_space_is_not_cut(peixun: Assistant) -> None:
    """"名字叫 沟通技巧 第二期": the course was written as "沟通技巧"."""
    p = plan(peixun, "新建一门线下课,名字叫 沟通技巧 第二期")
    assert all(s.arguments.get("course_name") != "沟通技巧" for s in p.steps)
