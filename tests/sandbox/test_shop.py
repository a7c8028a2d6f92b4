"""The sandbox shop is a real service: state machine, 409s that say why, per-environment data."""

from __future__ import annotations

import httpx
import pytest

from sandbox.lifecycle import TRANSITIONS, TransitionError, next_status
from sandbox.server import BackgroundServer


@pytest.fixture
def shop(sandbox: BackgroundServer) -> httpx.Client:
    with httpx.Client(base_url=sandbox.url) as client:
        yield client


def new_order(shop: httpx.Client, env: str = "pre", **extra: object) -> dict:
    r = shop.post(f"/{env}/orders", json={"item_id": "123456", "buyer_id": "B1001", **extra})
    assert r.status_code == 201, r.text
    return r.json()


def test_invalid_transition_is_409_and_says_why(shop: httpx.Client) -> None:
    order = new_order(shop)
    r = shop.post(f"/pre/orders/{order['order_id']}/ship")
    assert r.status_code == 409
    assert "cannot ship an order in state created (待支付)" in r.json()["detail"]


def test_cancel_only_before_payment_and_restocks(shop: httpx.Client) -> None:
    stock = shop.get("/pre/items/123456").json()["stock"]
    order = new_order(shop, quantity=2)
    assert shop.get("/pre/items/123456").json()["stock"] == stock - 2
    assert shop.post(f"/pre/orders/{order['order_id']}/cancel").json()["status"] == "cancelled"
    assert shop.get("/pre/items/123456").json()["stock"] == stock
    paid = new_order(shop)
    shop.post(f"/pre/orders/{paid['order_id']}/pay")
    assert shop.post(f"/pre/orders/{paid['order_id']}/cancel").status_code == 409


def test_payment_and_refund_move_the_buyer_balance(shop: httpx.Client) -> None:
    before = shop.get("/pre/buyers/B1001").json()["balance"]
    order = new_order(shop)
    oid = order["order_id"]
    shop.post(f"/pre/orders/{oid}/pay")
    assert shop.get("/pre/buyers/B1001").json()["balance"] == pytest.approx(before - order["total"])
    shop.post(f"/pre/orders/{oid}/refund", json={"reason": "test"})
    assert shop.post(f"/pre/orders/{oid}/refund/approve").json()["status"] == "refunded"
    assert shop.get("/pre/buyers/B1001").json()["balance"] == pytest.approx(before)


def test_coupon_and_subsidy_price_the_order(shop: httpx.Client) -> None:
    coupon = shop.post("/pre/coupons", json={"discount": 5, "buyer_id": "B1001"}).json()
    shop.post("/pre/subsidies", json={"item_id": "445566", "amount": 4})
    order = shop.post("/pre/orders", json={"item_id": "445566", "buyer_id": "B1001",
                                           "coupon_id": coupon["coupon_id"]}).json()
    assert (order["coupon_discount"], order["subsidy_amount"], order["total"]) == (5, 4, 50.0)
    assert shop.get(f"/pre/coupons/{coupon['coupon_id']}").json()["status"] == "used"
    again = shop.post("/pre/orders", json={"item_id": "445566", "buyer_id": "B1001", "coupon_id": coupon["coupon_id"]})
    assert again.status_code == 409 and "used" in again.json()["detail"]
    choice = shop.post("/pre/subsidies", json={"item_id": "223344", "amount": 1})
    assert choice.status_code == 409 and "pop items only" in choice.json()["detail"]


def test_cross_border_fields_and_tax(shop: httpx.Client) -> None:
    order = new_order(shop, country="br", currency="EUR", tax_mode="DDP", logistics_channel="express")
    assert (order["country"], order["currency"], order["tax_mode"]) == ("BR", "EUR", "DDP")
    assert order["total"] == pytest.approx(round(25.0 * 1.1 * 0.92, 2))


def test_environments_are_separate_and_unknown_ones_404(shop: httpx.Client) -> None:
    order = new_order(shop, env="project")
    assert shop.get(f"/project/orders/{order['order_id']}").json()["buyer_id"] == "B1001"
    online = shop.get(f"/online/orders/{order['order_id']}")
    assert online.status_code == 404 or online.json()["created_at"] != order["created_at"]
    assert shop.get("/staging/orders").status_code == 404


def test_openapi_spec_is_served(shop: httpx.Client) -> None:
    spec = shop.get("/openapi.json").json()
    assert "/{env}/orders/{order_id}/return-refund" in spec["paths"]


def test_state_machine_table_is_consistent() -> None:
    with pytest.raises(TransitionError, match="needs one of"):
        next_status("approve_return", "paid")
    assert next_status("reject_refund", "refund_requested", previous="shipped").to_status == "shipped"
    assert next_status("resolve_dispute", "disputed", verdict="buyer").to_status == "refunded"
    assert all(isinstance(src, tuple) and src for src, _ in TRANSITIONS.values())


def test_ids_inserted_by_hand_are_skipped_not_a_500(shop: httpx.Client) -> None:
    shop.post("/pre/reset")
    shop.post("/pre/_sql", json={"script": "INSERT INTO coupons (coupon_id, buyer_id, discount, min_spend, currency,"
                                              " status, created_at) VALUES ('C7001', NULL, 1, 0, 'USD', 'available', 'x');"})
    created = shop.post("/pre/coupons", json={"discount": 5})
    assert created.status_code == 201 and created.json()["coupon_id"] == "C7002"
    rows = shop.post("/pre/_sql", json={"query": "SELECT coupon_id FROM coupons WHERE coupon_id LIKE 'C70%'"})
    assert sorted(r["coupon_id"] for r in rows.json()["rows"]) == ["C7001", "C7002"]
