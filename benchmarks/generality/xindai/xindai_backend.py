"""消费信贷测试造数 fake 后端(本地假实现,返回看起来合理的数据)。"""
import datetime as _dt
import random as _rnd


def _today():
    return _dt.date.today().isoformat()


def _digits(n):
    return "".join(_rnd.choice("0123456789") for _ in range(n))


def create_test_user(phone=None, id_card=None, real_name=None, age=None):
    return {
        "user_id": "U" + _digits(9),
        "phone": phone or "1" + _rnd.choice("3589") + _digits(9),
        "id_card": id_card or "110101" + "1990" + "0307" + _digits(4),
        "real_name": real_name or "测试" + _digits(3),
        "age": age or 30,
        "status": "registered",
    }


def find_user_by_phone(phone):
    return {"user_id": "U" + _digits(9), "phone": phone, "status": "normal"}


def get_user_info(user_id):
    return {"user_id": user_id, "status": "normal", "credit_limit": 20000.0,
            "available_limit": 15000.0, "frozen": False, "credit_status": "approved"}


def bind_bank_card(user_id, bank="CMB", card_no=None, reserved_phone=None):
    return {"card_id": "CARD" + _digits(10), "user_id": user_id, "bank": bank,
            "card_no_masked": "****" + (card_no[-4:] if card_no else _digits(4))}


def submit_credit_application(user_id, product_type="cash_loan"):
    return {"application_id": "CA" + _today().replace("-", "") + _digits(4),
            "user_id": user_id, "product_type": product_type, "status": "reviewing"}


def approve_credit_application(application_id, approved_limit=20000, apr=18.0):
    return {"application_id": application_id, "status": "approved",
            "credit_limit": float(approved_limit), "apr": float(apr)}


def reject_credit_application(application_id, reject_reason="credit_score_low", lock_days=30):
    return {"application_id": application_id, "status": "rejected",
            "reject_reason": reject_reason, "lock_days": lock_days}


def get_credit_application(application_id):
    return {"application_id": application_id, "status": "approved", "credit_limit": 20000.0,
            "reject_reason": None}


def adjust_credit_limit(user_id, new_limit, reason="test"):
    return {"user_id": user_id, "old_limit": 20000.0, "credit_limit": float(new_limit),
            "reason": reason}


def apply_loan(user_id, amount=5000, term=12, repay_method="equal_installment", card_id=None):
    return {"loan_id": "LN" + _today().replace("-", "") + _digits(6), "user_id": user_id,
            "amount": float(amount), "term": term, "repay_method": repay_method,
            "status": "pending_disburse"}


def disburse_loan(loan_id, disburse_date=None, result="success"):
    return {"loan_id": loan_id, "disburse_date": disburse_date or _today(),
            "status": "repaying" if result == "success" else "disburse_failed"}


def get_loan_detail(loan_id):
    return {"loan_id": loan_id, "status": "overdue", "principal": 5000.0,
            "outstanding_principal": 4200.0, "overdue_days": 12,
            "penalty_amount": 36.5, "late_fee": 20.0}


def get_repay_plan(loan_id):
    periods = [{"period": i, "due_date": _today(), "principal": 416.67, "interest": 75.0,
                "status": "unpaid"} for i in range(1, 13)]
    return {"loan_id": loan_id, "periods": periods, "settle_amount": 4275.3}


def repay(loan_id, repay_type="normal", amount=None, period=None, repay_date=None):
    return {"repay_id": "RP" + _digits(12), "loan_id": loan_id, "repay_type": repay_type,
            "amount": float(amount) if amount is not None else 491.67,
            "status": "success",
            "loan_status": "settled" if repay_type == "prepay_full" else "repaying"}


def mock_overdue(loan_id, overdue_days, period=1):
    return {"loan_id": loan_id, "loan_status": "overdue", "overdue_days": overdue_days,
            "period": period, "penalty_amount": round(overdue_days * 1.5, 2)}


def waive_penalty(loan_id, waive_type="penalty_interest", waive_amount=None, reason=None):
    waived = float(waive_amount) if waive_amount is not None else 36.5
    return {"loan_id": loan_id, "waive_type": waive_type, "waived_amount": waived,
            "remaining_due": 512.3}


def list_user_loans(user_id):
    return {"user_id": user_id, "loans": [], "outstanding_count": 0, "all_settled": True}


def freeze_account(user_id, reason="test", freeze_days=None):
    return {"user_id": user_id, "status": "frozen", "reason": reason}


def unfreeze_account(user_id):
    return {"user_id": user_id, "status": "normal"}


def close_account(user_id, force=False):
    return {"user_id": user_id, "status": "closed", "closed_at": _today()}
