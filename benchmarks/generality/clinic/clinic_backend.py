"""In-memory backend for the `clinic` knowledge pack (门诊/住院测试系统).

Every tool in tools/*.yaml binds to a function here (``clinic_backend:<name>``),
called with keyword arguments. State lives in the module-level ``DB`` dict;
``reset()`` restores the seed data.
"""
from __future__ import annotations

import datetime as _dt
import itertools
import threading

_LOCK = threading.RLock()

DEPARTMENTS = [
    "internal", "cardiology", "surgery", "orthopedics", "pediatrics", "gynecology",
    "ophthalmology", "dental", "dermatology", "ent", "emergency",
]
DEPT_CN = {
    "internal": "内科", "cardiology": "心内科", "surgery": "外科", "orthopedics": "骨科",
    "pediatrics": "儿科", "gynecology": "妇产科", "ophthalmology": "眼科", "dental": "口腔科",
    "dermatology": "皮肤科", "ent": "耳鼻喉科", "emergency": "急诊科",
}
REG_FEE = {"normal": 10.0, "expert": 50.0}
EXAM_FEE = {"ct": 320.0, "mri": 680.0, "ultrasound": 150.0, "blood_routine": 25.0,
            "ecg": 40.0, "xray": 90.0}
DRUG_PRICE = {"阿莫西林胶囊": 18.5, "阿莫西林": 18.5, "布洛芬": 22.0, "头孢克肟": 36.0}
DEFAULT_DRUG_PRICE = 20.0
BED_DAILY_FEE = {"general": 60.0, "vip": 400.0}
INSURANCE_RATIO = 0.7
PAY_METHODS = {"insurance", "wechat", "alipay", "cash", "bank_card"}

DB: dict = {}
_counters: dict = {}


class ClinicError(Exception):
    """A business error raised by the fake HIS."""


def _today() -> str:
    return _dt.date.today().isoformat()


def _parse_date(value: str | None, field: str) -> str:
    if value is None:
        return _today()
    try:
        return _dt.date.fromisoformat(value).isoformat()
    except (TypeError, ValueError):
        raise ClinicError(f"{field} 不是合法日期 (YYYY-MM-DD): {value!r}") from None


def _next(kind: str, prefix: str, width: int) -> str:
    return f"{prefix}{next(_counters[kind]):0{width}d}"


def reset() -> None:
    """Restore the seed data (patients, doctors, beds)."""
    with _LOCK:
        DB.clear()
        DB.update(patients={}, doctors={}, registrations={}, bills={}, exams={},
                  prescriptions={}, beds={}, admissions={}, settlements={})
        _counters.clear()
        _counters.update(
            patient=itertools.count(202401001),
            reg=itertools.count(20250001), bill=itertools.count(20250001),
            exam=itertools.count(20250001), rx=itertools.count(20250001),
            admission=itertools.count(20250001), settlement=itertools.count(20250001),
            queue=itertools.count(1),
        )
        for pid, name, gender, phone, id_card, birth in [
            ("P202400123", "张三", "male", "13800138000", "110101199003071234", "1990-03-07"),
            ("P202400456", "李小红", "female", "13900139000", "320102201505051228", "2015-05-05"),
            ("P202400789", "王芳", "female", "15000150000", "440305198808081246", "1988-08-08"),
        ]:
            DB["patients"][pid] = dict(patient_id=pid, name=name, gender=gender, phone=phone,
                                       id_card=id_card, birth_date=birth, email=None)
        n = 1
        for dept in DEPARTMENTS:
            for reg_type in ("normal", "expert"):
                did = f"D{n:04d}"
                title = "主任医师" if reg_type == "expert" else "住院医师"
                DB["doctors"][did] = dict(doctor_id=did, doctor_name=f"{DEPT_CN[dept]}{title}{n}",
                                          department=dept, reg_type=reg_type)
                n += 1
        DB["doctors"]["D0042"] = dict(doctor_id="D0042", doctor_name="心内科主任医师周明",
                                      department="cardiology", reg_type="expert")
        for i, dept in enumerate(DEPARTMENTS, start=1):
            for b in range(1, 7):
                bed_id = f"W{i:02d}-{b:02d}"
                DB["beds"][bed_id] = dict(bed_id=bed_id, department=dept,
                                          ward_type="vip" if b >= 5 else "general",
                                          occupied_by=None)


reset()


def _get(table: str, key: str, label: str) -> dict:
    row = DB[table].get(key)
    if row is None:
        raise ClinicError(f"{label} {key} 不存在")
    return row


def _new_bill(item: str, amount: float, ref: str) -> dict:
    bill_id = _next("bill", "JF", 8)
    bill = dict(bill_id=bill_id, item=item, amount=round(float(amount), 2), paid_amount=0.0,
                status="unpaid", ref=ref, pay_method=None)
    DB["bills"][bill_id] = bill
    return bill


# ---------------------------------------------------------------- patients

def find_patient(*, phone: str) -> dict:
    with _LOCK:
        for p in DB["patients"].values():
            if p["phone"] == phone:
                return {k: p[k] for k in ("patient_id", "name", "phone", "id_card")}
        raise ClinicError(f"未找到手机号 {phone} 的患者,请先建档")


def get_patient(*, patient_id: str) -> dict:
    with _LOCK:
        return dict(_get("patients", patient_id, "患者"))


def create_patient(*, name: str, id_card: str, phone: str, gender: str | None = None,
                   birth_date: str | None = None, email: str | None = None) -> dict:
    with _LOCK:
        id_card = id_card.upper()
        for p in DB["patients"].values():
            if p["id_card"] == id_card:
                raise ClinicError(f"身份证号已建档,患者ID {p['patient_id']}")
        if birth_date is None and len(id_card) == 18:
            try:
                birth_date = _dt.date(int(id_card[6:10]), int(id_card[10:12]),
                                      int(id_card[12:14])).isoformat()
            except ValueError:
                birth_date = None
        else:
            birth_date = _parse_date(birth_date, "birth_date") if birth_date else None
        if gender is None and len(id_card) == 18 and id_card[16].isdigit():
            gender = "male" if int(id_card[16]) % 2 else "female"
        pid = f"P{next(_counters['patient']):09d}"
        DB["patients"][pid] = dict(patient_id=pid, name=name, gender=gender or "unknown",
                                   phone=phone, id_card=id_card, birth_date=birth_date,
                                   email=email)
        return {"patient_id": pid, "name": name}


# ---------------------------------------------------------------- outpatient

def find_doctor(*, department: str, reg_type: str = "normal",
                visit_date: str | None = None) -> dict:
    with _LOCK:
        _parse_date(visit_date, "visit_date")
        for d in DB["doctors"].values():
            if d["department"] == department and d["reg_type"] == reg_type:
                return dict(d, fee=REG_FEE[reg_type])
        raise ClinicError(f"{DEPT_CN.get(department, department)} 当天无 {reg_type} 号出诊")


def register_visit(*, patient_id: str, doctor_id: str, reg_type: str = "normal",
                   visit_date: str | None = None, is_first_visit: bool = False) -> dict:
    with _LOCK:
        _get("patients", patient_id, "患者")
        doctor = _get("doctors", doctor_id, "医生")
        if reg_type == "expert" and doctor["reg_type"] != "expert":
            raise ClinicError(f"医生 {doctor_id} 不出专家号")
        date = _parse_date(visit_date, "visit_date")
        if date < _today():
            raise ClinicError("不能挂过去日期的号")
        reg_id = _next("reg", "GH", 8)
        fee = REG_FEE[reg_type]
        bill = _new_bill("挂号费", fee, reg_id)
        reg = dict(reg_id=reg_id, patient_id=patient_id, doctor_id=doctor_id, reg_type=reg_type,
                   visit_date=date, is_first_visit=bool(is_first_visit), bill_id=bill["bill_id"],
                   fee=fee, status="unpaid", queue_no=None)
        DB["registrations"][reg_id] = reg
        return {k: reg[k] for k in ("reg_id", "bill_id", "patient_id", "doctor_id", "fee", "status")}


def get_registration(*, reg_id: str) -> dict:
    with _LOCK:
        reg = _get("registrations", reg_id, "挂号单")
        return {k: reg[k] for k in ("reg_id", "patient_id", "doctor_id", "reg_type", "visit_date",
                                    "bill_id", "fee", "status")}


def cancel_registration(*, reg_id: str, reason: str | None = None, refund: bool = True) -> dict:
    with _LOCK:
        reg = _get("registrations", reg_id, "挂号单")
        if reg["status"] == "cancelled":
            raise ClinicError(f"挂号单 {reg_id} 已退号")
        bill = DB["bills"][reg["bill_id"]]
        refund_amount = 0.0
        if refund and bill["paid_amount"] > 0:
            refund_amount = bill["paid_amount"]
            bill["status"] = "refunded"
        reg.update(status="cancelled", cancel_reason=reason)
        return {"reg_id": reg_id, "status": "cancelled", "refund_amount": refund_amount}


def check_in(*, reg_id: str) -> dict:
    with _LOCK:
        reg = _get("registrations", reg_id, "挂号单")
        if reg["status"] != "paid":
            raise ClinicError(f"挂号单 {reg_id} 状态为 {reg['status']},缴费后才能签到")
        reg.update(status="checked_in", queue_no=next(_counters["queue"]))
        return {"reg_id": reg_id, "status": "checked_in", "queue_no": reg["queue_no"]}


# ---------------------------------------------------------------- billing

def pay_bill(*, bill_id: str, pay_method: str | None = None, amount: float | None = None,
             operator_id: str | None = None) -> dict:
    with _LOCK:
        bill = _get("bills", bill_id, "账单")
        if bill["status"] in ("paid", "refunded"):
            raise ClinicError(f"账单 {bill_id} 状态为 {bill['status']},不能重复缴费")
        method = pay_method or "wechat"
        if method not in PAY_METHODS:
            raise ClinicError(f"不支持的支付方式 {method}")
        due = round(bill["amount"] - bill["paid_amount"], 2)
        pay = due if amount is None else round(float(amount), 2)
        if pay <= 0 or pay > due:
            raise ClinicError(f"缴费金额 {pay} 不合法,应付 {due} 元")
        bill["paid_amount"] = round(bill["paid_amount"] + pay, 2)
        bill["pay_method"] = method
        bill["operator_id"] = operator_id
        bill["status"] = "paid" if bill["paid_amount"] >= bill["amount"] else "partial"
        if bill["status"] == "paid":
            ref = bill["ref"]
            for table in ("registrations", "exams", "prescriptions"):
                row = DB[table].get(ref)
                if row is not None and row["status"] in ("unpaid", "booked", "prescribed"):
                    row["status"] = "paid"
        return {"bill_id": bill_id, "status": bill["status"], "paid_amount": pay,
                "pay_method": method}


def get_bill(*, bill_id: str) -> dict:
    with _LOCK:
        bill = _get("bills", bill_id, "账单")
        return {k: bill[k] for k in ("bill_id", "item", "amount", "paid_amount", "status")}


# ---------------------------------------------------------------- exams & drugs

def book_exam(*, patient_id: str, exam_type: str, exam_date: str, urgent: bool = False) -> dict:
    with _LOCK:
        _get("patients", patient_id, "患者")
        date = _parse_date(exam_date, "exam_date")
        exam_id = _next("exam", "JC", 8)
        fee = EXAM_FEE[exam_type] * (1.5 if urgent else 1.0)
        bill = _new_bill(f"检查费-{exam_type}", fee, exam_id)
        DB["exams"][exam_id] = dict(exam_id=exam_id, patient_id=patient_id, exam_type=exam_type,
                                    exam_date=date, urgent=bool(urgent), bill_id=bill["bill_id"],
                                    fee=bill["amount"], status="booked")
        return {"exam_id": exam_id, "bill_id": bill["bill_id"], "exam_date": date,
                "fee": bill["amount"], "status": "booked"}


def create_prescription(*, reg_id: str, doctor_id: str, drug_name: str, quantity: int = 1,
                        days: int = 3) -> dict:
    with _LOCK:
        reg = _get("registrations", reg_id, "挂号单")
        _get("doctors", doctor_id, "医生")
        if reg["status"] == "cancelled":
            raise ClinicError(f"挂号单 {reg_id} 已退号,不能开处方")
        if reg["status"] == "unpaid":
            raise ClinicError(f"挂号单 {reg_id} 未缴费,不能开处方")
        rx_id = _next("rx", "RX", 8)
        amount = DRUG_PRICE.get(drug_name, DEFAULT_DRUG_PRICE) * int(quantity)
        bill = _new_bill(f"药费-{drug_name}", amount, rx_id)
        DB["prescriptions"][rx_id] = dict(rx_id=rx_id, reg_id=reg_id, doctor_id=doctor_id,
                                          drug_name=drug_name, quantity=int(quantity),
                                          days=int(days), bill_id=bill["bill_id"],
                                          status="prescribed")
        return {"rx_id": rx_id, "bill_id": bill["bill_id"], "amount": bill["amount"],
                "status": "prescribed"}


def get_prescription(*, rx_id: str) -> dict:
    with _LOCK:
        return dict(_get("prescriptions", rx_id, "处方"))


def dispense_drug(*, rx_id: str, window: int = 1) -> dict:
    with _LOCK:
        rx = _get("prescriptions", rx_id, "处方")
        if rx["status"] != "paid":
            raise ClinicError(f"处方 {rx_id} 状态为 {rx['status']},缴费后才能取药")
        rx.update(status="dispensed", window=int(window))
        return {"rx_id": rx_id, "status": "dispensed", "window": int(window)}


# ---------------------------------------------------------------- inpatient

def find_bed(*, department: str, ward_type: str = "general") -> dict:
    with _LOCK:
        for bed in DB["beds"].values():
            if bed["department"] == department and bed["ward_type"] == ward_type \
                    and bed["occupied_by"] is None:
                return {"bed_id": bed["bed_id"], "department": department,
                        "ward_type": ward_type, "daily_fee": BED_DAILY_FEE[ward_type]}
        raise ClinicError(f"{DEPT_CN.get(department, department)} 没有空闲的 {ward_type} 床位")


def admit_inpatient(*, patient_id: str, department: str, bed_id: str,
                    ward_type: str = "general", admit_date: str | None = None,
                    deposit: float | None = None) -> dict:
    with _LOCK:
        _get("patients", patient_id, "患者")
        bed = _get("beds", bed_id, "床位")
        if bed["occupied_by"] is not None:
            raise ClinicError(f"床位 {bed_id} 已被占用")
        if bed["department"] != department:
            raise ClinicError(f"床位 {bed_id} 不属于 {DEPT_CN.get(department, department)}")
        for adm in DB["admissions"].values():
            if adm["patient_id"] == patient_id and adm["status"] == "in_hospital":
                raise ClinicError(f"患者 {patient_id} 已在院,住院号 {adm['admission_id']}")
        admission_id = _next("admission", "ZY", 8)
        deposit_bill_id = None
        if deposit:
            deposit_bill_id = _new_bill("住院押金", deposit, admission_id)["bill_id"]
        bed["occupied_by"] = patient_id
        DB["admissions"][admission_id] = dict(
            admission_id=admission_id, patient_id=patient_id, department=department,
            bed_id=bed_id, ward_type=bed["ward_type"],
            admit_date=_parse_date(admit_date, "admit_date"),
            deposit_bill_id=deposit_bill_id, status="in_hospital")
        return {"admission_id": admission_id, "deposit_bill_id": deposit_bill_id,
                "bed_id": bed_id, "status": "in_hospital"}


def find_admission(*, patient_id: str) -> dict:
    with _LOCK:
        for adm in DB["admissions"].values():
            if adm["patient_id"] == patient_id and adm["status"] == "in_hospital":
                return {k: adm[k] for k in ("admission_id", "patient_id", "department", "bed_id",
                                            "admit_date", "status")}
        raise ClinicError(f"患者 {patient_id} 当前没有在院记录")


def discharge_settle(*, admission_id: str, discharge_date: str | None = None,
                     use_insurance: bool = True, invoice_email: str | None = None) -> dict:
    with _LOCK:
        adm = _get("admissions", admission_id, "住院记录")
        if adm["status"] != "in_hospital":
            raise ClinicError(f"住院号 {admission_id} 已出院")
        out = _parse_date(discharge_date, "discharge_date")
        if out < adm["admit_date"]:
            raise ClinicError("出院日期早于入院日期")
        days = max(1, (_dt.date.fromisoformat(out) - _dt.date.fromisoformat(adm["admit_date"])).days)
        total = round(days * BED_DAILY_FEE[adm["ward_type"]] + 200.0, 2)  # 床位费 + 诊疗费
        insurance_paid = round(total * INSURANCE_RATIO, 2) if use_insurance else 0.0
        self_paid = round(total - insurance_paid, 2)
        deposit = 0.0
        if adm["deposit_bill_id"]:
            deposit = DB["bills"][adm["deposit_bill_id"]]["paid_amount"]
        settlement_id = _next("settlement", "JS", 8)
        DB["beds"][adm["bed_id"]]["occupied_by"] = None
        adm.update(status="discharged", discharge_date=out, settlement_id=settlement_id)
        result = dict(settlement_id=settlement_id, admission_id=admission_id, total_amount=total,
                      insurance_paid=insurance_paid, self_paid=self_paid, deposit=deposit,
                      balance=round(self_paid - deposit, 2), status="discharged")
        DB["settlements"][settlement_id] = dict(result, invoice_email=invoice_email)
        return result
