"""Values said the way people say them, asides that are not part of what is asked, and things the
request speaks of as existing.

End-to-end cases run on blind packs kept in this repository (benchmarks/generality/peixun, a Chinese
training and performance desk; flagdeck, an English feature-flag support desk; canyin, a Chinese
food-delivery desk), through the assistant's real retrieval. Each pack was written from
docs/knowledge-format.md alone; every case below failed on the planner before this round, except
the last two, pinned while the choice weights were refit (the refit was not kept).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.assistant import Assistant
from core.planning.names import person_names
from core.planning.spans import with_arabic_numerals
from core.settings import BUNDLED_KNOWLEDGE
from tests.conftest import args_of as args
from tests.conftest import pack_assistant
from tests.conftest import plan_of as plan
from tests.conftest import writes_of as writes

# --- values said in words: a pack pattern written for digits, a name in quotes, a name before an adverb ----

def test_chinese_numerals_are_read_by_a_pattern_written_for_digits(peixun: Assistant) -> None:
    """The points parameter declares `(\\d+)\\s*个?(?:学习)?积分`; people write 五个积分."""
    p = plan(peixun, "E103311 扣五个积分，上课迟到")
    assert (p.status, p.tool) == ("planned", "deduct_points")
    assert args(p, "deduct_points")["points"] == 5
    p = plan(peixun, "生产环境给E102345加二十积分")
    assert args(p, "grant_points")["points"] == 20


def test_arabic_rewrite_maps_back_to_the_words_as_said() -> None:
    text, back = with_arabic_numerals("扣五个积分，加二十分")
    assert text == "扣5个积分，加20分"
    assert (back[text.index("5")], back[text.index("20")]) == (1, 7)  # where 五 and 二十 start
    assert back[len(text)] == len("扣五个积分，加二十分")
    assert with_arabic_numerals("E103311 扣5分")[0] == "E103311 扣5分"
    assert with_arabic_numerals("数量为三，扣五个积分")[0] == "数量为3，扣5个积分"  # every numeral, in any order found


def test_a_quoted_name_is_the_value_even_where_it_ends_with_a_pack_word(peixun: Assistant) -> None:
    """「向上管理」 ends with 管理 (the pack's own word for a course category): in quotes, it is the name."""
    p = plan(peixun, "帮忙建课并开班，课叫「向上管理」，管理类，下周一开，最多25人")
    assert (p.status, p.rule) == ("planned", "course_launch")
    assert args(p, "create_course")["course_name"] == "向上管理"
    assert args(p, "open_class")["capacity"] == 25


def test_a_name_ends_before_an_adverb_of_time(peixun: Assistant) -> None:
    p = plan(peixun, "黄晓婷刚入职，帮她报下新员工训练营")
    assert (p.status, p.rule) == ("planned", "onboarding_camp")
    assert args(p, "find_employee_by_name")["employee_name"] == "黄晓婷"
    # (only after a full three-character name: 志刚 and 国正 are given names)
    assert [n for n, _, _ in person_names("李志刚入职", lambda w: False)] == ["李志刚"]
    assert [n for n, _, _ in person_names("张国正刚到", lambda w: False)] == ["张国正"]


# --- an aside is not part of what is asked ------------------------------------------------------------

def test_a_clause_of_words_nothing_here_knows_is_an_aside(flagdeck: Assistant) -> None:
    """"their conversion tracking broke last night" says why, not what: the stop is planned."""
    p = plan(flagdeck, "please stop exp_9fK2mQ, their conversion tracking broke last night")
    assert (p.status, p.tool) == ("planned", "stop_experiment")
    assert args(p, "stop_experiment")["experiment_id"] == "exp_9fK2mQ"


def test_a_state_said_as_history_is_no_target(flagdeck: Assistant) -> None:
    """"it was archived by mistake" is what happened; "restore" is nothing this pack does. Before, the
    flag lifecycle ran toggle, rollout and archive on the flag."""
    p = plan(flagdeck, "restore flg_9pTzR2, it was archived by mistake")
    assert not writes(flagdeck, p)
    p = plan(flagdeck, "repro flag search-rerank in project prj_Q2ab, archived")
    assert (p.status, p.rule, p.target_state) == ("planned", "demo_flag_lifecycle", "archived")
    p = plan(flagdeck, "repro flag search-rerank in project prj_Q2ab, it was archived")  # (nor said loosely)
    assert p.target_state != "archived"


# --- what the request speaks of as existing --------------------------------------------------------

def test_a_maker_does_not_answer_a_request_about_a_named_thing_of_its_kind(peixun: Assistant) -> None:
    """"课程「高效沟通」的课件传到共享盘" is about that course's slides; creating the course is no answer."""
    p = plan(peixun, "把课程「高效沟通」的课件传到共享盘")
    assert not writes(peixun, p)
    p = plan(peixun, "新课上线「数据可视化实战」，专业类，下周一开班")
    assert (p.status, p.rule) == ("planned", "course_launch")


def test_a_long_run_of_unknown_characters_is_more_than_one_word(canyin: Assistant) -> None:
    """"菜单整套复制到" is a clause nothing in the pack knows: the store-status tool explains little of it."""
    p = plan(canyin, "把门店S10001的菜单整套复制到S10002")
    assert p.status == "no_match"


# --- where a value goes when a look-up is dropped; prose after a colon or as the reason -----------------

def test_a_value_only_a_dropped_look_up_would_read_goes_to_the_input_it_fits(flagdeck: Assistant) -> None:
    """The workspace id is given, so the owner-email look-up is dropped: the email is the invitee's."""
    p = plan(flagdeck, "seat and invite on ws_Lm30pQ for hana@quillstack.dev")
    assert (p.status, p.rule) == ("planned", "seat_and_invite")
    assert [s.tool_name for s in p.running()] == ["add_seats", "invite_member"]
    assert args(p, "invite_member")["email"] == "hana@quillstack.dev"
    p = plan(flagdeck, "seat and invite on ws_Lm30pQ, owner is jo@fernbank.io")  # the owner is no invitee
    assert not writes(flagdeck, p)
    p = plan(flagdeck, "owner jo@fernbank.io is out of seats, add a seat and invite sam@fernbank.io as admin")
    assert args(p, "find_workspace_by_email")["owner_email"] == "jo@fernbank.io"
    assert args(p, "invite_member")["email"] == "sam@fernbank.io"


def test_what_follows_the_colon_is_the_subject(flagdeck: Assistant) -> None:
    p = plan(flagdeck, "raise a p2 ticket for ws_Lm30pQ: webhooks delayed by 10 min")
    assert (p.status, p.tool) == ("planned", "create_support_ticket")
    made = args(p, "create_support_ticket")
    assert (made["workspace_id"], made["priority"], made["subject"]) == ("ws_Lm30pQ", "high", "webhooks delayed by 10 min")


def test_a_colon_inside_a_value_is_no_subject_break(flagdeck: Assistant) -> None:
    p = plan(flagdeck, "raise a p2 ticket for ws_Lm30p7: webhooks delayed since 10:30")
    assert args(p, "create_support_ticket")["subject"] == "webhooks delayed since 10:30"
    p = plan(flagdeck, "raise a p2 ticket for ws_Lm30pQ, webhooks to https://hooks.acme.io:8443/x fail")
    assert all(s.arguments.get("subject") != "8443/x fail" for s in p.steps)


def test_a_last_clause_asking_for_nothing_is_the_reason(peixun: Assistant) -> None:
    p = plan(peixun, "生产环境给E102345加二十积分，年度优秀学员")
    assert (p.status, p.tool, p.environment) == ("planned", "grant_points", "prod")
    assert args(p, "grant_points")["reason"] == "年度优秀学员"
    p = plan(peixun, "E103311 扣五个积分，帮我尽快处理一下")  # asking for something is no reason
    assert (p.status, p.tool) == ("planned", "deduct_points")
    assert args(p, "deduct_points").get("reason") != "帮我尽快处理一下"


# --- pinned while the choice weights were refit (see the README: the refit was not kept) ---------------

def test_a_recipe_that_would_also_make_what_nobody_asked_gives_way_to_its_step(rensha: Assistant) -> None:
    """"给张伟开一份收入证明" is the income certificate (whose? it asks), not the visa pack that would find
    张伟 and issue an employment certificate too."""
    p = plan(rensha, "给张伟开一份收入证明")
    assert (p.status, p.tool, p.missing) == ("needs_input", "issue_income_certificate", ["employee_id"])
    assert not writes(rensha, p)


@pytest.fixture(scope="module")
def shop() -> Iterator[Assistant]:
    yield from pack_assistant(BUNDLED_KNOWLEDGE / "shop")


def test_a_tool_whose_own_example_is_said_word_for_word_is_that_tool(shop: Assistant) -> None:
    """The cancel recipe reduces to the same single call; the request is the tool's own example."""
    p = plan(shop, "取消订单O100000123")
    assert (p.status, p.rule, p.tool) == ("planned", None, "cancel_order")
    assert args(p, "cancel_order")["order_id"] == "O100000123"
