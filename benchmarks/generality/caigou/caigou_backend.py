"""采购与IT资产后台的桩实现：函数以关键字参数调用，返回与工具 returns 契约一致的 dict。"""
from __future__ import annotations

import datetime as _dt
import itertools as _it
import random as _rnd

_seq = _it.count(1)


def _no(prefix: str, width: int = 10) -> str:
    today = _dt.date.today()
    tail = f"{next(_seq) + _rnd.randint(0, 999):0{width - 6}d}"
    return f"{prefix}{today:%Y%m}{tail}"[: len(prefix) + width]


def _now() -> str:
    return _dt.datetime.now().isoformat(timespec="seconds")


_EMPLOYEES = {
    "E10001": ("测试采购专员", "采购部", "CC-PUR-01"),
    "E10023": ("李娜", "研发一部", "CC-RD-01"),
    "E10045": ("王建国", "财务部", "CC-FIN-01"),
    "E20001": ("测试部门经理", "IT部", "CC-IT-01"),
}


# ---------- 员工 ----------
def search_employee(employee_name: str, department: str | None = None) -> dict:
    for no, (name, dept, cc) in _EMPLOYEES.items():
        if name == employee_name:
            return {"employee_no": no, "employee_name": name, "department": dept,
                    "cost_center": cc, "status": "在职", "match_count": 1}
    return {"employee_no": f"E{_rnd.randint(30000, 39999)}", "employee_name": employee_name,
            "department": department or "研发二部", "cost_center": "CC-RD-02",
            "status": "在职", "match_count": 1}


def get_employee(employee_no: str) -> dict:
    name, dept, cc = _EMPLOYEES.get(employee_no, ("张伟", "产品部", "CC-PD-01"))
    return {"employee_no": employee_no, "employee_name": name, "department": dept,
            "title": "P6", "cost_center": cc, "status": "在职"}


# ---------- 供应商 ----------
def search_supplier(supplier_name: str) -> dict:
    return {"supplier_id": f"S{_rnd.randint(10000, 19999)}", "supplier_name": supplier_name,
            "category": "hardware", "status": "已准入"}


def create_supplier(supplier_name: str, category: str = "hardware", contact_name: str | None = None,
                    contact_phone: str | None = None, tax_no: str | None = None) -> dict:
    return {"supplier_id": f"S{_rnd.randint(20000, 29999)}", "supplier_name": supplier_name,
            "category": category, "status": "待审核"}


# ---------- 预算 ----------
def get_budget_balance(budget_code: str, fiscal_year: int | None = None) -> dict:
    total, used, frozen = 1_200_000.0, 734_560.0, 58_000.0
    return {"budget_code": budget_code, "fiscal_year": fiscal_year or _dt.date.today().year,
            "total": total, "used": used, "frozen": frozen, "available": total - used - frozen}


# ---------- 采购申请 ----------
def create_purchase_request(applicant_no: str, item_name: str, amount: float, budget_code: str,
                            quantity: int = 1, category: str = "hardware", currency: str = "CNY",
                            expected_date: str | None = None) -> dict:
    return {"pr_no": _no("PR"), "status": "草稿", "applicant_no": applicant_no,
            "item_name": item_name, "quantity": quantity, "amount": float(amount),
            "budget_code": budget_code}


def submit_purchase_request(pr_no: str) -> dict:
    return {"pr_no": pr_no, "status": "审批中", "current_approver": "E20001"}


def approve_purchase_request(pr_no: str, approver_no: str, comment: str = "同意") -> dict:
    return {"pr_no": pr_no, "status": "已审批", "approved_at": _now()}


def reject_purchase_request(pr_no: str, reason: str, approver_no: str) -> dict:
    return {"pr_no": pr_no, "status": "已驳回", "reason": reason}


def get_purchase_request(pr_no: str) -> dict:
    return {"pr_no": pr_no, "status": "审批中", "item_name": "ThinkPad T14",
            "amount": 13998.0, "current_approver": "E20001"}


# ---------- 采购订单 / 收货 ----------
def create_purchase_order(pr_no: str, supplier_id: str, payment_terms: str = "net30",
                          delivery_date: str | None = None) -> dict:
    return {"po_no": _no("PO"), "pr_no": pr_no, "supplier_id": supplier_id,
            "status": "已下单", "total_amount": 13998.0}


def get_purchase_order(po_no: str) -> dict:
    return {"po_no": po_no, "status": "部分到货", "supplier_id": "S10001",
            "total_amount": 13998.0, "received_qty": 1, "ordered_qty": 2}


def receive_goods(po_no: str, warehouse_code: str, received_qty: int | None = None) -> dict:
    return {"grn_no": _no("GRN"), "po_no": po_no, "received_qty": received_qty or 2,
            "warehouse_code": warehouse_code, "status": "已入库"}


# ---------- 资产 ----------
def register_asset(asset_type: str, model: str | None = None, serial_no: str | None = None,
                   po_no: str | None = None, grn_no: str | None = None,
                   location: str | None = None) -> dict:
    return {"asset_no": _no("AS"), "asset_type": asset_type,
            "model": model or {"laptop": "ThinkPad T14", "monitor": "Dell P2422H"}.get(asset_type, "通用型号"),
            "status": "在库"}


def assign_asset(asset_no: str, employee_no: str, expected_return_date: str | None = None) -> dict:
    return {"asset_no": asset_no, "employee_no": employee_no, "status": "已领用",
            "assigned_at": _now()}


def return_asset(asset_no: str, asset_condition: str = "good") -> dict:
    return {"asset_no": asset_no, "status": "在库", "asset_condition": asset_condition,
            "returned_by": "E10023"}


def scrap_asset(asset_no: str, reason: str) -> dict:
    return {"asset_no": asset_no, "status": "已报废", "reason": reason, "scrapped_at": _now()}


def get_asset(asset_no: str) -> dict:
    return {"asset_no": asset_no, "asset_type": "laptop", "model": "ThinkPad T14",
            "status": "已领用", "holder_employee_no": "E10023"}


def list_employee_assets(employee_no: str, status: str = "all") -> dict:
    return {"employee_no": employee_no, "assets": [
        {"asset_no": "AS2024000123", "asset_type": "laptop", "status": "已领用"},
        {"asset_no": "AS2024000124", "asset_type": "monitor", "status": "已领用"},
    ]}
