"""Round of 2026-11-28 (eighth session): what the blind packs of this round taught.

End-to-end cases run on blind packs kept in this repository (benchmarks/generality/…), written from
docs/knowledge-format.md alone. Each failed on the planner before this round (8a2e19e) unless it says
it holds what a step of the round could break.
"""

from __future__ import annotations

from core.assistant import Assistant
from core.models import Plan
from tests.conftest import args_of as args
from tests.conftest import plan_of as plan
from tests.conftest import writes_of as writes


def tools(p: Plan) -> list[str]:
    return [s.tool_name for s in p.running()]


# --- a number someone has is what there is, not a value --------------------------------------------------

def test_a_number_the_request_says_they_have_is_not_set(mailhub: Assistant) -> None:
    """"they have 5 seats" tells the current seat count: setting the contact limit must not also write
    seat_limit=5 (it did, from the examples' "… N seats")."""
    p = plan(mailhub, "set the contact limit of ws_8f3k2 to 50000, they have 5 seats")
    assert args(p, "set_workspace_limits") == {"workspace_id": "ws_8f3k2", "contact_limit": 50000}
    p = plan(mailhub, "ws_8f3k2 has 5 seats, set the contact limit to 50000")
    assert args(p, "set_workspace_limits") == {"workspace_id": "ws_8f3k2", "contact_limit": 50000}
    # holds: the value asked for, with the current one said after it
    p = plan(mailhub, "bump ws_8f3k2 to 10 seats, they currently have 5")
    assert args(p, "set_workspace_limits") == {"workspace_id": "ws_8f3k2", "seat_limit": 10}


# --- someone the request acts for exists: no recipe that first makes a new one ---------------------------

def test_acting_for_a_person_does_not_make_a_new_one(hetong: Assistant) -> None:
    """"帮新来的同事做下社保增员" is the enrolment for a colleague who exists (which one?), not the onboarding
    recipe that creates an employee, signs a contract and enrols them (it did: a write on a guess)."""
    for text, tool in (("帮新来的同事做下社保增员", "si_hf_enroll"), ("给新员工签劳动合同，3年固定期限", "sign_contract"),
                       ("给他签个合同", "sign_contract")):
        p = plan(hetong, text)
        assert p.status == "needs_input" and p.tool == tool and p.missing == ["employee_id"], (text, p.tool, p.rule)
    # holds: asked to make one, the recipe makes one
    for text in ("造一个新员工入职的数据，市场部", "UAT来个试用期员工，社保交北京"):
        p = plan(hetong, text)
        assert p.status == "planned" and p.rule == "onboard_employee", text


def test_what_a_description_says_a_tool_does_not_do_is_not_its_word() -> None:
    from core.planning.vocabulary import DISCLAIMED

    assert DISCLAIMED.sub("|", "新建员工档案，只建档案不签合同、不做社保增员。姓名不填系统随机生成") == \
        "新建员工档案，只建档案|、|。姓名不填系统随机生成"
    assert DISCLAIMED.sub("|", "Creates the org only; does not issue a key.") == "Creates the org only; |."
    assert DISCLAIMED.sub("|", "验收结果:合格/不合格") == "验收结果:合格/不合格"  # a value, not a disclaimer


# --- chat words, bare questions about a thing, statements after the request -------------------------------

def test_a_question_of_nothing_but_an_id_looks_it_up(itdesk: Assistant) -> None:
    """"who has LT-06650 atm?": every word but the asset tag is a function word; the look-up of that
    tag answers it (it was a group list that left the tag unused, then no_match)."""
    for text in ("who has LT-06650 atm?", "in prod, who has DT-00412?"):
        p = plan(itdesk, text)
        assert p.status == "planned" and tools(p) == ["get_device"], (text, p.status, tools(p))
    assert plan(itdesk, "LT-06650").status != "planned"  # holds: a bare value asks nothing


def test_u_is_no_username(itdesk: Assistant) -> None:
    p = plan(itdesk, "can u transfer the tableau seat from sjones to rkumar")
    assert p.status == "planned" and p.rule == "license_transfer"
    assert args(p, "revoke_license")["username"] == "sjones" and args(p, "assign_license")["username"] == "rkumar"


def test_a_statement_after_the_request_is_context(itdesk: Assistant) -> None:
    """"…, laptop might be compromised", "…, user's happy": how things are, not more to do."""
    p = plan(itdesk, "revoke jdoe's vpn right now pls, laptop might be compromised")
    assert p.status == "planned" and tools(p) == ["revoke_vpn"] and args(p, "revoke_vpn") == {"username": "jdoe"}
    p = plan(itdesk, "pls close REQ-302245, user's happy")
    assert p.status == "planned" and tools(p) == ["close_ticket"]


# --- a login nobody taught the planner ---------------------------------------------------------------------

def test_a_lone_unknown_handle_fills_the_handle_parameter(itdesk: Assistant) -> None:
    """"does mchen have mfa set up?": mchen sits where no example put a username, but it is the one word
    nothing here knows, shaped like the examples' usernames — and "set up" in a question is what the
    look-up reports, not a change."""
    p = plan(itdesk, "does mchen have mfa set up?")
    assert p.status == "planned" and tools(p) == ["get_mfa_status"] and args(p, "get_mfa_status") == {"username": "mchen"}
    # holds: a noun after an article, or an English word, is no username
    p = plan(itdesk, "pls revoke vpn access for the contractor on the 3rd floor")
    assert "contractor" not in str([s.arguments for s in p.steps])
    p = plan(itdesk, "revoke the zoom licence, hasn't used it")
    assert p.status != "planned" and "used" not in str([s.arguments for s in p.steps])
    # a handle said after a preposition fills an optional handle parameter (not the default queue)
    p = plan(itdesk, "assign INC-204518 to sjones pls")
    assert args(p, "assign_ticket") == {"ticket_id": "INC-204518", "assignee": "sjones"}


def test_a_context_the_examples_teach_is_tried_past_its_first_match(itdesk: Assistant) -> None:
    """"…zoom licence from bwright": the examples' "…om X" context first meets "zoom licence" (a pack
    word) — the next match is the username. The reason after it ("hasn't used it in 3 months") is context."""
    p = plan(itdesk, "revoke the zoom licence from bwright, hasn't used it in 3 months")
    assert p.status == "planned" and args(p, "revoke_license") == {"username": "bwright", "product": "zoom"}


# --- questions and requests put around other words ------------------------------------------------------

def test_a_question_after_a_lead_in_is_still_a_question(devhub: Assistant) -> None:
    """"quick one – is org_q7m2x suspended or still active?" asks; it ran the suspension recipe
    (an invoice made, marked overdue, the org suspended)."""
    p = plan(devhub, "quick one – is org_q7m2x suspended or still active?")
    assert p.status == "planned" and tools(p) == ["get_org"] and not writes(devhub, p)


def test_a_participle_that_says_which_to_list_is_no_change(devhub: Assistant) -> None:
    """"list the revoked keys in org_x4c6v" lists them by status; it ran the revoked-key recipe."""
    p = plan(devhub, "list the revoked keys in org_x4c6v")
    assert tools(p) == ["list_api_keys"] and args(p, "list_api_keys") == {"org_id": "org_x4c6v", "status": "revoked"}
    p = plan(devhub, "I need an org with a revoked key")  # holds: asked to make one
    assert p.status == "planned" and p.rule == "revoked_key_org"


def test_a_state_word_inside_an_event_name_names_no_state(devhub: Assistant) -> None:
    """"a key.revoked test event": the event type, not the revoked-key recipe's target state."""
    p = plan(devhub, "fire a key.revoked test event at we_4r5t6y")
    assert p.status == "planned" and args(p, "send_test_event") == {"endpoint_id": "we_4r5t6y", "event_type": "key.revoked"}


def test_the_same_scope_is_no_thing_said_to_exist(devhub: Assistant) -> None:
    p = plan(devhub, "swap out ak_m2n4b6v8 for a fresh key with the same scope and kill the old one")
    assert p.status == "planned" and p.rule == "rotate_api_key"


def test_a_recipe_that_would_make_the_parents_first_gives_way_to_the_step_asked(devhub: Assistant) -> None:
    """"add a webhook pointing at …" registers a webhook on some project (which?); it made an org and a
    project and sent a test event (a write on a guess)."""
    p = plan(devhub, "add a webhook pointing at https://hooks.acme.dev/in")
    assert p.status == "needs_input" and p.tool == "register_webhook" and p.missing == ["project_id"]
    p = plan(devhub, "set up a project with a webhook and send it a test event")  # holds: its trigger
    assert p.status == "planned" and p.rule == "webhook_test_setup"


# --- values said the way people say them ----------------------------------------------------------------

def test_words_a_parameters_pattern_spells_are_the_tools_words(hetong: Assistant) -> None:
    """The salary pattern says 涨到; "15k" is fifteen thousand, not an id."""
    p = plan(hetong, "E20219903涨薪，涨到15k")
    assert p.status == "planned" and args(p, "adjust_salary") == {"employee_id": "E20219903", "new_salary": 15000}


def test_a_namesakes_listed_values_are_known(hetong: Assistant, zhaopin: Assistant) -> None:
    """The hiring tool lists the departments; the search's `department` knows them too. 搜 is reading."""
    p = plan(hetong, "帮我搜下研发部所有试用期的人")
    assert p.status == "planned" and tools(p) == ["search_employees"]
    assert args(p, "search_employees")["department"] == "研发部" and args(p, "search_employees")["status"] == "probation"
    # holds: a parameter's own known values come before a namesake's
    p = plan(zhaopin, "王磊要换部门，去产品部")
    assert p.status == "planned" and args(p, "transfer_employee")["new_department"] == "产品部"


def test_a_name_is_no_login_and_a_placed_value_beats_a_known_one(itdesk: Assistant) -> None:
    """"new joiner Kenji Watanabe …": the examples' managers are logins (bwright); "joiner Kenji" only
    matched their "…er X" context — Kenji is the new hire's name. "… forward her mail to bwright": bwright
    is the forward address its context places, not the leaver because the pack knows it as a username
    (it offboarded bwright: a wrong write)."""
    p = plan(itdesk, "new joiner Kenji Watanabe in sales, he'd like a yubikey for mfa")
    assert args(p, "create_user")["full_name"] == "Kenji Watanabe" and "manager" not in args(p, "create_user")
    p = plan(itdesk, "mchen's leaving, run the leaver process pls and forward her mail to bwright")
    assert "bwright" not in str(args(p, "disable_user")) and not writes(itdesk, p)
    p = plan(itdesk, "mchen is leaving, run the leaver process and fwd her mail to bwright")  # holds
    assert args(p, "disable_user")["username"] == "mchen" and args(p, "archive_mailbox")["forward_to"] == "bwright"


# --- from the independent review: each wrote data on a guess while the round was under way ----------------

def test_words_that_are_no_logins_fill_no_username(itdesk: Assistant) -> None:
    """A lone unknown word fills a login only if it looks like one (an initial and a surname: mchen),
    for a look-up or after to/by; "everyone", "whoever", "the new guy" wrote data."""
    for text in ("revoke zoom from everyone", "grant vpn to whoever", "revoke vpn, urgent",
                 "set up remote access for the new guy", "archive mailbox careers", "assign INC-204518 for review"):
        p = plan(itdesk, text)
        assert not writes(itdesk, p), (text, tools(p), [s.arguments for s in p.steps])
    # a write on a login no example placed: not a revocation for "give one to mchen"
    for text in ("assign one zoom seat to mchen", "we have 5 zoom seats, give one to mchen"):
        assert "revoke_license" not in tools(plan(itdesk, text)), text


def test_a_state_said_before_can_we_is_no_value(devhub: Assistant) -> None:
    """"org_1 is on free, can we upgrade to pro?" wrote new_plan=free while "can we" after a statement
    counted as a request; it is asked about again (the current state is no value to set)."""
    for text in ("org_8f3k2 is on free, can we upgrade to pro?", "inv_5k2j8q is overdue, can we void it?",
                 "hypothetically, can we suspend org_8f3k2?", "suspend the other org"):
        p = plan(devhub, text)
        assert not writes(devhub, p), (text, tools(p), [s.arguments for s in p.steps])


def test_a_count_someone_has_makes_no_copies(devhub: Assistant) -> None:
    p = plan(devhub, "org_8f3k2 has 5000 calls already, simulate 7000")
    assert p.copies == 1 and args(p, "simulate_usage")["api_calls"] == 7000


def test_what_the_request_says_not_to_do_is_not_asked(hetong: Assistant, mailhub: Assistant) -> None:
    p = plan(hetong, "只建档案，不签合同")
    assert tools(p) == ["create_employee"]
    p = plan(mailhub, "refund 1k on inv_2026_0042")  # 1k left unused: never a full refund
    assert not writes(mailhub, p)
