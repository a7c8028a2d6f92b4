"""Idempotency keys, as payment APIs honour them: a write repeated with the same `Idempotency-Key`
gets the first answer again (and does nothing); the same key with a different request is refused
with 422. Keys live in the environment's own database, so a sandbox restart keeps them.

A plain ASGI middleware: requests without a key cost one header lookup.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sandbox.store import ENVIRONMENTS, ShopStore, now_iso

HEADER = b"idempotency-key"
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
KEY_MAX = 255


class IdempotencyKeys:
    def __init__(self, app: ASGIApp, store: ShopStore) -> None:
        self.app = app
        self.store = store
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = _header(scope) if scope["type"] == "http" and scope["method"] in WRITES else None
        env = scope.get("path", "").strip("/").split("/", 1)[0] if key else ""
        if not key or env not in ENVIRONMENTS:
            await self.app(scope, receive, send)
            return
        if len(key) > KEY_MAX:
            await _send_json(send, 422, {"detail": f"Idempotency-Key longer than {KEY_MAX} characters"})
            return
        body = await _read_body(receive)
        if body is None:
            return  # the client went away before its request was whole: nothing to do, nothing to remember
        fingerprint = hashlib.sha256(scope["method"].encode() + b" " + scope["path"].encode() + b"\n" + body).hexdigest()
        lock = self._locks.setdefault((env, key), asyncio.Lock())
        async with lock:  # the same key twice at once: the second waits for the first's answer
            with self.store.tx(env) as db:
                row = db.execute("SELECT fingerprint, status, body FROM idempotency WHERE key = ?", (key,)).fetchone()
            if row is not None:
                if row["fingerprint"] != fingerprint:
                    await _send_json(send, 422, {"detail": "this Idempotency-Key was used for a different request"})
                else:
                    await _send_raw(send, row["status"], row["body"], replayed=True)
                return
            status, answer = await self._forward(scope, body, send)
            if status is not None and status < 500:  # a server error may be retried with the same key
                with self.store.tx(env) as db:
                    db.execute("INSERT OR IGNORE INTO idempotency(key, fingerprint, status, body, at) VALUES (?,?,?,?,?)",
                               (key, fingerprint, status, bytes(answer), now_iso()))
        self._locks.pop((env, key), None)

    async def _forward(self, scope: Scope, body: bytes, send: Send) -> tuple[int | None, bytearray]:
        status: int | None = None
        answer = bytearray()
        sent = False

        async def replay_body() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def capture(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                answer.extend(message.get("body", b""))
            await send(message)

        await self.app(scope, replay_body, capture)
        return status, answer


def _header(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name.lower() == HEADER:
            return value.decode("latin-1").strip() or None
    return None


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None when the client disconnected before sending it all."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _send_raw(send: Send, status: int, body: bytes, *, replayed: bool = False) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if replayed:
        headers.append((b"idempotent-replayed", b"true"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _send_json(send: Send, status: int, data: Any) -> None:
    await _send_raw(send, status, json.dumps(data).encode())
