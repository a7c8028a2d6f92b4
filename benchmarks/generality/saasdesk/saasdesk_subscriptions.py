"""In-memory subscription backend for the saasdesk pack (``call.python`` bindings).

Every tool is a plain function called with keyword arguments. State lives in a
module-level dict, so it survives between calls in one process and is reset on restart.
"""
from __future__ import annotations

import datetime as _dt
import itertools
import threading

_LOCK = threading.Lock()
_SEQ = itertools.count(5000)
_INVOICE_SEQ = itertools.count(900)

PLAN_PRICE_PER_SEAT = {"starter": 9.0, "pro": 19.0, "business": 39.0, "enterprise": 79.0}
ANNUAL_MONTHS_CHARGED = 10  # annual = 12 months for the price of 10

SUBSCRIPTIONS: dict[str, dict] = {
    "sub_9ZK2": {"subscription_id": "sub_9ZK2", "account_id": "acct_1042", "workspace_id": "ws-77",
                 "plan": "pro", "billing_cycle": "monthly", "status": "active", "seats": 12,
                 "last_payment_id": "pay_3HK9"},
    "sub_4TQ8": {"subscription_id": "sub_4TQ8", "account_id": "acct_2211", "workspace_id": "ws-88",
                 "plan": "business", "billing_cycle": "monthly", "status": "trialing", "seats": 5,
                 "last_payment_id": None},
    "sub_7HX1": {"subscription_id": "sub_7HX1", "account_id": "acct_3307", "workspace_id": "ws-1203",
                 "plan": "starter", "billing_cycle": "annual", "status": "active", "seats": 3,
                 "last_payment_id": "pay_7LM2"},
}
# workspace -> account, for workspaces created elsewhere we do not know the account.
WORKSPACES: dict[str, str] = {"ws-77": "acct_1042", "ws-88": "acct_2211", "ws-1203": "acct_3307"}


def _today() -> _dt.date:
    return _dt.date.today()


def _get(subscription_id: str) -> dict:
    try:
        return SUBSCRIPTIONS[subscription_id]
    except KeyError:
        raise LookupError(f"subscription {subscription_id} not found") from None


def get_subscription(subscription_id: str) -> dict:
    with _LOCK:
        return dict(_get(subscription_id))


def start_trial(workspace_id: str, plan: str = "pro", trial_days: int = 14, seats: int = 5) -> dict:
    if plan not in PLAN_PRICE_PER_SEAT:
        raise ValueError(f"unknown plan {plan!r}")
    with _LOCK:
        for sub in SUBSCRIPTIONS.values():
            if sub["workspace_id"] == workspace_id and sub["status"] in ("trialing", "active", "past_due"):
                raise ValueError(f"{workspace_id} already has live subscription {sub['subscription_id']}")
        sub_id = f"sub_{next(_SEQ):X}T"
        ends = _today() + _dt.timedelta(days=int(trial_days))
        SUBSCRIPTIONS[sub_id] = {
            "subscription_id": sub_id, "account_id": WORKSPACES.get(workspace_id, "acct_0"),
            "workspace_id": workspace_id, "plan": plan, "billing_cycle": "monthly",
            "status": "trialing", "seats": int(seats), "last_payment_id": None,
            "trial_ends_on": ends.isoformat(),
        }
        return {"subscription_id": sub_id, "status": "trialing", "plan": plan,
                "trial_ends_on": ends.isoformat()}


def activate_subscription(subscription_id: str, billing_cycle: str = "monthly") -> dict:
    if billing_cycle not in ("monthly", "annual"):
        raise ValueError(f"unknown billing cycle {billing_cycle!r}")
    with _LOCK:
        sub = _get(subscription_id)
        if sub["status"] not in ("trialing", "past_due"):
            raise ValueError(f"cannot activate a {sub['status']} subscription")
        months = ANNUAL_MONTHS_CHARGED if billing_cycle == "annual" else 1
        amount = round(PLAN_PRICE_PER_SEAT[sub["plan"]] * sub["seats"] * months, 2)
        invoice_id = f"INV-{_today().year}-{next(_INVOICE_SEQ):04d}"
        sub.update(status="active", billing_cycle=billing_cycle)
        return {"subscription_id": subscription_id, "status": "active", "billing_cycle": billing_cycle,
                "invoice_id": invoice_id, "amount_due": amount, "currency": "USD"}


def fail_renewal_payment(subscription_id: str, decline_code: str = "insufficient_funds") -> dict:
    with _LOCK:
        sub = _get(subscription_id)
        if sub["status"] != "active":
            raise ValueError(f"only an active subscription can fail a renewal (is {sub['status']})")
        sub.update(status="past_due", last_decline_code=decline_code)
        retry = _today() + _dt.timedelta(days=3)
        return {"subscription_id": subscription_id, "status": "past_due", "next_retry_on": retry.isoformat()}


def cancel_subscription(subscription_id: str, at_period_end: bool = True, reason: str = "other") -> dict:
    with _LOCK:
        sub = _get(subscription_id)
        if sub["status"] == "cancelled":
            raise ValueError(f"{subscription_id} is already cancelled")
        effective = _today()
        if at_period_end and sub["status"] == "active":
            effective = _today() + _dt.timedelta(days=365 if sub["billing_cycle"] == "annual" else 30)
        sub.update(status="cancelled", cancel_reason=reason, cancelled_on=effective.isoformat())
        return {"subscription_id": subscription_id, "status": "cancelled", "effective_date": effective.isoformat()}
