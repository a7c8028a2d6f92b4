"""rensha 知识包的 Python 绑定:人事共享服务中心测试环境的造数桩函数。

每个函数对应 tools/*.yaml 里的一个工具,按关键字参数调用,返回符合 `returns` 的 dict。
这里只生成看起来真实的测试数据,不连接任何真实 HR 系统。
"""
from __future__ import annotations

import datetime as _dt
import random as _random

_SURNAMES = "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗"
_GIVEN = ["伟", "芳", "娜", "敏", "静", "磊", "强", "洋", "艳", "杰", "婷", "晨", "宇", "欣怡", "子涵", "浩然"]


def _today() -> _dt.date:
    return _dt.date.today()


def _ymd(d: _dt.date) -> str:
    return d.isoformat()


def _parse(d: str | None, fallback: _dt.date) -> _dt.date:
    if not d:
        return fallback
    try:
        return _dt.date.fromisoformat(str(d))
    except ValueError:
        return fallback


def _serial(prefix: str, digits: int) -> str:
    return prefix + _today().strftime("%Y%m") + str(_random.randint(0, 10 ** (digits - 6) - 1)).zfill(digits - 6)


def _emp_id() -> str:
    return f"E{_random.randint(10000, 99999)}"


def _next_month_first(d: _dt.date) -> _dt.date:
    return (d.replace(day=1) + _dt.timedelta(days=32)).replace(day=1)


def _add_years(d: _dt.date, years: int) -> _dt.date:
    try:
        return d.replace(year=d.year + years)
    except ValueError:  # 2 月 29 日
        return d.replace(year=d.year + years, day=28)


# ---------------- 员工档案 ----------------

def search_employee(name: str) -> dict:
    return {"employee_id": _emp_id(), "name": name, "department": "研发中心",
            "position": "测试工程师", "status": "在职", "matched_count": 1}


def get_employee_profile(employee_id: str) -> dict:
    entry = _today() - _dt.timedelta(days=_random.randint(120, 1500))
    return {"employee_id": employee_id,
            "name": _random.choice(_SURNAMES) + _random.choice(_GIVEN),
            "department": "研发中心", "position": "测试工程师", "employee_type": "full_time",
            "status": "正式", "entry_date": _ymd(entry),
            "contract_end_date": _ymd(_add_years(entry, 3) - _dt.timedelta(days=1)),
            "city": "上海", "mobile": f"138{_random.randint(10000000, 99999999)}",
            "id_card_no": f"310101199{_random.randint(0, 9)}0{_random.randint(1, 9)}1{_random.randint(0, 9)}{_random.randint(1000, 9999)}"}


# ---------------- 入转调离 ----------------

def create_onboarding(department: str, position: str, employee_type: str, name: str | None = None,
                      entry_date: str | None = None, probation_months: int = 3, city: str | None = None,
                      base_salary: float | None = None, mobile: str | None = None) -> dict:
    entry = _parse(entry_date, _today())
    months = 0 if employee_type in ("intern", "outsourced") else probation_months
    probation_end = entry + _dt.timedelta(days=30 * months)
    return {"employee_id": _emp_id(),
            "name": name or _random.choice(_SURNAMES) + _random.choice(_GIVEN),
            "department": department, "position": position, "entry_date": _ymd(entry),
            "city": city or "上海", "status": "试用期" if months else "在职",
            "probation_end_date": _ymd(probation_end)}


def confirm_probation(employee_id: str, rating: str = "B", effective_date: str | None = None,
                      early: bool = False) -> dict:
    d = _parse(effective_date, _today() if early else _next_month_first(_today()))
    return {"employee_id": employee_id, "status": "正式", "regular_date": _ymd(d), "rating": rating}


def transfer_position(employee_id: str, new_department: str, new_position: str | None = None,
                      transfer_type: str = "internal_transfer", effective_date: str | None = None) -> dict:
    d = _parse(effective_date, _next_month_first(_today()))
    return {"transfer_id": _serial("DD", 10), "employee_id": employee_id, "from_department": "研发中心",
            "new_department": new_department, "effective_date": _ymd(d), "status": "待生效"}


def submit_resignation(employee_id: str, resign_type: str = "voluntary",
                       last_working_day: str | None = None, reason: str | None = None) -> dict:
    d = _parse(last_working_day, _today() + _dt.timedelta(days=30))
    return {"resignation_id": _serial("LZ", 10), "employee_id": employee_id,
            "last_working_day": _ymd(d), "status": "待离职"}


def complete_offboarding(resignation_id: str, handover_confirmed: bool = True) -> dict:
    return {"resignation_id": resignation_id, "employee_id": _emp_id(),
            "status": "已离职" if handover_confirmed else "待交接", "leave_date": _ymd(_today())}


# ---------------- 劳动合同 ----------------

def sign_labor_contract(employee_id: str, contract_type: str = "fixed_term", term_years: int = 3,
                        start_date: str | None = None, sign_method: str = "e_sign") -> dict:
    start = _parse(start_date, _today())
    end = "" if contract_type == "open_ended" else _ymd(_add_years(start, term_years) - _dt.timedelta(days=1))
    return {"contract_id": _serial("HT", 10), "employee_id": employee_id, "contract_type": contract_type,
            "start_date": _ymd(start), "end_date": end,
            "status": "待员工签署" if sign_method == "e_sign" else "待打印"}


def renew_labor_contract(employee_id: str, term_years: int, contract_type: str = "fixed_term") -> dict:
    start = _today() + _dt.timedelta(days=_random.randint(10, 60))
    end = "" if contract_type == "open_ended" else _ymd(_add_years(start, term_years) - _dt.timedelta(days=1))
    return {"contract_id": _serial("HT", 10), "employee_id": employee_id,
            "previous_contract_id": _serial("HT", 10), "start_date": _ymd(start), "end_date": end,
            "status": "待员工签署"}


# ---------------- 社保公积金 ----------------

def add_social_insurance(employee_id: str, city: str, base_amount: float | None = None,
                         effective_month: str | None = None) -> dict:
    return {"declare_id": _serial("SB", 10), "employee_id": employee_id, "city": city,
            "effective_month": effective_month or _today().strftime("%Y-%m"), "status": "已申报"}


def add_housing_fund(employee_id: str, city: str, deposit_ratio: float = 0.07,
                     base_amount: float | None = None) -> dict:
    return {"declare_id": _serial("GJ", 10), "employee_id": employee_id, "city": city,
            "account_no": str(_random.randint(10 ** 11, 10 ** 12 - 1)), "status": "已缴存"}


def remove_social_insurance(employee_id: str, reason: str = "resignation",
                            effective_month: str | None = None) -> dict:
    return {"declare_id": _serial("SB", 10), "employee_id": employee_id,
            "effective_month": effective_month or _next_month_first(_today()).strftime("%Y-%m"),
            "status": "已减员"}


def remove_housing_fund(employee_id: str, reason: str = "resignation") -> dict:
    return {"declare_id": _serial("GJ", 10), "employee_id": employee_id, "status": "已封存"}


# ---------------- 证明 ----------------

def issue_employment_certificate(employee_id: str, purpose: str = "other", language: str = "zh") -> dict:
    no = _serial("ZM", 10)
    return {"certificate_no": no, "employee_id": employee_id, "purpose": purpose, "language": language,
            "file_url": f"https://hr-ssc.test.local/certificates/{no}.pdf"}


def issue_income_certificate(employee_id: str, months: int = 12, purpose: str = "other",
                             include_bonus: bool = True) -> dict:
    no = _serial("SR", 10)
    avg = round(_random.uniform(12000, 40000) * (1.15 if include_bonus else 1.0), 2)
    return {"certificate_no": no, "employee_id": employee_id, "months": months,
            "average_monthly_income": avg, "file_url": f"https://hr-ssc.test.local/certificates/{no}.pdf"}


# ---------------- 请假 ----------------

_QUOTA = {"annual": 10, "sick": 12, "personal": 5, "compensatory": 3, "marriage": 13,
          "maternity": 158, "paternity": 10}


def get_leave_balance(employee_id: str | None = None, name: str | None = None,
                      leave_type: str | None = None, year: int | None = None) -> dict:
    types = [leave_type] if leave_type else ["annual", "sick", "personal", "compensatory"]
    balances = []
    for t in types:
        used = _random.choice([0, 0.5, 1, 2, 3])
        balances.append({"leave_type": t, "total_days": _QUOTA[t], "used_days": used,
                         "remaining_days": _QUOTA[t] - used})
    return {"employee_id": employee_id or _emp_id(), "name": name or "", "year": year or _today().year,
            "balances": balances}


def submit_leave_request(employee_id: str, leave_type: str, start_date: str, days: float = 1,
                         reason: str | None = None) -> dict:
    start = _parse(start_date, _today())
    end = start + _dt.timedelta(days=max(int(days + 0.5) - 1, 0))
    return {"leave_id": "QJ" + start.strftime("%Y%m%d") + str(_random.randint(1, 99999)).zfill(5),
            "employee_id": employee_id, "leave_type": leave_type, "start_date": _ymd(start),
            "end_date": _ymd(end), "days": days, "status": "待审批"}


def approve_leave(leave_id: str, approver_id: str, action: str = "approve", comment: str | None = None) -> dict:
    return {"leave_id": leave_id, "status": "已批准" if action == "approve" else "已驳回",
            "approver_id": approver_id, "approved_at": _dt.datetime.now().isoformat(timespec="seconds")}


# ---------------- 薪资 ----------------

def adjust_salary(employee_id: str, new_base_salary: float, effective_date: str | None = None,
                  reason: str = "annual_review") -> dict:
    d = _parse(effective_date, _next_month_first(_today()))
    return {"adjustment_id": _serial("TX", 10), "employee_id": employee_id,
            "old_base_salary": round(float(new_base_salary) / 1.12, -2), "new_base_salary": float(new_base_salary),
            "effective_date": _ymd(d), "status": "待审批"}


def approve_salary_adjustment(adjustment_id: str, approver_id: str, action: str = "approve") -> dict:
    return {"adjustment_id": adjustment_id, "status": "已生效" if action == "approve" else "已驳回",
            "effective_date": _ymd(_next_month_first(_today()))}
