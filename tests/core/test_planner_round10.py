"""Questions asked in Chinese, reads asked for by their own status words, verbs that name a tool,
date-times said in ISO 8601, and the word before an id said a little differently.

End-to-end cases run on blind packs kept in this repository (benchmarks/generality/yidong, a Chinese
HR personnel-changes office; mailhub, an English email-marketing SaaS; kuajing, a cross-border seller
team), written from docs/knowledge-format.md alone. Each failed on the planner before this round
(663b50d) unless it says it holds what a step of the round could break.
"""

from __future__ import annotations

from datetime import date

from core.assistant import Assistant
from core.models import Plan
from core.planning.lexicon import first_verb, forbids_changes, is_question, only_asks
from core.planning.spans import find_spans
from tests.conftest import args_of as args
from tests.conftest import plan_of as plan
from tests.conftest import writes_of as writes

TODAY = date(2026, 11, 27)


def tools(p: Plan) -> list[str]:
    return [s.tool_name for s in p.running()]


# --- a question in Chinese changes nothing ---------------------------------------------------------------

def test_chinese_questions_without_a_question_mark_are_questions() -> None:
    assert only_asks("E20260137 转正了吗")
    assert only_asks("E20260137 现在啥状态,转没转正")  # 啥状态, and a verb asked both ways
    assert only_asks("HR2603180007 批没批")
    assert is_question("他是不是已经离职了")
    # requests: put politely, or with a tag after them, or a clause that asks for the change
    assert not only_asks("能帮我给E20260137转正吗")
    assert not only_asks("帮我把 E20260137 转正,好不好")
    assert not only_asks("E20260137 转正了吗?没有的话帮他走下转正")
    assert not is_question("能不能帮我给E1排个班")


def test_asking_whether_someone_was_confirmed_runs_no_confirmation(yidong: Assistant) -> None:
    for text in ("E20260137 转正了吗", "E20260137 转没转正", "E20260137 转正了没"):
        p = plan(yidong, text)
        assert not writes(yidong, p), (text, tools(p))
    p = plan(yidong, "E20260137 现在啥状态,转没转正")
    assert p.status == "planned" and tools(p) == ["get_employee"]
    assert args(p, "get_employee")["employee_id"] == "E20260137"


def test_a_polite_chinese_request_is_still_a_request(yidong: Assistant) -> None:
    for text in ("能帮我给E20260137转正吗", "帮我给E20260137转正"):  # (帮我给: the example says 给E…)
        p = plan(yidong, text)
        assert p.status == "planned" and p.rule == "regularization_flow", (text, p.status, p.choices)
        assert args(p, "submit_regularization")["employee_id"] == "E20260137"
        assert "find_employee" not in tools(p)  # the id said replaces the look-up by name


# --- a read asked for in reading words ---------------------------------------------------------------------

def test_listing_drafts_lists_them_not_the_campaign_recipe(mailhub: Assistant) -> None:
    p = plan(mailhub, "list the drafts in ws_8f3k2")
    assert p.status == "planned" and tools(p) == ["list_campaigns"]
    got = args(p, "list_campaigns")
    assert got["workspace_id"] == "ws_8f3k2" and got["status"] == "draft"


def test_a_loosely_said_state_with_a_make_request_still_makes(mailhub: Assistant) -> None:
    """Holds: the read wins only where the request reads; asking for a scheduled campaign makes one."""
    p = plan(mailhub, "I need a scheduled campaign in ws_8f3k2")
    assert p.rule == "campaign_lifecycle" and "schedule_campaign" in tools(p)


# --- a verb that names the tool ------------------------------------------------------------------------------

def test_the_verb_a_tool_is_named_for_picks_it(mailhub: Assistant) -> None:
    assert first_verb("please send cmp_77001") == "send" and first_verb("帮我send一下") is None
    p = plan(mailhub, "send cmp_77001")
    assert p.status == "planned" and tools(p) == ["send_campaign"]  # not "send or schedule?"
    p = plan(mailhub, "schedule cmp_77001")
    assert p.status == "planned" and tools(p) == ["schedule_campaign"]


# --- ISO 8601 date-times ---------------------------------------------------------------------------------------

def test_an_iso_date_time_is_one_value() -> None:
    spans = find_spans("please schedule cmp_40112 for 2026-04-15T14:30:00Z now", TODAY)
    assert [(s.kind, s.text, s.value) for s in spans if s.kind != "id"] == [
        ("date", "2026-04-15T14:30:00Z", "2026-04-15")]  # no "30" number, no "00Z" id


def test_a_date_time_parameter_gets_the_whole_date_time(mailhub: Assistant) -> None:
    p = plan(mailhub, "please schedule cmp_40112 for 2026-04-15T14:30:00Z")
    assert p.status == "planned" and tools(p) == ["schedule_campaign"]
    assert args(p, "schedule_campaign")["send_at"] == "2026-04-15T14:30:00Z"
    p = plan(mailhub, "schedule cmp_40588 for 2026-04-15 at 9am")  # the examples show a time: with it
    assert args(p, "schedule_campaign")["send_at"] == "2026-04-15 09:00"


# --- a write the request says nothing of in its own words ---------------------------------------------------

def test_a_write_that_only_shares_a_listed_word_is_not_run(yidong: Assistant) -> None:
    """The handover tool lists 权限 among what it hands over; "open E1's VPN access" is no handover."""
    p = plan(yidong, "帮我开一下 E20260009 的 VPN 权限")
    assert p.status == "no_match" and not writes(yidong, p)
    p = plan(yidong, "E20260009 的权限交接一下")  # holds: said in the handover's own words
    assert p.status == "planned" and tools(p) == ["create_handover"]


# --- a number named by the word the examples put after it; host names -----------------------------------

def test_a_number_followed_by_the_examples_word_for_it_is_that_count(mailhub: Assistant) -> None:
    p = plan(mailhub, "scheduled campaign on dev pls, 250 contacts is enough")  # "load 500 contacts into …"
    assert p.rule == "campaign_lifecycle" and args(p, "import_contacts")["count"] == 250


def test_the_word_after_a_number_that_starts_an_id_names_nothing(shelfy: Assistant) -> None:
    """Holds: "adjust +5 SKU-20931" teaches no "SKU" after a quantity — "write off 2 SKU-…" may be −2."""
    p = plan(shelfy, "write off 2 SKU-20931 in B-03-11, crushed on the rack")
    assert p.status == "needs_input" and "quantity" in p.missing


def test_a_bare_host_name_is_a_value() -> None:
    spans = find_spans("mail ann@acme.io about news.testco.io, report.pdf, v1.2.3 and Node.js", TODAY)
    assert [(s.kind, s.text) for s in spans if s.kind in ("email", "url")] == [
        ("email", "ann@acme.io"), ("url", "news.testco.io")]


def test_a_sending_domain_said_bare_is_the_domain(mailhub: Assistant) -> None:
    p = plan(mailhub, "ws_k4l5z needs a sending domain where verification failed, use bad.acme-test.io")
    assert p.status == "planned" and p.rule == "failed_domain_verification"
    assert args(p, "add_sending_domain")["domain"] == "bad.acme-test.io"
    p = plan(mailhub, "on the sandbox, I need news.testco.io sitting in pending verification")
    assert p.rule == "sending_domain_setup" and args(p, "add_sending_domain")["domain"] == "news.testco.io"


# --- a recipe said in its own words is the recipe, not its first step ------------------------------------------

def test_a_request_in_the_recipes_own_words_is_the_recipe(rensha: Assistant, clinic: Assistant) -> None:
    p = plan(rensha, "UAT 给 E10099 请个调休,明天,一天")
    assert p.rule == "leave_application" and tools(p) == ["submit_leave_request", "approve_leave"]
    p = plan(clinic, "在测试环境给P202400123预约明天的心电图")
    assert p.rule == "exam_appointment" and tools(p) == ["book_exam", "pay_bill"]


def test_a_request_in_the_tools_words_stays_the_tool(saasdesk: Assistant) -> None:
    """Holds: the escalation recipe starts with the assignment, but says no more of this request."""
    p = plan(saasdesk, "hand TCK-77120 over to li.wei@ourco.com")
    assert p.status == "planned" and tools(p) == ["assign_ticket"]


# --- a step the request says not to do yet --------------------------------------------------------------------

def test_a_step_said_not_to_be_done_ends_the_recipe_before_it(kuajing: Assistant) -> None:
    p = plan(kuajing, "建个listing先不要上架哈, SKU SZ-FAN-220V, 39.99 USD")  # 先不要: not yet
    assert p.status == "planned" and tools(p) == ["create_listing"]
    assert args(p, "create_listing")["sku"] == "SZ-FAN-220V"
    p = plan(kuajing, "coupon for B0D1Q6V8YM, 15% off, just submit it for now, don't activate")
    assert p.status == "planned" and tools(p) == ["create_coupon"]  # was "which one?" offering it alone
    assert args(p, "create_coupon")["discount_value"] == 15


# --- reads by their status words; numerals in words; names before a modal; from → to ----------------------------

def test_showing_the_last_sent_campaigns_lists_them(mailhub: Assistant) -> None:
    """`sent` is both a state the campaign recipe reaches (said as written) and the status the list
    tool filters by; "show me the last 10 …" reads."""
    p = plan(mailhub, "show me the last 10 sent campaigns for ws_f2g3h")
    assert p.status == "planned" and tools(p) == ["list_campaigns"]
    got = args(p, "list_campaigns")
    assert (got["workspace_id"], got["status"], got["limit"]) == ("ws_f2g3h", "sent", 10)
    p = plan(mailhub, "I need a sent campaign in ws_8f3k2")  # holds: a make request makes
    assert p.rule == "campaign_lifecycle" and tools(p)[-1] == "send_campaign"


def test_a_chinese_numeral_that_begins_a_pack_word_is_no_value(kuajing: Assistant) -> None:
    p = plan(kuajing, "RMA20250587 退件到仓了, 完好可以二次销售")  # 二次销售: a synonym says 可二次销售
    assert p.status == "planned" and tools(p) == ["receive_return"]
    assert args(p, "receive_return") == {"rma_id": "RMA20250587", "condition": "SELLABLE"}


def test_a_chinese_numeral_in_an_examples_words_is_still_a_count(peixun: Assistant) -> None:
    """Holds: an example says "加二十积分"; the numeral is the points, not vocabulary."""
    p = plan(peixun, "生产环境给E102345加二十积分，年度优秀学员")
    assert p.status == "planned" and args(p, "grant_points")["points"] == 20


def test_a_name_before_a_modal_is_the_name(yidong: Assistant) -> None:
    p = plan(yidong, "刘洋要借调到 D2206,时间 2026-04-01 ~ 2026-06-30,帮忙走下")  # the example: 刘洋借调到 …
    assert p.rule == "secondment_flow" and args(p, "find_employee")["employee_name"] == "刘洋"


def test_what_a_thing_is_now_said_before_what_it_is_to_be_is_context(yidong: Assistant) -> None:
    p = plan(yidong, "孙悦这次 P5 升 P6,晋升后月薪调到 26000,帮忙走下")
    assert p.status == "planned" and p.rule == "promotion_flow"
    assert args(p, "submit_promotion")["target_level"] == "P6"
    assert args(p, "submit_salary_adjustment")["new_base_salary"] == 26000


# --- a setter told what to set, and told nothing -------------------------------------------------------------

def test_a_number_set_to_the_parameter_named_before_it(mailhub: Assistant) -> None:
    """"the contact limit … to 50000": the contact limit, not the seat limit beside it (was seat_limit:
    a wrong write)."""
    p = plan(mailhub, "set the contact limit of ws_8f3k2 to 50000")
    assert p.status == "planned" and args(p, "set_workspace_limits") == {
        "workspace_id": "ws_8f3k2", "contact_limit": 50000}
    p = plan(mailhub, "set ws_z1x2c to 3 seats and 10000 contacts")  # holds: each by its own word
    assert args(p, "set_workspace_limits") == {"workspace_id": "ws_z1x2c", "seat_limit": 3, "contact_limit": 10000}


def test_a_setter_told_nothing_to_set_does_not_run(mailhub: Assistant) -> None:
    """set_workspace_limits with only the workspace changes nothing ("leave a value out to keep it")."""
    for text in ("bump the contact limit on ws_8f3k2", "bump the api rate limit for ws_8f3k2"):
        p = plan(mailhub, text)
        assert not writes(mailhub, p), (text, tools(p))


# --- "just want to look, don't change anything" ---------------------------------------------------------------

def test_a_request_that_says_to_change_nothing_reads(mailhub: Assistant) -> None:
    assert forbids_changes("is it set up right? just want to look, don't change anything")
    assert forbids_changes("只看一下,别改")
    # not what to give someone, nor a check that is the request's verb
    assert not forbids_changes("get ana@copperline.com in as read-only")
    assert not forbids_changes("just checking in, can you verify dom_1")
    p = plan(mailhub, "is the SPF/DKIM on dom_p5o6i set up right? just want to look, don't change anything")
    assert not writes(mailhub, p)  # was verify_sending_domain: a write
    assert p.status == "planned" and tools(p) == ["check_domain_dns"]


# --- what the independent review found (each planned a write it should not, or lost a plan) ----------------------

def test_words_with_a_full_stop_and_places_to_read_are_no_host_names(mailhub: Assistant) -> None:
    for text in ("add a sending domain on ws_8f3k2, run setup.sh first",
                 "add a sending domain on ws_8f3k2 now.it is urgent",
                 "add a sending domain on ws_8f3k2, see docs.mailhub.io for the steps"):
        p = plan(mailhub, text)
        assert not writes(mailhub, p), (text, tools(p), p.steps and p.steps[0].arguments)


def test_a_number_the_examples_word_follows_is_a_count_only_where_it_ends(mailhub: Assistant,
                                                                          liveops: Assistant) -> None:
    for text in ("load contacts into lst_9d8c7, 3 contacts bounced last time",
                 "load contacts into lst_9d8c7 from the 2 contacts files",
                 "import contacts into lst_9d8c7, only 5 contacts per batch"):
        p = plan(mailhub, text)
        assert args(p, "import_contacts").get("count") == 100, text  # the tool's default, not 3 / 2 / 5
    p = plan(liveops, "PLR-00042731 has 2400 event points in EVT-WINTER24, check it")
    assert not writes(liveops, p)  # what the player has: no grant of 2400
    p = plan(liveops, "PLR-00068841 needs 2400 event points on EVT-SUMMER25 so I can check the tier 20 reward")
    assert args(p, "add_event_points")["points"] == 2400  # the examples' two words: "event points"


def test_numbers_from_one_to_another_are_asked_about(freight: Assistant) -> None:
    p = plan(freight, "SKU-88121 in WH3 went from 20 to 14 after the recount")
    assert not writes(freight, p)  # a delta of +14 would be wrong (−6)


def test_a_verb_named_tool_asked_with_a_question_mark_is_not_run(mailhub: Assistant) -> None:
    assert not writes(mailhub, plan(mailhub, "send cmp_77001?"))


def test_a_recipe_that_adds_more_than_the_request_says_stays_the_tool(rensha: Assistant, jiaowu: Assistant,
                                                                      shelfy: Assistant) -> None:
    p = plan(rensha, "给 E10099 提交一个年假申请,明天,两天")  # 提交: the submission, not its approval
    assert tools(p) == ["submit_leave_request"]
    p = plan(shelfy, "transfer 10 SKU-20931 from Newark to Atlanta")
    assert tools(p) == ["create_transfer"]
    p = plan(jiaowu, "测试环境造一个23级数学专业的男生")  # no major transfer filed and approved
    assert "apply_major_transfer" not in tools(p)


def test_review_findings_in_chinese(yidong: Assistant, kuajing: Assistant, wuye: Assistant) -> None:
    assert not only_asks("ZD202611010022 时不时拖欠, 发个催缴短信")  # 时不时: now and then
    assert not only_asks("HR2603180007 批没批? approve it")  # an English clause asks for the approval
    p = plan(kuajing, "建个listing先不用上架, SKU SZ-FAN-220V, 39.99 USD")  # 先不用 as 先不要
    assert tools(p) == ["create_listing"]
    p = plan(yidong, "王家会借调到 D2206,时间 2026-04-01 ~ 2026-06-30")  # 会 ends no name here
    assert args(p, "find_employee")["employee_name"] == "王家会"
    p = plan(wuye, "ZD202611010022 时不时拖欠, 发个催缴短信")
    assert p.status == "planned" and tools(p) == ["send_payment_reminder"]


def test_an_impossible_clock_is_no_date_time() -> None:
    spans = find_spans("schedule cmp_40112 for 2026-04-15T25:99:00Z", TODAY)
    assert not any(s.kind == "date" and "T" in s.text for s in spans)
