"""Things that already exist, words that only look like names or ids, and writes nobody asked for.

Two small packs written for these tests (a car-sharing fleet in English, a certificate desk in
Chinese). Each test is a kind of failure the blind packs of this round showed; the requests here
are made up.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from core.assistant import Assistant
from core.knowledge import load_knowledge
from core.models import Plan, Request
from core.planning import RulePlanner
from core.planning.lexicon import intent
from core.planning.names import person_names
from core.planning.text import separable_pattern
from core.planning.typed import MISSING, captured_part, explain, validate
from core.settings import BUNDLED_KNOWLEDGE, Settings
from tests.conftest import rule_planner, write_pack

TRIP_ID = "{name: trip_id, type: string, required: true, description: trip id, patterns: ['\\b(TR-\\d{4,})\\b']}"

FLEET = {
    "pack.yaml": """
        name: fleet
        description: Car-sharing fleet back office (test data)
        environments: {default: test, test: {aliases: [test]}}
    """,
    "defaults.yaml": "all: {member_id: MB-1001, zone: central}\n",
    "tools/fleet.yaml": f"""
        - tool_name: create_trip
          description: Book a new trip for a member in a zone; returns trip_id
          parameters:
            - {{name: member_id, type: string, required: true, description: member id}}
            - {{name: zone, type: string, required: true, description: zone}}
          examples:
            - {{user_query: book a trip for MB-1001 in the central zone, extracted_params: {{member_id: MB-1001}}}}
          returns: {{type: object, required: [trip_id], properties: {{trip_id: {{type: string}}}}}}
          call: {{http: {{method: POST, path: /trips}}}}
        - tool_name: start_trip
          description: Start a trip (the member unlocks the car and drives off); record the odometer
          parameters:
            - {TRIP_ID}
            - {{name: odometer_km, type: integer, description: odometer at the start, in km}}
          examples:
            - {{user_query: start trip TR-5521 at 40200 km, extracted_params: {{trip_id: TR-5521, odometer_km: 40200}}}}
          call: {{http: {{method: POST, path: /trips/start}}}}
        - tool_name: end_trip
          description: End a trip and lock the car
          parameters:
            - {TRIP_ID}
          examples:
            - {{user_query: end trip TR-5521, extracted_params: {{trip_id: TR-5521}}}}
          call: {{http: {{method: POST, path: /trips/end}}}}
        - tool_name: get_trip
          description: Show a trip with its status, member and car
          parameters:
            - {TRIP_ID}
          examples:
            - {{user_query: what is the status of TR-5521, extracted_params: {{trip_id: TR-5521}}}}
          side_effects: false
          call: {{http: {{method: GET, path: /trips}}}}
        - tool_name: mark_no_show
          description: Mark a booked trip as a no-show (the member never came)
          parameters:
            - {TRIP_ID}
          examples:
            - {{user_query: TR-5521 was a no-show, extracted_params: {{trip_id: TR-5521}}}}
          call: {{http: {{method: POST, path: /trips/no-show}}}}
    """,
    "rules/trip.yaml": """
        - rule_name: trip_lifecycle
          description: Trip lifecycle for a member - book, start (driving), end (finished)
          trigger_phrases: [trip lifecycle, full trip]
          examples:
            - {user_query: make a finished trip for MB-1001, extracted_params: {member_id: MB-1001}}
          dag_definition:
            - step_id: 1
              tool_name: create_trip
              parameter_mapping:
                member_id: {source: initial_query, value: member_id}
                zone: {source: defaults, value: zone}
              reaches_state: {name: booked}
            - step_id: 2
              tool_name: start_trip
              dependencies: [1]
              parameter_mapping: {trip_id: {source: step_output, step_id: 1, value: trip_id}}
              reaches_state: {name: driving, aliases: [started]}
            - step_id: 3
              tool_name: end_trip
              dependencies: [2]
              parameter_mapping: {trip_id: {source: step_output, step_id: 1, value: trip_id}}
              reaches_state: {name: finished, aliases: [ended]}
        - rule_name: no_show_trip
          description: A trip booked and then marked as a no-show
          trigger_phrases: [no-show trip, no show]
          dag_definition:
            - step_id: 1
              tool_name: create_trip
              parameter_mapping:
                member_id: {source: initial_query, value: member_id}
                zone: {source: defaults, value: zone}
            - step_id: 2
              tool_name: mark_no_show
              dependencies: [1]
              parameter_mapping: {trip_id: {source: step_output, step_id: 1, value: trip_id}}
    """,
}

STAFF_ID = "{name: employee_id, type: string, required: true, description: 员工工号, patterns: ['(?<![A-Za-z0-9])(E\\d{5})(?!\\d)']}"

DESK = {
    "pack.yaml": """
        name: desk
        description: 人事证明开具
        environments: {default: test, test: {aliases: [测试]}}
    """,
    "tools/desk.yaml": f"""
        - tool_name: find_staff
          description: 按姓名查员工工号
          parameters:
            - {{name: name, type: string, required: true, description: 员工姓名}}
          examples:
            - {{user_query: 查一下周杰的工号, extracted_params: {{name: 周杰}}}}
          side_effects: false
          call: {{http: {{method: GET, path: /staff}}}}
        - tool_name: income_letter
          description: 开具收入证明
          parameters:
            - {STAFF_ID}
          examples:
            - {{user_query: 给E10023开一份收入证明, extracted_params: {{employee_id: E10023}}}}
          call: {{http: {{method: POST, path: /letters/income}}}}
        - tool_name: employment_letter
          description: 开具在职证明
          parameters:
            - {STAFF_ID}
          examples:
            - {{user_query: 给E10023开在职证明, extracted_params: {{employee_id: E10023}}}}
          call: {{http: {{method: POST, path: /letters/employment}}}}
        - tool_name: resign
          description: 提交离职申请
          parameters:
            - {STAFF_ID}
          examples:
            - {{user_query: E10023 提离职, extracted_params: {{employee_id: E10023}}}}
          call: {{http: {{method: POST, path: /resignations}}}}
    """,
    "tools/leave.yaml": f"""
        - tool_name: submit_leave
          description: 提交一条假单(待审批)
          parameters:
            - {STAFF_ID}
            - {{name: leave_type, type: string, required: true, enum: [annual, sick], synonyms: {{annual: [年假], sick: [病假]}}}}
            - {{name: start_date, type: string, format: date, required: true, description: 开始日期}}
            - {{name: days, type: integer, minimum: 1, required: true, description: 天数}}
          examples:
            - {{user_query: 给E10023提交一条病假,2024-05-06开始,1天, extracted_params: {{employee_id: E10023, leave_type: sick, start_date: "2024-05-06", days: 1}}}}
          call: {{http: {{method: POST, path: /leaves}}}}
        - tool_name: approve_leave
          description: 审批假单
          parameters:
            - {{name: leave_id, type: string, required: true, description: 假单号}}
          call: {{http: {{method: POST, path: /leaves/approve}}}}
    """,
    "rules/leave.yaml": """
        rule_name: leave_request
        description: 请假:提交假单并审批通过
        trigger_phrases: [请假, 请假审批]
        dag_definition:
          - step_id: 1
            tool_name: submit_leave
            parameter_mapping:
              employee_id: {source: initial_query, value: employee_id}
              leave_type: {source: initial_query, value: leave_type}
              start_date: {source: initial_query, value: start_date}
              days: {source: initial_query, value: days}
          - step_id: 2
            tool_name: approve_leave
            dependencies: [1]
            parameter_mapping: {leave_id: {source: step_output, step_id: 1, value: leave_id}}
    """,
    "rules/visa.yaml": """
        - rule_name: visa_letters
          description: 签证材料:按姓名查工号 → 在职证明 + 收入证明
          trigger_phrases: [签证材料, 签证证明]
          dag_definition:
            - {step_id: 1, tool_name: find_staff, parameter_mapping: {name: {source: initial_query, value: name}}}
            - step_id: 2
              tool_name: employment_letter
              dependencies: [1]
              parameter_mapping: {employee_id: {source: step_output, step_id: 1, value: employee_id}}
            - step_id: 3
              tool_name: income_letter
              dependencies: [1]
              parameter_mapping: {employee_id: {source: step_output, step_id: 1, value: employee_id}}
        - rule_name: offboarding
          description: 离职:按姓名查工号 → 提交离职
          trigger_phrases: [办离职, 离职流程]
          dag_definition:
            - {step_id: 1, tool_name: find_staff, parameter_mapping: {name: {source: initial_query, value: name}}}
            - step_id: 2
              tool_name: resign
              dependencies: [1]
              parameter_mapping: {employee_id: {source: step_output, step_id: 1, value: employee_id}}
    """,
}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> RulePlanner:
    return rule_planner(tmp_path_factory.mktemp("k") / "fleet", FLEET)


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> RulePlanner:
    return rule_planner(tmp_path_factory.mktemp("k") / "desk", DESK)


def plan(planner: RulePlanner, text: str) -> Plan:
    return planner.plan(Request(text=text))


def writes(planner: RulePlanner, p: Plan) -> list[str]:
    return [s.tool_name for s in p.running() if planner.kn.tools[s.tool_name].side_effects] \
        if p.status == "planned" else []


def test_a_request_about_an_existing_thing_does_not_make_a_new_one(fleet: RulePlanner) -> None:
    """"the trip" already exists: starting it is the start tool asking which trip, never a
    lifecycle that books a fresh trip first and starts that one."""
    p = plan(fleet, "start the trip for the member, 40200 km on the clock")
    assert writes(fleet, p) == []
    assert (p.status, p.tool, p.missing) == ("needs_input", "start_trip", ["trip_id"])


def test_a_thing_to_make_is_still_made(fleet: RulePlanner) -> None:
    """The same words with "make" (or an indefinite "a trip") are a lifecycle tailored to its state."""
    p = plan(fleet, "make a started trip for MB-2002")
    assert p.status == "planned" and p.rule == "trip_lifecycle"
    assert [s.tool_name for s in p.running()] == ["create_trip", "start_trip"]


def test_a_negated_trigger_is_not_matched_without_its_negation(fleet: RulePlanner) -> None:
    """"show me trip TR-1" shares "show" and "trip" with the trigger "no-show trip": it is a look-up."""
    p = plan(fleet, "show me trip TR-7710")
    assert (p.status, p.tool) == ("planned", "get_trip"), (p.status, p.rule, p.question)
    assert p.steps[0].arguments == {"trip_id": "TR-7710"}


def test_small_talk_is_not_a_status_question(fleet: RulePlanner) -> None:
    assert plan(fleet, "hi bot, how's it going?").status == "no_match"
    p = plan(fleet, "how's TR-7710 going?")
    assert (p.status, p.tool) == ("planned", "get_trip")


def test_a_name_never_becomes_an_id_its_patterns_refuse(desk: RulePlanner) -> None:
    """employee_id's pattern captures E\\d{5}: 张伟 is not one, so the letter asks for the id (or a
    recipe finds it by name), never writes with employee_id='张伟'."""
    for text in ("给张伟开一份收入证明", "张伟提离职"):
        p = plan(desk, text)
        assert p.status in ("planned", "needs_input") and p.steps, (text, p)
        for step in p.steps:
            assert step.arguments.get("employee_id") != "张伟", (text, p)


def test_a_recipe_is_not_chosen_for_a_value_when_it_also_writes_what_nobody_asked(desk: RulePlanner) -> None:
    """"给张伟开一份收入证明" asks for one letter: the visa recipe would find 张伟 but also issue an
    employment letter. The letter tool asks for the employee id instead."""
    p = plan(desk, "给张伟开一份收入证明")
    assert writes(desk, p) == []
    assert (p.status, p.tool, p.missing) == ("needs_input", "income_letter", ["employee_id"])


def test_common_words_are_not_names(desk: RulePlanner) -> None:
    """这个季度 is "this quarter", not a person called 季度: a question about a rate is no resignation."""
    p = plan(desk, "这个季度的离职率是多少")
    assert writes(desk, p) == [], p
    assert p.status != "planned"


def test_a_name_said_as_a_name_is_one_even_when_it_is_a_word(desk: RulePlanner) -> None:
    """文静 is also an adjective; "名字叫文静" says it is a name."""
    p = plan(desk, "帮名字叫文静的同事办离职")
    assert p.rule == "offboarding" and p.steps[0].arguments == {"name": "文静"}, p


@pytest.mark.parametrize(("pattern", "part"), [
    (r"商品(?:id|ID)?\s*(?:为|是|:)?\s*(\d{3,})", r"\d{3,}"),
    (r"(?<![A-Za-z0-9])(E\d{5})(?!\d)", r"E\d{5}"),
    (r"(?i)order\s+(ORD-\d+)", r"(?i)ORD-\d+"),
    (r"INV-\d+", r"INV-\d+"),
    (r"(?P<code>[a-z]+)-(\d)", r"[a-z]+"),
    (r"[(]x([a-z])", r"[a-z]"),
    (r"((a)\2)", None),  # a back-reference inside the group: not read off, the patterns do not constrain
    (r"((?<=工号)\d{5})", None),  # a look-around cannot be checked on the value alone
    (r"(\d+(?=元))", None),
    (r"(?i:order\s+(ORD-\d+))", None),  # the group sits in a group of its own, whose flags apply
    (r"工号(E\d{5})|(\d{6})", None),  # alternatives: the value may be what either captures
    (r"(?:A|B)(\d+)", r"\d+"),
])
def test_the_captured_part_of_a_pack_pattern(pattern: str, part: str | None) -> None:
    assert captured_part(pattern) == part


def test_a_value_must_have_the_shape_its_patterns_capture(desk: RulePlanner) -> None:
    param = next(p for p in desk.kn.tools["income_letter"].parameters if p.name == "employee_id")
    assert validate("E10023", param) == "E10023"
    assert validate("张伟", param) is MISSING
    assert validate("E100234", param) is MISSING
    assert "E\\d{5}" in explain("张伟", param)  # the requester hears what an id looks like


def test_a_verb_nothing_here_knows_is_not_some_other_write(desk: RulePlanner) -> None:
    """"在职证明帮我翻译一下" asks for a translation; nothing here translates, so no letter is issued."""
    p = plan(desk, "E10023的在职证明帮我翻译一下")
    assert p.status == "no_match" and writes(desk, p) == [], p
    assert "翻译" in " ".join(p.notes)


def test_a_verb_after_a_word_of_the_pack_is_still_found(desk: RulePlanner) -> None:
    """"收入证明开一下" names 开 (open/issue, a plain "do it"); a letter for E10023 is issued."""
    p = plan(desk, "E10023 收入证明开一下")
    assert (p.status, p.tool) == ("planned", "income_letter"), p


@pytest.mark.parametrize("text", ["E10023 请三天病假,下周一开始", "E10023 请2天年假,2024-09-02开始"])
def test_a_two_character_trigger_split_by_how_much_is_still_said(desk: RulePlanner, text: str) -> None:
    """请假 split by a quantity or a measure word (请三天病假, 请个年假) still names the leave recipe."""
    p = plan(desk, text)
    assert p.rule == "leave_request", (p.status, p.rule, p.tool)
    assert [s.tool_name for s in p.running()] == ["submit_leave", "approve_leave"]


def test_given_an_existing_things_id_nothing_else_is_done_to_it_first(fleet: RulePlanner) -> None:
    """"end trip TR-5521" is ending that trip; the lifecycle (its booking dropped, as the trip exists)
    would start it again first."""
    p = plan(fleet, "end trip TR-5521, member parked")
    assert (p.status, p.tool, [s.tool_name for s in p.running()]) == ("planned", "end_trip", ["end_trip"]), p


def test_a_name_that_starts_with_a_common_word_is_still_a_name(desk: RulePlanner) -> None:
    """王国 and 何国 are words, 王国庆 and 何国华 people: the longer name is tried, and no name
    starts inside the word (never 华办)."""
    for name in ("王国庆", "何国华"):
        p = plan(desk, f"给{name}办离职")
        assert p.rule == "offboarding" and p.steps[0].arguments == {"name": name}, p


@pytest.mark.parametrize("text", ["等一下,帮我查一下E10023的在职证明开了没", "给张伟发一下收入证明"])
def test_plain_verbs_and_names_before_yixia_are_not_unknown_actions(desk: RulePlanner, text: str) -> None:
    """等一下 is filler, 发 is "send", and 伟 of 张伟 is no part of a verb: nothing here is refused for them."""
    p = plan(desk, text)
    assert not any("nothing here does" in n for n in p.notes), p.notes


def test_a_pattern_that_refuses_the_packs_own_examples_is_not_trusted(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A doubled backslash in single-quoted YAML makes `(J\\\\d+)` match a literal backslash: the pack's
    own example value J42 fails it, so the pattern does not constrain values (J42 is still taken)."""
    pack = write_pack(tmp_path / "ops", {
        "pack.yaml": "name: ops\nenvironments: {default: lab, lab: {}}\n",
        "tools/t.yaml": """
            tool_name: restart_job
            description: 重启任务
            parameters: [{name: job, type: string, required: true, patterns: ['(J\\\\d+)']}]
            examples: [{user_query: 重启任务J42, extracted_params: {job: J42}}]
            call: {http: {method: POST, path: /restart}}
        """,
    })
    planner = RulePlanner(load_knowledge([pack]), today=lambda: date(2026, 11, 26))
    assert planner.kn.tools["restart_job"].parameters[0].patterns == ["(J\\\\d+)"]
    p = plan(planner, "重启任务J43")
    assert (p.status, p.steps[0].arguments if p.steps else None) == ("planned", {"job": "J43"}), p


def test_a_word_that_only_qualifies_a_thing_the_pack_never_names_asks_for_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """"离职证明" is a certificate, "离职率" a figure, "cancellation policy" a policy: a pack that can
    submit a resignation or cancel a booking, and knows no certificate, rate or policy, must not do
    either for them. Said as the action, they still are it."""
    pack = write_pack(tmp_path / "ops", {
        "pack.yaml": "name: ops\nenvironments: {default: lab, lab: {}}\n",
        "tools/t.yaml": f"""
            - tool_name: resign
              description: 提交离职申请
              parameters: [{STAFF_ID}]
              examples: [{{user_query: E10023 提离职, extracted_params: {{employee_id: E10023}}}}]
              call: {{http: {{method: POST, path: /resignations}}}}
            - tool_name: cancel_booking
              description: Cancel a booking
              parameters: [{{name: booking_id, type: string, required: true, patterns: ['\\b(BK-\\d+)\\b']}}]
              examples: [{{user_query: cancel booking BK-12, extracted_params: {{booking_id: BK-12}}}}]
              call: {{http: {{method: POST, path: /bookings/cancel}}}}
        """,
    })
    planner = RulePlanner(load_knowledge([pack]), today=lambda: date(2026, 11, 26))
    for text in ["给E10088开一张离职证明", "这个月的离职率是多少", "what's the cancellation policy for BK-7?"]:
        p = plan(planner, text)
        assert writes(planner, p) == [] and p.status != "planned", (text, p.status, p.tool)
    assert plan(planner, "E10088 要离职了,帮他提一下").tool == "resign"
    assert plan(planner, "cancel BK-7 please").tool == "cancel_booking"


ROLES = {
    "pack.yaml": "name: roles\nenvironments: {default: lab, lab: {}}\n",
    "tools/t.yaml": """
        - tool_name: find_user_by_email
          description: Look up a workspace user by email; returns user_id
          parameters: [{name: email, type: string, format: email, required: true}]
          examples: [{user_query: who is ann@example.com, extracted_params: {email: ann@example.com}}]
          returns: {type: object, properties: {user_id: {type: string}}}
          side_effects: false
          call: {http: {method: GET, path: /users}}
        - tool_name: change_user_role
          description: Change the role of an existing workspace user
          parameters:
            - {name: user_id, type: string, required: true, patterns: ['\\b(usr_[a-z0-9]+)\\b']}
            - {name: role, type: string, required: true, description: New role, enum: [admin, member, billing_admin]}
          examples: [{user_query: make usr_b81k an admin, extracted_params: {user_id: usr_b81k, role: admin}}]
          call: {http: {method: POST, path: /users/role}}
    """,
    "rules/r.yaml": """
        rule_name: make_billing_admin
        description: Make a user (found by email) the billing admin
        trigger_phrases: [make billing admin]
        examples: [{user_query: make ann@example.com the billing admin, extracted_params: {email: ann@example.com}}]
        dag_definition:
          - {step_id: 1, tool_name: find_user_by_email, parameter_mapping: {email: {source: initial_query, value: email}}}
          - step_id: 2
            tool_name: change_user_role
            dependencies: [1]
            parameter_mapping:
              user_id: {source: step_output, step_id: 1, value: user_id}
              role: {source: constant, value: billing_admin}
    """,
}


def test_a_recipe_without_its_look_up_does_not_pick_a_value_the_request_left_open(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """"change the role of usr_1" gives the user the recipe would look up, but not the role: the
    billing-admin recipe's constant must not choose it. The role is asked for — and the user id,
    which the request did give, is not reported as a bad role."""
    planner = RulePlanner(load_knowledge([write_pack(tmp_path / "roles", ROLES)]), today=lambda: date(2026, 11, 26))
    p = plan(planner, "change the role of usr_m3p9")
    assert (p.status, p.tool, p.missing) == ("needs_input", "change_user_role", ["role"]), (p.status, p.rule, p.tool)
    assert "not allowed" not in (p.question or "")
    named = plan(planner, "make billing admin for usr_m3p9")
    assert (named.status, named.rule) == ("planned", "make_billing_admin")
    assert named.running()[0].arguments == {"user_id": "usr_m3p9", "role": "billing_admin"}


HIRES = {
    "pack.yaml": "name: hires\nenvironments: {default: lab, lab: {}}\n",
    "defaults.yaml": "all: {department: 研发中心}\n",
    "tools/t.yaml": """
        - tool_name: create_hire
          description: 办理入职:创建员工档案,返回工号 employee_id
          parameters:
            - name: department
              type: string
              required: true
              description: 入职部门,如 研发中心、产品部、市场部
              patterns: ['(?:部门|分到)\\s*(?:为|是)?\\s*([\\u4e00-\\u9fa5]{2,8}?(?:中心|部))']
          examples:
            - {user_query: 造一个新员工,分到数据中心, extracted_params: {department: 数据中心}}
            - {user_query: 新人下周一入职,帮忙办理一下, extracted_params: {}}
          returns: {type: object, properties: {employee_id: {type: string}}}
          call: {http: {method: POST, path: /hires}}
        - tool_name: list_staff
          description: 列出一个部门的在职员工(例如市场部有哪些人)
          parameters: [{name: dept, type: string, required: true}]
          side_effects: false
          call: {http: {method: GET, path: /staff}}
        - tool_name: sign_contract
          description: 签劳动合同
          parameters: [{name: employee_id, type: string, required: true}]
          call: {http: {method: POST, path: /contracts}}
    """,
    "rules/r.yaml": """
        rule_name: onboard_new_hire
        description: 新员工入职全流程:建档 → 签合同
        trigger_phrases: [办入职, 新员工入职]
        dag_definition:
          - step_id: 1
            tool_name: create_hire
            parameter_mapping: {department: {source: initial_query, value: department}}
          - step_id: 2
            tool_name: sign_contract
            dependencies: [1]
            parameter_mapping: {employee_id: {source: step_output, step_id: 1, value: employee_id}}
    """,
}


@pytest.mark.parametrize("text", ["帮忙办一下入职,部门为市场部", "办个入职,部门市场部"])
def test_a_trigger_said_with_a_bit_between_and_a_value_the_pack_lists(tmp_path, text: str) -> None:  # type: ignore[no-untyped-def]
    """办一下入职 / 办个入职 say the trigger 办入职; 市场部, which the pack's own description lists as a
    department, is the request's department (not the default), though the pack says the word."""
    planner = RulePlanner(load_knowledge([write_pack(tmp_path / "hires", HIRES)]), today=lambda: date(2026, 11, 26))
    p = plan(planner, text)
    assert (p.status, p.rule) == ("planned", "onboard_new_hire"), (p.status, p.rule, p.tool)
    assert p.steps[0].arguments["department"] == "市场部"


@pytest.mark.parametrize(("phrase", "text", "said"), [
    ("请假", "E10023 请三天病假", True), ("调薪", "给他调个薪", True),
    ("办入职", "帮忙办一下入职", True), ("办入职", "办个入职吧", True), ("提离职", "他想提一下离职", True),
    ("办入职", "办完入职", False), ("新员工入职", "新一下员工入职", False), ("请假", "请问假期", False),
    ("请假", "E1 请病假", True), ("请假", "请两天事假", True), ("请假", "请客吃饭放假", False),
])
def test_a_chinese_verb_and_its_object_said_apart(phrase: str, text: str, said: bool) -> None:
    """离合词: 请三天病假 says 请假, and so does 请病假 where 病假 is one of the knowledge's values; a
    one-character verb with 一下/个 before its object (办一下入职) says 办入职. Only a verb splits so,
    and only by how much or which kind."""
    pattern = separable_pattern(phrase, ["病假", "年假", "事假"])
    assert (pattern is not None and pattern.search(text) is not None) == said


def test_a_parameter_without_a_shape_takes_the_shape_of_the_one_its_name_ends_with(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`return_branch_id` declares nothing, `branch_id` captures BR-\\d+: a vehicle id VH-30012 is
    never the return branch ("transfer VH-30012 to branch BR-205" is not a reservation)."""
    pack = write_pack(tmp_path / "cars", {
        "pack.yaml": "name: cars\nenvironments: {default: lab, lab: {}}\n",
        "tools/t.yaml": """
            tool_name: create_reservation
            description: Book a car at a branch; it may be returned to another branch
            parameters:
              - {name: branch_id, type: string, required: true, patterns: ['\\b(BR-\\d{3,})\\b']}
              - {name: return_branch_id, type: string, description: branch the car goes back to}
            examples: [{user_query: book a car at BR-101, extracted_params: {branch_id: BR-101}}]
            call: {http: {method: POST, path: /reservations}}
        """,
    })
    planner = RulePlanner(load_knowledge([pack]), today=lambda: date(2026, 11, 26))
    returns = planner.kn.tools["create_reservation"].parameters[1]
    assert validate("BR-205", returns) == "BR-205" and validate("VH-30012", returns) is MISSING
    p = plan(planner, "transfer VH-30012 to branch BR-205")
    assert writes(planner, p) == [] and "VH-30012" not in str(p.steps), (p.status, p.steps)


@pytest.mark.parametrize("text", ["E10023 请病假,下周一到下周三", "E10023 请病假,2026-11-30 至 2026-12-02"])
def test_a_date_range_is_a_start_and_a_number_of_days(desk: RulePlanner, text: str) -> None:
    """A tool that takes a start date and days (no end date): the range said gives both, the end
    day counted — and the end date is not left over as something the request says and nobody takes."""
    p = plan(desk, text)
    assert p.status == "planned" and p.steps[0].tool_name == "submit_leave", (p.status, p.question)
    assert {k: p.steps[0].arguments[k] for k in ("start_date", "days")} == {"start_date": "2026-11-30", "days": 3}


def test_a_word_of_the_recipes_own_trigger_does_not_name_a_state(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """"trial to paid" is the recipe's trigger; its "trial" is not the state "trialing" (which would
    stop the recipe before the conversion). "leave it trialing" still is."""
    pack = write_pack(tmp_path / "subs", {
        "pack.yaml": "name: subs\nenvironments: {default: lab, lab: {}}\n",
        "tools/t.yaml": """
            - tool_name: start_trial
              description: Start a trial for an org
              parameters: [{name: org_id, type: string, required: true, patterns: ['\\b(org_[a-z0-9]+)\\b']}]
              call: {http: {method: POST, path: /trials}}
            - tool_name: change_plan
              description: Move an org to a paid plan
              parameters:
                - {name: org_id, type: string, required: true, patterns: ['\\b(org_[a-z0-9]+)\\b']}
                - {name: plan, type: string, required: true, enum: [pro, business]}
              call: {http: {method: POST, path: /plans}}
        """,
        "rules/r.yaml": """
            rule_name: trial_conversion
            description: Start a trial, then convert it to a paid plan
            trigger_phrases: [trial to paid, convert trial]
            dag_definition:
              - step_id: 1
                tool_name: start_trial
                parameter_mapping: {org_id: {source: initial_query, value: org_id}}
                reaches_state: {name: trialing}
              - step_id: 2
                tool_name: change_plan
                dependencies: [1]
                parameter_mapping:
                  org_id: {source: initial_query, value: org_id}
                  plan: {source: initial_query, value: plan}
                reaches_state: {name: converted}
        """,
    })
    planner = RulePlanner(load_knowledge([pack]), today=lambda: date(2026, 11, 26))
    p = plan(planner, "trial to paid for org_91zz on business")
    assert (p.status, p.rule, [s.tool_name for s in p.running()]) == (
        "planned", "trial_conversion", ["start_trial", "change_plan"])
    asks = plan(planner, "trial to paid for org_91zz")
    assert (asks.status, asks.missing) == ("needs_input", ["plan"])
    stays = plan(planner, "convert trial for org_91zz but leave it trialing")
    assert [s.tool_name for s in stays.running()] == ["start_trial"]


def test_a_bare_number_is_an_id_only_where_the_knowledge_has_such_ids(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """"涨薪到18000": no parameter here takes bare-digit ids, so 18000 is the new salary (not an id
    said and left unused). Where a pack's ids are bare digits (商品123456) the run is both."""
    pack = write_pack(tmp_path / "pay", {
        "pack.yaml": "name: pay\nenvironments: {default: lab, lab: {}}\n",
        "tools/t.yaml": f"""
            - tool_name: raise_salary
              description: 提交调薪申请
              parameters:
                - {STAFF_ID}
                - {{name: new_base, type: integer, required: true, description: 调整后月薪}}
              examples: [{{user_query: E10023 月薪调到25000, extracted_params: {{employee_id: E10023, new_base: 25000}}}}]
              call: {{http: {{method: POST, path: /raises}}}}
            - tool_name: get_item
              description: 查商品
              parameters: [{{name: item_id, type: string, required: true}}]
              examples: [{{user_query: 查一下商品123456, extracted_params: {{item_id: "123456"}}}}]
              side_effects: false
              call: {{http: {{method: GET, path: /items}}}}
        """,
    })
    planner = RulePlanner(load_knowledge([pack]), today=lambda: date(2026, 11, 26))
    p = plan(planner, "E10023 涨薪到18000,走流程")
    assert (p.status, p.tool, p.steps[0].arguments) == (
        "planned", "raise_salary", {"employee_id": "E10023", "new_base": 18000}), (p.status, p.question)
    assert [s.kind for s in planner.voc.spans("商品654321", date(2026, 11, 26))] == ["number", "id"]
    assert [s.kind for s in planner.voc.spans("涨到18000", date(2026, 11, 26))] == ["number"]


def test_a_verb_after_a_name_is_not_part_of_it_and_adding_is_a_change() -> None:
    """给刘洋弄一条婚假: the name is 刘洋 (弄 is "make"); "余额…补4个小时" adds to a balance — a
    change, not a question about the balance."""
    assert [n for n, _, _ in person_names("给刘洋弄一条婚假", lambda w: False)] == ["刘洋"]
    assert intent("E100235 调休余额手工补4个小时进去") >= 0
    assert intent("E100235 调休余额还剩多少") < 0


@pytest.mark.parametrize("text", ["把周杰的工号改成E20001", "周杰的工号帮我更新一下", "把周杰的工号清零"])
def test_a_request_for_a_change_is_not_answered_by_a_read(desk: RulePlanner, text: str) -> None:
    """Nothing here changes a staff id: looking the id up is not doing what was asked. The planner
    says so (or offers the changes it can make), and never writes."""
    p = plan(desk, text)
    assert p.status != "planned", (p.status, p.tool)
    assert plan(desk, "查一下周杰的工号").tool == "find_staff"


def test_a_verb_nothing_knows_is_no_write_even_where_the_values_fit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """约, 退, 撤 are no words of this pack: "帮陈静退一下今年的体检,高级套餐" names two values of the
    benefit tool, but the verb could undo as well as book, so nothing is written. The name before
    the verb is 陈静 (a character before 一下 is a verb)."""
    pack = write_pack(tmp_path / "perks", {
        "pack.yaml": "name: perks\nenvironments: {default: lab, lab: {}}\n",
        "tools/t.yaml": """
            tool_name: apply_benefit
            description: 提交福利申请
            parameters:
              - {name: name, type: string, required: true, description: 员工姓名}
              - {name: benefit_type, type: string, required: true, enum: [health_check, meal], synonyms: {health_check: [体检], meal: [餐补]}}
              - {name: package, type: string, enum: [basic, premium], synonyms: {basic: [基础套餐], premium: [高级套餐]}}
            examples: [{user_query: 给张伟申请餐补, extracted_params: {name: 张伟, benefit_type: meal}}]
            call: {http: {method: POST, path: /benefits}}
        """,
    })
    planner = RulePlanner(load_knowledge([pack]), today=lambda: date(2026, 11, 26))
    for text in ["帮陈静约一下今年的体检,要高级套餐", "帮陈静退一下今年的体检,高级套餐", "陈静的体检撤一下,高级套餐"]:
        p = plan(planner, text)
        assert p.status != "planned" and writes(planner, p) == [], (text, p.status, p.tool)
    assert [n for n, _, _ in person_names("帮陈静退一下今年的体检", lambda w: False)] == ["陈静"]
    assert plan(planner, "给陈静申请体检,高级套餐").tool == "apply_benefit"


BILLING = {
    "pack.yaml": "name: billing\nenvironments: {default: staging, staging: {}, production: {aliases: [prod]}}\n",
    "tools/t.yaml": """
        - tool_name: get_org
          description: Show an org
          parameters: [{name: org_id, type: string, required: true, patterns: ['\\b(org_[a-z0-9]+)\\b']}]
          returns: {type: object, properties: {status: {type: string, enum: [trialing, active, past_due]}}}
          side_effects: false
          call: {http: {method: GET, path: /orgs}}
        - tool_name: change_plan
          description: Move an org to another plan
          parameters:
            - {name: org_id, type: string, required: true, patterns: ['\\b(org_[a-z0-9]+)\\b']}
            - {name: plan, type: string, required: true, enum: [pro, business]}
          call: {http: {method: POST, path: /plans}}
        - tool_name: refund_invoice
          description: Refund a paid invoice, fully or partially
          parameters:
            - {name: invoice_id, type: string, required: true, patterns: ['\\b(inv_[a-z0-9]+)\\b']}
            - {name: amount, type: number, description: amount to refund}
            - {name: reason, type: string, enum: [service_outage, duplicate], synonyms: {service_outage: [outage]}}
          examples:
            - {user_query: partial refund of $20 on inv_77aa, extracted_params: {invoice_id: inv_77aa, amount: 20}}
          call: {http: {method: POST, path: /refunds}}
    """,
}


def test_a_date_said_as_the_reason_is_not_a_value_left_unused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """"bc of the outage tuesday" says why: the refund is planned, not held back for "tuesday". A
    date in the request proper still is ("cancel my 3pm …" asks)."""
    planner = RulePlanner(load_knowledge([write_pack(tmp_path / "billing", BILLING)]), today=lambda: date(2026, 11, 26))
    p = plan(planner, "partial refund of $40 on inv_8a2f91 bc of the outage tuesday")
    assert (p.status, p.tool, p.steps[0].arguments) == (
        "planned", "refund_invoice", {"invoice_id": "inv_8a2f91", "amount": 40, "reason": "service_outage"}), p.notes
    held = plan(planner, "refund $40 on inv_8a2f91 on tuesday")
    assert held.status != "planned"


def test_a_word_of_the_pack_with_a_digit_in_it_is_not_an_id(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """"soc2" is how the pack itself names the evidence: a request saying it has not stated an id the
    export would leave unused. An id of the same make the pack never writes (soc9) still is one."""
    pack = write_pack(tmp_path / "audit", {
        "pack.yaml": "name: audit\nenvironments: {default: lab, lab: {}}\n",
        "tools/t.yaml": """
            tool_name: export_audit_log
            description: Export an org's audit log as evidence for a compliance review (soc2, iso 27001)
            parameters: [{name: org_id, type: string, required: true, patterns: ['\\b(org_[a-z0-9]+)\\b']}]
            examples: [{user_query: export the audit log of org_12ab, extracted_params: {org_id: org_12ab}}]
            call: {http: {method: POST, path: /exports}}
        """,
    })
    planner = RulePlanner(load_knowledge([pack]), today=lambda: date(2026, 11, 26))
    kinds = {s.text: s.kind for s in planner.voc.spans("org_q7 needs soc2 evidence, soc9 too", date(2026, 11, 26))}
    assert kinds == {"org_q7": "id", "soc9": "id"}
    p = plan(planner, "export the audit log of org_q7mx, customer needs soc2 evidence")
    assert (p.status, p.tool) == ("planned", "export_audit_log"), (p.status, p.notes)


def test_a_quantity_only_an_unrelated_weak_candidate_could_take_is_still_context(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """"they were down 3h" says why: an unrelated key tool could read 3 as its expiry days, but it is
    no plausible answer, so the credit recipe asks for its amount instead of asking "which one"."""
    pack = write_pack(tmp_path / "credits", {
        "pack.yaml": "name: credits\nenvironments: {default: lab, lab: {}}\n",
        "tools/t.yaml": """
            - tool_name: find_org_by_email
              description: Find an org by its owner's email
              parameters: [{name: email, type: string, format: email, required: true}]
              returns: {type: object, properties: {org_id: {type: string}}}
              side_effects: false
              call: {http: {method: GET, path: /orgs}}
            - tool_name: add_credit
              description: Add account credit to an org
              parameters:
                - {name: org_id, type: string, required: true, patterns: ['\\b(org_[a-z0-9]+)\\b']}
                - {name: amount, type: number, required: true, description: credit amount in USD}
              call: {http: {method: POST, path: /credits}}
            - tool_name: create_api_key
              description: Create an api key for an owner
              parameters:
                - {name: owner_email, type: string, format: email, required: true}
                - {name: expires_in_days, type: integer, description: days until the key expires}
              examples: [{user_query: api key for bo@x.io valid 30 days, extracted_params: {owner_email: bo@x.io, expires_in_days: 30}}]
              call: {http: {method: POST, path: /keys}}
        """,
        "rules/r.yaml": """
            rule_name: goodwill_credit
            description: Goodwill credit for an unhappy customer found by owner email
            trigger_phrases: [goodwill credit]
            dag_definition:
              - {step_id: 1, tool_name: find_org_by_email, parameter_mapping: {email: {source: initial_query, value: email}}}
              - step_id: 2
                tool_name: add_credit
                dependencies: [1]
                parameter_mapping:
                  org_id: {source: step_output, step_id: 1, value: org_id}
                  amount: {source: initial_query, value: amount}
        """,
    })
    planner = RulePlanner(load_knowledge([pack]), today=lambda: date(2026, 11, 26))
    p = plan(planner, "goodwill credit for alice@acme.io, they were down 3h")
    assert (p.status, p.rule, p.missing) == ("needs_input", "goodwill_credit", ["amount"]), (p.status, p.notes)


def test_a_write_about_a_thing_nothing_here_takes_is_no_match(fleet: RulePlanner) -> None:
    """The fleet's member ids look like MB-1001: INV-2024-0031 is another kind of id, never a member
    to book a trip for, and with nothing here taking it the request is about something this pack
    does not hold (no_match), not a question of which write. A second thing beside one the write
    takes ("end trip TR-5521 and INV-…") is still asked about."""
    for text in ["start invoice INV-2024-0031", "mark INV-2024-0031 as a no-show", "cancel invoice INV-2024-0031"]:
        p = plan(fleet, text)
        assert p.status == "no_match" and writes(fleet, p) == [], (text, p.status, p.rule, p.notes)
    assert plan(fleet, "make a finished trip for MB-2002").rule == "trip_lifecycle"
    both = plan(fleet, "end trip TR-5521 and INV-2024-0031")
    assert both.status == "needs_input" and writes(fleet, both) == [], (both.status, both.notes)


def test_a_word_made_of_characters_the_pack_knows_one_by_one_is_still_unknown() -> None:
    """The shop knows 发 (发货) and 票 as characters, never the word 发票: "reissue the invoice of order
    O1" is not paying the order, nor a question whether to pay, cancel or refuse a refund — nothing
    here knows invoices. Words the shop does say keep working."""
    planner = RulePlanner(load_knowledge([BUNDLED_KNOWLEDGE / "shop"]), today=lambda: date(2026, 11, 26))
    p = plan(planner, "把订单O100000001的发票重开一下")
    assert writes(planner, p) == [] and p.status != "planned", (p.status, p.tool)
    tokens = planner.voc.lexicon.request_tokens("订单发票重开")
    assert "发" not in tokens and "票" not in tokens and "订单" in tokens
    assert [s.tool_name for s in plan(planner, "帮我把订单O100000001取消一下").running()] == ["cancel_order"]


def test_a_weak_write_for_a_request_about_something_unknown_is_no_match(tmp_path: Path) -> None:
    """As deployed (with the retrieval index): asked to reissue an order's invoice, the shop — which
    knows no invoices — says it cannot, rather than asking whether to pay, cancel or refuse a refund;
    asked to delist an item, it places no order for it."""
    assistant = Assistant.from_settings(Settings(home=tmp_path, knowledge=[BUNDLED_KNOWLEDGE / "shop"], planner="rules"))
    try:
        p = assistant.plan(Request(text="把订单O100000001的发票重开一下"))
        assert p.status == "no_match" and not p.choices and not p.steps, (p.status, p.choices)
        assert [s.tool_name for s in assistant.plan(Request(text="帮我把订单O100000001取消一下")).running()] \
            == ["cancel_order"]
        # "take item 123456 off sale": nothing here does; its 下 is 下单's and its 架 上架's. The recipe that
        # knows 架 is a rival though retrieval ranks it low, so no order is placed for the item
        delist = assistant.plan(Request(text="把商品123456下架"))
        assert delist.status != "planned", (delist.status, delist.rule, delist.tool)
    finally:
        assistant.close()


LEAVE = {
    "pack.yaml": "name: leave\nenvironments: {default: lab, lab: {}}\n",
    "tools/t.yaml": f"""
        - tool_name: submit_leave
          description: 提交假单 (submit time off)
          parameters:
            - {STAFF_ID}
            - {{name: start_date, type: string, format: date, required: true, description: 开始日期}}
            - {{name: days, type: integer, minimum: 1, required: true, description: 天数}}
          examples: [{{user_query: E10023 从2024-05-06开始请2天假, extracted_params: {{employee_id: E10023, start_date: "2024-05-06", days: 2}}}}]
          call: {{http: {{method: POST, path: /leaves}}}}
        - tool_name: move_leave
          description: 把假单改到新的开始日期 (move time off)
          parameters:
            - {{name: leave_id, type: string, required: true, patterns: ['\\b(LV-\\d+)\\b']}}
            - {{name: new_start_date, type: string, format: date, required: true}}
            - {{name: days, type: integer, minimum: 1, required: true, description: 天数}}
          call: {{http: {{method: POST, path: /leaves/move}}}}
        - tool_name: schedule_maintenance
          description: Schedule maintenance for an org
          parameters:
            - {{name: org_id, type: string, required: true, patterns: ['\\b(org_[a-z0-9]+)\\b']}}
            - {{name: start_date, type: string, format: date, required: true}}
            - {{name: notice_days, type: integer, required: true, description: days of notice to give}}
          call: {{http: {{method: POST, path: /maintenance}}}}
        - tool_name: add_credit
          description: 给账户加余额 (add credit)
          parameters:
            - {{name: org_id, type: string, required: true, patterns: ['\\b(org_[a-z0-9]+)\\b']}}
            - {{name: amount, type: number, required: true, description: 金额}}
          call: {{http: {{method: POST, path: /credits}}}}
        - tool_name: approve_leave
          description: 审批假单:批了
          parameters: [{{name: leave_id, type: string, required: true, patterns: ['\\b(LV-\\d+)\\b']}}]
          call: {{http: {{method: POST, path: /leaves/approve}}}}
        - tool_name: get_allowance
          description: 查员工的补贴明细和扣款记录
          parameters: [{STAFF_ID}]
          side_effects: false
          call: {{http: {{method: GET, path: /allowances}}}}
    """,
}


@pytest.mark.parametrize("text", [
    "E10023 请假,周五到下周一",  # a weekend inside: working days or calendar days?
    "把LV-1001改到下周一到下周三",  # a move: the new dates, not a count to guess
    "schedule maintenance for org_q7 from Monday to Wednesday",  # notice_days is no count of those days
])
def test_a_date_range_gives_no_count_where_the_count_is_not_plain(tmp_path, text: str) -> None:  # type: ignore[no-untyped-def]
    planner = RulePlanner(load_knowledge([write_pack(tmp_path / "leave", LEAVE)]), today=lambda: date(2026, 11, 26))
    p = plan(planner, text)
    assert not any(s.arguments.get(k) is not None for s in p.steps for k in ("days", "notice_days")) \
        or p.status != "planned", (text, p.status, [s.arguments for s in p.steps])
    assert writes(planner, p) == [], (text, p.status)


@pytest.mark.parametrize("text", ["给org_q7加余额,工单123456", "给org_q7加余额, 订单号 20261126001", "add credit to org_q7, see #4411"])
def test_the_number_of_something_else_is_never_the_amount(tmp_path, text: str) -> None:  # type: ignore[no-untyped-def]
    planner = RulePlanner(load_knowledge([write_pack(tmp_path / "leave", LEAVE)]), today=lambda: date(2026, 11, 26))
    p = plan(planner, text)
    assert writes(planner, p) == [] and not any("amount" in s.arguments for s in p.steps), (text, p.status)
    assert plan(planner, "给org_q7加余额到500").steps[0].arguments == {"org_id": "org_q7", "amount": 500}


def test_a_question_never_runs_the_write_it_names_and_a_reads_nouns_ask_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """"LV-1001批了没" asks whether it was approved; "E10023的补贴明细" reads (补 of 补贴 is no change)."""
    planner = RulePlanner(load_knowledge([write_pack(tmp_path / "leave", LEAVE)]), today=lambda: date(2026, 11, 26))
    asked = plan(planner, "LV-1001批了没")
    assert writes(planner, asked) == [], (asked.status, asked.tool)
    for text in ["查一下E10023的补贴明细", "E10023上个月的扣款记录"]:
        p = plan(planner, text)
        assert (p.status, p.tool) == ("planned", "get_allowance"), (text, p.status, p.notes)


def test_a_shape_is_taken_only_from_a_kin_of_several_words(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """coupon_code does not take the six digits of some other tool's `code`; new_name not a name's shape."""
    pack = write_pack(tmp_path / "codes", {
        "pack.yaml": "name: codes\nenvironments: {default: lab, lab: {}}\n",
        "tools/t.yaml": """
            - tool_name: verify
              description: Verify a login code
              parameters: [{name: code, type: string, required: true, patterns: ['\\b(\\d{6})\\b']}]
              call: {http: {method: POST, path: /verify}}
            - tool_name: apply_coupon
              description: Apply a coupon to an order
              parameters:
                - {name: coupon_code, type: string, required: true}
                - {name: order_id, type: string, required: true, patterns: ['\\b(ORD-\\d+)\\b']}
              call: {http: {method: POST, path: /coupons}}
        """,
    })
    planner = RulePlanner(load_knowledge([pack]), today=lambda: date(2026, 11, 26))
    coupon = planner.kn.tools["apply_coupon"].parameters[0]
    assert validate("SAVE20", coupon) == "SAVE20"
