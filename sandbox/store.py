"""SQLite storage of the sandbox shop: one database file per environment."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ENVIRONMENTS = ("pre", "online", "project")

SCHEMA = """
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sellers (
  seller_id TEXT PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
  item_id TEXT PRIMARY KEY, title TEXT NOT NULL, seller_id TEXT NOT NULL REFERENCES sellers,
  item_type TEXT NOT NULL CHECK (item_type IN ('pop','choice','local')),
  price REAL NOT NULL CHECK (price >= 0), currency TEXT NOT NULL, stock INTEGER NOT NULL CHECK (stock >= 0),
  country TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS buyers (
  buyer_id TEXT PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL, balance REAL NOT NULL,
  currency TEXT NOT NULL, national_id TEXT, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS addresses (
  address_id TEXT PRIMARY KEY, buyer_id TEXT NOT NULL REFERENCES buyers, receiver TEXT NOT NULL,
  phone TEXT NOT NULL, country TEXT NOT NULL, city TEXT NOT NULL, line TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS coupons (
  coupon_id TEXT PRIMARY KEY, buyer_id TEXT, discount REAL NOT NULL, min_spend REAL NOT NULL,
  currency TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS subsidies (
  subsidy_id TEXT PRIMARY KEY, item_id TEXT NOT NULL REFERENCES items, amount REAL NOT NULL,
  status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS orders (
  order_id TEXT PRIMARY KEY, item_id TEXT NOT NULL, buyer_id TEXT NOT NULL, seller_id TEXT NOT NULL,
  item_type TEXT NOT NULL, quantity INTEGER NOT NULL, unit_price REAL NOT NULL, subtotal REAL NOT NULL,
  coupon_id TEXT, coupon_discount REAL NOT NULL DEFAULT 0, subsidy_id TEXT,
  subsidy_amount REAL NOT NULL DEFAULT 0, tax REAL NOT NULL DEFAULT 0, total REAL NOT NULL,
  currency TEXT NOT NULL, country TEXT NOT NULL, tax_mode TEXT, logistics_channel TEXT,
  logistics_no TEXT, return_logistics_no TEXT, address_id TEXT, status TEXT NOT NULL,
  prev_status TEXT, refund_amount REAL, refund_reason TEXT, dispute_reason TEXT, rating INTEGER,
  review TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS idempotency (
  key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL, at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS order_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, order_id TEXT NOT NULL, action TEXT NOT NULL,
  from_status TEXT, to_status TEXT NOT NULL, at TEXT NOT NULL);
"""

SEED_SELLERS = [("S1001", "Acme Global", "CN"), ("S1002", "Choice Direct", "CN"), ("S1003", "Local Mart BR", "BR")]
SEED_ITEMS = [
    ("123456", "Wireless earbuds", "S1001", "pop", 25.0),
    ("223344", "Phone case", "S1002", "choice", 9.9),
    ("334455", "Coffee beans 1kg", "S1003", "local", 18.5),
    ("445566", "Smart watch", "S1001", "pop", 59.0),
    ("556677", "LED desk lamp", "S1002", "choice", 32.0),
    ("667788", "Yoga mat", "S1003", "local", 21.0),
]
SEED_BUYERS = {
    "all": [("B1001", "Test Buyer", "US")],
    "pre": [("B2001", "Pre Buyer", "US"), ("B2002", "Pre Buyer BR", "BR")],
    "online": [("B3001", "Online Buyer", "US")],
    "project": [("B4001", "Project Buyer", "ES")],
}


def now_iso() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds")


class ShopStore:
    """Per-environment SQLite databases under one folder. Writes are serialised per environment."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._locks = {env: threading.Lock() for env in ENVIRONMENTS}
        self._connections: dict[str, sqlite3.Connection] = {}
        for env in ENVIRONMENTS:
            with self.tx(env) as db:
                db.executescript(SCHEMA)
                if db.execute("SELECT COUNT(*) FROM items").fetchone()[0] == 0:
                    _seed(db, env)

    def path(self, env: str) -> Path:
        return self.data_dir / f"{env}.sqlite3"

    def _connect(self, env: str) -> sqlite3.Connection:
        # One connection per environment, kept: opening one (and setting WAL) per request cost
        # more than the request. Used under the environment's lock only.
        if (db := self._connections.get(env)) is not None:
            return db
        db = sqlite3.connect(self.path(env), timeout=10, check_same_thread=False)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a commit survives the sandbox process dying; no fsync per request
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        self._connections[env] = db  # kept only once fully set up
        return db

    @contextmanager
    def tx(self, env: str) -> Iterator[sqlite3.Connection]:
        """A write transaction on one environment: committed on success, rolled back on error."""
        with self._locks[env]:
            db = self._connect(env)
            with db:
                yield db

    def close(self) -> None:
        for env, db in list(self._connections.items()):
            with self._locks[env]:
                db.close()
        self._connections.clear()

    def reset(self, env: str) -> None:
        with self.tx(env) as db:
            for table in ("idempotency", "order_events", "orders", "subsidies", "coupons", "addresses", "buyers",
                          "items", "sellers", "counters"):
                db.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names
            _seed(db, env)


def next_id(db: sqlite3.Connection, prefix: str, start: int, table: str, key: str) -> str:
    """The next free id: counters give the sequence; ids inserted by hand (test seeds) are skipped."""
    row = db.execute("SELECT value FROM counters WHERE name = ?", (prefix,)).fetchone()
    value = (row[0] if row else start) + 1
    while db.execute(f"SELECT 1 FROM {table} WHERE {key} = ?", (f"{prefix}{value}",)).fetchone():  # noqa: S608
        value += 1
    db.execute("INSERT INTO counters(name, value) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET value = ?",
               (prefix, value, value))
    return f"{prefix}{value}"


def row_dict(row: sqlite3.Row | None) -> dict[str, Any] | None:
    return dict(row) if row is not None else None


def _seed(db: sqlite3.Connection, env: str) -> None:
    at = now_iso()
    db.executemany("INSERT INTO sellers VALUES (?, ?, ?, ?)", [(*s, at) for s in SEED_SELLERS])
    country = {s[0]: s[2] for s in SEED_SELLERS}
    db.executemany(
        "INSERT INTO items VALUES (?, ?, ?, ?, ?, 'USD', 1000, ?, ?)",
        [(i, t, s, k, p, country[s], at) for i, t, s, k, p in SEED_ITEMS],
    )
    for buyer_id, name, ctry in SEED_BUYERS["all"] + SEED_BUYERS.get(env, []):
        db.execute("INSERT INTO buyers VALUES (?, ?, ?, 100000, 'USD', NULL, ?)", (buyer_id, name, ctry, at))
        db.execute("INSERT INTO addresses VALUES (?, ?, ?, '+1-555-0100', ?, 'Test City', '1 Test Street')",
                   (f"A{buyer_id[1:]}", buyer_id, name, ctry))
