"""Recipe or one of its own steps, and values that sit inside other values.

A small Chinese HR pack written for these tests: a transfer recipe that changes the salary on the
way, and two submit-then-approve recipes. Each test is a failure the blind packs showed.
"""

from __future__ import annotations

from datetime import date

import pytest

from core.knowledge import Knowledge, load_knowledge
from core.models import Plan, Request
from core.planning import RulePlanner
from tests.conftest import write_pack

EMPLOYEE_ID = "{name: employee_id, type: string, required: true, description: 工号, pattern: '^E\\d{6}$'}"

STAFF = {
    "pack.yaml": """
        name: staff
        description: 人事后台:调岗、调薪、请假、报销
        environments: {default: test, test: {aliases: [测试]}}
    """,
    "defaults.yaml": "all: {approver_id: E900001}\n",
    "tools/people.yaml": f"""
        - tool_name: find_employee
          description: 按姓名查员工工号
          parameters:
            - {{name: name, type: string, required: true, description: 员工姓名}}
          examples:
            - {{user_query: 查一下周杰的工号, extracted_params: {{name: 周杰}}}}
          side_effects: false
          call: {{http: {{method: GET, path: /employees}}}}
        - tool_name: set_salary
          description: 设定或调整员工的月度基本工资(调薪),可指定生效日期
          parameters:
            - {EMPLOYEE_ID}
            - name: base_salary
              type: number
              required: true
              minimum: 2000
              description: 月薪
              patterns: ['(?:月薪|工资)\\D{{0,8}}?(\\d{{4,7}})']
            - {{name: effective_date, type: string, format: date, description: 生效日期}}
          examples:
            - {{user_query: E100237 的月薪调到 16500,2024-04-01 生效, extracted_params: {{employee_id: E100237, base_salary: 16500, effective_date: "2024-04-01"}}}}
          call: {{http: {{method: POST, path: /salaries}}}}
        - tool_name: transfer_employee
          description: 办理调岗:新部门、生效日期
          parameters:
            - {EMPLOYEE_ID}
            - name: new_department
              type: string
              required: true
              enum: [tech, product, admin]
              synonyms: {{tech: [研发, 技术部], product: [产品部, 产品], admin: [行政部, 行政]}}
            - {{name: effective_date, type: string, format: date, description: 生效日期}}
          examples:
            - {{user_query: 把E100237调到行政部, extracted_params: {{employee_id: E100237, new_department: admin}}}}
          call: {{http: {{method: POST, path: /transfers}}}}
    """,
    "tools/requests.yaml": f"""
        - tool_name: submit_leave
          description: 提交请假单
          parameters:
            - {EMPLOYEE_ID}
            - {{name: leave_type, type: string, required: true, enum: [annual, sick], synonyms: {{annual: [年假], sick: [病假]}}}}
            - {{name: start_date, type: string, format: date, required: true, description: 开始日期}}
            - {{name: days, type: integer, minimum: 1, required: true, description: 天数}}
          examples:
            - {{user_query: 给E100001提一条年假,2024-05-06开始,3天, extracted_params: {{employee_id: E100001, leave_type: annual, start_date: "2024-05-06", days: 3}}}}
          call: {{http: {{method: POST, path: /leaves}}}}
        - tool_name: submit_expense
          description: 提交报销单
          parameters:
            - {EMPLOYEE_ID}
            - {{name: amount, type: number, required: true, minimum: 0.01, description: 金额(元)}}
            - {{name: description, type: string, required: true, description: 报销说明}}
          examples:
            - {{user_query: E100001 报销打车费 56 元,说明写“客户拜访打车”, extracted_params: {{employee_id: E100001, amount: 56, description: 客户拜访打车}}}}
          call: {{http: {{method: POST, path: /expenses}}}}
        - tool_name: approve_application
          description: 审批一张申请单(请假单、报销单):通过或驳回
          parameters:
            - {{name: application_id, type: string, required: true, pattern: '^(QJ|BX)\\d+$', description: 申请单号}}
            - {{name: decision, type: string, required: true, enum: [approve, reject], synonyms: {{approve: [通过, 批准, 批掉], reject: [驳回, 拒绝]}}}}
            - {{name: approver_id, type: string, required: true, description: 审批人工号}}
          examples:
            - {{user_query: 请假单 QJ2024001 通过, extracted_params: {{application_id: QJ2024001, decision: approve}}}}
          call: {{http: {{method: POST, path: /approvals}}}}
    """,
    "tools/hire.yaml": """
        - tool_name: create_employee
          description: 新建员工档案
          parameters:
            - {name: employee_name, type: string, required: true, description: 员工姓名}
            - {name: department, type: string, required: true, description: "入职部门,如 技术部、数据部"}
          examples:
            - {user_query: 新建员工周杰,部门研发部, extracted_params: {employee_name: 周杰, department: 研发部}}
          call: {http: {method: POST, path: /employees/new}}
    """,
    "tools/reviews.yaml": f"""
        - tool_name: create_review
          description: 录入员工某个考核周期的绩效评级
          parameters:
            - {EMPLOYEE_ID}
            - {{name: period, type: string, required: true, pattern: '^\\d{{4}}Q[1-4]$', description: 考核周期}}
            - {{name: rating, type: string, required: true, enum: [A, B, C], synonyms: {{A: [优秀], B: [良好], C: [待改进]}}}}
          examples:
            - {{user_query: E100001 2024Q2 绩效评优秀, extracted_params: {{employee_id: E100001, period: 2024Q2, rating: A}}}}
          call: {{http: {{method: POST, path: /reviews}}}}
    """,
    "rules/review_raise.yaml": """
        rule_name: review_and_raise
        description: 绩效调薪:录入绩效评级 → 按新月薪调薪
        trigger_phrases: [绩效调薪]
        examples:
          - {user_query: E100001 2024Q2 绩效优秀,月薪调到 30000, extracted_params: {employee_id: E100001, period: 2024Q2, rating: A, base_salary: 30000}}
        dag_definition:
          - step_id: 1
            tool_name: create_review
            parameter_mapping:
              employee_id: {source: initial_query, value: employee_id}
              period: {source: initial_query, value: period}
              rating: {source: initial_query, value: rating}
          - step_id: 2
            tool_name: set_salary
            dependencies: [1]
            parameter_mapping:
              employee_id: {source: initial_query, value: employee_id}
              base_salary: {source: initial_query, value: base_salary}
    """,
    "rules/transfer.yaml": """
        rule_name: employee_transfer
        description: 员工调岗:按姓名查工号 → 办理调岗 → 如果给了新月薪,同时调薪
        trigger_phrases: [调岗, 转岗, 调部门, 换部门]
        examples:
          - {user_query: 把周杰调到行政部,2024-06-01 生效, extracted_params: {name: 周杰, new_department: admin, effective_date: "2024-06-01"}}
          - {user_query: E100237 从销售转岗到产品,月薪调整为 21000,2024-05-01 生效, extracted_params: {employee_id: E100237, new_department: product, base_salary: 21000, effective_date: "2024-05-01"}}
        dag_definition:
          - {step_id: 1, tool_name: find_employee, parameter_mapping: {name: {source: initial_query, value: name}}}
          - step_id: 2
            tool_name: transfer_employee
            dependencies: [1]
            parameter_mapping:
              employee_id: {source: step_output, step_id: 1, value: employee_id}
              new_department: {source: initial_query, value: new_department}
              effective_date: {source: initial_query, value: effective_date}
          - step_id: 3
            tool_name: set_salary
            dependencies: [2]
            condition: "query.base_salary != null"
            parameter_mapping:
              employee_id: {source: step_output, step_id: 1, value: employee_id}
              base_salary: {source: initial_query, value: base_salary}
              effective_date: {source: initial_query, value: effective_date}
    """,
    "rules/leave.yaml": """
        rule_name: leave_application
        description: 请假:提交请假单并审批通过
        trigger_phrases: [请假, 请假申请, 休假申请]
        examples:
          - {user_query: E100001 请3天年假,2024-05-06 开始,批掉, extracted_params: {employee_id: E100001, leave_type: annual, days: 3, start_date: "2024-05-06"}}
        dag_definition:
          - {step_id: 1, tool_name: find_employee, parameter_mapping: {name: {source: initial_query, value: name}}}
          - step_id: 2
            tool_name: submit_leave
            dependencies: [1]
            parameter_mapping:
              employee_id: {source: step_output, step_id: 1, value: employee_id}
              leave_type: {source: initial_query, value: leave_type}
              start_date: {source: initial_query, value: start_date}
              days: {source: initial_query, value: days}
            reaches_state: {name: 待审批, aliases: [审批中, pending]}
          - step_id: 3
            tool_name: approve_application
            dependencies: [2]
            parameter_mapping:
              application_id: {source: step_output, step_id: 2, value: application_id}
              decision: {source: constant, value: approve}
              approver_id: {source: defaults, value: approver_id}
            reaches_state: {name: 已通过, aliases: [approved]}
    """,
    "rules/expense.yaml": """
        rule_name: expense_reimbursement
        description: 报销:提交报销单并审批通过
        trigger_phrases: [报销, 走报销, 报销流程]
        examples:
          - {user_query: 帮E100001走个报销,打车费56元,说明写“客户拜访”, extracted_params: {employee_id: E100001, amount: 56, description: 客户拜访}}
        dag_definition:
          - step_id: 1
            tool_name: submit_expense
            parameter_mapping:
              employee_id: {source: initial_query, value: employee_id}
              amount: {source: initial_query, value: amount}
              description: {source: initial_query, value: description}
          - step_id: 2
            tool_name: approve_application
            dependencies: [1]
            parameter_mapping:
              application_id: {source: step_output, step_id: 1, value: application_id}
              decision: {source: constant, value: approve}
              approver_id: {source: defaults, value: approver_id}
    """,
}


@pytest.fixture(scope="module")
def staff(tmp_path_factory: pytest.TempPathFactory) -> Knowledge:
    return load_knowledge([write_pack(tmp_path_factory.mktemp("k") / "staff", STAFF)])


@pytest.fixture(scope="module")
def planner(staff: Knowledge) -> RulePlanner:
    return RulePlanner(staff, today=lambda: date(2026, 11, 23))


def plan(planner: RulePlanner, text: str) -> Plan:
    return planner.plan(Request(text=text))


def test_the_digits_of_a_date_are_not_a_number_a_loose_pattern_reaches(planner: RulePlanner) -> None:
    """The pack's own pattern `月薪\\D{0,8}?(\\d{4,7})` would take the 2024 of 2024-07-01; the date
    claims its digits first, and the salary is the amount the request states."""
    p = plan(planner, "E100234 的月薪从 2024-07-01 起调整为 25000 元")
    assert p.status == "planned", (p.status, p.missing, p.question)
    assert p.steps[0].arguments["base_salary"] == 25000
    assert p.steps[0].arguments["effective_date"] == "2024-07-01"


def test_a_recipe_that_would_ask_gives_way_to_its_own_step_that_has_everything(planner: RulePlanner) -> None:
    """A salary change with every value stated is the salary tool, not the transfer recipe that
    would ask for a new department it was never told about."""
    p = plan(planner, "E100234 的月薪从 2024-07-01 起调整为 25000 元")
    assert (p.rule, p.tool, [s.tool_name for s in p.steps]) == (None, "set_salary", ["set_salary"])


def test_a_chinese_name_ends_before_from(planner: RulePlanner) -> None:
    """张伟从研发调到产品部: the name is 张伟, 从 ("from") starts what follows."""
    p = plan(planner, "张伟从研发调到产品部")
    assert p.rule == "employee_transfer" and p.steps[0].arguments == {"name": "张伟"}
    assert p.steps[1].arguments["new_department"] == "product"


@pytest.mark.parametrize("text", ["E100239 申请年假,2024-09-02 开始,5天,批掉",
                                  "E100239 请假 5 天,年假,2024-09-02 开始"])
def test_a_recipe_named_by_its_trigger_or_its_last_step_is_not_cut_to_its_first_step(planner: RulePlanner,
                                                                                     text: str) -> None:
    """Asking for leave *and* its approval ("批掉"), or by the recipe's own trigger (请假), is the
    submit-then-approve recipe, not the submit tool alone."""
    p = plan(planner, text)
    assert p.rule == "leave_application", (p.status, p.rule, p.tool, p.question)
    assert [s.tool_name for s in p.steps] == ["submit_leave", "approve_application"]
    assert p.steps[0].arguments == {"employee_id": "E100239", "leave_type": "annual", "start_date": "2024-09-02",
                                    "days": 5}


def test_a_single_approval_stays_the_approval(planner: RulePlanner) -> None:
    """An application that exists is approved by the approval tool: the recipe would submit another."""
    p = plan(planner, "请假单 QJ20240612 驳回")
    assert (p.tool, p.steps[0].arguments["application_id"], p.steps[0].arguments["decision"]) == \
        ("approve_application", "QJ20240612", "reject")


def test_a_value_said_again_inside_a_quoted_one_is_not_left_unused(planner: RulePlanner) -> None:
    """"报销 6 月话费 … 说明写“6月手机通讯费”": the 6 月 is in the description the plan takes, so the
    write uses everything the request states and is planned, not asked about."""
    p = plan(planner, "E100237 报销 6 月话费 ¥199,说明写“6月手机通讯费”,帮他报了")
    assert p.status == "planned" and p.rule == "expense_reimbursement", (p.status, p.notes, p.question)
    assert p.steps[0].arguments == {"employee_id": "E100237", "amount": 199, "description": "6月手机通讯费"}


def test_a_named_state_keeps_the_recipe_cut_to_one_step(planner: RulePlanner) -> None:
    """"E100239 …,待审批状态": the id drops the look-up and the state cuts after the submit step; the
    plan is that one step, and still the recipe tailored (the spec's tailoring), not the submit tool."""
    p = plan(planner, "给E100239提一条年假,2024-08-12开始,5天,待审批状态")
    assert (p.status, p.rule, [s.tool_name for s in p.steps]) == ("planned", "leave_application", ["submit_leave"])
    assert p.target_state == "待审批"


def test_of_two_close_candidates_the_one_taking_more_stated_values_wins() -> None:
    """Pure choice: the lifecycle that stops at a trial scores a little higher, but the conversion
    takes the payment method the request states too — it is the one meant."""
    from core.planning.choice import Candidate, fitter

    lifecycle = Candidate("rule", "subscription_lifecycle", writes=True, fit=0.71, fill=1.0, score=-0.08)
    convert = Candidate("rule", "convert_trial_to_paid", writes=True, fit=1.0, fill=1.0, score=-0.27)
    far = Candidate("rule", "far", writes=True, fit=1.0, fill=1.0, score=-2.0)
    assert fitter(lifecycle, [lifecycle, convert, far]) is convert
    assert fitter(lifecycle, [lifecycle, far]) is lifecycle  # not close: the score decides


def test_a_write_is_not_run_on_one_clause_when_another_asks_for_more(planner: RulePlanner) -> None:
    """"…绩效评良好,顺便调个薪": the review tool knows nothing of the raise the second clause asks for;
    the review-and-raise recipe does, and asks for the new salary — nothing is written on a guess."""
    p = plan(planner, "E100500 2024Q3绩效评良好,顺便调个薪")
    assert (p.status, p.rule, p.missing) == ("needs_input", "review_and_raise", ["base_salary"]), \
        (p.status, p.rule, p.tool, p.missing, p.notes)


def test_a_recipe_that_would_skip_the_step_the_request_speaks_of_is_not_chosen() -> None:
    """Pure choice: a recipe whose running steps know none of the request's words while a step it
    skips does gives way to that step's own tool."""
    from core.models import Plan, PlanStep
    from core.planning.choice import Candidate, unrun

    recipe = Candidate("rule", "confirm", writes=True, score=4.0, spoken={"confirm": frozenset(),
                                                                         "raise": frozenset({"调薪"})})
    recipe.plan = Plan(status="planned", rule="confirm", steps=[
        PlanStep(step_id=1, tool_name="confirm"), PlanStep(step_id=2, tool_name="raise", skipped="condition false")])
    tool = Candidate("tool", "raise", writes=True, score=2.9)
    assert unrun(recipe, [recipe, tool]) is tool
    recipe.spoken["confirm"] = frozenset({"转正"})  # the running step is spoken of too: the recipe stands
    assert unrun(recipe, [recipe, tool]) is recipe


def test_a_free_text_value_of_the_make_the_pack_gives_is_taken(planner: RulePlanner) -> None:
    """Departments the pack names are 技术部, 数据部, 研发部: "市场部" is one too; "名字叫孙悦" names the person."""
    p = plan(planner, "新建员工档案,部门填市场部,名字叫孙悦")
    assert (p.status, p.tool) == ("planned", "create_employee"), (p.status, p.missing, p.notes)
    assert p.steps[0].arguments == {"employee_name": "孙悦", "department": "市场部"}


def test_a_rival_that_would_leave_the_stated_id_unused_is_not_offered() -> None:
    """"IV240088 的面评帮我交一下,评了4分": the feedback tool takes the interview id and asks for the
    result; a list read that would ignore the id is no close rival to offer instead."""
    from core.planning.choice import Candidate, decide

    feedback = Candidate("tool", "submit_feedback", writes=True, cov=0.77, fit=1.0, fill=0.5, rank=1.0, lex=0.2, core=0.14,
                         mass=1.0, trigger=0.0)
    listing = Candidate("tool", "list_interviews", writes=False, cov=0.59, fit=0.2, fill=0.5, rank=0.25, lex=0.25,
                        core=0.74, mass=1.0, ignores=["IV240088"])
    decision = decide([feedback, listing], {})
    assert decision.best is feedback and decision.choices == [], (decision.verdict, decision.reason)


def test_a_name_ending_in_a_verb_like_character_is_kept_whole(planner: RulePlanner) -> None:
    """升 is as common at the end of a given name as it is as a verb: 李东升 is looked up, not 李东."""
    p = plan(planner, "李东升调岗到行政部")
    assert p.rule == "employee_transfer" and p.steps[0].arguments == {"name": "李东升"}


@pytest.mark.parametrize("text", ["新建员工档案李明,属于哪个部还没定", "新建员工档案李明,部门还没定,先挂总部"])
def test_words_shaped_like_a_known_value_are_not_taken_for_it(planner: RulePlanner, text: str) -> None:
    p = plan(planner, text)
    assert p.status == "needs_input" and p.missing == ["department"], (p.status, p.missing, p.steps)
