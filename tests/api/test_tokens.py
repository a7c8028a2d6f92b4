"""Who may do what: tokens (hashed in the config), their packs, environments and writes, confirm
environments, runs visible only to their token, and each token's leaky bucket."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from api.config import Bucket
from sandbox.server import BackgroundServer
from tests.api.conftest import ApiServer, bearer, orders, token

PAID = "给商品123456生成一笔已支付的订单"


def test_a_call_without_a_valid_token_is_401(serve: Callable[..., ApiServer]) -> None:
    api = serve(token("ci", may_write=True))
    for headers in ({}, bearer("ci", "wrong-secret"), bearer("nobody"), {"Authorization": "Basic abc"}):
        response = httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=headers)
        assert response.status_code == 401 and response.json()["error"]["code"] == "DS-110"
        assert response.headers["WWW-Authenticate"] == "Bearer"
    assert httpx.get(f"{api.url}/health").json()["authentication"] == "tokens"
    assert httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=bearer("ci")).status_code == 200


def test_scopes_environments_writes_and_users(serve: Callable[..., ApiServer], sandbox: BackgroundServer) -> None:
    api = serve(token("reader", environments=["pre"]), token("writer", may_write=True, act_as=["alice"]))
    before = orders(sandbox)
    other_env = httpx.post(f"{api.url}/v1/plan", json={"text": PAID, "environment": "project"},
                           headers=bearer("reader"))
    assert other_env.status_code == 403 and other_env.json()["error"]["code"] == "DS-111"
    named_in_text = httpx.post(f"{api.url}/v1/ask", json={"text": "项目环境" + PAID}, headers=bearer("reader"))
    assert named_in_text.status_code == 403 and named_in_text.json()["error"]["code"] == "DS-204"
    write = httpx.post(f"{api.url}/v1/ask", json={"text": PAID}, headers=bearer("reader"))
    assert write.status_code == 403 and write.json()["error"]["code"] == "DS-204"
    assert orders(sandbox) == before  # nothing ran
    assert httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=bearer("reader")).status_code == 200
    impersonate = httpx.post(f"{api.url}/v1/plan", json={"text": PAID, "user": "bob"}, headers=bearer("writer"))
    assert impersonate.status_code == 403 and impersonate.json()["error"]["code"] == "DS-111"
    as_alice = httpx.post(f"{api.url}/v1/ask", json={"text": PAID, "user": "alice"}, headers=bearer("writer"),
                          timeout=60)
    assert as_alice.status_code == 200 and as_alice.json()["run"]["status"] == "succeeded"


def test_a_confirm_environment_runs_writes_only_when_a_writer_confirms(serve: Callable[..., ApiServer],
                                                                       sandbox: BackgroundServer) -> None:
    api = serve(token("reader"), token("writer", may_write=True))
    online = {"text": "线上环境" + PAID}
    before = orders(sandbox, "online")
    unconfirmed = httpx.post(f"{api.url}/v1/ask", json=online, headers=bearer("writer")).json()
    assert unconfirmed["run"] is None and "确认" in unconfirmed["question"] and orders(sandbox, "online") == before
    refused = httpx.post(f"{api.url}/v1/ask", json={**online, "confirmed": True}, headers=bearer("reader"))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "DS-111"
    confirmed = httpx.post(f"{api.url}/v1/ask", json={**online, "confirmed": True}, headers=bearer("writer"),
                           timeout=60).json()
    assert confirmed["run"]["status"] == "succeeded" and orders(sandbox, "online") == before + 1


def test_a_token_sees_only_its_own_runs(serve: Callable[..., ApiServer]) -> None:
    api = serve(token("a", may_write=True), token("b", may_write=True))
    run_id = httpx.post(f"{api.url}/v1/ask", json={"text": PAID}, headers=bearer("a"), timeout=60).json()["run"]["run_id"]
    assert httpx.get(f"{api.url}/v1/runs/{run_id}", headers=bearer("a")).status_code == 200
    assert httpx.get(f"{api.url}/v1/runs/{run_id}", headers=bearer("b")).status_code == 404
    assert [r["run_id"] for r in httpx.get(f"{api.url}/v1/runs", headers=bearer("a")).json()["runs"]] == [run_id]
    assert httpx.get(f"{api.url}/v1/runs", headers=bearer("b")).json()["runs"] == []
    resumed = httpx.post(f"{api.url}/v1/runs/{run_id}/resume", json={"action": "retry"}, headers=bearer("b"))
    assert resumed.status_code == 404


def test_knowledge_lists_what_the_token_may_use(serve: Callable[..., ApiServer]) -> None:
    api = serve(token("shop-pre", packs=["shop"], environments=["pre"]))
    packs = httpx.get(f"{api.url}/v1/knowledge", headers=bearer("shop-pre")).json()["packs"]
    assert [p["name"] for p in packs] == ["shop"]
    assert [e["name"] for e in packs[0]["environments"]] == ["pre"]
    assert "return_refund" in {r["name"] for r in packs[0]["rules"]}
    assert {"name": "create_order", "side_effects": True} in [
        {"name": t["name"], "side_effects": t["side_effects"]} for t in packs[0]["tools"]]


def test_over_its_bucket_a_token_gets_429_with_retry_after(serve: Callable[..., ApiServer]) -> None:
    api = serve(token("small", capacity=2, rate_per_s=0.2), token("other"))
    answers = [httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=bearer("small")) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 429, 429]
    limited = answers[2]
    assert limited.json()["error"]["code"] == "DS-410" and limited.json()["error"]["retryable"] is True
    assert 1 <= int(limited.headers["Retry-After"]) <= 5
    # another token has its own bucket
    assert httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=bearer("other")).status_code == 200
    assert 'datasmith_api_rate_limited_total{token="small"} 2.0' in httpx.get(f"{api.url}/metrics").text


def test_a_replayed_key_is_not_charged_to_the_bucket(serve: Callable[..., ApiServer]) -> None:
    api = serve(token("one", capacity=1, rate_per_s=0.1))
    key = {**bearer("one"), "Idempotency-Key": "k1"}
    first = httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=key)
    replay = httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=key)
    assert first.status_code == replay.status_code == 200 and replay.json() == first.json()
    assert httpx.post(f"{api.url}/v1/plan", json={"text": PAID}, headers=bearer("one")).status_code == 429


def test_the_open_mode_has_a_bucket_too(serve: Callable[..., ApiServer]) -> None:
    api = serve(open_bucket=Bucket(capacity=1, rate_per_s=0.1))
    codes = [httpx.post(f"{api.url}/v1/plan", json={"text": PAID}).status_code for _ in range(2)]
    assert codes == [200, 429]
