"""Fake backend for the kuajing pack: returns plausible data, keeps a little in-memory state."""
import random
import string
import time

_ORDERS: dict = {}
_RETURNS: dict = {}
_CASES: dict = {}


def _alnum(n: int) -> str:
    return "".join(random.choices(string.ascii_uppercase + string.digits, k=n))


def _order_id() -> str:
    return f"11{random.randint(1, 4)}-{random.randint(10**6, 10**7 - 1)}-{random.randint(10**6, 10**7 - 1)}"


def create_listing(sku, price, title="KJ测试商品", marketplace="US", cost_cny=None):
    return {"asin": "B0" + _alnum(8), "sku": sku, "status": "inactive", "marketplace": marketplace}


def receive_inbound_shipment(shipment_id, received_qty=None):
    qty = received_qty if received_qty is not None else 100
    return {"shipment_id": shipment_id, "status": "RECEIVED", "received_qty": int(qty)}


def create_order(asin, quantity=1, buyer_email=None, marketplace="US"):
    oid = _order_id()
    _ORDERS[oid] = {"asin": asin, "quantity": quantity, "status": "Pending"}
    return {"order_id": oid, "status": "Pending", "amount_usd": round(19.99 * quantity, 2)}


def _set_order(order_id, status):
    _ORDERS.setdefault(order_id, {})["status"] = status
    return {"order_id": order_id, "status": status}


def confirm_payment(order_id):
    return _set_order(order_id, "Unshipped")


def ship_order(order_id):
    out = _set_order(order_id, "Shipped")
    out["tracking_no"] = "TBA" + "".join(random.choices(string.digits, k=12))
    return out


def deliver_order(order_id):
    return _set_order(order_id, "Delivered")


def create_return(order_id, reason="NO_LONGER_NEEDED"):
    rma = "RMA" + time.strftime("%Y") + f"{random.randint(0, 9999):04d}"
    _RETURNS[rma] = {"order_id": order_id, "reason": reason}
    return {"rma_id": rma, "order_id": order_id, "status": "Requested"}


def approve_return(rma_id):
    return {"rma_id": rma_id, "status": "Authorized",
            "return_label_url": f"https://labels.example.com/{rma_id}.pdf"}


def receive_return(rma_id, condition="SELLABLE"):
    return {"rma_id": rma_id, "status": "Received", "condition": condition}


def open_case(topic, related_id=None, description=None, store_id=None):
    cid = str(random.randint(10**9, 10**10 - 1))
    _CASES[cid] = {"topic": topic, "related_id": related_id}
    return {"case_id": cid, "status": "Open"}


def reply_case(case_id, message="补充材料已上传,请查收。"):
    return {"case_id": case_id, "status": "Pending Amazon Action"}


def close_case(case_id, resolution="resolved"):
    return {"case_id": case_id, "status": "Resolved" if resolution == "resolved" else "Closed"}
