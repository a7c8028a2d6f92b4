"""Fake DevHub admin backend for the devhub knowledge pack.

Every function returns plausible data shaped like the admin API's responses.
Swap the bodies for real admin-API calls once the staging admin token is wired in.
"""
import random
import string
from datetime import date, datetime, timedelta, timezone

_ALNUM = string.ascii_lowercase + string.digits
PLAN_QUOTA = {"free": 10_000, "starter": 100_000, "pro": 1_000_000, "enterprise": 20_000_000}


def _rid(prefix, n, sep="_"):
    return prefix + sep + "".join(random.choices(_ALNUM, k=n))


def _now():
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


# organisations -------------------------------------------------------------
def create_org(plan, owner_email, name="QA Test Org", region="us"):
    return {"org_id": _rid("org", 5), "name": name, "plan": plan, "status": "active", "region": region}


def get_org(org_id):
    return {"org_id": org_id, "name": "Acme Robotics", "plan": "pro", "status": "active",
            "owner_email": "owner@acme.test", "region": "us", "created_at": "2024-02-11T09:12:00+00:00"}


def list_orgs(status=None, plan_tier=None, limit=20):
    orgs = [{"org_id": _rid("org", 5), "name": f"Org {i}", "plan": plan_tier or random.choice(list(PLAN_QUOTA)),
             "status": status or "active"} for i in range(min(limit, 5))]
    return {"orgs": orgs}


def change_plan(org_id, new_plan, prorate=True):
    return {"org_id": org_id, "previous_plan": "pro", "plan": new_plan}


def suspend_org(org_id, reason="manual"):
    return {"org_id": org_id, "status": "suspended", "reason": reason}


def reactivate_org(org_id):
    return {"org_id": org_id, "status": "active"}


# projects & keys -----------------------------------------------------------
def create_project(org_id, name="qa-project"):
    return {"project_id": _rid("prj", 6), "org_id": org_id, "name": name}


def create_api_key(project_id, scope="read_write", expires_in_days=90, label=None):
    expires = (datetime.now(timezone.utc) + timedelta(days=expires_in_days)).date().isoformat()
    return {"key_id": _rid("ak", 8), "project_id": project_id, "scope": scope,
            "secret": "dh_test_" + "".join(random.choices(_ALNUM, k=32)), "expires_at": expires}


def get_api_key(key_id):
    return {"key_id": key_id, "project_id": _rid("prj", 6), "org_id": _rid("org", 5), "scope": "read_write",
            "status": "active", "last_used_at": _now(), "expires_at": "2025-03-01"}


def revoke_api_key(key_id, reason="requested"):
    return {"key_id": key_id, "status": "revoked", "revoked_at": _now()}


def list_api_keys(org_id, project_id=None, status="active"):
    return {"keys": [{"key_id": _rid("ak", 8), "project_id": project_id or _rid("prj", 6),
                      "scope": "read_write", "status": "active" if status == "all" else status} for _ in range(2)]}


# quota & usage -------------------------------------------------------------
def set_rate_limit(org_id, requests_per_minute, burst=None):
    return {"org_id": org_id, "requests_per_minute": requests_per_minute, "burst": burst or 0}


def get_usage_report(org_id, month=None, granularity="monthly"):
    quota = PLAN_QUOTA["pro"]
    calls = random.randint(1_000, quota)
    out = {"org_id": org_id, "month": month or date.today().strftime("%Y-%m"), "api_calls": calls,
           "quota": quota, "percent_used": round(100 * calls / quota, 1), "overage_calls": max(0, calls - quota)}
    if granularity == "daily":
        out["days"] = [{"day": d, "api_calls": calls // 28} for d in range(1, 29)]
    return out


def simulate_usage(org_id, api_calls, key_id=None, date=None):
    quota = PLAN_QUOTA["free"]
    return {"org_id": org_id, "recorded_calls": api_calls, "total_calls_this_month": api_calls,
            "quota": quota, "over_quota": api_calls > quota}


# webhooks ------------------------------------------------------------------
def register_webhook(project_id, url, event_filter="all"):
    return {"endpoint_id": _rid("we", 6), "project_id": project_id, "url": url, "event_filter": event_filter,
            "signing_secret": "whsec_" + "".join(random.choices(_ALNUM, k=24))}


def send_test_event(endpoint_id, event_type="ping"):
    return {"endpoint_id": endpoint_id, "delivery_id": _rid("dlv", 10), "http_status": 200,
            "latency_ms": random.randint(40, 400)}


def list_webhook_deliveries(endpoint_id, status=None, limit=20):
    return {"deliveries": [{"delivery_id": _rid("dlv", 10), "event_type": "invoice.paid",
                            "status": status or "succeeded", "http_status": 500 if status == "failed" else 200,
                            "error": "upstream returned 500" if status == "failed" else ""}
                           for _ in range(min(limit, 3))]}


def disable_webhook(endpoint_id):
    return {"endpoint_id": endpoint_id, "enabled": False}


# billing -------------------------------------------------------------------
def generate_invoice(org_id, month=None):
    return {"invoice_id": _rid("inv", 6), "org_id": org_id, "month": month or date.today().strftime("%Y-%m"),
            "amount_due": 249.0, "currency": "USD", "status": "open"}


def get_invoice(invoice_id):
    return {"invoice_id": invoice_id, "org_id": _rid("org", 5), "month": "2024-05", "amount_due": 249.0,
            "credits_applied": 0.0, "currency": "USD", "status": "open"}


def set_invoice_status(invoice_id, status):
    return {"invoice_id": invoice_id, "status": status}


def issue_credit(org_id, amount, currency, reason="goodwill", invoice_id=None, reference=None, expires_on=None):
    return {"credit_id": _rid("cr", 8), "org_id": org_id, "amount": amount, "currency": currency, "balance": amount}


# support -------------------------------------------------------------------
def create_escalation(org_id, subject, priority="p3", customer_email=None):
    return {"escalation_id": f"ESC-{random.randint(4000, 9999)}", "org_id": org_id,
            "priority": priority, "status": "open"}


def get_escalation(escalation_id):
    return {"escalation_id": escalation_id, "org_id": _rid("org", 5), "subject": "webhooks delayed",
            "priority": "p2", "owner": "platform-ops on-call", "status": "investigating", "updated_at": _now()}
