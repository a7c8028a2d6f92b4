"""HR SSC 测试后端的轻量桩：返回结构与真实接口一致的假数据，供 datasmith 造数/查询调用。"""
import datetime as _dt
import random as _rnd

_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林"
_GIVEN = ["伟", "芳", "娜", "敏", "静", "磊", "洋", "勇", "艳", "杰", "涛", "婷"]


def _today():
    return _dt.date.today()


def _id(prefix, width=10):
    return f"{prefix}{_today().year}{_rnd.randint(0, 10 ** (width - 4) - 1):0{width - 4}d}"


def _add_years(d, n):
    try:
        return d.replace(year=d.year + n)
    except ValueError:  # 2月29日
        return d.replace(year=d.year + n, day=28)


def _emp_id():
    return f"E{_today().year}{_rnd.randint(0, 9999):04d}"


def create_employee(name=None, department="研发部", position="软件工程师", employment_type="full_time",
                    hire_date=None, probation_months=3, base_salary=15000, legal_entity=None, id_number=None):
    name = name or _rnd.choice(_SURNAMES) + _rnd.choice(_GIVEN)
    return {"employee_id": _emp_id(), "name": name, "department": department,
            "status": "probation" if probation_months else "active",
            "hire_date": hire_date or _today().isoformat()}


def get_employee_profile(employee_id):
    return {"employee_id": employee_id, "name": "王芳", "department": "研发部", "position": "软件工程师",
            "level": "P6", "hire_date": "2023-03-01", "status": "active", "id_number": "310101199001011234"}


def search_employees(name=None, email=None, department=None, status=None, limit=20):
    item = {"employee_id": _emp_id(), "name": name or "刘洋", "department": department or "研发部",
            "status": status or "active"}
    return {"total": 1, "items": [item][:limit]}


def sign_contract(employee_id, contract_type="fixed_term", term_years=3, start_date=None):
    start = _dt.date.fromisoformat(start_date) if start_date else _today()
    end = None
    if contract_type == "fixed_term":
        end = (_add_years(start, term_years) - _dt.timedelta(days=1)).isoformat()
    return {"contract_id": _id("HT"), "employee_id": employee_id, "contract_type": contract_type,
            "start_date": start.isoformat(), "end_date": end}


def renew_contract(employee_id, term_years):
    start = _today()
    return {"contract_id": _id("HT"), "previous_contract_id": _id("HT"), "start_date": start.isoformat(),
            "end_date": (_add_years(start, term_years) - _dt.timedelta(days=1)).isoformat(),
            "renew_count": 1}


def terminate_contract(employee_id, reason, end_date=None):
    return {"contract_id": _id("HT"), "status": "terminated", "end_date": end_date or _today().isoformat()}


def list_employee_contracts(employee_id):
    return {"contracts": [{"contract_id": _id("HT"), "contract_type": "fixed_term", "start_date": "2023-03-01",
                           "end_date": "2026-02-28", "status": "active"}]}


def list_expiring_contracts(within_days=30, department=None):
    end = (_today() + _dt.timedelta(days=min(within_days, 20))).isoformat()
    return {"items": [{"employee_id": _emp_id(), "name": "陈静", "contract_id": _id("HT"), "end_date": end}]}


def shift_contract_end_date(contract_id, days_to_expire=30):
    return {"contract_id": contract_id, "end_date": (_today() + _dt.timedelta(days=days_to_expire)).isoformat()}


def transfer_employee(employee_id, to_department, to_position=None, effective_date=None):
    return {"change_id": _id("YD"), "from_department": "研发部", "to_department": to_department,
            "effective_date": effective_date or _today().isoformat()}


def adjust_salary(employee_id, new_salary, effective_date=None):
    return {"change_id": _id("TX"), "old_salary": 15000, "new_salary": new_salary,
            "effective_date": effective_date or _today().replace(day=1).isoformat()}


def promote_employee(employee_id, new_level, new_position=None, effective_date=None):
    return {"change_id": _id("JS"), "old_level": "P5", "new_level": new_level,
            "effective_date": effective_date or _today().isoformat()}


def extend_probation(employee_id, extend_months):
    return {"employee_id": employee_id,
            "probation_end_date": (_today() + _dt.timedelta(days=30 * extend_months)).isoformat()}


def confirm_regularization(employee_id, evaluation="qualified", regularization_date=None):
    return {"employee_id": employee_id, "status": "active",
            "regularization_date": regularization_date or _today().isoformat()}


def get_probation_status(employee_id):
    return {"employee_id": employee_id, "probation_status": "in_probation", "probation_start": "2026-03-02",
            "probation_end": "2026-06-01", "extended": False}


def submit_resignation(employee_id, resign_type="voluntary", last_working_day=None, reason_note=None):
    lwd = last_working_day or (_today() + _dt.timedelta(days=30)).isoformat()
    return {"resignation_id": _id("LZ"), "employee_id": employee_id, "status": "pending_approval",
            "last_working_day": lwd}


def approve_resignation(resignation_id):
    return {"resignation_id": resignation_id, "status": "pending_handover"}


def start_handover(resignation_id, handover_to):
    return {"handover_id": _id("JJ"), "resignation_id": resignation_id, "status": "handover_in_progress"}


def complete_handover(resignation_id):
    return {"resignation_id": resignation_id, "status": "pending_settlement"}


def settle_resignation(resignation_id, include_compensation=False):
    amount = 15000 + (60000 if include_compensation else 0)
    return {"settlement_id": _id("JS"), "total_amount": float(amount), "currency": "CNY"}


def get_resignation_progress(employee_id=None, resignation_id=None):
    return {"resignation_id": resignation_id or _id("LZ"), "employee_id": employee_id or _emp_id(),
            "status": "handover_in_progress", "last_working_day": "2026-06-30"}


def si_hf_enroll(employee_id, scope="both", city=None, base_amount=None, start_month=None):
    return {"record_id": _id("SB"), "status": "enrolled", "start_month": start_month or _today().strftime("%Y-%m")}


def si_hf_stop(employee_id, scope="both", stop_month=None):
    return {"record_id": _id("SB"), "status": "stopped"}


def get_si_hf_status(employee_id):
    return {"employee_id": employee_id, "city": "上海",
            "social_insurance": {"status": "paying", "base": 15000, "start_month": "2023-03"},
            "housing_fund": {"status": "paying", "base": 15000, "start_month": "2023-03"}}
