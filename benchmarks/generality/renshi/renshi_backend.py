"""In-memory HR back office (人事系统) for the `renshi` knowledge pack.

Every tool of the pack is a function called with keyword arguments. State lives
in the module-level dict ``DB``; ``reset()`` restores the seed data.
"""
from __future__ import annotations

import copy
import datetime as _dt
import itertools
import re

_SEED = {
    "employees": {
        "E0001": {"name": "赵敏", "department": "hr", "position": "hrbp", "phone": "13800000001",
                  "email": "zhaomin@corp.example.com", "id_number": "110101198001010011",
                  "hire_date": "2015-03-02", "employment_type": "full_time", "status": "active"},
        "E0002": {"name": "钱坤", "department": "hr", "position": "hrbp", "phone": "13800000002",
                  "email": "qiankun@corp.example.com", "id_number": "110101198202020022",
                  "hire_date": "2016-05-09", "employment_type": "full_time", "status": "active"},
        "E1003": {"name": "张伟", "department": "rd", "position": "engineer", "phone": "13911112222",
                  "email": "zhangwei@corp.example.com", "id_number": "310101199205061234",
                  "hire_date": "2021-07-01", "employment_type": "full_time", "status": "active"},
        "E1005": {"name": "李娜", "department": "product", "position": "pm", "phone": "13922223333",
                  "email": "lina@corp.example.com", "id_number": "440301199308152345",
                  "hire_date": "2022-03-14", "employment_type": "full_time", "status": "active"},
        "E1007": {"name": "陈刚", "department": "sales", "position": "sales_rep", "phone": "13933334444",
                  "email": "chengang@corp.example.com", "id_number": "320102199011113456",
                  "hire_date": "2020-09-01", "employment_type": "contractor", "status": "active"},
        "E1012": {"name": "周敏", "department": "rd", "position": "qa", "phone": "13944445555",
                  "email": "zhoumin@corp.example.com", "id_number": "330106199512124567",
                  "hire_date": "2023-02-20", "employment_type": "full_time", "status": "active"},
        "E1042": {"name": "王芳", "department": "finance", "position": "analyst", "phone": "13955556666",
                  "email": "wangfang@corp.example.com", "id_number": "510104199707075678",
                  "hire_date": "2024-04-01", "employment_type": "full_time", "status": "probation",
                  "probation_end_date": "2024-06-30"},
        "EMP-20231": {"name": "欧阳晨", "department": "rd", "position": "engineer", "phone": "13966667777",
                      "email": "ouyangchen@corp.example.com", "id_number": "420102199809096789",
                      "hire_date": "2024-03-18", "employment_type": "full_time", "status": "probation",
                      "probation_end_date": "2024-06-17"},
    },
    "salaries": {"E1003": 18000.0, "E1005": 20000.0, "E1007": 12000.0, "E1012": 15000.0,
                 "E1042": 13000.0, "EMP-20231": 16000.0, "E0001": 30000.0, "E0002": 26000.0},
    "quotas": {"annual": 10.0, "sick": 12.0, "personal": 5.0, "comp_off": 3.0},
    "leave_used": {},        # (employee_id, leave_type) -> days
    "leaves": {},            # leave_id -> dict
    "punch_corrections": {},
    "accounts": {},          # employee_id -> list of systems
    "equipment": {"E1003": ["AST-000101"], "E1007": ["AST-000102", "AST-000103"]},
    "assets": {"AST-000101": "laptop", "AST-000102": "laptop", "AST-000103": "phone"},
    "resignations": {},
    "handovers": {},
    "salary_adjustments": {},
    "probation_reviews": {},
}

DB: dict = {}
_counter = itertools.count(1)

_EMP_ID = re.compile(r"^(E\d{4}|EMP-\d{5})$")
_LEAVE_ID = re.compile(r"^LV-\d{5,}$")
_DEPARTMENTS = {"rd", "product", "hr", "finance", "sales", "ops"}
_POSITIONS = {"engineer", "pm", "qa", "hrbp", "designer", "analyst", "sales_rep"}
_LEAVE_TYPES = {"annual", "sick", "personal", "comp_off"}
_EQUIPMENT = {"laptop", "monitor", "phone", "badge"}

_PINYIN = {"张": "zhang", "伟": "wei", "李": "li", "娜": "na", "王": "wang", "芳": "fang", "刘": "liu",
           "洋": "yang", "陈": "chen", "静": "jing", "赵": "zhao", "磊": "lei", "孙": "sun", "悦": "yue",
           "欧": "ou", "阳": "yang", "晨": "chen", "周": "zhou", "敏": "min", "林": "lin", "晓": "xiao",
           "杰": "jie", "何": "he", "丽": "li", "宋": "song", "佳": "jia", "徐": "xu", "婷": "ting",
           "吴": "wu", "强": "qiang", "郑": "zheng", "浩": "hao", "黄": "huang", "蕾": "lei"}


def reset() -> None:
    """Restore the seed data."""
    global _counter
    DB.clear()
    DB.update(copy.deepcopy(_SEED))
    _counter = itertools.count(1)


reset()


def _next(prefix: str, width: int = 5) -> str:
    return f"{prefix}{next(_counter):0{width}d}"


def _date(value: str | None, field: str) -> _dt.date | None:
    if value is None:
        return None
    try:
        return _dt.date.fromisoformat(str(value))
    except ValueError as exc:
        raise ValueError(f"{field} must be YYYY-MM-DD, got {value!r}") from exc


def _employee(employee_id: str) -> dict:
    if not _EMP_ID.match(str(employee_id)):
        raise ValueError(f"invalid employee_id {employee_id!r}")
    emp = DB["employees"].get(employee_id)
    if emp is None:
        raise LookupError(f"employee {employee_id} not found")
    return emp


def _leave(leave_id: str) -> dict:
    if not _LEAVE_ID.match(str(leave_id)):
        raise ValueError(f"invalid leave_id {leave_id!r}")
    leave = DB["leaves"].get(leave_id)
    if leave is None:
        raise LookupError(f"leave request {leave_id} not found")
    return leave


# ---------------------------------------------------------------- 员工档案

def find_employee(name: str, department: str | None = None) -> dict:
    matches = [(eid, e) for eid, e in DB["employees"].items()
               if e["name"] == name and (department is None or e["department"] == department)]
    if not matches:
        raise LookupError(f"no employee named {name}" + (f" in {department}" if department else ""))
    active = [m for m in matches if m[1]["status"] != "resigned"] or matches
    eid, emp = active[0]
    return {"employee_id": eid, "name": emp["name"], "department": emp["department"],
            "position": emp["position"], "status": emp["status"]}


def get_employee(employee_id: str) -> dict:
    emp = _employee(employee_id)
    fields = ("name", "department", "position", "phone", "email", "id_number",
              "hire_date", "employment_type", "status")
    return {"employee_id": employee_id, **{k: emp[k] for k in fields if emp.get(k) is not None}}


def _email_for(name: str) -> str:
    local = "".join(_PINYIN.get(ch, "") for ch in name) or "newhire"
    candidate, n = f"{local}@corp.example.com", 1
    taken = {e["email"] for e in DB["employees"].values()}
    while candidate in taken:
        n += 1
        candidate = f"{local}{n}@corp.example.com"
    return candidate


def create_employee(name: str, department: str, position: str, hire_date: str,
                    phone: str | None = None, email: str | None = None,
                    id_number: str | None = None, employment_type: str = "full_time",
                    probation_months: int = 3) -> dict:
    if department not in _DEPARTMENTS:
        raise ValueError(f"unknown department {department!r}")
    if position not in _POSITIONS:
        raise ValueError(f"unknown position {position!r}")
    start = _date(hire_date, "hire_date")
    numbers = [int(k[1:]) for k in DB["employees"] if re.fullmatch(r"E\d{4}", k)]
    employee_id = f"E{max(numbers, default=1000) + 1:04d}"
    email = email or _email_for(name)
    month = start.month - 1 + int(probation_months)
    year = start.year + month // 12
    month = month % 12 + 1
    day = min(start.day, 28)
    probation_end = _dt.date(year, month, day) - _dt.timedelta(days=1)
    status = "probation" if probation_months else "active"
    DB["employees"][employee_id] = {
        "name": name, "department": department, "position": position, "phone": phone,
        "email": email, "id_number": id_number, "hire_date": start.isoformat(),
        "employment_type": employment_type, "status": status,
        "probation_end_date": probation_end.isoformat(),
    }
    DB["salaries"].setdefault(employee_id, 10000.0)
    return {"employee_id": employee_id, "name": name, "email": email, "status": status,
            "probation_end_date": probation_end.isoformat()}


def list_department_members(department: str, position: str | None = None,
                            include_resigned: bool = False) -> dict:
    if department not in _DEPARTMENTS:
        raise ValueError(f"unknown department {department!r}")
    members = [{"employee_id": eid, "name": e["name"], "position": e["position"], "status": e["status"]}
               for eid, e in DB["employees"].items()
               if e["department"] == department
               and (position is None or e["position"] == position)
               and (include_resigned or e["status"] != "resigned")]
    return {"department": department, "total": len(members), "members": members}


# ---------------------------------------------------------------- 假期

def get_leave_balance(employee_id: str, leave_type: str = "annual") -> dict:
    _employee(employee_id)
    if leave_type not in _LEAVE_TYPES:
        raise ValueError(f"unknown leave_type {leave_type!r}")
    quota = DB["quotas"][leave_type]
    used = DB["leave_used"].get((employee_id, leave_type), 0.0)
    return {"employee_id": employee_id, "leave_type": leave_type, "quota_days": quota,
            "used_days": used, "remaining_days": quota - used}


def submit_leave_request(employee_id: str, leave_type: str, start_date: str, days: float,
                         reason: str | None = None) -> dict:
    _employee(employee_id)
    if leave_type not in _LEAVE_TYPES:
        raise ValueError(f"unknown leave_type {leave_type!r}")
    days = float(days)
    if days < 0.5 or days > 30 or (days * 2) != int(days * 2):
        raise ValueError("days must be a multiple of 0.5 between 0.5 and 30")
    balance = get_leave_balance(employee_id, leave_type)["remaining_days"]
    if days > balance:
        raise ValueError(f"insufficient {leave_type} balance: {balance} < {days}")
    start = _date(start_date, "start_date")
    end = start + _dt.timedelta(days=max(int(days + 0.5) - 1, 0))
    leave_id = _next("LV-", 6)
    DB["leaves"][leave_id] = {"leave_id": leave_id, "employee_id": employee_id,
                              "leave_type": leave_type, "start_date": start.isoformat(),
                              "end_date": end.isoformat(), "days": days, "reason": reason,
                              "status": "pending"}
    return dict(DB["leaves"][leave_id])


def approve_leave(leave_id: str, approver_id: str, decision: str = "approve",
                  comment: str | None = None) -> dict:
    leave = _leave(leave_id)
    _employee(approver_id)
    if leave["status"] != "pending":
        raise ValueError(f"leave {leave_id} is {leave['status']}, not pending")
    if decision not in ("approve", "reject"):
        raise ValueError(f"unknown decision {decision!r}")
    leave["status"] = "approved" if decision == "approve" else "rejected"
    leave["approver_id"], leave["comment"] = approver_id, comment
    if decision == "approve":
        key = (leave["employee_id"], leave["leave_type"])
        DB["leave_used"][key] = DB["leave_used"].get(key, 0.0) + leave["days"]
    return {"leave_id": leave_id, "status": leave["status"], "approver_id": approver_id}


def close_leave(leave_id: str, actual_return_date: str | None = None) -> dict:
    leave = _leave(leave_id)
    if leave["status"] != "approved":
        raise ValueError(f"leave {leave_id} is {leave['status']}, only approved leave can be closed")
    actual_days = leave["days"]
    if actual_return_date is not None:
        back = _date(actual_return_date, "actual_return_date")
        start = _dt.date.fromisoformat(leave["start_date"])
        actual_days = min(leave["days"], float(max((back - start).days, 0)))
        key = (leave["employee_id"], leave["leave_type"])
        DB["leave_used"][key] = DB["leave_used"].get(key, 0.0) - (leave["days"] - actual_days)
    leave["status"], leave["actual_days"] = "closed", actual_days
    return {"leave_id": leave_id, "status": "closed", "actual_days": actual_days}


# ---------------------------------------------------------------- 考勤

def submit_punch_correction(employee_id: str, date: str, punch_type: str,
                            punch_time: str | None = None, reason: str = "忘记打卡") -> dict:
    _employee(employee_id)
    day = _date(date, "date")
    if punch_type not in ("clock_in", "clock_out"):
        raise ValueError(f"unknown punch_type {punch_type!r}")
    if punch_time is not None and not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", punch_time):
        raise ValueError(f"punch_time must be HH:MM, got {punch_time!r}")
    correction_id = _next("PC-")
    DB["punch_corrections"][correction_id] = {
        "employee_id": employee_id, "date": day.isoformat(), "punch_type": punch_type,
        "punch_time": punch_time, "reason": reason, "status": "pending"}
    return {"correction_id": correction_id, "employee_id": employee_id, "date": day.isoformat(),
            "punch_type": punch_type, "status": "pending"}


# ---------------------------------------------------------------- 入职 / 离职

def provision_accounts(employee_id: str, email: str, vpn: bool = False) -> dict:
    emp = _employee(employee_id)
    if "@" not in email:
        raise ValueError(f"invalid email {email!r}")
    systems = ["email", "wecom", "oa"] + (["vpn"] if vpn else [])
    DB["accounts"][employee_id] = systems
    emp["email"] = email
    return {"employee_id": employee_id, "accounts": list(systems), "vpn": bool(vpn)}


def revoke_accounts(employee_id: str, keep_email_days: int = 30) -> dict:
    _employee(employee_id)
    if not 0 <= int(keep_email_days) <= 90:
        raise ValueError("keep_email_days must be between 0 and 90")
    revoked = DB["accounts"].pop(employee_id, ["email", "wecom", "oa"])
    off = _dt.date.today() + _dt.timedelta(days=int(keep_email_days))
    return {"employee_id": employee_id, "revoked": list(revoked), "email_disabled_on": off.isoformat()}


def assign_equipment(employee_id: str, equipment_type: str = "laptop", quantity: int = 1) -> dict:
    _employee(employee_id)
    if equipment_type not in _EQUIPMENT:
        raise ValueError(f"unknown equipment_type {equipment_type!r}")
    if not 1 <= int(quantity) <= 3:
        raise ValueError("quantity must be between 1 and 3")
    tags = []
    for _ in range(int(quantity)):
        tag = _next("AST-", 6)
        DB["assets"][tag] = equipment_type
        tags.append(tag)
    DB["equipment"].setdefault(employee_id, []).extend(tags)
    return {"employee_id": employee_id, "equipment_type": equipment_type, "asset_tags": tags}


def return_equipment(employee_id: str, equipment_type: str | None = None) -> dict:
    _employee(employee_id)
    held = DB["equipment"].get(employee_id, [])
    returned = [t for t in held if equipment_type is None or DB["assets"].get(t) == equipment_type]
    DB["equipment"][employee_id] = [t for t in held if t not in returned]
    return {"employee_id": employee_id, "returned": returned,
            "outstanding": len(DB["equipment"][employee_id])}


def submit_resignation(employee_id: str, last_working_day: str, resignation_type: str = "voluntary",
                       reason: str | None = None) -> dict:
    emp = _employee(employee_id)
    if resignation_type not in ("voluntary", "dismissal", "contract_end"):
        raise ValueError(f"unknown resignation_type {resignation_type!r}")
    day = _date(last_working_day, "last_working_day")
    resignation_id = _next("RS-")
    DB["resignations"][resignation_id] = {"employee_id": employee_id, "last_working_day": day.isoformat(),
                                          "resignation_type": resignation_type, "reason": reason}
    emp["status"] = "leaving"
    return {"resignation_id": resignation_id, "employee_id": employee_id,
            "last_working_day": day.isoformat(), "status": "leaving"}


def create_handover(employee_id: str, handover_to: str, due_date: str | None = None,
                    items: str | None = None) -> dict:
    _employee(employee_id)
    if _EMP_ID.match(handover_to):
        _employee(handover_to)
    else:
        find_employee(handover_to)
    if due_date is not None:
        _date(due_date, "due_date")
    handover_id = _next("HO-")
    DB["handovers"][handover_id] = {"employee_id": employee_id, "handover_to": handover_to,
                                    "due_date": due_date, "items": items, "status": "open"}
    return {"handover_id": handover_id, "employee_id": employee_id, "handover_to": handover_to,
            "status": "open"}


# ---------------------------------------------------------------- 薪资 / 转正

def submit_salary_adjustment(employee_id: str, new_base_salary: float, effective_date: str,
                             currency: str = "CNY", reason: str | None = None) -> dict:
    _employee(employee_id)
    if not 0 < float(new_base_salary) <= 1_000_000:
        raise ValueError("new_base_salary must be in (0, 1000000]")
    if currency not in ("CNY", "USD", "HKD"):
        raise ValueError(f"unknown currency {currency!r}")
    day = _date(effective_date, "effective_date")
    old = DB["salaries"].get(employee_id, 0.0)
    adjustment_id = _next("SA-")
    DB["salary_adjustments"][adjustment_id] = {"employee_id": employee_id, "old": old,
                                               "new": float(new_base_salary), "currency": currency,
                                               "effective_date": day.isoformat(), "reason": reason}
    DB["salaries"][employee_id] = float(new_base_salary)
    return {"adjustment_id": adjustment_id, "employee_id": employee_id, "old_base_salary": old,
            "new_base_salary": float(new_base_salary), "currency": currency,
            "effective_date": day.isoformat(), "status": "pending_approval"}


def get_payslip(employee_id: str, month: str) -> dict:
    _employee(employee_id)
    if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", month):
        raise ValueError(f"month must be YYYY-MM, got {month!r}")
    gross = DB["salaries"].get(employee_id, 10000.0)
    social, fund = round(gross * 0.105, 2), round(gross * 0.07, 2)
    taxable = max(gross - social - fund - 5000, 0)
    tax = round(taxable * 0.1 - 210 if taxable > 3000 else taxable * 0.03, 2)
    return {"employee_id": employee_id, "month": month, "gross_pay": gross,
            "social_insurance": social, "housing_fund": fund, "income_tax": tax,
            "net_pay": round(gross - social - fund - tax, 2), "currency": "CNY"}


def submit_probation_review(employee_id: str, result: str = "pass", score: int | None = None,
                            effective_date: str | None = None) -> dict:
    emp = _employee(employee_id)
    if result not in ("pass", "extend", "fail"):
        raise ValueError(f"unknown result {result!r}")
    if score is not None and not 1 <= int(score) <= 5:
        raise ValueError("score must be between 1 and 5")
    if effective_date is None:
        end = emp.get("probation_end_date")
        day = (_dt.date.fromisoformat(end) + _dt.timedelta(days=1)) if end else _dt.date.today()
    else:
        day = _date(effective_date, "effective_date")
    review_id = _next("PR-")
    DB["probation_reviews"][review_id] = {"employee_id": employee_id, "result": result,
                                          "score": score, "effective_date": day.isoformat()}
    if result == "pass":
        emp["status"] = "active"
    elif result == "fail":
        emp["status"] = "leaving"
    return {"review_id": review_id, "employee_id": employee_id, "result": result,
            "effective_date": day.isoformat(), "status": emp["status"]}
