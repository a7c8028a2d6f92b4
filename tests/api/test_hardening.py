"""A wrong token cannot buy CPU (no PBKDF2 check for a secret that already failed, a bucket per
token name before any check), and what the API keeps of an answer is redacted of PII as runs are."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable

import httpx

from api.config import Bucket
from tests.api.conftest import ApiServer, bearer, token

PAID = "给商品123456生成一笔已支付的订单"
NATIONAL_ID = "110101199003071234"


def test_a_wrong_token_repeated_is_answered_from_memory_and_new_guesses_are_throttled(
        serve: Callable[..., ApiServer]) -> None:
    api = serve(token("ci", may_write=True), secret_checks=Bucket(capacity=3, rate_per_s=0.5))
    for _ in range(25):  # one check, then remembered: never throttled (25 checks would be), always 401
        wrong = httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=bearer("ci", "wrong-secret"))
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "DS-110"
    guesses = [httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=bearer("ci", f"guess-{i}"))
               for i in range(6)]
    assert {g.status_code for g in guesses} == {401, 429}  # new secrets: a few checks, then refused
    throttled = next(g for g in guesses if g.status_code == 429)  # before any hashing
    assert throttled.json()["error"]["code"] == "DS-410"
    wait = int(throttled.headers["Retry-After"])
    assert wait >= 1
    nobody = httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=bearer("nobody", "x"))
    assert nobody.status_code == 401  # an unknown name costs no check and no bucket
    time.sleep(wait)  # the bucket has room again: the right secret gets in
    assert httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=bearer("ci")).status_code == 200


def test_an_idempotency_record_keeps_no_pii(open_api: ApiServer, api_settings) -> None:  # noqa: ANN001
    key = {"Idempotency-Key": "buyer-with-id"}
    text = f"创建一个测试买家,身份证号{NATIONAL_ID}"
    first = httpx.post(f"{open_api.url}/v1/ask", json={"text": text}, headers=key, timeout=60)
    assert first.status_code == 200 and first.json()["run"]["status"] == "succeeded"
    assert first.json()["steps"][0]["arguments"]["national_id"] == NATIONAL_ID  # the caller sees what it sent
    db = sqlite3.connect(api_settings.home / "api.sqlite3")
    try:
        stored = db.execute("SELECT body FROM idempotency WHERE key = ?", ("buyer-with-id",)).fetchone()[0]
    finally:
        db.close()
    assert NATIONAL_ID not in stored and json.loads(stored)["steps"][0]["arguments"]["national_id"] == "***"
    replay = httpx.post(f"{open_api.url}/v1/ask", json={"text": text}, headers=key, timeout=60)
    assert replay.headers.get("Idempotent-Replayed") == "true" and NATIONAL_ID not in replay.text
    assert replay.json()["run"]["run_id"] == first.json()["run"]["run_id"]  # the same run, nothing new
