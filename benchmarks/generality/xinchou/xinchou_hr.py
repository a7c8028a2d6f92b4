"""薪酬福利与考勤 + 招聘 的 HR 系统桩实现(call.python 绑定)。

每个函数用关键字参数调用,返回与工具 `returns` 契约一致、看起来合理的数据。
不连真实系统:编号由计数器 + 日期拼出来,金额按简单规则算。
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import itertools

_seq = itertools.count(1)


def _today() -> _dt.date:
    return _dt.date.today()


def _id(prefix: str, width: int = 4) -> str:
    return f"{prefix}{_today():%y%m%d}{next(_seq):0{width}d}"


def _emp_id_for(name: str) -> str:
    return "E1" + str(int(hashlib.md5(name.encode()).hexdigest(), 16) % 100000).zfill(5)


# ---------- 员工 / 考勤 ----------

def query_employee(name: str, department: str | None = None) -> dict:
    return {
        "employee_id": _emp_id_for(name),
        "name": name,
        "department": department or "研发部",
        "position": "高级工程师",
        "status": "在职",
        "hire_date": "2021-03-15",
    }


def get_attendance_records(employee_id: str | None = None, name: str | None = None,
                           month: str | None = None, date: str | None = None) -> dict:
    eid = employee_id or _emp_id_for(name or "unknown")
    ym = month or f"{_today():%Y-%m}"
    if date:
        records = [{"date": date, "clock_in": "09:12", "clock_out": "19:05", "status": "正常"}]
    else:
        records = [
            {"date": f"{ym}-03", "clock_in": "09:12", "clock_out": "19:05", "status": "正常"},
            {"date": f"{ym}-04", "clock_in": None, "clock_out": "18:40", "status": "缺卡"},
        ]
    return {"employee_id": eid, "records": records,
            "abnormal_count": sum(r["status"] != "正常" for r in records)}


def submit_punch_correction(employee_id: str, date: str, punch_type: str,
                            punch_time: str | None = None, reason: str = "忘记打卡") -> dict:
    return {"application_id": _id("AP"), "status": "pending"}


def submit_overtime(employee_id: str, date: str, hours: float, overtime_type: str = "workday",
                    compensation: str = "comp_leave", reason: str | None = None) -> dict:
    return {"application_id": _id("AP"), "status": "pending", "hours": hours}


def credit_comp_time(employee_id: str, hours: float, source_application_id: str | None = None) -> dict:
    return {"employee_id": employee_id, "credited_hours": hours, "comp_balance_hours": 12 + hours}


def get_leave_balance(employee_id: str | None = None, name: str | None = None,
                      leave_type: str | None = None) -> dict:
    all_bal = [
        {"leave_type": "annual", "remaining": 7.5, "unit": "day"},
        {"leave_type": "sick", "remaining": 5, "unit": "day"},
        {"leave_type": "comp_leave", "remaining": 16, "unit": "hour"},
    ]
    bal = [b for b in all_bal if leave_type in (None, b["leave_type"])] or [
        {"leave_type": leave_type, "remaining": 0, "unit": "day"}]
    return {"employee_id": employee_id or _emp_id_for(name or "unknown"), "name": name or "",
            "balances": bal}


def submit_leave(employee_id: str, leave_type: str, start_date: str, days: float = 1,
                 reason: str | None = None) -> dict:
    return {"application_id": _id("AP"), "leave_id": _id("LV"), "status": "pending"}


def report_back_leave(leave_id: str, actual_days: float | None = None,
                      return_date: str | None = None) -> dict:
    return {"leave_id": leave_id, "status": "closed", "refunded_days": 0}


def approve_application(application_id: str, action: str = "approve",
                        approver_id: str | None = None, comment: str | None = None) -> dict:
    return {"application_id": application_id,
            "status": "approved" if action == "approve" else "rejected",
            "approver_id": approver_id or "E100001"}


# ---------- 薪资 / 奖金 / 社保公积金 / 福利 ----------

def calculate_payroll(month: str, department: str | None = None,
                      employee_id: str | None = None) -> dict:
    headcount = 1 if employee_id else (86 if department else 512)
    return {"payroll_batch_id": f"PR{month.replace('-', '')}{next(_seq):03d}", "month": month,
            "headcount": headcount, "total_gross": round(headcount * 23150.0, 2),
            "status": "calculated"}


def get_payslip(employee_id: str | None = None, name: str | None = None,
                month: str | None = None) -> dict:
    base = 20000.0
    ss, hf = 2100.0, 1400.0
    tax = 1290.0
    return {"employee_id": employee_id or _emp_id_for(name or "unknown"),
            "month": month or f"{_today():%Y-%m}", "base_salary": base, "overtime_pay": 0.0,
            "social_security": ss, "housing_fund": hf, "tax": tax,
            "net_pay": base - ss - hf - tax}


def submit_salary_adjustment(employee_id: str, new_base: float, effective_date: str | None = None,
                             adjust_reason: str = "annual_review") -> dict:
    return {"application_id": _id("AP"), "status": "pending",
            "old_base": round(new_base / 1.12, -2), "new_base": new_base}


def create_bonus(employee_id: str, amount: float, bonus_type: str = "performance",
                 pay_month: str | None = None) -> dict:
    return {"bonus_id": _id("BN"), "application_id": _id("AP"), "amount": amount,
            "status": "pending"}


def pay_bonus(bonus_id: str, pay_channel: str = "with_salary") -> dict:
    return {"bonus_id": bonus_id, "status": "paid" if pay_channel == "separate" else "scheduled",
            "paid_at": _dt.datetime.now().isoformat(timespec="seconds")}


def adjust_contribution_base(employee_id: str, base_amount: float, scope: str = "both",
                             effective_month: str | None = None, city: str | None = None) -> dict:
    return {"employee_id": employee_id, "base_amount": base_amount, "scope": scope,
            "effective_month": effective_month or f"{_today():%Y-%m}",
            "city": city or "上海", "status": "effective"}


def apply_benefit(employee_id: str, benefit_type: str, amount: float | None = None,
                  package: str | None = None, month: str | None = None) -> dict:
    return {"application_id": _id("AP"), "benefit_type": benefit_type, "status": "pending"}


# ---------- 招聘 ----------

def create_hc_request(department: str, position: str, headcount: int = 1,
                      level: str | None = None, reason: str = "new") -> dict:
    return {"hc_id": f"HC{_today():%y}{next(_seq):04d}", "application_id": _id("AP"),
            "status": "pending"}


def create_candidate(name: str, phone: str | None = None, hc_id: str | None = None,
                     email: str | None = None, source: str | None = None) -> dict:
    return {"candidate_id": f"CD{_today():%y%m}{next(_seq):04d}", "name": name,
            "hc_id": hc_id or "HC240001", "stage": "resume"}


def query_candidate(name: str) -> dict:
    return {"candidate_id": f"CD{_today():%y%m}{int(hashlib.md5(name.encode()).hexdigest(), 16) % 10000:04d}",
            "name": name, "hc_id": "HC240001", "stage": "interview"}


def schedule_interview(candidate_id: str, round: str = "first", interview_time: str | None = None,
                       interviewer: str | None = None, mode: str = "video") -> dict:
    when = interview_time or f"{_today() + _dt.timedelta(days=1)} 14:00"
    return {"interview_id": _id("IV"), "candidate_id": candidate_id, "round": round,
            "interview_time": when, "interviewer": interviewer or "李娜"}


def submit_interview_feedback(interview_id: str, result: str, comment: str | None = None) -> dict:
    return {"interview_id": interview_id, "result": result,
            "candidate_stage": "offer_pending" if result == "pass" else "rejected"}


def send_offer(candidate_id: str, base_salary: float, onboard_date: str | None = None,
               level: str | None = None, salary_months: int = 14) -> dict:
    return {"offer_id": _id("OF", 5), "candidate_id": candidate_id, "status": "sent"}
