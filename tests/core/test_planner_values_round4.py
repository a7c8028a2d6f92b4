"""Values said the way people say them, and refusals no approval may answer.

Two small packs written for these tests (a Chinese HR desk, an English identity-SaaS admin desk).
Each test is a kind of failure two new blind packs of this round showed (zhaopin, idcloud); the
requests here are made up.
"""

from __future__ import annotations

from datetime import date

import pytest

from core.models import Plan, Request
from core.planning import RulePlanner
from core.planning.extraction import tool_slots
from tests.conftest import rule_planner

STAFF = "{name: employee_id, type: string, required: true, description: 工号, patterns: ['\\b(E\\d{6})\\b']}"
TENANT = "{name: tenant_id, type: string, required: true, description: tenant id, patterns: ['\\b(tn_[a-z0-9]{4,})\\b']}"

HRDESK = {
    "pack.yaml": """
        name: hrdesk
        description: 入职离职与五险一金
        environments: {default: test, test: {aliases: [测试]}}
    """,
    "tools/hr.yaml": f"""
        - tool_name: find_employee
          description: 按姓名查员工工号
          parameters:
            - {{name: name, type: string, required: true, description: 员工姓名}}
            - {{name: department, type: string, required: false, description: 员工当前所在部门，重名时用来区分}}
          examples:
            - {{user_query: 研发部的王磊工号多少, extracted_params: {{name: 王磊, department: 研发部}}}}
          side_effects: false
          call: {{http: {{method: GET, path: /employees}}}}
        - tool_name: submit_resignation
          description: 提交离职申请
          parameters:
            - {STAFF}
            - {{name: last_work_day, type: string, required: true, description: 最后工作日}}
          examples:
            - {{user_query: E100567 合同到期不续签，最后一天6月30日, extracted_params: {{employee_id: E100567, last_work_day: 6月30日}}}}
          call: {{http: {{method: POST, path: /resignations}}}}
        - tool_name: housing_fund_add
          description: 公积金增员:为员工开立住房公积金账户并开始缴存
          parameters:
            - {STAFF}
            - {{name: ratio, type: number, required: false, default: 0.07, minimum: 0.05, maximum: 0.12,
               description: 单位缴存比例(小数)}}
          examples:
            - {{user_query: E100234 公积金增员, extracted_params: {{employee_id: E100234}}}}
          call: {{http: {{method: POST, path: /housing-fund}}}}
        - tool_name: issue_offer
          description: 给候选人发放录用通知(offer)
          parameters:
            - {{name: candidate_id, type: string, required: true, description: 候选人编号, patterns: ['\\b(C\\d{{8}})\\b']}}
            - {{name: salary, type: integer, required: true, minimum: 2000, description: 税前月薪(元/月)}}
          examples:
            - {{user_query: 给C20260412发offer，月薪25000, extracted_params: {{candidate_id: C20260412, salary: 25000}}}}
          call: {{http: {{method: POST, path: /offers}}}}
        - tool_name: open_mailbox
          description: 开通企业邮箱
          parameters:
            - {STAFF}
            - {{name: email_prefix, type: string, required: false, description: 邮箱前缀，不填默认姓名全拼}}
          examples:
            - {{user_query: 给E100234开通企业邮箱, extracted_params: {{employee_id: E100234}}}}
          call: {{http: {{method: POST, path: /mailboxes}}}}
        - tool_name: schedule_interview
          description: 给候选人安排一轮面试(interview)
          parameters:
            - {{name: candidate_id, type: string, required: true, description: 候选人编号, patterns: ['\\b(C\\d{{8}})\\b']}}
            - {{name: interview_time, type: string, required: false, description: 面试时间，如 2026-05-20 15:00}}
          examples:
            - {{user_query: C20260412 约个面试, extracted_params: {{candidate_id: C20260412}}}}
          call: {{http: {{method: POST, path: /interviews}}}}
        - tool_name: approve_overtime
          description: 审批通过一张加班单
          parameters:
            - {{name: overtime_id, type: string, required: true, description: 加班单号}}
          examples:
            - {{user_query: 加班单OT202603200012审批通过, extracted_params: {{overtime_id: OT202603200012}}}}
          call: {{http: {{method: POST, path: /overtime/approve}}}}
    """,
}

IDDESK = {
    "pack.yaml": """
        name: iddesk
        description: identity SaaS admin desk
        environments: {default: staging, staging: {}}
    """,
    "tools/admin.yaml": f"""
        - tool_name: create_api_key
          description: Create an API key for a tenant
          parameters:
            - {TENANT}
            - {{name: scope, type: string, required: false, default: read, enum: [read, read_write, scim]}}
            - {{name: expires_in_days, type: integer, required: false, default: 90, minimum: 1, maximum: 365,
               description: Days until the key expires}}
          examples:
            - {{user_query: new read_write key for tn_4f9k2p, extracted_params: {{tenant_id: tn_4f9k2p, scope: read_write}}}}
          call: {{http: {{method: POST, path: /keys}}}}
        - tool_name: issue_credit
          description: Grant a tenant account credit applied to its next invoices
          parameters:
            - {TENANT}
            - {{name: amount, type: number, required: true, minimum: 1, description: Credit amount}}
          examples:
            - {{user_query: give tn_8k2m4q a $250 credit, extracted_params: {{tenant_id: tn_8k2m4q, amount: 250}}}}
          call: {{http: {{method: POST, path: /credits}}}}
        - tool_name: record_payment_failure
          description: Fail the payment of an invoice (the tenant goes past due)
          parameters:
            - {{name: invoice_id, type: string, required: true, description: Invoice id}}
          examples:
            - {{user_query: fail the payment on invoice in_1PqR8sK2, extracted_params: {{invoice_id: in_1PqR8sK2}}}}
          call: {{http: {{method: POST, path: /payments/fail}}}}
        - tool_name: cancel_subscription
          description: Cancel a subscription
          parameters:
            - {{name: subscription_id, type: string, required: true, description: Subscription id (sub_...)}}
            - {{name: cancel_reason, type: string, required: true, enum: [too_expensive, not_using, other]}}
            - {{name: at_period_end, type: boolean, required: false, default: true,
               description: "true = cancel when the paid period ends; false = cancel immediately"}}
          examples:
            - {{user_query: cancel sub_9KdP2mQa because it is too expensive,
               extracted_params: {{subscription_id: sub_9KdP2mQa, cancel_reason: too_expensive}}}}
          call: {{http: {{method: POST, path: /subscriptions/cancel}}}}
        - tool_name: reactivate_subscription
          description: Reactivate a canceled subscription
          parameters:
            - {{name: subscription_id, type: string, required: true, description: Subscription id (sub_...)}}
          examples:
            - {{user_query: bring sub_9KdP2mQa back, extracted_params: {{subscription_id: sub_9KdP2mQa}}}}
          call: {{http: {{method: POST, path: /subscriptions/reactivate}}}}
        - tool_name: apply_coupon
          description: Apply a coupon to a subscription
          parameters:
            - {{name: subscription_id, type: string, required: true, description: Subscription id (sub_...)}}
            - {{name: coupon_code, type: string, required: true, description: Coupon code}}
          examples:
            - {{user_query: apply SPRING25 to sub_9KdP2mQa, extracted_params: {{subscription_id: sub_9KdP2mQa, coupon_code: SPRING25}}}}
          call: {{http: {{method: POST, path: /coupons/apply}}}}
        - tool_name: assign_license
          description: Give a user a seat (license)
          parameters:
            - {{name: user_id, type: string, required: true, description: user id, patterns: ['\\b(usr_[a-z0-9]{{4,}})\\b']}}
          examples:
            - {{user_query: give usr_k3m9qa a seat, extracted_params: {{user_id: usr_k3m9qa}}}}
          call: {{http: {{method: POST, path: /licenses}}}}
    """,
}


@pytest.fixture(scope="module")
def hr(tmp_path_factory: pytest.TempPathFactory) -> RulePlanner:
    return rule_planner(tmp_path_factory.mktemp("k") / "hrdesk", HRDESK)


@pytest.fixture(scope="module")
def ids(tmp_path_factory: pytest.TempPathFactory) -> RulePlanner:
    return rule_planner(tmp_path_factory.mktemp("k") / "iddesk", IDDESK)


def plan(planner: RulePlanner, text: str) -> Plan:
    return planner.plan(Request(text=text))


def args(p: Plan) -> dict[str, object]:
    assert p.status == "planned" and len(p.steps) == 1, p
    return dict(p.steps[0].arguments)


def test_a_percent_is_the_fraction_a_ratio_parameter_takes(hr: RulePlanner) -> None:
    """"比例7%" for a ratio between 0.05 and 0.12 is 0.07, not a refused 7."""
    assert args(plan(hr, "E100234 只做公积金增员,比例7%")) == {"employee_id": "E100234", "ratio": 0.07}


def test_a_salary_in_chinese_numerals_is_an_amount(hr: RulePlanner) -> None:
    """"月薪两万二" is 22000 (as "2.2万" would be), not a value the offer asks for again."""
    assert args(plan(hr, "给C20260518发offer,月薪两万二"))["salary"] == 22000


def test_a_date_inside_a_learnt_context_is_the_value_not_the_words_around_it(hr: RulePlanner) -> None:
    """The example taught "最后一天<value>"; "最后一天是2026-06-30" is the date, not "是2026-06-30"."""
    assert args(plan(hr, "E100321 合同到期不续签，最后一天是2026-06-30"))["last_work_day"] == "2026-06-30"


def test_a_parameter_named_for_a_thing_takes_no_person(hr: RulePlanner) -> None:
    """The department's description mentions 员工, but a department is no person: "成已" of
    "把李娜办成已离职" was taken as one, and 王芳 of "王芳那边" was lost to "边定个"."""
    p = plan(hr, "李娜办成已离职了,她工号多少")
    assert p.steps and p.steps[0].arguments.get("name") == "李娜" and "department" not in p.steps[0].arguments, p
    p = plan(hr, "王芳那边的工号多少")
    assert p.steps and p.steps[0].arguments.get("name") == "王芳", p


def test_a_code_said_right_after_the_parameters_name_is_its_value(hr: RulePlanner) -> None:
    """"前缀 wanglei": the request names what the code is for."""
    assert args(plan(hr, "给E100234开通企业邮箱,前缀 wanglei")) == {"employee_id": "E100234", "email_prefix": "wanglei"}


def test_an_english_word_after_an_english_label_is_not_a_code(ids: RulePlanner) -> None:
    """"…key for tn_1 scope read" reads on; "amount due" is not an amount of "due"."""
    p = plan(ids, "give tn_7h2k9p a credit, amount due next week")
    assert "due" not in [str(v) for v in (p.steps[0].arguments.values() if p.steps else [])], p


def test_an_approval_never_answers_a_rejection(hr: RulePlanner) -> None:
    """"把加班单…驳回" asks to reject; the only tool approves: nothing here does it."""
    p = plan(hr, "把加班单OT202603200031驳回")
    assert p.status == "no_match" and "驳回" in " ".join(p.notes), p


def test_taking_a_seat_back_is_not_giving_one(ids: RulePlanner) -> None:
    """收回 (take back) where the knowledge only assigns seats."""
    assert plan(ids, "把 usr_n5b2tc 的席位收回来").status == "no_match"
    assert plan(ids, "reclaim the seat of usr_n5b2tc").status == "no_match"


def test_days_said_with_a_unit_or_as_a_date_from_now_fill_a_days_parameter(ids: RulePlanner) -> None:
    """"30天过期" and "expires in 60 days" are how many days a key lives."""
    assert args(plan(ids, "给 tn_z1x5ce 新建一个 read_write 的 API key,30天过期"))["expires_in_days"] == 30
    assert args(plan(ids, "create a scim API key for tn_z1x5ce that expires in 60 days"))["expires_in_days"] == 60


def test_a_credit_in_chinese_numerals_and_dollars_is_its_amount(ids: RulePlanner) -> None:
    assert args(plan(ids, "给 tn_c4k9wd 发两百美元的 credit"))["amount"] == 200


def test_random_ids_of_the_examples_kind_are_taken_whatever_their_letters(ids: RulePlanner) -> None:
    """in_3KdP0w9Z looks like the example's in_1PqR8sK2 (a prefix and a random tail): the invoice."""
    assert args(plan(ids, "mark the payment on in_3KdP0w9Z as failed")) == {"invoice_id": "in_3KdP0w9Z"}


def test_an_id_of_another_kind_is_not_the_parameters_however_it_is_introduced(ids: RulePlanner) -> None:
    """"invoice INV-2024-0031" names an invoice, but the knowledge's invoices look like in_1PqR8sK2: it
    is not this tool's invoice (it failed the payment of "INV-2024-0031" before)."""
    p = plan(ids, "fail the payment on invoice INV-2024-0031")
    assert not (p.status == "planned" and p.steps), p


def test_a_date_and_the_time_after_it_are_one_value_for_a_date_time_parameter(hr: RulePlanner) -> None:
    """"明天 15:00" (or "tomorrow 3pm") for a parameter described "面试时间,如 2026-05-20 15:00" is
    2026-11-27 15:00 — not the date alone with the time left unused (which asked instead)."""
    assert args(plan(hr, "C20260412 约个面试,时间明天 15:00"))["interview_time"] == "2026-11-27 15:00"


def test_a_yes_no_parameter_never_takes_the_tools_own_verb(ids: RulePlanner) -> None:
    """"cancel sub_1": at_period_end's description reads "true = cancel when…", yet the request's
    "cancel" says what to do — the cancel tool, asking for its reason (it was a rival's win before)."""
    p = plan(ids, "cancel sub_9HcT4mWa")
    assert (p.status, p.tool, p.missing) == ("needs_input", "cancel_subscription", ["cancel_reason"]), p


def test_a_number_with_a_unit_is_not_cut_into_an_id(ids: RulePlanner) -> None:
    """"to 30% off": the example taught "to <subscription>", but 30 is a piece of 30%, not a subscription."""
    text = "change the SPRING25 coupon to 30% off for everyone"
    slot = next(s for s in tool_slots(ids.kn.tools["apply_coupon"]) if s.name == "subscription_id")
    offered = ids.extractor.offers(text, ids.voc.spans(text, date(2026, 11, 26)), slot)
    assert "30" not in [f.value for f in offered], offered
