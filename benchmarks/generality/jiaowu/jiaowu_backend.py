"""教务系统测试造数的假后端:返回结构与教务系统接口一致的模拟数据。"""
import random
from datetime import date


def _seq(prefix, n=8):
    return prefix + "".join(random.choice("0123456789") for _ in range(n))


def create_student(name="测试学生", student_type="undergraduate", major_code="080901", grade=2024, gender=None):
    sid = f"{grade}{major_code[:4]}{random.randint(10, 99)}"
    return {"student_id": sid, "name": name, "student_type": student_type,
            "major_code": major_code, "grade": grade, "status": "在读"}


def get_student(student_id):
    return {"student_id": student_id, "name": "测试学生", "major_code": "080901",
            "grade": int(student_id[:4]), "status": "在读"}


def create_course(course_name, credits=2, course_type="required", hours=None):
    return {"course_code": "CS" + str(random.randint(2000, 4999)), "course_name": course_name,
            "credits": credits, "course_type": course_type}


def open_class(course_code, semester="2024-2025-2", teacher_id="100231", capacity=60):
    return {"class_id": f"{course_code}-{random.randint(1, 9):02d}", "course_code": course_code,
            "semester": semester, "teacher_id": teacher_id, "capacity": capacity}


def list_classes(course_code=None, semester=None, teacher_id=None):
    code = course_code or "CS2003"
    return {"classes": [{"class_id": f"{code}-01", "teacher_id": teacher_id or "100231",
                         "capacity": 60, "enrolled": 42}]}


def enroll_course(student_id, class_id, enroll_type="normal"):
    return {"enroll_id": _seq("XK"), "student_id": student_id, "class_id": class_id, "status": "已选"}


def drop_course(student_id, class_id, reason=None):
    return {"student_id": student_id, "class_id": class_id, "status": "已退课"}


def get_student_schedule(student_id, semester=None):
    return {"student_id": student_id, "semester": semester or "2024-2025-2",
            "classes": [{"class_id": "CS2003-01", "course_name": "数据结构", "credits": 4}]}


def enter_grade(student_id, class_id, score, exam_type="normal", teacher_id="100231"):
    return {"grade_id": _seq("CJ"), "student_id": student_id, "class_id": class_id,
            "score": score, "status": "已录入"}


def submit_grade(grade_id):
    return {"grade_id": grade_id, "status": "待审核"}


def review_grade(grade_id, decision="approve", reviewer_id="200018", comment=None):
    return {"grade_id": grade_id, "status": "已发布" if decision == "approve" else "已驳回"}


def get_grades(student_id, semester=None):
    return {"student_id": student_id, "grades": [{"course_code": "CS2003", "score": 86, "status": "已发布"}],
            "gpa": 3.4}


def apply_makeup_exam(student_id, class_id):
    return {"makeup_id": _seq("BK"), "student_id": student_id, "class_id": class_id, "status": "已报名"}


def apply_retake(student_id, course_code, semester="2024-2025-2"):
    return {"retake_id": _seq("CX"), "retake_class_id": f"{course_code}-90", "fee_amount": 360.0,
            "status": "待缴费"}


def apply_status_change(student_id, change_type, reason="个人原因", duration_semesters=2, effective_date=None):
    return {"change_id": _seq("YD"), "student_id": student_id, "change_type": change_type, "status": "待审批"}


def approve_status_change(change_id, decision="approve", approver_id="200018", comment=None):
    return {"change_id": change_id, "status": "已生效" if decision == "approve" else "已驳回"}


def register_resumption(student_id, resume_semester=None):
    return {"student_id": student_id, "status": "在读"}


def create_tuition_bill(student_id, academic_year="2024-2025", fee_type="tuition", amount=5800, deadline=None):
    return {"bill_id": _seq("JF"), "student_id": student_id, "fee_type": fee_type,
            "amount": float(amount), "status": "待缴费"}


def pay_tuition(bill_id, amount=None, pay_channel="wechat"):
    return {"bill_id": bill_id, "paid_amount": float(amount or 0), "status": "已缴清",
            "pay_time": date.today().isoformat()}


def apply_fee_reduction(bill_id, reduction_type, amount=None):
    return {"reduction_id": _seq("JM"), "bill_id": bill_id, "amount": float(amount or 2000), "status": "待审批"}


def approve_fee_reduction(reduction_id, decision="approve", approver_id="200018"):
    return {"reduction_id": reduction_id, "status": "已通过" if decision == "approve" else "已驳回",
            "payable_amount": 3800.0}


def get_tuition_bills(student_id, academic_year=None):
    return {"student_id": student_id, "bills": [{"bill_id": _seq("JF"), "fee_type": "tuition",
                                                 "amount": 5800.0, "status": "待缴费"}]}


def run_graduation_audit(student_id, include_degree=True):
    return {"audit_id": _seq("BY"), "student_id": student_id, "result": "通过",
            "credits_earned": 162.0, "credits_required": 160.0}


def confirm_graduation(student_id, audit_id):
    return {"student_id": student_id, "certificate_no": "1" + _seq("", 17), "status": "已毕业"}


def apply_major_transfer(student_id, target_major_code, reason="个人兴趣"):
    return {"change_id": _seq("YD"), "student_id": student_id, "target_major_code": target_major_code,
            "status": "待审批"}
