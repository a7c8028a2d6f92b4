"""The sandbox shop: a real HTTP service standing in for an e-commerce test environment.

Every route lives under /{env} (pre, online, project), each environment with its own database.
A transition the order's state does not allow answers 409 with a message saying why, so a wrong
plan fails loudly. /_faults scripts failures (status codes, delays) for fault-injection tests.
Writes honour an `Idempotency-Key` header (the first answer is replayed for a repeated key).
"""

from __future__ import annotations

import asyncio
import hmac
import os
import re
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.types import ASGIApp, Receive, Scope, Send

from sandbox.idempotency import IdempotencyKeys
from sandbox.lifecycle import LABELS_ZH, TransitionError, next_status
from sandbox.store import ENVIRONMENTS, ShopStore, next_id, now_iso, row_dict

RATES = {"USD": 1.0, "CNY": 7.1, "EUR": 0.92, "GBP": 0.79, "BRL": 5.0, "JPY": 150.0, "MXN": 17.0, "KRW": 1350.0}
TAX_RATE = {"DDP": 0.10, "DDU": 0.0}
ItemType = Literal["pop", "choice", "local"]


async def env_param(env: str) -> str:  # async: a sync dependency costs a thread hop per request
    if env not in ENVIRONMENTS:
        raise HTTPException(404, f"unknown environment {env!r}; use one of {', '.join(ENVIRONMENTS)}")
    return env


async def admin_only(request: Request) -> None:
    """Test hooks (SQL, reset, faults) answer loopback callers, or a caller with the admin key
    (`SANDBOX_ADMIN_KEY`), never anyone else who can reach the sandbox."""
    host = request.client.host if request.client else ""
    key = os.environ.get("SANDBOX_ADMIN_KEY")
    if host in ("127.0.0.1", "::1", "localhost", "testclient"):
        return
    if key and hmac.compare_digest(request.headers.get("x-sandbox-admin-key", ""), key):
        return
    raise HTTPException(403, "test hooks answer loopback callers only (or send X-Sandbox-Admin-Key)")


# Module level: FastAPI resolves (string) annotations against the module's globals.
Env = Annotated[str, Depends(env_param)]
Admin = Depends(admin_only)


class SellerIn(BaseModel):
    name: str = Field(min_length=1)
    country: str = "CN"


class ItemIn(BaseModel):
    title: str = Field(min_length=1)
    seller_id: str
    item_type: ItemType = "pop"
    price: float = Field(gt=0)
    stock: int = Field(default=100, ge=0)
    item_id: str | None = None


class BuyerIn(BaseModel):
    name: str = Field(min_length=1)
    country: str = "US"
    balance: float = Field(default=1000, ge=0)
    national_id: str | None = None


class AddressIn(BaseModel):
    receiver: str
    phone: str = "+1-555-0100"
    country: str = "US"
    city: str = "Test City"
    line: str = "1 Test Street"


class CouponIn(BaseModel):
    discount: float = Field(gt=0)
    min_spend: float = Field(default=0, ge=0)
    buyer_id: str | None = None


class SubsidyIn(BaseModel):
    item_id: str
    amount: float = Field(gt=0)


class OrderIn(BaseModel):
    item_id: str
    buyer_id: str
    quantity: int = Field(default=1, ge=1, le=1000)
    coupon_id: str | None = None
    country: str | None = None
    currency: str = "USD"
    tax_mode: Literal["DDP", "DDU"] | None = None
    logistics_channel: Literal["standard", "express", "economy", "local"] = "standard"


class TaxQuoteIn(BaseModel):
    country: str
    amount: float = Field(ge=0)
    tax_mode: Literal["DDP", "DDU"] = "DDP"


class CouponApplyIn(BaseModel):
    coupon_id: str


class FaultIn(BaseModel):
    method: str = "*"
    path: str = Field(description="regex searched in the request path")
    status: int = 500
    times: int = Field(default=1, ge=1)
    delay_ms: int = Field(default=0, ge=0)


class FaultInjector:
    """Injected faults (tests of retries and breakpoints): a plain ASGI middleware, which costs
    nothing when no fault is set (Starlette's @app.middleware costs ~1 ms a request)."""

    def __init__(self, app: ASGIApp, faults: list[dict[str, Any]]) -> None:
        self.app = app
        self.faults = faults

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for fault in self.faults:
                if fault["times"] > 0 and fault["method"] in ("*", scope["method"]) and \
                        re.search(fault["path"], scope["path"]):
                    fault["times"] -= 1
                    if fault["delay_ms"]:
                        await asyncio.sleep(fault["delay_ms"] / 1000)
                    if fault["status"] != 200:
                        response = JSONResponse({"detail": f"injected fault {fault['status']}"},
                                                status_code=fault["status"])
                        return await response(scope, receive, send)
        await self.app(scope, receive, send)


def create_app(data_dir: Path) -> FastAPI:
    """The sandbox app over SQLite files in `data_dir`."""
    store = ShopStore(data_dir)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        store.close()

    app = FastAPI(title="datasmith sandbox shop", version="1.0", lifespan=lifespan)
    faults: list[dict[str, Any]] = []
    app.state.store = store

    app.add_middleware(IdempotencyKeys, store=store)  # inner: an injected fault never stores a key
    app.add_middleware(FaultInjector, faults=faults)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "environments": list(ENVIRONMENTS)}

    @app.post("/_faults", dependencies=[Admin])
    async def add_fault(fault: FaultIn) -> dict[str, Any]:
        faults.append(fault.model_dump())
        return {"faults": len(faults)}

    @app.delete("/_faults", dependencies=[Admin])
    async def clear_faults() -> dict[str, Any]:
        faults.clear()
        return {"faults": 0}

    _register_catalog(app, store)
    _register_orders(app, store)
    return app


class SqlIn(BaseModel):
    script: str | None = None  # statements to run (seed)
    query: str | None = None  # one SELECT to read back
    params: list[Any] = Field(default_factory=list)


def _one(db: sqlite3.Connection, table: str, key: str, value: str, what: str) -> dict[str, Any]:
    row = row_dict(db.execute(f"SELECT * FROM {table} WHERE {key} = ?", (value,)).fetchone())  # noqa: S608
    if row is None:
        raise HTTPException(404, f"{what} {value!r} not found")
    return row


def _register_catalog(app: FastAPI, store: ShopStore) -> None:  # noqa: C901 - a route table
    @app.post("/{env}/reset", dependencies=[Admin])
    async def reset(env: Env) -> dict[str, Any]:
        store.reset(env)
        return {"environment": env, "reset": True}

    @app.post("/{env}/_sql", dependencies=[Admin])
    async def run_sql(env: Env, body: SqlIn) -> dict[str, Any]:
        """Test hook (stories): a script seeds data, a query reads it back for assertions."""
        with store.tx(env) as db:
            try:
                if body.script:
                    db.executescript(body.script)
                    return {"rows": []}
                rows = db.execute(body.query or "SELECT 1 WHERE 0", body.params).fetchall()
            except sqlite3.Error as exc:
                raise HTTPException(400, f"SQL error: {exc}") from exc
            return {"rows": [row_dict(r) for r in rows]}

    @app.post("/{env}/sellers", status_code=201)
    async def create_seller(env: Env, body: SellerIn) -> dict[str, Any]:
        with store.tx(env) as db:
            sid = next_id(db, "S", 2000, "sellers", "seller_id")
            db.execute("INSERT INTO sellers VALUES (?, ?, ?, ?)", (sid, body.name, body.country, now_iso()))
            return _one(db, "sellers", "seller_id", sid, "seller")

    @app.get("/{env}/sellers/{seller_id}")
    async def get_seller(env: Env, seller_id: str) -> dict[str, Any]:
        with store.tx(env) as db:
            return _one(db, "sellers", "seller_id", seller_id, "seller")

    @app.post("/{env}/items", status_code=201)
    async def create_item(env: Env, body: ItemIn) -> dict[str, Any]:
        with store.tx(env) as db:
            seller = _one(db, "sellers", "seller_id", body.seller_id, "seller")
            iid = body.item_id or next_id(db, "", 800000, "items", "item_id")
            if db.execute("SELECT 1 FROM items WHERE item_id = ?", (iid,)).fetchone():
                raise HTTPException(409, f"item {iid!r} already exists")
            db.execute("INSERT INTO items VALUES (?, ?, ?, ?, ?, 'USD', ?, ?, ?)",
                       (iid, body.title, body.seller_id, body.item_type, body.price, body.stock,
                        seller["country"], now_iso()))
            return _one(db, "items", "item_id", iid, "item")

    @app.get("/{env}/items")
    async def list_items(env: Env, item_type: ItemType | None = None, limit: int = 50) -> dict[str, Any]:
        with store.tx(env) as db:
            sql, args = "SELECT * FROM items", []
            if item_type:
                sql, args = sql + " WHERE item_type = ?", [item_type]
            rows = db.execute(sql + " ORDER BY item_id LIMIT ?", [*args, limit]).fetchall()
            return {"items": [dict(r) for r in rows], "count": len(rows)}

    @app.get("/{env}/items/{item_id}")
    async def get_item(env: Env, item_id: str) -> dict[str, Any]:
        with store.tx(env) as db:
            item = _one(db, "items", "item_id", item_id, "item")
            sub = db.execute("SELECT * FROM subsidies WHERE item_id = ? AND status = 'active'", (item_id,)).fetchone()
            return {**item, "subsidy": row_dict(sub)}

    @app.post("/{env}/items/{item_id}/stock")
    async def set_stock(env: Env, item_id: str, body: dict[str, int]) -> dict[str, Any]:
        stock = body.get("stock")
        if stock is None or stock < 0:
            raise HTTPException(422, "stock must be a non-negative integer")
        with store.tx(env) as db:
            _one(db, "items", "item_id", item_id, "item")
            db.execute("UPDATE items SET stock = ? WHERE item_id = ?", (stock, item_id))
            return _one(db, "items", "item_id", item_id, "item")

    @app.post("/{env}/buyers", status_code=201)
    async def create_buyer(env: Env, body: BuyerIn) -> dict[str, Any]:
        with store.tx(env) as db:
            bid = next_id(db, "B", 5000, "buyers", "buyer_id")
            db.execute("INSERT INTO buyers VALUES (?, ?, ?, ?, 'USD', ?, ?)",
                       (bid, body.name, body.country, body.balance, body.national_id, now_iso()))
            return _one(db, "buyers", "buyer_id", bid, "buyer")

    @app.get("/{env}/buyers/{buyer_id}")
    async def get_buyer(env: Env, buyer_id: str) -> dict[str, Any]:
        with store.tx(env) as db:
            buyer = _one(db, "buyers", "buyer_id", buyer_id, "buyer")
            addrs = db.execute("SELECT * FROM addresses WHERE buyer_id = ?", (buyer_id,)).fetchall()
            return {**buyer, "addresses": [dict(a) for a in addrs]}

    @app.post("/{env}/buyers/{buyer_id}/addresses", status_code=201)
    async def add_address(env: Env, buyer_id: str, body: AddressIn) -> dict[str, Any]:
        with store.tx(env) as db:
            _one(db, "buyers", "buyer_id", buyer_id, "buyer")
            aid = next_id(db, "A", 9000, "addresses", "address_id")
            db.execute("INSERT INTO addresses VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (aid, buyer_id, body.receiver, body.phone, body.country, body.city, body.line))
            return _one(db, "addresses", "address_id", aid, "address")

    @app.post("/{env}/buyers/{buyer_id}/balance")
    async def top_up(env: Env, buyer_id: str, body: dict[str, float]) -> dict[str, Any]:
        amount = body.get("amount")
        if amount is None or amount <= 0:
            raise HTTPException(422, "amount must be a positive number")
        with store.tx(env) as db:
            _one(db, "buyers", "buyer_id", buyer_id, "buyer")
            db.execute("UPDATE buyers SET balance = balance + ? WHERE buyer_id = ?", (amount, buyer_id))
            return _one(db, "buyers", "buyer_id", buyer_id, "buyer")

    @app.post("/{env}/coupons", status_code=201)
    async def create_coupon(env: Env, body: CouponIn) -> dict[str, Any]:
        with store.tx(env) as db:
            cid = next_id(db, "C", 7000, "coupons", "coupon_id")
            db.execute("INSERT INTO coupons VALUES (?, ?, ?, ?, 'USD', 'available', ?)",
                       (cid, body.buyer_id, body.discount, body.min_spend, now_iso()))
            return _one(db, "coupons", "coupon_id", cid, "coupon")

    @app.get("/{env}/coupons/{coupon_id}")
    async def get_coupon(env: Env, coupon_id: str) -> dict[str, Any]:
        with store.tx(env) as db:
            return _one(db, "coupons", "coupon_id", coupon_id, "coupon")

    @app.post("/{env}/subsidies", status_code=201)
    async def create_subsidy(env: Env, body: SubsidyIn) -> dict[str, Any]:
        with store.tx(env) as db:
            item = _one(db, "items", "item_id", body.item_id, "item")
            if item["item_type"] != "pop":
                raise HTTPException(409, f"single-item subsidies apply to pop items only; item {body.item_id} "
                                         f"is {item['item_type']}")
            if body.amount >= item["price"]:
                raise HTTPException(409, f"subsidy {body.amount} must be below the item price {item['price']}")
            db.execute("UPDATE subsidies SET status = 'replaced' WHERE item_id = ? AND status = 'active'",
                       (body.item_id,))
            sid = next_id(db, "SUB", 100, "subsidies", "subsidy_id")
            db.execute("INSERT INTO subsidies VALUES (?, ?, ?, 'active', ?)", (sid, body.item_id, body.amount,
                                                                               now_iso()))
            return _one(db, "subsidies", "subsidy_id", sid, "subsidy")

    @app.post("/{env}/tax/quote")
    async def tax_quote(env: Env, body: TaxQuoteIn) -> dict[str, Any]:
        rate = TAX_RATE[body.tax_mode]
        return {"country": body.country.upper(), "tax_mode": body.tax_mode, "rate": rate,
                "amount": body.amount, "tax": round(body.amount * rate, 2)}

    @app.get("/{env}/exchange-rates/{currency}")
    async def exchange_rate(env: Env, currency: str) -> dict[str, Any]:
        code = currency.upper()
        if code not in RATES:
            raise HTTPException(404, f"no rate for {code}; known: {', '.join(RATES)}")
        return {"base": "USD", "currency": code, "rate": RATES[code]}


def _order_view(order: dict[str, Any]) -> dict[str, Any]:
    return {**order, "status_zh": LABELS_ZH.get(order["status"], order["status"])}


def _price_order(db: sqlite3.Connection, body: OrderIn, item: dict[str, Any]) -> dict[str, Any]:
    if body.currency.upper() not in RATES:
        raise HTTPException(422, f"unsupported currency {body.currency}; known: {', '.join(RATES)}")
    rate = RATES[body.currency.upper()]
    subtotal = item["price"] * body.quantity
    discount = subsidy_amount = 0.0
    subsidy_id = None
    if body.coupon_id:
        coupon = _one(db, "coupons", "coupon_id", body.coupon_id, "coupon")
        if coupon["status"] != "available":
            raise HTTPException(409, f"coupon {body.coupon_id} is {coupon['status']}, not available")
        if coupon["buyer_id"] and coupon["buyer_id"] != body.buyer_id:
            raise HTTPException(409, f"coupon {body.coupon_id} belongs to buyer {coupon['buyer_id']}")
        if subtotal < coupon["min_spend"]:
            raise HTTPException(409, f"coupon {body.coupon_id} needs a spend of {coupon['min_spend']}")
        discount = min(coupon["discount"], subtotal)
    sub = db.execute("SELECT * FROM subsidies WHERE item_id = ? AND status = 'active'", (item["item_id"],)).fetchone()
    if sub is not None:
        subsidy_id, subsidy_amount = sub["subsidy_id"], min(sub["amount"] * body.quantity, subtotal - discount)
    net = subtotal - discount - subsidy_amount
    tax = round(net * TAX_RATE.get(body.tax_mode or "DDU", 0.0), 2)
    return {
        "unit_price": round(item["price"] * rate, 2), "subtotal": round(subtotal * rate, 2),
        "coupon_discount": round(discount * rate, 2), "subsidy_id": subsidy_id,
        "subsidy_amount": round(subsidy_amount * rate, 2), "tax": round(tax * rate, 2),
        "total": round((net + tax) * rate, 2), "total_usd": round(net + tax, 2),
    }


def _register_orders(app: FastAPI, store: ShopStore) -> None:  # noqa: C901 - a route table
    @app.post("/{env}/orders", status_code=201)
    async def create_order(env: Env, body: OrderIn) -> dict[str, Any]:
        with store.tx(env) as db:
            item = _one(db, "items", "item_id", body.item_id, "item")
            buyer = _one(db, "buyers", "buyer_id", body.buyer_id, "buyer")
            if item["stock"] < body.quantity:
                raise HTTPException(409, f"item {body.item_id} has {item['stock']} in stock, {body.quantity} asked")
            price = _price_order(db, body, item)
            oid = next_id(db, "O", 100000000, "orders", "order_id")
            at = now_iso()
            addr = db.execute("SELECT address_id FROM addresses WHERE buyer_id = ? LIMIT 1", (body.buyer_id,)).fetchone()
            db.execute(
                "INSERT INTO orders (order_id, item_id, buyer_id, seller_id, item_type, quantity, unit_price,"
                " subtotal, coupon_id, coupon_discount, subsidy_id, subsidy_amount, tax, total, currency, country,"
                " tax_mode, logistics_channel, address_id, status, created_at, updated_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'created',?,?)",
                (oid, body.item_id, body.buyer_id, item["seller_id"], item["item_type"], body.quantity,
                 price["unit_price"], price["subtotal"], body.coupon_id, price["coupon_discount"],
                 price["subsidy_id"], price["subsidy_amount"], price["tax"], price["total"], body.currency.upper(),
                 (body.country or buyer["country"]).upper(), body.tax_mode, body.logistics_channel,
                 addr[0] if addr else None, at, at),
            )
            db.execute("UPDATE items SET stock = stock - ? WHERE item_id = ?", (body.quantity, body.item_id))
            if body.coupon_id:
                db.execute("UPDATE coupons SET status = 'used' WHERE coupon_id = ?", (body.coupon_id,))
            db.execute("INSERT INTO order_events(order_id, action, from_status, to_status, at) "
                       "VALUES (?, 'create', NULL, 'created', ?)", (oid, at))
            return _order_view(_one(db, "orders", "order_id", oid, "order"))

    @app.get("/{env}/orders")
    async def list_orders(env: Env, buyer_id: str | None = None, status: str | None = None,
                    limit: int = 50) -> dict[str, Any]:
        clauses, args = [], []
        for col, val in (("buyer_id", buyer_id), ("status", status)):
            if val:
                clauses.append(f"{col} = ?")
                args.append(val)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with store.tx(env) as db:
            rows = db.execute(f"SELECT * FROM orders{where} ORDER BY order_id DESC LIMIT ?", [*args, limit]).fetchall()
            return {"orders": [_order_view(dict(r)) for r in rows], "count": len(rows)}

    @app.get("/{env}/orders/{order_id}")
    async def get_order(env: Env, order_id: str) -> dict[str, Any]:
        with store.tx(env) as db:
            return _order_view(_one(db, "orders", "order_id", order_id, "order"))

    @app.get("/{env}/orders/{order_id}/events")
    async def order_events(env: Env, order_id: str) -> dict[str, Any]:
        with store.tx(env) as db:
            _one(db, "orders", "order_id", order_id, "order")
            rows = db.execute("SELECT action, from_status, to_status, at FROM order_events WHERE order_id = ?"
                              " ORDER BY id", (order_id,)).fetchall()
            return {"order_id": order_id, "events": [dict(r) for r in rows]}

    @app.get("/{env}/orders/{order_id}/logistics")
    async def logistics(env: Env, order_id: str) -> dict[str, Any]:
        with store.tx(env) as db:
            o = _one(db, "orders", "order_id", order_id, "order")
            return {"order_id": order_id, "channel": o["logistics_channel"], "logistics_no": o["logistics_no"],
                    "return_logistics_no": o["return_logistics_no"], "country": o["country"],
                    "shipped": o["logistics_no"] is not None}

    def act(env: str, order_id: str, action: str, *, verdict: str | None = None,
            fields: dict[str, Any] | None = None) -> dict[str, Any]:
        with store.tx(env) as db:
            order = _one(db, "orders", "order_id", order_id, "order")
            try:
                step = next_status(action, order["status"], previous=order["prev_status"], verdict=verdict)
            except TransitionError as exc:
                raise HTTPException(409, f"order {order_id}: {exc}") from exc
            updates = {"status": step.to_status, "updated_at": now_iso(), **(fields or {})}
            if action in ("apply_refund", "apply_return_refund", "open_dispute"):
                updates["prev_status"] = order["status"] if action != "open_dispute" else order["prev_status"]
            _apply_money(db, order, action, step.to_status)
            sets = ", ".join(f"{k} = ?" for k in updates)
            db.execute(f"UPDATE orders SET {sets} WHERE order_id = ?", [*updates.values(), order_id])  # noqa: S608
            db.execute("INSERT INTO order_events(order_id, action, from_status, to_status, at) VALUES (?,?,?,?,?)",
                       (order_id, action, step.from_status, step.to_status, updates["updated_at"]))
            return _order_view(_one(db, "orders", "order_id", order_id, "order"))

    @app.post("/{env}/orders/{order_id}/coupon")
    async def apply_coupon(env: Env, order_id: str, body: CouponApplyIn) -> dict[str, Any]:
        with store.tx(env) as db:
            order = _one(db, "orders", "order_id", order_id, "order")
            if order["status"] != "created":
                raise HTTPException(409, f"order {order_id}: coupons apply to unpaid orders only (state "
                                         f"{order['status']}, {LABELS_ZH[order['status']]})")
            if order["coupon_id"]:
                raise HTTPException(409, f"order {order_id} already uses coupon {order['coupon_id']}")
            coupon = _one(db, "coupons", "coupon_id", body.coupon_id, "coupon")
            if coupon["status"] != "available" or (coupon["buyer_id"] and coupon["buyer_id"] != order["buyer_id"]):
                raise HTTPException(409, f"coupon {body.coupon_id} cannot be used by buyer {order['buyer_id']}")
            rate = RATES.get(order["currency"], 1.0)
            discount = round(min(coupon["discount"] * rate, order["total"]), 2)
            db.execute("UPDATE orders SET coupon_id = ?, coupon_discount = ?, total = total - ?, updated_at = ?"
                       " WHERE order_id = ?", (body.coupon_id, discount, discount, now_iso(), order_id))
            db.execute("UPDATE coupons SET status = 'used' WHERE coupon_id = ?", (body.coupon_id,))
            return _order_view(_one(db, "orders", "order_id", order_id, "order"))

    @app.post("/{env}/orders/{order_id}/pay")
    async def pay(env: Env, order_id: str) -> dict[str, Any]:
        return act(env, order_id, "pay")

    @app.post("/{env}/orders/{order_id}/ship")
    async def ship(env: Env, order_id: str) -> dict[str, Any]:
        return act(env, order_id, "ship", fields={"logistics_no": f"LP{order_id[1:]}"})

    @app.post("/{env}/orders/{order_id}/confirm-receipt")
    async def confirm_receipt(env: Env, order_id: str) -> dict[str, Any]:
        return act(env, order_id, "confirm_receipt")

    @app.post("/{env}/orders/{order_id}/review")
    async def review(env: Env, order_id: str, body: dict[str, Any]) -> dict[str, Any]:
        rating = body.get("rating", 5)
        if not isinstance(rating, int) or not 1 <= rating <= 5:
            raise HTTPException(422, "rating must be an integer from 1 to 5")
        return act(env, order_id, "review", fields={"rating": rating, "review": str(body.get("content", ""))})

    @app.post("/{env}/orders/{order_id}/cancel")
    async def cancel(env: Env, order_id: str) -> dict[str, Any]:
        return act(env, order_id, "cancel")

    @app.post("/{env}/orders/{order_id}/refund")
    async def apply_refund(env: Env, order_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return act(env, order_id, "apply_refund", fields={"refund_reason": str(body.get("reason", "不想要了"))})

    @app.post("/{env}/orders/{order_id}/refund/approve")
    async def approve_refund(env: Env, order_id: str) -> dict[str, Any]:
        return act(env, order_id, "approve_refund")

    @app.post("/{env}/orders/{order_id}/refund/reject")
    async def reject_refund(env: Env, order_id: str) -> dict[str, Any]:
        return act(env, order_id, "reject_refund")

    @app.post("/{env}/orders/{order_id}/return-refund")
    async def apply_return_refund(env: Env, order_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return act(env, order_id, "apply_return_refund", fields={"refund_reason": str(body.get("reason", "质量问题"))})

    @app.post("/{env}/orders/{order_id}/return/approve")
    async def approve_return(env: Env, order_id: str) -> dict[str, Any]:
        return act(env, order_id, "approve_return")

    @app.post("/{env}/orders/{order_id}/return/goods")
    async def return_goods(env: Env, order_id: str) -> dict[str, Any]:
        return act(env, order_id, "return_goods", fields={"return_logistics_no": f"RL{order_id[1:]}"})

    @app.post("/{env}/orders/{order_id}/dispute")
    async def open_dispute(env: Env, order_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return act(env, order_id, "open_dispute", fields={"dispute_reason": str(body.get("reason", "商家未处理"))})

    @app.post("/{env}/orders/{order_id}/dispute/resolve")
    async def resolve_dispute(env: Env, order_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return act(env, order_id, "resolve_dispute", verdict=body.get("verdict"))


def _apply_money(db: sqlite3.Connection, order: dict[str, Any], action: str, to_status: str) -> None:
    """Balance and stock effects of a transition (in USD, the buyer's ledger currency)."""
    rate = RATES.get(order["currency"], 1.0)
    total_usd = round(order["total"] / rate, 2)
    if action == "pay":
        balance = db.execute("SELECT balance FROM buyers WHERE buyer_id = ?", (order["buyer_id"],)).fetchone()[0]
        if balance < total_usd:
            raise HTTPException(409, f"buyer {order['buyer_id']} balance {balance} is below the order total {total_usd}")
        db.execute("UPDATE buyers SET balance = balance - ? WHERE buyer_id = ?", (total_usd, order["buyer_id"]))
    elif to_status == "refunded":
        db.execute("UPDATE buyers SET balance = balance + ? WHERE buyer_id = ?", (total_usd, order["buyer_id"]))
        db.execute("UPDATE orders SET refund_amount = ? WHERE order_id = ?", (order["total"], order["order_id"]))
    elif action == "cancel":
        db.execute("UPDATE items SET stock = stock + ? WHERE item_id = ?", (order["quantity"], order["item_id"]))
