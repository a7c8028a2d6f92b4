"""Choosing on weak evidence: values that speak for a write, and a rival that explains less.

End-to-end cases run on two blind packs kept in this repository (benchmarks/generality/zhaopin, a
Chinese recruiting desk, and rentals, an English car-rental desk), through the assistant's real
retrieval; the decision rules themselves are also checked on hand-made candidates.
"""

from __future__ import annotations

from pathlib import Path

from core.assistant import Assistant
from core.models import Request
from core.planning.choice import ASK_MIN, WRITE_MIN, Candidate, decide, score
from core.planning.extraction import Assignment, Found
from core.planning.names import person_names
from tests.conftest import args_of as args
from tests.conftest import plan_of as plan

# --- a write below the bar whose stated values speak for it -----------------------------------------

def test_a_long_paraphrase_of_a_recipe_with_its_values_is_planned(zhaopin: Assistant) -> None:
    """No example is near this wording, but name, phone and salary are all the pipeline's inputs."""
    p = plan(zhaopin, "给我弄一条数据：一个人从投简历一路走到正式入职，姓名郑爽，手机13366665555，offer月薪22000")
    assert (p.status, p.rule) == ("planned", "recruit_pipeline")
    assert {k: args(p, "create_candidate")[k] for k in ("name", "phone")} == {"name": "郑爽", "phone": "13366665555"}
    assert args(p, "issue_offer")["salary"] == 22000


def test_a_transfer_said_in_everyday_words_is_planned_with_its_values(zhaopin: Assistant) -> None:
    """"李娜下个月起…": 下个月 is a time, not the end of her name; department, title and salary are the recipe's."""
    p = plan(zhaopin, "李娜下个月起去市场部做品牌经理，工资涨到两万二")
    assert (p.status, p.rule) == ("planned", "transfer_employee_flow")
    assert args(p, "find_employee")["name"] == "李娜"
    moved = args(p, "transfer_employee")
    assert (moved["new_department"], moved["new_position"]) == ("市场部", "品牌经理")
    assert args(p, "adjust_salary")["new_salary"] == 22000


def _weak_write(values: dict[str, Found]) -> Candidate:
    c = Candidate("rule", "transfer_flow", True, cov=0.8, core=0.15, rank=0.2, fit=1.0, fill=1.0, alien=0.12,
                  intent=1.0, mass=1.0, lex=0.1)
    c.assignment = Assignment(values=values, refused={})
    return c


def test_one_stated_value_does_not_carry_a_weak_write_but_several_do() -> None:
    """A thing's id is taken by any write on that thing: alone it says nothing of which write is meant
    ("send the renewal reminder to the owner of ws_…" is no data export). Several values the request
    states, all taken, do."""
    dept = Found("市场部", 5, 8, "known", 2.2)
    phone = Found("13366665555", 12, 23, "pattern", 3.0)
    salary = Found(22000, 30, 34, "span:amount", 2.35)
    rival = Candidate("tool", "get_payslip", False, cov=0.4, rank=0.5, fill=1.0, intent=-1.0)
    alone = _weak_write({"phone": phone})
    assert ASK_MIN <= score(alone) < WRITE_MIN  # below the bar for a write: the case this rule is about
    assert decide([alone, rival], {"transfer_flow": set()}).verdict == "ask"
    several = _weak_write({"phone": phone, "new_department": dept, "new_salary": salary})
    assert decide([several, rival], {"transfer_flow": set()}).verdict == "plan"
    unstated = _weak_write({"new_department": dept, "new_salary": Found(22000, 30, 34, "context", 1.2)})
    assert decide([unstated, rival], {"transfer_flow": set()}).verdict == "ask"  # none in a declared shape
    close = Candidate("tool", "adjust_pay", True, cov=0.7, core=0.1, rank=0.3, fit=1.0, fill=1.0, intent=1.0,
                      mass=1.0, lex=0.1)
    assert 0 < score(several) - score(close) < 1.0
    assert decide([several, close], {"transfer_flow": set()}).verdict == "ask"  # an unrelated write is near


# --- a close rival that explains less of the request ------------------------------------------------

def test_a_close_rival_that_leaves_much_of_the_request_unexplained_is_no_rival(rentals: Assistant) -> None:
    """"should drop down to silver status": the new-customer tool takes the email too, but knows
    nothing of the tier change the whole sentence is about."""
    p = plan(rentals, "tom.h@example.net should drop down to silver status")
    assert (p.status, p.rule) == ("planned", "loyalty_tier_change")
    assert args(p, "find_customer_by_email") == {"email": "tom.h@example.net"}
    assert args(p, "set_loyalty_tier")["loyalty_tier"] == "silver"


def test_a_recipe_that_would_ask_for_more_to_run_writes_nobody_named_is_no_rival(zhaopin: Assistant) -> None:
    """"约个HR面" for a candidate given by phone and name: the interview recipe has all it needs; the
    whole recruiting pipeline also explains every word but would ask for more to make an offer and
    onboard, which nobody asked for."""
    p = plan(zhaopin, "手机号13812345678的刘洋，约个HR面")
    assert (p.status, p.rule) == ("planned", "arrange_interview")
    assert args(p, "find_candidate") == {"name": "刘洋", "phone": "13812345678"}
    assert args(p, "schedule_interview")["round"] == "hr"


def test_of_two_close_writes_the_one_that_explains_every_word_is_chosen() -> None:
    partial = Candidate("tool", "create_candidate", True, cov=0.66, core=0.34, rank=1.0, fit=0.78, fill=1.0,
                        intent=1.0, mass=0.98, lex=0.23)
    whole = Candidate("rule", "arrange_interview", True, cov=1.0, core=0.24, rank=0.33, fit=1.0, fill=1.0,
                      intent=1.0, mass=1.0, lex=0.25)
    assert 0 <= score(partial) - score(whole) < 0.5  # close, the partial one a little ahead
    decision = decide([partial, whole], {"arrange_interview": set()})
    assert (decision.verdict, decision.best) == ("plan", whole)


def test_a_time_word_after_a_name_is_not_part_of_it() -> None:
    names = [n for n, _, _ in person_names("李娜下个月起去市场部", lambda w: False)]
    assert names == ["李娜"]
    assert [n for n, _, _ in person_names("王芳上个月入职", lambda w: False)] == ["王芳"]


def test_a_weak_write_that_explains_less_than_half_the_request_is_not_carried_by_its_values() -> None:
    """"帮我订一张明天去北京的机票": a destination and a date fit the travel request, but booking a
    ticket is most of what is asked and nothing here does it."""
    trip = Candidate("tool", "create_travel_request", True, cov=0.47, core=0.36, rank=1.0, fit=0.6, fill=1.0,
                     alien=0.33, mass=1.0, lex=0.18)
    trip.assignment = Assignment(values={"destination": Found("北京", 9, 11, "pattern", 3.0),
                                         "start_date": Found("2026-11-28", 5, 7, "span:date", 1.8)}, refused={})
    assert ASK_MIN <= score(trip) < WRITE_MIN
    assert decide([trip], {}).verdict == "ask"
    trip.cov = 0.6
    assert decide([trip], {}).verdict == "plan"


# --- questions that ask when or why ----------------------------------------------------------------

def test_a_question_asking_when_or_why_is_never_answered_by_a_write(zhaopin: Assistant) -> None:
    """"王芳什么时候转正" asks when she will be confirmed; confirming her is not an answer."""
    for text in ("王芳什么时候转正", "E100321为什么还没转正", "when does E100321's probation end?"):
        p = plan(zhaopin, text)
        tools = {t.tool_name: t for t in zhaopin.knowledge.tools.values()}
        assert not any(tools[s.tool_name].side_effects for s in p.steps), (text, p.rule, p.tool)
    p = plan(zhaopin, "E100321为什么还没转正")
    assert (p.status, p.tool) == ("planned", "get_employee")
    assert (plan(zhaopin, "E100321 转正").rule or plan(zhaopin, "E100321 转正").tool) in {"probation_confirm",
                                                                                           "confirm_probation"}


# --- a make-tool for a thing the request speaks of as existing --------------------------------------

SERVICE = "{name: service_id, type: string, required: true, description: service id, patterns: ['\\b(SVC-\\d{4})\\b']}"
ONCALL = {
    "pack.yaml": """
        name: oncall
        description: on-call admin desk
        environments: {default: staging, staging: {}}
    """,
    "tools/services.yaml": f"""
        - tool_name: create_integration
          description: Create an integration (events API key) on a service
          parameters:
            - {SERVICE}
            - {{name: integration_type, type: string, required: false, default: events_api_v2,
               enum: [events_api_v2, email, webhook]}}
          examples:
            - {{user_query: add an events integration key to SVC-1001, extracted_params: {{service_id: SVC-1001}}}}
          call: {{http: {{method: POST, path: /integrations}}}}
        - tool_name: trigger_incident
          description: Trigger a test incident on a service
          parameters:
            - {SERVICE}
          examples:
            - {{user_query: trigger an incident on SVC-1001, extracted_params: {{service_id: SVC-1001}}}}
          call: {{http: {{method: POST, path: /incidents}}}}
        - tool_name: get_service
          description: Show a service and its integrations
          parameters:
            - {SERVICE}
          examples:
            - {{user_query: show SVC-1001, extracted_params: {{service_id: SVC-1001}}}}
          side_effects: false
          call: {{http: {{method: GET, path: /services}}}}
    """,
}
CLAIM = "{name: claim_id, type: string, required: true, description: 报销单号, patterns: ['\\b(BX\\d{8})\\b']}"
INVOICE = "{name: invoice_no, type: string, required: true, description: 发票号码(8位), patterns: ['\\b(\\d{8})\\b']}"
EXPENSES = {
    "pack.yaml": """
        name: expenses
        description: 报销
        environments: {default: test, test: {}}
    """,
    "tools/claims.yaml": f"""
        - tool_name: verify_invoice
          description: 发票查验，返回发票金额
          parameters:
            - {INVOICE}
          examples:
            - {{user_query: 查验发票12345678, extracted_params: {{invoice_no: '12345678'}}}}
          side_effects: false
          call: {{http: {{method: GET, path: /invoices}}}}
        - tool_name: create_expense_claim
          description: 新建一张报销单(草稿)，返回报销单号
          parameters:
            - {{name: title, type: string, required: false, default: 日常报销, description: 报销事由}}
          examples:
            - {{user_query: 建一张报销单, extracted_params: {{}}}}
          call: {{http: {{method: POST, path: /claims}}}}
        - tool_name: attach_invoice
          description: 把发票贴到报销单上
          parameters:
            - {CLAIM}
            - {INVOICE}
          examples:
            - {{user_query: 给报销单BX20260001贴发票12345678, extracted_params: {{claim_id: BX20260001, invoice_no: '12345678'}}}}
          call: {{http: {{method: POST, path: /claims/invoices}}}}
    """,
    "rules/claims.yaml": """
        - rule_name: invoice_claim
          description: 凭发票报销：查验发票→新建报销单→贴发票
          trigger_phrases: [凭发票报销, 发票报销]
          examples:
            - {user_query: 用发票12345678报销, extracted_params: {invoice_no: '12345678'}}
            - {user_query: 帮我把发票12345678的单子贴上, extracted_params: {invoice_no: '12345678'}}
          dag_definition:
            - step_id: 1
              tool_name: verify_invoice
              parameter_mapping: {invoice_no: {source: initial_query, value: invoice_no}}
            - step_id: 2
              tool_name: create_expense_claim
              dependencies: [1]
            - step_id: 3
              tool_name: attach_invoice
              dependencies: [2]
              parameter_mapping:
                claim_id: {source: step_output, step_id: 2, value: claim_id}
                invoice_no: {source: initial_query, value: invoice_no}
    """,
}


def test_a_tool_that_makes_a_thing_does_not_answer_a_request_about_that_thing_existing(tmp_path: Path) -> None:
    """"rotate the integration key on SVC-3012": the key exists; making a new integration is a guess."""
    from tests.conftest import rule_planner

    planner = rule_planner(tmp_path / "oncall", ONCALL)
    p = planner.plan(Request(text="rotate the integration key on SVC-3012, it leaked on GitHub"))
    assert p.status != "planned" and not p.steps
    p = planner.plan(Request(text="add an integration to SVC-3012"))
    assert (p.status, p.tool, p.steps[0].arguments["service_id"]) == ("planned", "create_integration", "SVC-3012")


def test_a_recipe_that_would_make_what_the_request_points_at_is_not_run(tmp_path: Path) -> None:
    """"帮我把那张单子的发票贴上去": 那张单子 is a claim that exists; the recipe would check the invoice
    and then make a new claim."""
    from tests.conftest import rule_planner

    planner = rule_planner(tmp_path / "expenses", EXPENSES)
    p = planner.plan(Request(text="帮我把那张单子的发票贴上去，发票号00871234"))
    assert (p.status, p.rule, p.tool, p.missing) == ("needs_input", None, "attach_invoice", ["claim_id"])
    assert p.steps[0].arguments["invoice_no"] == "00871234"  # it asks which claim, and keeps the invoice
    p = planner.plan(Request(text="用发票00871234报销"))
    assert (p.status, p.rule) == ("planned", "invoice_claim")
