"""人事异动后台的测试桩:返回结构与真实接口一致的假数据。"""
import random
from datetime import date

_NAMES = ["张伟", "李娜", "王芳", "刘洋", "陈静", "赵磊", "孙悦", "周杰"]


def _app_id():
    return "HR" + date.today().strftime("%y%m%d") + "%04d" % random.randint(1, 9999)


def _emp_id():
    return "E%d%04d" % (date.today().year, random.randint(1, 9999))


def find_employee(employee_name, dept_name=None):
    return {"employee_id": _emp_id(), "name": employee_name, "dept_id": "D1203",
            "dept_name": dept_name or "测试中心", "status": "probation"}


def get_employee(employee_id):
    return {"employee_id": employee_id, "name": random.choice(_NAMES), "dept_id": "D1203",
            "position": "测试工程师", "job_level": "P5", "status": "regular",
            "hire_date": "2025-11-03", "manager_id": "E20180033"}


def list_department_employees(dept_id, status=None):
    return {"dept_id": dept_id, "employees": [
        {"employee_id": _emp_id(), "name": n, "status": status or "regular"} for n in _NAMES[:3]]}


def create_test_employee(dept_id, employee_name=None, employment_type="full_time", hire_date=None,
                         probation_months=3, job_level="P4"):
    return {"employee_id": _emp_id(), "name": employee_name or random.choice(_NAMES) + "测试",
            "dept_id": dept_id, "status": "probation"}


def _submitted(node):
    return {"application_id": _app_id(), "status": "in_approval", "current_node": node}


def submit_regularization(employee_id, regularization_date=None, evaluation="good", comment=None,
                          applicant_id=None):
    return _submitted("manager")


def submit_transfer(employee_id, target_dept_id, target_position=None, effective_date=None,
                    transfer_type="same_entity", applicant_id=None):
    return _submitted("dept_head")


def submit_promotion(employee_id, target_level, effective_date=None, applicant_id=None):
    return _submitted("dept_head")


def submit_salary_adjustment(employee_id, new_base_salary=None, adjust_percent=None, reason="annual",
                             effective_date=None, applicant_id=None):
    return _submitted("dept_head")


def submit_secondment(employee_id, host_dept_id, end_date, start_date=None, cost_bearer="origin",
                      applicant_id=None):
    return _submitted("dept_head")


def end_secondment(employee_id, end_date=None):
    return {"employee_id": employee_id, "status": "on_duty",
            "end_date": end_date or date.today().isoformat()}


def submit_resignation(employee_id, last_working_day, resignation_type="voluntary", reason=None,
                       applicant_id=None):
    return _submitted("manager")


def create_handover(employee_id, receiver_id=None):
    return {"handover_id": "JJ%08d" % random.randint(1, 99999999), "status": "handing_over",
            "receiver_id": receiver_id or "E20180033"}


def complete_handover(handover_id):
    return {"handover_id": handover_id, "status": "completed", "employee_status": "resigned"}


def create_attendance_exception(employee_id, date, exception_type="missing_in"):
    punch = "clock_out" if exception_type in ("missing_out", "early_leave") else "clock_in"
    return {"exception_id": "KQ%08d" % random.randint(1, 99999999), "employee_id": employee_id,
            "date": date, "exception_type": exception_type, "punch_type": punch}


def query_attendance_exceptions(employee_id, month=None, exception_type=None):
    return {"employee_id": employee_id, "records": [
        {"exception_id": "KQ20260305", "date": "2026-03-05",
         "exception_type": exception_type or "missing_in", "corrected": False}]}


def submit_attendance_correction(employee_id, date, punch_type="clock_in", punch_time=None,
                                 exception_id=None, reason="忘记打卡"):
    return {"application_id": _app_id(), "status": "in_approval"}


def approve_application(application_id, node=None, approver_id=None, opinion="同意"):
    return {"application_id": application_id, "status": "approved", "next_node": None}


def reject_application(application_id, reason=None):
    return {"application_id": application_id, "status": "rejected"}


def withdraw_application(application_id):
    return {"application_id": application_id, "status": "withdrawn"}


def query_application(application_id):
    return {"application_id": application_id, "app_type": "transfer", "status": "in_approval",
            "current_node": "hrbp", "history": [{"node": "dept_head", "result": "approved"}]}


def list_pending_approvals(approver_id, app_type=None):
    return {"approver_id": approver_id, "items": [
        {"application_id": _app_id(), "app_type": app_type or "regularization",
         "employee_id": _emp_id()}]}


def assign_shift(employee_id, shift_type, start_date, end_date=None):
    return {"schedule_id": "PB%08d" % random.randint(1, 99999999), "status": "draft"}


def publish_schedule(schedule_id):
    return {"schedule_id": schedule_id, "status": "published"}


def query_schedule(employee_id, start_date=None, end_date=None):
    return {"employee_id": employee_id, "days": [{"date": "2026-03-16", "shift_type": "day"}]}
