"""物业后台测试桩:返回看起来真实的假数据,不连任何系统。"""
import datetime as _dt
import itertools as _it

_seq = _it.count(1)


def _today():
    return _dt.date.today().strftime("%Y%m%d")


def _no(prefix, width=3):
    return f"{prefix}{_today()}{next(_seq):0{width}d}"


def create_owner(room_no, owner_name, phone, community_id, resident_type="owner"):
    return {"owner_id": f"YZ{100000 + next(_seq):06d}", "room_no": room_no,
            "owner_name": owner_name, "resident_type": resident_type}


def query_owner(room_no):
    return {"room_no": room_no, "owner_id": "YZ100238", "owner_name": "王建国",
            "residents": [{"owner_id": "YZ100238", "name": "王建国", "type": "owner",
                           "phone": "139****5678"}]}


def update_owner_phone(owner_id, new_phone):
    return {"owner_id": owner_id, "phone": new_phone}


def create_repair_order(room_no, category="other", urgency="normal", description=None):
    return {"order_no": _no("BX"), "room_no": room_no, "status": "待派单"}


def dispatch_repair_order(order_no, worker_id):
    return {"order_no": order_no, "worker_id": worker_id, "status": "已派单"}


def complete_repair_order(order_no, material_fee=0, remark=None):
    return {"order_no": order_no, "status": "已完工", "material_fee": float(material_fee)}


def revisit_repair_order(order_no, satisfaction="satisfied", comment=None):
    return {"order_no": order_no, "status": "已回访", "satisfaction": satisfaction}


def query_repair_order(order_no):
    return {"order_no": order_no, "room_no": "3-2-1501", "status": "已派单", "worker_id": "WX0032"}


def generate_fee_bill(room_no, period, fee_type="property_fee", amount=None):
    amt = float(amount) if amount is not None else 356.8
    return {"bill_no": _no("ZD", 4), "room_no": room_no, "fee_type": fee_type,
            "period": period, "amount": amt, "status": "待缴费"}


def pay_bill(bill_no, pay_channel="wechat", amount=None):
    return {"bill_no": bill_no, "status": "已缴费",
            "paid_amount": float(amount) if amount is not None else 356.8,
            "receipt_no": _no("SJ", 4)}


def apply_bill_discount(bill_no, discount_amount, reason=None):
    return {"bill_no": bill_no, "discount_amount": float(discount_amount),
            "amount_due": max(0.0, 356.8 - float(discount_amount))}


def mark_bill_overdue(bill_no, overdue_days=30):
    return {"bill_no": bill_no, "status": "已逾期", "late_fee": round(356.8 * 0.0005 * overdue_days, 2)}


def send_payment_reminder(bill_no, channel="sms"):
    return {"bill_no": bill_no, "reminder_id": _no("CJ"), "channel": channel}


def query_bills(room_no, status="unpaid"):
    bills = [{"bill_no": "ZD202611010022", "fee_type": "property_fee", "period": "2026-11",
              "amount": 356.8, "status": "待缴费"}]
    return {"room_no": room_no, "bills": bills if status != "paid" else [], "total_unpaid": 356.8}


def create_parking_lease(owner_id, space_no, plate_no, months=12):
    return {"lease_no": _no("CW"), "owner_id": owner_id, "room_no": "3-2-1501",
            "space_no": space_no, "total_rent": 300.0 * months, "status": "已签约"}


def query_parking_spaces(area=None, status="vacant"):
    spaces = [{"space_no": "B2-015", "area": "B2", "status": "vacant"},
              {"space_no": "B1-088", "area": "B1", "status": "vacant"}]
    spaces = [s for s in spaces if area in (None, s["area"])]
    return {"spaces": spaces, "count": len(spaces)}


def issue_access_card(room_no, holder_name=None, card_type="resident", valid_days=None):
    return {"card_no": f"MJ{next(_seq) + 10000000:08d}", "room_no": room_no,
            "holder_name": holder_name or "王建国", "card_type": card_type}


def report_card_lost(card_no):
    return {"card_no": card_no, "room_no": "3-2-1501", "holder_name": "王建国",
            "card_type": "resident", "status": "已挂失"}


def submit_renovation_application(room_no, renovation_type="partial", start_date=None,
                                  duration_days=60, company_name=None):
    return {"application_no": _no("ZX"), "room_no": room_no, "status": "待缴押金",
            "deposit_required": 2000.0}


def pay_renovation_deposit(application_no, amount=2000, pay_channel="wechat"):
    return {"application_no": application_no, "status": "待审批", "deposit_paid": float(amount)}


def approve_renovation(application_no, decision="approved", comment=None):
    return {"application_no": application_no,
            "status": "施工中" if decision == "approved" else "已驳回"}


def complete_renovation_inspection(application_no, result="passed", refund_deposit=True):
    return {"application_no": application_no,
            "status": "已验收" if result == "passed" else "待整改",
            "deposit_refunded": 2000.0 if (result == "passed" and refund_deposit) else 0.0}
