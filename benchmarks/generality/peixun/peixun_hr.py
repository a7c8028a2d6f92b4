"""peixun 知识包的 python 绑定：培训与绩效后台的桩实现，返回结构合理的 dict。"""
import datetime as _dt
import hashlib as _hl
import random as _random

_NAMES = {"张伟": "E102345", "李娜": "E100872", "王芳": "E103311", "刘洋": "E105566",
          "陈静": "E104420", "赵磊": "E106789", "孙悦": "E108801", "吴敏": "E107230"}


def _num(seed: str, digits: int) -> str:
    h = int(_hl.md5(seed.encode("utf-8")).hexdigest(), 16)
    return str(h % (10 ** digits)).zfill(digits)


def _now() -> str:
    return _dt.datetime.now().isoformat(timespec="seconds")


def find_employee_by_name(employee_name, department=None):
    eid = _NAMES.get(employee_name) or "E1" + _num(employee_name, 5)
    return {"employee_id": eid, "name": employee_name,
            "department": department or "研发中心", "manager_id": "E1" + _num(eid + "m", 5)}


def get_employee(employee_id):
    name = next((n for n, e in _NAMES.items() if e == employee_id), "员工" + employee_id[-3:])
    return {"employee_id": employee_id, "name": name, "department": "研发中心", "level": "P6",
            "manager_id": "E1" + _num(employee_id + "m", 5), "hire_date": "2021-03-15",
            "mobile": "138" + _num(employee_id, 8), "status": "在职"}


def create_course(course_name, category="general", delivery_mode="offline", hours=2):
    return {"course_id": "CRS" + _num(course_name, 4), "course_name": course_name, "status": "已上架"}


def open_class(course_id, start_date, capacity=30, trainer=None, location=None):
    return {"class_id": "CLS" + _num(course_id + str(start_date), 6), "course_id": course_id,
            "start_date": str(start_date), "capacity": int(capacity), "status": "报名中"}


def enroll_employee(class_id, employee_id):
    return {"enrollment_id": "EN" + _num(class_id + employee_id, 8), "class_id": class_id,
            "employee_id": employee_id, "status": "已报名"}


def cancel_enrollment(class_id, employee_id, reason=None):
    return {"status": "已取消", "class_id": class_id, "employee_id": employee_id}


def check_in(class_id, employee_id, check_in_date=None):
    return {"status": "已签到", "check_in_time": _now()}


def complete_training(class_id, employee_id, score=None):
    out = {"status": "已结业"}
    if score is not None:
        out["score"] = float(score)
    return out


def issue_certificate(class_id, employee_id, cert_template=None):
    return {"certificate_no": "CERT" + _num(class_id + employee_id, 8), "issued_at": _now()}


def list_class_roster(class_id):
    students = [{"employee_id": e, "name": n, "status": "已报名"} for n, e in list(_NAMES.items())[:4]]
    return {"class_id": class_id, "total": len(students), "students": students}


def start_review_cycle(cycle_type, department="全公司", goal_deadline=None):
    year = _dt.date.today().year
    suffix = {"quarterly": "Q%d" % ((_dt.date.today().month - 1) // 3 + 1),
              "semiannual": "H%d" % (1 if _dt.date.today().month <= 6 else 2),
              "annual": "Y"}[cycle_type]
    return {"cycle_id": "%d%s" % (year, suffix), "participants": _random.randint(40, 400), "status": "目标填写中"}


def submit_goals(cycle_id, employee_id, goals=None):
    return {"review_id": "PR" + _num(cycle_id + employee_id, 7), "status": "已填目标"}


def submit_self_review(review_id, self_rating, comment=None):
    return {"status": "已自评"}


def submit_manager_rating(review_id, manager_rating, comment=None):
    return {"status": "主管已评"}


def calibrate_rating(review_id, final_rating, calibration_note=None):
    return {"status": "已校准", "final_rating": final_rating}


def confirm_review_result(review_id):
    return {"status": "绩效已确认", "confirmed_at": _now()}


def get_review_result(employee_id, cycle_id):
    return {"employee_id": employee_id, "cycle_id": cycle_id, "review_id": "PR" + _num(cycle_id + employee_id, 7),
            "self_rating": "A", "manager_rating": "B", "final_rating": "B", "status": "绩效已确认"}


def nominate_promotion(employee_id, target_level, reason=None):
    return {"nomination_id": "NM" + _num(employee_id + target_level, 6), "status": "已提名"}


def review_promotion(nomination_id, decision, comment=None):
    return {"nomination_id": nomination_id, "status": "晋升通过" if decision == "approve" else "已驳回"}


def send_360_invitation(employee_id, reviewer_count=5, deadline=None):
    end = deadline or (_dt.date.today() + _dt.timedelta(days=14)).isoformat()
    return {"invitation_id": "INV" + _num(employee_id + str(end), 6), "invited": int(reviewer_count), "deadline": str(end)}


def grant_points(employee_id, points, reason=None):
    return {"transaction_id": "PT" + _num(employee_id + _now(), 8), "balance": 120 + int(points)}


def deduct_points(employee_id, points, reason=None):
    return {"transaction_id": "PT" + _num(employee_id + _now(), 8), "balance": max(0, 120 - int(points))}


def get_points_balance(employee_id):
    return {"employee_id": employee_id, "balance": 120,
            "recent": [{"change": 20, "reason": "培训结业奖励", "at": "2024-06-20"}]}


def export_report(report_type, period=None, department=None, employee_id=None, file_format="xlsx"):
    name = "_".join(x for x in [report_type, period, department, employee_id] if x)
    return {"download_url": "https://hr-files.example.internal/exports/%s.%s" % (name, file_format),
            "rows": _random.randint(1, 500)}
