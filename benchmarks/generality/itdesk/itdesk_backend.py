"""Fake IT desk backend for the itdesk pack. Returns plausible data, keeps nothing."""
import random
import string
from datetime import date


def _n(k=6):
    return "".join(random.choices(string.digits, k=k))


def _username(full_name):
    parts = [p for p in full_name.lower().replace("-", " ").split() if p.isalpha()] or ["test", "user"]
    return (parts[0][0] + parts[-1])[:12] + _n(2)


def create_user(full_name, department, employment_type="employee", start_date=None, manager=None):
    u = _username(full_name)
    return {"user_id": "U" + _n(7), "username": u, "email": f"{u}@acmecorp.com",
            "status": "pending", "department": department, "employment_type": employment_type,
            "start_date": start_date or date.today().isoformat(), "manager": manager}


def get_user(user):
    u = user.split("@")[0]
    return {"username": u, "email": f"{u}@acmecorp.com", "full_name": u.title(), "status": "active",
            "department": "engineering", "manager": "mchen", "mfa_enrolled": True}


def list_users(department=None, status="active"):
    return {"count": 2, "users": [
        {"username": "jdoe", "status": status, "department": department or "engineering"},
        {"username": "asmith", "status": status, "department": department or "engineering"}]}


def disable_user(username, reason=None):
    return {"username": username, "status": "disabled", "sessions_revoked": True}


def grant_group_access(username, group):
    return {"username": username, "group": group, "granted": True}


def revoke_group_access(username, group):
    return {"username": username, "group": group, "revoked": True}


def list_user_groups(username):
    return {"username": username, "groups": ["sg-all-staff", "app-slack", "app-jira"]}


def assign_laptop(username, model="mbp14"):
    return {"asset_tag": "LT-" + _n(5), "model": model, "username": username, "status": "assigned"}


def return_device(asset_tag, condition="good", notes=None):
    status = {"good": "in_stock", "damaged": "repair", "lost": "written_off"}[condition]
    return {"asset_tag": asset_tag, "condition": condition, "status": status}


def get_device(asset_tag):
    return {"asset_tag": asset_tag, "model": "mbp14", "status": "assigned", "assigned_to": "jdoe",
            "purchased": "2021-09-14"}


def list_user_devices(username):
    return {"username": username, "devices": [{"asset_tag": "LT-" + _n(5), "type": "laptop", "model": "mbp14"}]}


def assign_license(username, product):
    return {"license_id": "LIC-" + _n(6), "username": username, "product": product}


def revoke_license(username, product):
    return {"username": username, "product": product, "revoked": True}


def check_license_seats(product):
    return {"product": product, "total": 500, "assigned": 463, "available": 37}


def create_ticket(summary, requester, category="software", priority="p3"):
    prefix = "REQ" if category == "access" else "INC"
    return {"ticket_id": f"{prefix}-{_n(6)}", "status": "open", "priority": priority, "category": category}


def assign_ticket(ticket_id, assignee="sd-l1"):
    return {"ticket_id": ticket_id, "status": "in_progress", "assignee": assignee}


def resolve_ticket(ticket_id, resolution_note="Resolved"):
    return {"ticket_id": ticket_id, "status": "resolved"}


def close_ticket(ticket_id):
    return {"ticket_id": ticket_id, "status": "closed"}


def get_ticket(ticket_id):
    return {"ticket_id": ticket_id, "status": "in_progress", "priority": "p3", "assignee": "sd-l1",
            "summary": "Outlook keeps crashing", "requester": "jdoe"}


def enrol_mfa(username, method="authenticator_app"):
    return {"username": username, "method": method, "enrolled": True}


def get_mfa_status(username):
    return {"username": username, "enrolled": True, "methods": ["authenticator_app"]}


def grant_vpn(username, profile="standard"):
    return {"username": username, "profile": profile, "vpn_profile_id": "VPN-" + _n(5)}


def revoke_vpn(username):
    return {"username": username, "revoked": True}


def archive_mailbox(username, forward_to=None):
    return {"username": username, "mailbox": "archived", "forward_to": forward_to}
