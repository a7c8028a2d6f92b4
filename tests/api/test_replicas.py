"""Two API replicas on one PostgreSQL: a retry that lands on the other replica runs nothing twice,
a run one started is pollable on the other, and a token's bucket is the whole service's."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from api.config import Bucket
from core.settings import Settings
from sandbox.server import BackgroundServer
from tests.api.conftest import ApiServer, bearer, orders, slow, token

REFUND = "给商品id为123456的商品生成一笔退货退款的订单"


def two_replicas(serve: Callable[..., ApiServer], api_settings: Settings, pg_url: str, tmp_path: Path,
                 **config: object) -> tuple[ApiServer, ApiServer]:
    a = serve(token("ci", may_write=True), settings=api_settings.model_copy(
        update={"database_url": pg_url, "home": tmp_path / "a"}), **config)
    b = serve(token("ci", may_write=True), settings=api_settings.model_copy(
        update={"database_url": pg_url, "home": tmp_path / "b"}), **config)
    return a, b


def test_one_idempotency_key_sent_to_both_replicas_makes_one_order(serve, api_settings: Settings, pg_url: str,
                                                                   tmp_path: Path, sandbox: BackgroundServer) -> None:
    a, b = two_replicas(serve, api_settings, pg_url, tmp_path)
    before = orders(sandbox)
    headers = {**bearer("ci"), "Idempotency-Key": "job-7-refund"}
    with slow(sandbox, "/orders$", 800), ThreadPoolExecutor(2) as pool:  # both arrive while the first runs
        calls = [pool.submit(httpx.post, f"{s.url}/v1/ask", json={"text": REFUND}, headers=headers, timeout=60)
                 for s in (a, b)]
        answers = [c.result() for c in calls]
    codes = sorted(r.status_code for r in answers)
    assert orders(sandbox) == before + 1  # one order, whichever replica ran it
    first = next(r for r in answers if r.status_code == 200)
    assert first.json()["run"]["status"] == "succeeded"
    other = next(r for r in answers if r is not first)
    assert codes in ([200, 200], [200, 409])  # the replay, or "its first call is still being answered"
    if other.status_code == 409:
        assert other.json()["error"]["code"] == "DS-113"
    again = httpx.post(f"{b.url}/v1/ask", json={"text": REFUND}, headers=headers, timeout=60)
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.json()["run"]["run_id"] == first.json()["run"]["run_id"] and orders(sandbox) == before + 1
    polled = httpx.get(f"{a.url}/v1/runs/{first.json()['run']['run_id']}", headers=bearer("ci"))
    assert polled.status_code == 200 and polled.json()["run"]["status"] == "succeeded"


def test_a_token_s_bucket_holds_across_replicas(serve, api_settings: Settings, pg_url: str, tmp_path: Path) -> None:
    a, b = two_replicas(serve, api_settings, pg_url, tmp_path, defaults=Bucket(capacity=4, rate_per_s=0.1))
    codes = [httpx.post(f"{s.url}/v1/plan", json={"text": "给商品123456下一单"}, headers=bearer("ci")).status_code
             for s in (a, b) * 4]
    assert codes.count(200) == 4 and codes.count(429) == 4  # not 4 on each replica
