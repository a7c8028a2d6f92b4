"""POST /v1/ask with copies over real HTTP: one answer listing every run, an Idempotency-Key that
covers the whole batch, and a 202 that is polled to the list."""

from __future__ import annotations

import httpx

from core.client import Datasmith
from core.output_contract import problems
from sandbox.server import BackgroundServer
from tests.api.conftest import ApiServer, order_status, orders, poll, slow

FOUR = "给商品123456造4笔已支付的订单"


def test_a_batch_answers_every_run_and_a_retry_with_its_key_runs_nothing_again(open_api: ApiServer,
                                                                              sandbox: BackgroundServer) -> None:
    before = orders(sandbox)
    key = {"Idempotency-Key": "batch-of-four"}
    first = httpx.post(f"{open_api.url}/v1/ask", json={"text": FOUR}, headers=key, timeout=60)
    assert first.status_code == 200
    body = first.json()
    assert problems(body) == [] and body["copies"] == 4
    assert [r["status"] for r in body["runs"]] == ["succeeded"] * 4
    made = {r["steps"][0]["output"]["order_id"] for r in body["runs"]}
    assert len(made) == 4 and orders(sandbox) == before + 4
    assert all(order_status(sandbox, order_id) == "paid" for order_id in made)

    retried = httpx.post(f"{open_api.url}/v1/ask", json={"text": FOUR, "wait": 5}, headers=key, timeout=60)
    assert retried.status_code == 200 and retried.headers.get("Idempotent-Replayed") == "true"
    assert retried.json() == body and orders(sandbox) == before + 4  # the whole batch, once

    for run in body["runs"]:  # every copy is a run of its own, readable by its id
        one = httpx.get(f"{open_api.url}/v1/runs/{run['run_id']}")
        assert one.status_code == 200 and one.json()["run"]["run_id"] == run["run_id"] and "runs" not in one.json()


def test_a_slow_batch_answers_202_with_its_progress_and_is_polled_to_the_list(open_api: ApiServer,
                                                                               sandbox: BackgroundServer) -> None:
    with slow(sandbox, r"/pay$", delay_ms=800, times=3):
        response = httpx.post(f"{open_api.url}/v1/ask", json={"text": "make 3 paid orders for item 123456", "wait": 0.3})
        assert response.status_code == 202
        accepted = response.json()
        assert accepted["location"] == f"/v1/runs/{accepted['run_id']}"
        final = poll(open_api.url, accepted["location"])
    body = final.json()
    assert final.status_code == 200 and problems(body) == [] and len(body["runs"]) == 3
    assert accepted["run_id"] not in {r["run_id"] for r in body["runs"]}  # the batch's id, not a run's
    assert {r["status"] for r in body["runs"]} == {"succeeded"}


def test_the_client_sees_each_copy(open_api: ApiServer) -> None:
    with Datasmith(open_api.url) as ds:
        answer = ds.ask("make 2 paid orders", item_id=123456)
    assert answer.ok and answer.copies == 2 and len(answer.runs) == 2
    assert len({outputs["order_id"] for outputs in answer.each}) == 2


def test_too_many_copies_is_refused_before_anything_runs(open_api: ApiServer, sandbox: BackgroundServer) -> None:
    before = orders(sandbox)
    response = httpx.post(f"{open_api.url}/v1/ask", json={"text": "make 500 paid orders for item 123456"}, timeout=60)
    body = response.json()
    assert response.status_code == 200 and body["error"]["code"] == "DS-403" and body["run"] is None
    assert orders(sandbox) == before


def test_openapi_documents_the_list(open_api: ApiServer) -> None:
    spec = httpx.get(f"{open_api.url}/openapi.json").json()
    ok = spec["paths"]["/v1/ask"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]["properties"]
    assert ok["runs"]["type"] == "array" and "run_id" in ok["runs"]["items"]["properties"]
    accepted = spec["components"]["schemas"]["Accepted"]["properties"]
    assert {"copies", "copies_ended", "run_ids"} <= set(accepted)
