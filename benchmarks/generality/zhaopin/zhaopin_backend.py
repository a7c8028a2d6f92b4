"""招聘与员工异动后台的 python 绑定（测试桩）。

每个函数以关键字参数调用，返回与工具 `returns` 契约一致的 dict。
真实环境由 HR 后台网关实现；这里返回看起来合理的数据，方便造数和联调。
"""
from __future__ import annotations

import datetime as _dt
import random as _random

_rng = _random.Random()


def _today() -> _dt.date:
    return _dt.date.today()


def _next_month_first() -> str:
    t = _today()
    y, m = (t.year + 1, 1) if t.month == 12 else (t.year, t.month + 1)
    return f"{y:04d}-{m:02d}-01"


def _month(offset: int = 0) -> str:
    t = _today()
    idx = t.year * 12 + (t.month - 1) + offset
    return f"{idx // 12:04d}-{idx % 12 + 1:02d}"


def _cid() -> str:
    return f"C{_today().year}{_rng.randint(0, 9999):04d}"


def _eid() -> str:
    return f"E10{_rng.randint(1000, 9999)}"


def _add_months(d: _dt.date, months: int) -> str:
    idx = d.year * 12 + (d.month - 1) + months
    y, m = idx // 12, idx % 12 + 1
    return _dt.date(y, m, min(d.day, 28)).isoformat()


# ---------------- 候选人 ----------------

def find_candidate(name: str, phone: str | None = None) -> dict:
    return {
        "candidate_id": _cid(),
        "name": name,
        "phone": phone or f"138{_rng.randint(10000000, 99999999)}",
        "status": _rng.choice(["待筛选", "待面试", "已面试", "已发offer"]),
        "job_id": "JOB101",
        "offer_id": None,
        "matched_count": 1,
    }


def get_candidate(candidate_id: str) -> dict:
    return {
        "candidate_id": candidate_id,
        "name": "张伟",
        "status": "已面试",
        "job_id": "JOB101",
        "interviews": [
            {"interview_id": "IV20260301", "round": "first", "result": "pass"},
        ],
        "offer_id": None,
    }


def create_candidate(name: str, phone: str, job_id: str, source: str = "website",
                     email: str | None = None) -> dict:
    return {"candidate_id": _cid(), "name": name, "status": "待筛选",
            "job_id": job_id, "source": source}


def reject_candidate(candidate_id: str, reason: str | None = None,
                     send_notice: bool = True) -> dict:
    return {"candidate_id": candidate_id, "status": "已拒绝", "notice_sent": bool(send_notice)}


def list_open_jobs(department: str | None = None, work_city: str | None = None) -> dict:
    jobs = [
        {"job_id": "JOB101", "title": "Java 后端开发工程师", "department": "研发部", "work_city": "上海", "headcount": 3},
        {"job_id": "JOB203", "title": "测试开发工程师", "department": "研发部", "work_city": "杭州", "headcount": 1},
        {"job_id": "JOB305", "title": "大客户销售经理", "department": "销售部", "work_city": "北京", "headcount": 2},
        {"job_id": "JOB412", "title": "品牌经理", "department": "市场部", "work_city": "上海", "headcount": 1},
    ]
    if department:
        jobs = [j for j in jobs if j["department"] == department]
    if work_city:
        jobs = [j for j in jobs if j["work_city"] == work_city]
    return {"total": len(jobs), "jobs": jobs}


# ---------------- 面试 ----------------

def schedule_interview(candidate_id: str, interview_time: str | None = None,
                       interviewer_id: str | None = None, round: str = "first",
                       mode: str = "video") -> dict:
    when = interview_time or (_today() + _dt.timedelta(days=1)).isoformat() + " 14:00"
    return {
        "interview_id": f"IV{_today().year}{_rng.randint(0, 9999):04d}",
        "candidate_id": candidate_id,
        "interview_time": when,
        "interviewer_id": interviewer_id or "E100001",
        "round": round,
        "status": "待面试",
    }


def submit_interview_feedback(interview_id: str, result: str, score: int | None = None,
                              comment: str | None = None) -> dict:
    return {"interview_id": interview_id, "candidate_id": _cid(), "result": result,
            "status": "已面试" if result == "pass" else "已拒绝"}


# ---------------- offer ----------------

def issue_offer(candidate_id: str, salary: int, job_id: str | None = None,
                start_date: str | None = None, probation_months: int = 3) -> dict:
    return {
        "offer_id": f"OF{_today().year}{_rng.randint(0, 9999):04d}",
        "candidate_id": candidate_id,
        "job_id": job_id or "JOB101",
        "salary": int(salary),
        "start_date": start_date or (_today() + _dt.timedelta(days=14)).isoformat(),
        "status": "已发offer",
    }


def withdraw_offer(offer_id: str, reason: str | None = None) -> dict:
    return {"offer_id": offer_id, "candidate_id": _cid(), "status": "offer已撤回"}


# ---------------- 入职 ----------------

def onboard_employee(candidate_id: str, start_date: str | None = None,
                     department: str | None = None, employment_type: str = "full_time") -> dict:
    start = start_date or _today().isoformat()
    try:
        start_d = _dt.date.fromisoformat(start)
    except ValueError:
        start_d = _today()
    return {
        "employee_id": _eid(),
        "candidate_id": candidate_id,
        "department": department or "研发部",
        "employment_type": employment_type,
        "start_date": start,
        "probation_end_date": None if employment_type == "intern" else _add_months(start_d, 3),
        "status": "已入职",
    }


def open_work_accounts(employee_id: str, email_prefix: str | None = None) -> dict:
    prefix = email_prefix or f"user{employee_id[-4:]}"
    return {"employee_id": employee_id, "email": f"{prefix}@corp-test.cn",
            "wecom_userid": prefix}


# ---------------- 员工与异动 ----------------

def find_employee(name: str, department: str | None = None) -> dict:
    return {"employee_id": _eid(), "name": name, "department": department or "研发部",
            "position": "高级工程师", "status": "在职", "matched_count": 1}


def get_employee(employee_id: str) -> dict:
    hire = _dt.date.fromisoformat(_add_months(_today(), -2))
    return {"employee_id": employee_id, "name": "王磊", "department": "研发部",
            "position": "高级工程师", "hire_date": hire.isoformat(),
            "probation_end_date": _add_months(hire, 3), "salary": 18000, "status": "试用期"}


def confirm_probation(employee_id: str, outcome: str = "pass", effective_date: str | None = None,
                      extend_months: int | None = None) -> dict:
    status = {"pass": "正式", "extend": "试用期（已延长）", "fail": "离职中"}[outcome]
    return {"employee_id": employee_id, "outcome": outcome,
            "effective_date": effective_date or _today().isoformat(), "status": status}


def transfer_employee(employee_id: str, new_department: str, new_position: str | None = None,
                      effective_date: str | None = None) -> dict:
    return {"transfer_id": f"TR{_rng.randint(100000, 999999)}", "employee_id": employee_id,
            "from_department": "研发部", "new_department": new_department,
            "new_position": new_position or "高级工程师",
            "effective_date": effective_date or _next_month_first(), "status": "审批中"}


def adjust_salary(employee_id: str, new_salary: int, effective_date: str | None = None,
                  reason: str = "annual_review") -> dict:
    return {"adjustment_id": f"SA{_rng.randint(100000, 999999)}", "employee_id": employee_id,
            "old_salary": 15000, "new_salary": int(new_salary),
            "effective_date": effective_date or _next_month_first(), "status": "审批中"}


# ---------------- 离职 ----------------

def submit_resignation(employee_id: str, last_work_day: str, resign_type: str = "voluntary",
                       reason: str | None = None) -> dict:
    return {"resignation_id": f"RS{_rng.randint(100000, 999999)}", "employee_id": employee_id,
            "last_work_day": last_work_day, "resign_type": resign_type, "status": "离职中"}


def complete_offboarding(employee_id: str, disable_accounts: bool = True) -> dict:
    return {"employee_id": employee_id, "status": "已离职",
            "accounts_disabled": bool(disable_accounts), "offboard_date": _today().isoformat()}


# ---------------- 社保公积金 ----------------

def social_insurance_add(employee_id: str, city: str, base: int | None = None,
                         effective_month: str | None = None) -> dict:
    return {"record_id": f"SI{_rng.randint(100000, 999999)}", "employee_id": employee_id,
            "city": city, "base": int(base or 12000),
            "effective_month": effective_month or _month(0), "status": "已增员"}


def housing_fund_add(employee_id: str, city: str, base: int | None = None, ratio: float = 0.07,
                     effective_month: str | None = None) -> dict:
    return {"record_id": f"HF{_rng.randint(100000, 999999)}", "employee_id": employee_id,
            "city": city, "base": int(base or 12000), "ratio": float(ratio), "status": "已增员"}


def social_insurance_remove(employee_id: str, effective_month: str | None = None) -> dict:
    return {"employee_id": employee_id, "effective_month": effective_month or _month(1),
            "status": "已减员"}


def housing_fund_remove(employee_id: str, effective_month: str | None = None) -> dict:
    return {"employee_id": employee_id, "effective_month": effective_month or _month(1),
            "status": "已封存"}


def query_social_insurance(employee_id: str, month: str | None = None) -> dict:
    m = month or _month(-1)
    return {"employee_id": employee_id, "records": [
        {"month": m, "kind": "社保", "city": "上海", "base": 12000, "status": "正常缴纳"},
        {"month": m, "kind": "公积金", "city": "上海", "base": 12000, "status": "正常缴纳"},
    ]}
