"""Fake live-ops back office used by the liveops knowledge pack.

Every function returns plausible data shaped like the real admin API responses,
so recipes can be planned and dry-run without touching the game backend.
"""
import datetime as _dt
import random as _rnd


def _digits(n):
    return "".join(_rnd.choice("0123456789") for _ in range(n))


def _now():
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


# --- accounts -----------------------------------------------------------------

def create_test_account(platform, region, email=None, display_name=None):
    pid = "PLR-" + _digits(8)
    return {"player_id": pid, "platform": platform, "region": region,
            "email": email or f"qa+{pid.lower()}@studio-test.com", "is_test": True}


def get_player(player_id):
    return {"player_id": player_id, "display_name": "Tester" + player_id[-4:], "level": 27,
            "region": "eu", "platform": "pc", "status": "active", "is_test": False,
            "created_at": "2023-05-14T09:12:44+00:00"}


def find_player_by_email(email):
    return {"player_id": "PLR-" + _digits(8), "display_name": email.split("@")[0]}


def set_player_level(player_id, level):
    return {"player_id": player_id, "level": level}


# --- economy ------------------------------------------------------------------

def grant_currency(player_id, currency, amount, grant_reason="support grant"):
    return {"grant_id": "GRT-" + _digits(8), "currency": currency,
            "new_balance": amount + _rnd.randint(0, 5000)}


def grant_item(player_id, item_id, quantity=1):
    return {"player_id": player_id, "item_id": item_id, "quantity": quantity}


def get_wallet(player_id):
    return {"player_id": player_id, "gold": _rnd.randint(0, 250000),
            "gems": _rnd.randint(0, 8000), "event_tokens": _rnd.randint(0, 900)}


# --- store --------------------------------------------------------------------

_PRICES = {"SKU-GEMS-100": 0.99, "SKU-GEMS-500": 4.99, "SKU-GEMS-2500": 19.99,
           "SKU-BP-S12": 9.99, "SKU-STARTER-PACK": 2.99}


def create_purchase_order(player_id, sku, store):
    return {"order_id": "ORD-" + _digits(9), "status": "pending", "sku": sku,
            "price": _PRICES.get(sku, 4.99), "price_currency": "USD"}


def complete_payment(order_id):
    return {"order_id": order_id, "status": "paid"}


def refund_order(order_id, refund_reason="accidental_purchase", revoke_items=True):
    return {"order_id": order_id, "status": "refunded", "refund_id": "RFD-" + _digits(8)}


def get_order(order_id):
    return {"order_id": order_id, "player_id": "PLR-" + _digits(8), "sku": "SKU-GEMS-500",
            "store": "steam", "status": "paid", "created_at": _now()}


def list_player_orders(player_id, order_status=None, limit=20):
    orders = [{"order_id": "ORD-" + _digits(9), "sku": "SKU-GEMS-500",
               "status": order_status or "paid"} for _ in range(min(limit, 3))]
    return {"player_id": player_id, "orders": orders}


# --- enforcement --------------------------------------------------------------

def ban_player(player_id, ban_reason, ban_duration_days=7):
    expires = None
    if ban_duration_days:
        expires = (_dt.datetime.now(_dt.timezone.utc)
                   + _dt.timedelta(days=ban_duration_days)).replace(microsecond=0).isoformat()
    return {"ban_id": "BAN-" + _digits(6), "player_id": player_id, "expires_at": expires}


def lift_ban(player_id, note=None):
    return {"player_id": player_id, "status": "active"}


def submit_ban_appeal(ban_id, message="I was not cheating, please review my ban."):
    return {"appeal_id": "APL-" + _digits(6), "ban_id": ban_id, "status": "pending_review"}


def resolve_appeal(appeal_id, decision):
    return {"appeal_id": appeal_id, "decision": decision, "ban_active": decision == "upheld"}


# --- guilds -------------------------------------------------------------------

def create_guild(leader_id, region, guild_name=None):
    return {"guild_id": "GLD-" + _digits(6), "guild_name": guild_name or "QA Guild " + _digits(3),
            "leader_id": leader_id}


def add_guild_member(guild_id, player_id, role="member"):
    return {"guild_id": guild_id, "player_id": player_id, "role": role}


# --- support desk -------------------------------------------------------------

def create_support_ticket(player_id, ticket_category="other", subject=None):
    return {"ticket_id": "10" + _digits(5), "status": "open", "ticket_category": ticket_category}


def get_ticket(ticket_id):
    return {"ticket_id": ticket_id, "player_id": "PLR-" + _digits(8), "ticket_category": "billing",
            "status": "open", "team": "tier1"}


def escalate_ticket(ticket_id, team="tier2"):
    return {"ticket_id": ticket_id, "team": team, "status": "escalated"}


def set_ticket_status(ticket_id, ticket_status):
    return {"ticket_id": ticket_id, "status": ticket_status}


# --- events -------------------------------------------------------------------

def create_seasonal_event(event_name, event_type, start_date, event_length_days=7):
    start = _dt.date.fromisoformat(start_date)
    end = start + _dt.timedelta(days=event_length_days - 1)
    tag = "".join(c for c in event_name.upper() if c.isalpha())[:8] or "EVENT"
    return {"event_id": f"EVT-{tag}{start.year % 100:02d}", "start_date": start.isoformat(),
            "end_date": end.isoformat()}


def enroll_in_event(player_id, event_id):
    return {"player_id": player_id, "event_id": event_id, "enrolled": True}


def add_event_points(player_id, event_id, points):
    return {"player_id": player_id, "event_id": event_id, "total_points": points,
            "reward_tier": points // 120}
