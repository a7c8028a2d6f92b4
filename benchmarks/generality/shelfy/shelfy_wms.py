"""Fake backend for the Shelfy WMS pack: plausible data, no real system calls."""
import random


def _n(digits):
    return str(random.randint(10 ** (digits - 1), 10 ** digits - 1))


def create_sku(name="QA test item", uom="each", unit_cost=None, lot_controlled=False):
    return {"sku": "SKU-" + _n(5), "name": name, "uom": uom}


def get_sku(sku):
    return {"sku": sku, "name": "QA test item", "uom": "each", "lot_controlled": False, "status": "active"}


def create_asn(sku, warehouse, supplier_id, quantity=10, expected_date=None):
    return {"asn_id": "ASN-" + _n(6), "sku": sku, "quantity": quantity, "status": "open"}


def receive_asn(asn_id, received_quantity=None, damaged_quantity=0):
    return {"receipt_id": "RCV-" + _n(6), "asn_id": asn_id, "lpn": "LPN" + _n(8),
            "received_quantity": received_quantity if received_quantity is not None else 10,
            "status": "received"}


def putaway_receipt(receipt_id, bin_code=None):
    return {"receipt_id": receipt_id, "bin_code": bin_code or "A-%02d-%02d" % (random.randint(1, 40), random.randint(1, 6)),
            "status": "put_away"}


def get_inventory(sku, warehouse=None):
    return {"sku": sku, "warehouse": warehouse or "DAL1", "on_hand": 42, "allocated": 6, "available": 36,
            "bins": [{"bin_code": "A-03-02", "quantity": 30}, {"bin_code": "B-12-04", "quantity": 12}]}


def adjust_stock(sku, bin_code, quantity, reason, warehouse=None):
    return {"adjustment_id": "ADJ-" + _n(6), "sku": sku, "bin_code": bin_code, "quantity": quantity, "status": "posted"}


def move_stock(sku, from_bin, to_bin, quantity=None):
    return {"move_id": "MV-" + _n(6), "from_bin": from_bin, "to_bin": to_bin, "quantity": quantity or 10,
            "status": "completed"}


def create_cycle_count(bin_code, sku=None, count_type="blind"):
    return {"count_id": "CC-" + _n(5), "bin_code": bin_code, "status": "open"}


def submit_count(count_id, counted_quantity):
    system_qty = 20
    return {"count_id": count_id, "system_quantity": system_qty, "counted_quantity": counted_quantity,
            "variance": counted_quantity - system_qty,
            "status": "pending_approval" if counted_quantity != system_qty else "closed"}


def approve_count(count_id, approved_by=None):
    return {"count_id": count_id, "adjustment_id": "ADJ-" + _n(6), "status": "posted"}


def create_outbound_order(sku, warehouse, customer_id, quantity=1, priority="standard", ship_by_date=None):
    return {"order_id": "SO-" + _n(6), "sku": sku, "quantity": quantity, "status": "created"}


def create_wave(order_id, wave_type="single"):
    return {"wave_id": "WV-" + _n(5), "order_id": order_id, "pick_task_count": 1, "status": "released"}


def confirm_pick(order_id, wave_id=None, picked_quantity=None):
    return {"order_id": order_id, "picked_quantity": picked_quantity if picked_quantity is not None else 1,
            "status": "picked"}


def pack_order(order_id, box_size="medium"):
    return {"package_id": "PKG-" + _n(7), "order_id": order_id, "weight_lb": 2.4, "status": "packed"}


def ship_order(order_id, carrier="UPS", service_level="ground", declared_value=None):
    tracking = "1Z" + "".join(random.choice("0123456789ABCDEFGHJKLMNPRSTVWXYZ") for _ in range(16)) \
        if carrier == "UPS" else _n(12)
    return {"order_id": order_id, "carrier": carrier, "tracking_number": tracking, "status": "shipped"}


def get_order(order_id):
    return {"order_id": order_id, "status": "released", "wave_id": "WV-" + _n(5), "tracking_number": ""}


def cancel_order(order_id, reason="customer_request"):
    return {"order_id": order_id, "status": "cancelled"}


def track_shipment(tracking_number):
    return {"tracking_number": tracking_number, "carrier": "UPS" if tracking_number.startswith("1Z") else "FEDEX",
            "status": "in_transit", "events": [{"event": "picked_up", "location": "Dallas, TX"}]}


def create_rma(order_id, reason="not_needed"):
    return {"rma_id": "RMA-" + _n(5), "order_id": order_id, "status": "authorized"}


def receive_return(rma_id, condition="sellable"):
    return {"rma_id": rma_id, "return_receipt_id": "RR-" + _n(6), "condition": condition, "status": "received"}


def restock_return(rma_id, bin_code=None):
    return {"rma_id": rma_id, "bin_code": bin_code or "R-01-01", "status": "restocked"}


def create_transfer(sku, quantity, from_warehouse, to_warehouse):
    return {"transfer_id": "TO-" + _n(5), "status": "open"}


def ship_transfer(transfer_id, carrier="UPS"):
    return {"transfer_id": transfer_id, "status": "in_transit"}


def receive_transfer(transfer_id):
    return {"transfer_id": transfer_id, "status": "received"}
