"""Everyday idioms and polite requests on a pack that never uses them (core/planning/idioms.py).

The pack below says "add", "remove", "approve" and "status"; people say "pop ... into", "kick ...
out of", "sign off", "any update on", "踢出". An idiom is read as the plain words it may mean
that the knowledge knows — and never lets a write through that the knowledge does not know.
"""

from __future__ import annotations

from datetime import date

import pytest

from core.knowledge import Knowledge, load_knowledge
from core.models import Request
from core.planning import RulePlanner
from core.planning.choice import Candidate, decide, score
from core.planning.extraction import Assignment, Found
from core.planning.idioms import idiom_hits, plain
from core.planning.lexicon import is_question
from tests.conftest import write_pack

TEAMS = {
    "pack.yaml": """
        name: teams
        description: 团队与权限申请的测试数据 (team membership and access requests)
        environments: {default: dev, dev: {aliases: [开发环境]}}
    """,
    "tools/members.yaml": """
        - tool_name: add_member
          description: Add a user to a team. 把用户加入团队。
          parameters:
            - {name: user_id, type: string, required: true, description: user id, patterns: ['(?<![A-Za-z0-9])(U\\d{4})(?![0-9])']}
            - {name: team, type: string, required: true, description: team slug, patterns: ['(?<![A-Za-z0-9])(team-[a-z]+)']}
          examples:
            - {user_query: add U1001 to team-data, extracted_params: {user_id: U1001, team: team-data}}
            - {user_query: 把U1002加入team-web, extracted_params: {user_id: U1002, team: team-web}}
          call: {http: {method: POST, path: /members}}
        - tool_name: remove_member
          description: Remove a user from a team. 把用户移除出团队。
          parameters:
            - {name: user_id, type: string, required: true, description: user id, patterns: ['(?<![A-Za-z0-9])(U\\d{4})(?![0-9])']}
            - {name: team, type: string, required: true, description: team slug, patterns: ['(?<![A-Za-z0-9])(team-[a-z]+)']}
          examples:
            - {user_query: remove U1001 from team-data, extracted_params: {user_id: U1001, team: team-data}}
            - {user_query: 把U1002移除team-web, extracted_params: {user_id: U1002, team: team-web}}
          call: {http: {method: DELETE, path: /members}}
    """,
    "tools/requests.yaml": """
        - tool_name: approve_request
          description: Approve an access request.
          parameters:
            - {name: request_id, type: string, required: true, description: access request id, patterns: ['\\b(AR-\\d{4})\\b']}
          examples:
            - {user_query: approve AR-1001, extracted_params: {request_id: AR-1001}}
          call: {http: {method: POST, path: /approvals}}
        - tool_name: get_request
          description: The status of an access request.
          parameters:
            - {name: request_id, type: string, required: true, description: access request id, patterns: ['\\b(AR-\\d{4})\\b']}
          examples:
            - {user_query: status of AR-1001, extracted_params: {request_id: AR-1001}}
          side_effects: false
          call: {http: {method: GET, path: /requests}}
        - tool_name: open_request
          description: Open an access request for a user to a team; returns request_id (AR-NNNN).
          parameters:
            - {name: user_id, type: string, required: true, description: user id, patterns: ['(?<![A-Za-z0-9])(U\\d{4})(?![0-9])']}
            - {name: team, type: string, required: true, description: team slug, patterns: ['(?<![A-Za-z0-9])(team-[a-z]+)']}
          examples:
            - {user_query: open an access request for U1001 to team-data, extracted_params: {user_id: U1001, team: team-data}}
          call: {http: {method: POST, path: /requests}}
    """,
    "rules/onboard.yaml": """
        rule_name: team_onboarding
        description: Bring a user into a team and open their first access request.
        trigger_phrases: [onboard user to team]
        dag_definition:
          - step_id: 1
            tool_name: add_member
            parameter_mapping: {user_id: {source: initial_query, value: user_id}, team: {source: initial_query, value: team}}
          - step_id: 2
            tool_name: open_request
            dependencies: [1]
            parameter_mapping: {user_id: {source: initial_query, value: user_id}, team: {source: initial_query, value: team}}
    """,
    "rules/access.yaml": """
        rule_name: granted_access_request
        description: An access request opened and approved.
        trigger_phrases: [granted access request]
        examples:
          - {user_query: make an approved access request for U1001 to team-data, extracted_params: {user_id: U1001, team: team-data}}
        dag_definition:
          - step_id: 1
            tool_name: open_request
            parameter_mapping: {user_id: {source: initial_query, value: user_id}, team: {source: initial_query, value: team}}
          - step_id: 2
            tool_name: approve_request
            dependencies: [1]
            parameter_mapping: {request_id: {source: step_output, step_id: 1, value: request_id}}
    """,
}


@pytest.fixture(scope="module")
def teams(tmp_path_factory: pytest.TempPathFactory) -> Knowledge:
    return load_knowledge([write_pack(tmp_path_factory.mktemp("k") / "teams", TEAMS)])


@pytest.fixture(scope="module")
def planner(teams: Knowledge) -> RulePlanner:
    return RulePlanner(teams, today=lambda: date(2026, 11, 23))


def test_an_idiom_is_found_around_its_object() -> None:
    hits = idiom_hits("kick U1001 out of team-data")
    assert [(h.means[0], h.parts) for h in hits] == [("remove", ((0, 4), (11, 14)))]
    assert plain("sign off AR-1001").split() == ["approve", "AR-1001"]
    assert plain("any update on AR-1001?").split() == ["status", "AR-1001?"]
    assert plain("把U1001踢出team-data") == "把U1001移除team-data"
    assert plain("move org_5kq2 to ent").split() == ["change", "org_5kq2", "ent"]  # a plan, a team, a tier
    assert plain("put acct_12 on hold").split()[:2] == ["suspend", "acct_12"]
    assert plain("ann@x.io should drop down to silver").split()[:3] == ["ann@x.io", "should", "downgrade"]  # not "drop"
    assert plain("hi bot, how's it going?") == "hi bot, how's it going?"  # small talk, no status question
    assert plain("hi, how is it going?") == "hi, how is it going?"


@pytest.mark.parametrize(("text", "tool", "args"), [
    ("kick U1001 out of team-data", "remove_member", {"user_id": "U1001", "team": "team-data"}),
    ("pop U1001 into team-web", "add_member", {"user_id": "U1001", "team": "team-web"}),
    ("把U1001踢出team-data", "remove_member", {"user_id": "U1001", "team": "team-data"}),
    ("sign off AR-1001", "approve_request", {"request_id": "AR-1001"}),
    ("any update on AR-1001?", "get_request", {"request_id": "AR-1001"}),
])
def test_an_idiom_is_read_as_the_plain_words_the_pack_uses(planner: RulePlanner, text: str, tool: str,
                                                           args: dict[str, str]) -> None:
    p = planner.plan(Request(text=text))
    assert (p.status, [s.tool_name for s in p.steps]) == ("planned", [tool])
    assert p.steps[0].arguments == args


def test_an_idiom_for_a_change_the_pack_does_not_know_is_never_another_write(planner: RulePlanner,
                                                                             teams: Knowledge) -> None:
    """"call off" means cancel: nothing here cancels, so it is not approving or removing anything."""
    p = planner.plan(Request(text="call off AR-1001"))
    assert not (p.status == "planned" and any(teams.tools[s.tool_name].side_effects for s in p.steps))


def test_a_polite_request_is_a_request_not_a_question(planner: RulePlanner) -> None:
    assert not is_question("can someone add U1001 to team-data?")
    assert not is_question("能不能帮我把U1001加入team-web吗")
    assert is_question("is U1001 in team-data?")
    p = planner.plan(Request(text="could you add U1001 to team-data?"))
    assert (p.status, p.tool) == ("planned", "add_member")


def test_a_request_that_only_asks_to_see_something_is_never_a_write(planner: RulePlanner, teams: Knowledge) -> None:
    """"look up an access request for me" shares every word with the tools that make one; it asks
    to see one: the look-up answers it (and asks which request), never a write — and a write the
    request's words oppose is no close rival to ask about."""
    p = planner.plan(Request(text="look up an access request for me"))
    assert (p.status, p.tool, p.missing, p.choices) == ("needs_input", "get_request", ["request_id"], [])


def test_the_best_plausible_read_answers_a_look_up_over_a_higher_write() -> None:
    """Scores alone put the write first; the request's words only read, and nothing names the write."""
    write = Candidate("rule", "make_and_approve", True, cov=1.0, core=1.0, rank=1.0, fill=1.0, intent=-1.0, lex=0.6)
    read = Candidate("tool", "get_request", False, cov=1.0, rank=0.5, fill=0.5, intent=1.0, lex=0.5)
    assert score(write) > score(read) >= -1.0
    decision = decide([write, read], {"make_and_approve": set()})
    assert decision.best is read
    named = Candidate("rule", "make_and_approve", True, cov=1.0, core=1.0, rank=1.0, fill=1.0, intent=-1.0, trigger=1.0)
    assert decide([named, read], {"make_and_approve": set()}).best is named  # its trigger names it: a write asked for


def test_a_trigger_said_with_a_value_for_its_noun_names_the_rule(planner: RulePlanner) -> None:
    """"onboard user to team" said as "onboard U1001 to team-data": the user id stands for "user"."""
    p = planner.plan(Request(text="onboard U1001 to team-data"))
    assert (p.status, p.rule) == ("planned", "team_onboarding")
    assert p.steps[0].arguments == {"user_id": "U1001", "team": "team-data"}
    assert planner.voc.word_trigger({"onboard", "team"}, {"user", "id"}, "team_onboarding")
    assert not planner.voc.word_trigger({"user"}, {"team"}, "team_onboarding")  # its verb is not said


def test_a_state_word_of_a_rule_that_explains_little_is_the_verb_not_a_target() -> None:
    """"open a ticket": "open" is also a state of the invoice recipe, which explains nothing else."""
    ticket = Candidate("tool", "create_ticket", True, cov=0.6)
    invoice = Candidate("rule", "invoice_lifecycle", True, cov=0.15, state=1.0)
    RulePlanner._unreached([ticket, invoice], {"invoice_lifecycle"})
    assert ticket.unreached == 0.0
    invoice.cov = 0.8
    RulePlanner._unreached([ticket, invoice], {"invoice_lifecycle"})
    assert (ticket.unreached, invoice.unreached) == (1.0, 0.0)


def test_a_request_for_a_change_is_not_answered_by_a_close_read_its_words_oppose() -> None:
    """"帮我建个患者档案": the look-up scores a little higher on shared words; the request makes one."""
    read = Candidate("tool", "get_record", False, cov=0.63, core=0.5, rank=1.0, fill=0.5, intent=-1.0, mass=1.0, lex=0.3)
    make = Candidate("tool", "create_record", True, cov=0.75, core=0.68, rank=0.5, fill=0.34, intent=1.0, mass=1.0,
                     lex=0.2, fit=1.0)
    assert score(read) > score(make) > score(read) - 0.5
    decision = decide([read, make], {})
    assert (decision.verdict, decision.best) == ("plan", make)


def test_a_recipe_that_takes_every_stated_value_beats_its_close_tool_that_would_ask() -> None:
    """The balance tool needs an employee id; its recipe finds the employee by the name the request gives."""
    name = Found("欧阳晨", 4, 7, "name", 1.7)
    tool = Candidate("tool", "get_balance", False, cov=0.62, core=0.53, rank=0.5, fill=0.5, mass=1.0, lex=0.36,
                     assignment=Assignment({}, {}))
    rule = Candidate("rule", "balance_by_name", False, cov=0.7, core=0.15, rank=0.33, fill=1.0, mass=1.0, lex=0.16,
                     fit=1.0, assignment=Assignment({"name": name}, {}))
    assert score(tool) > score(rule) > score(tool) - 0.5
    assert decide([tool, rule], {"balance_by_name": {"find_employee", "get_balance"}}).best is rule


def test_an_enum_value_written_as_an_identifier_is_found_as_words() -> None:
    from core.planning.vocabulary import _word_forms

    (form,) = _word_forms("bank_transfer")  # ("transfer" is also a verb of change: no plural form)
    assert form.search("they'll pay by bank transfer") and form.search("Bank-Transfer")
    assert not form.search("banktransfer")
    # an English noun is found in the plural too ("two credit cards", "list the vans")
    _, plural = _word_forms("credit_card")
    assert plural.search("two credit cards") and [f.pattern for f in _word_forms("van")] == [
        r"(?<![A-Za-z0-9])van(?:s|es)(?![A-Za-z0-9])"]
    assert _word_forms("status") == [] and _word_forms("approve") == [] and _word_forms("月结") == []


QUOTA = {
    "pack.yaml": "name: quota\ndescription: storage quotas\nenvironments: {default: dev, dev: {}}\n",
    "tools/quota.yaml": """
        tool_name: raise_quota
        description: 提高团队的存储配额 (raise a team's storage quota)
        parameters:
          - {name: team, type: string, required: true, description: team slug, patterns: ['(?<![A-Za-z0-9])(team-[a-z]+)']}
          - {name: new_limit_gb, type: number, required: true, description: 新的配额上限, minimum: 1}
        examples:
          - {user_query: 给team-data提高配额到200GB, extracted_params: {team: team-data, new_limit_gb: 200}}
        call: {http: {method: POST, path: /quota}}
    """,
}


@pytest.mark.parametrize(("text", "limit"), [("给team-web提高配额到五百", 500), ("raise the quota of team-web to 300", 300)])
def test_the_one_plain_number_fills_the_one_number_still_missing(tmp_path, text: str, limit: int) -> None:  # type: ignore[no-untyped-def]
    kn = load_knowledge([write_pack(tmp_path / "quota", QUOTA)])
    p = RulePlanner(kn).plan(Request(text=text))
    assert (p.status, p.steps[0].arguments) == ("planned", {"team": "team-web", "new_limit_gb": limit})


def test_a_number_that_is_also_an_id_or_a_second_number_is_not_guessed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    kn = load_knowledge([write_pack(tmp_path / "quota", QUOTA)])
    for text in ("raise the quota of team-web to 300 or 400", "raise the quota of team-web, ticket 123456"):
        p = RulePlanner(kn).plan(Request(text=text))
        assert p.status != "planned" and not any("new_limit_gb" in s.arguments for s in p.steps), text
