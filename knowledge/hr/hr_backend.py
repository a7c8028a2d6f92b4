"""A tiny in-memory HR backend for the demo pack: python bindings called as module:function."""

from __future__ import annotations

import itertools

EMPLOYEES = {
    "E1001": {"employee_id": "E1001", "name": "李娜", "department": "研发"},
    "E1002": {"employee_id": "E1002", "name": "王伟", "department": "测试"},
    "E1003": {"employee_id": "E1003", "name": "张敏", "department": "产品"},
}
BALANCES = {
    ("E1001", "annual"): 7.5, ("E1001", "sick"): 5,
    ("E1002", "annual"): 3, ("E1002", "sick"): 5,
    ("E1003", "annual"): 12, ("E1003", "sick"): 4,
}
_ids = itertools.count(1)


def find_employee(name: str) -> dict:
    for emp in EMPLOYEES.values():
        if emp["name"] == name:
            return emp
    raise LookupError(f"no employee named {name}")


def get_leave_balance(employee_id: str, leave_type: str = "annual") -> dict:
    if employee_id not in EMPLOYEES:
        raise LookupError(f"no employee {employee_id}")
    return {"employee_id": employee_id, "name": EMPLOYEES[employee_id]["name"], "leave_type": leave_type,
            "days_left": BALANCES.get((employee_id, leave_type), 0)}


def apply_leave(employee_id: str, days: float, leave_type: str = "annual") -> dict:
    left = get_leave_balance(employee_id, leave_type)["days_left"]
    if days > left:
        raise ValueError(f"{employee_id} has {left} days of {leave_type} leave, {days} asked")
    BALANCES[(employee_id, leave_type)] = left - days
    return {"request_id": f"L{next(_ids):04d}", "employee_id": employee_id, "days": days, "status": "approved",
            "days_left": left - days}
