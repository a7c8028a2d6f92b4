"""POST /v1/plan and /v1/ask over real HTTP: the published object, idempotent retries, 202-then-poll,
a client that goes away, and the bound on runs in flight."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from core.output_contract import problems
from sandbox.server import BackgroundServer
from tests.api.conftest import ApiServer, order_status, orders, poll, slow

CHAIN = "给商品id为123456的商品生成一笔退货退款的订单"
ROOT = Path(__file__).resolve().parents[2]


def test_ask_runs_the_return_refund_chain_and_answers_the_published_object(open_api: ApiServer,
                                                                          sandbox: BackgroundServer) -> None:
    response = httpx.post(f"{open_api.url}/v1/ask", json={"text": CHAIN}, timeout=60)
    assert response.status_code == 200
    body = response.json()
    assert problems(body) == []
    assert body["rule"] == "return_refund" and len(body["run"]["steps"]) == 8
    assert [s["status"] for s in body["run"]["steps"]] == ["succeeded"] * 8 and body["run"]["status"] == "succeeded"
    assert order_status(sandbox, body["run"]["steps"][0]["output"]["order_id"]) == "refunded"
    # the same answer is there to read later, by run id
    again = httpx.get(f"{open_api.url}/v1/runs/{body['run']['run_id']}")
    assert again.status_code == 200 and again.json()["run"]["status"] == "succeeded" and problems(again.json()) == []


def test_a_retried_ask_with_the_same_key_makes_one_order_even_after_a_restart(
        serve: Callable[..., ApiServer], sandbox: BackgroundServer) -> None:
    first_api = serve()
    key = {"Idempotency-Key": "order-for-test-42"}
    before = orders(sandbox)
    first = httpx.post(f"{first_api.url}/v1/ask", json={"text": CHAIN}, headers=key, timeout=60)
    retried = httpx.post(f"{first_api.url}/v1/ask", json={"text": CHAIN, "wait": 5}, headers=key, timeout=60)
    assert first.status_code == retried.status_code == 200
    assert retried.json() == first.json() and retried.headers.get("Idempotent-Replayed") == "true"
    assert orders(sandbox) == before + 1

    other = httpx.post(f"{first_api.url}/v1/ask", json={"text": "给商品123456生成一笔已支付的订单"}, headers=key)
    assert other.status_code == 409 and other.json()["error"]["code"] == "DS-112"

    first_api.stop()  # a restart keeps the keys (the data dir's api.sqlite3)
    second_api = serve()
    after_restart = httpx.post(f"{second_api.url}/v1/ask", json={"text": CHAIN}, headers=key, timeout=60)
    assert after_restart.json() == first.json() and orders(sandbox) == before + 1


def test_a_slow_run_answers_202_and_is_polled_to_its_end(open_api: ApiServer, sandbox: BackgroundServer) -> None:
    with slow(sandbox, r"/pay$", delay_ms=1500):
        response = httpx.post(f"{open_api.url}/v1/ask", json={"text": "给商品123456生成一笔已支付的订单", "wait": 0.2})
        assert response.status_code == 202
        accepted = response.json()
        assert response.headers["Location"] == accepted["location"] == f"/v1/runs/{accepted['run_id']}"
        assert int(response.headers["Retry-After"]) >= 1
        assert httpx.get(open_api.url + accepted["location"]).status_code == 202  # still going
        final = poll(open_api.url, accepted["location"])
    assert final.status_code == 200 and problems(final.json()) == []
    assert final.json()["run"]["run_id"] == accepted["run_id"] and final.json()["run"]["status"] == "succeeded"


def test_a_client_that_disconnects_does_not_cancel_its_run(open_api: ApiServer, sandbox: BackgroundServer) -> None:
    before = orders(sandbox)
    with slow(sandbox, r"/pay$", delay_ms=1500):
        with pytest.raises(httpx.ReadTimeout):  # the client gives up and closes its connection
            httpx.post(f"{open_api.url}/v1/ask", json={"text": "给商品123456生成一笔已支付的订单"}, timeout=0.5)
        # the run may start a moment after the client gave up (planning on a loaded machine): wait for it
        deadline = time.monotonic() + 10
        while not (runs := httpx.get(f"{open_api.url}/v1/runs", params={"limit": 1}).json()["runs"]) \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        assert runs and runs[0]["status"] == "running"
        final = poll(open_api.url, f"/v1/runs/{runs[0]['run_id']}")
    assert final.json()["run"]["status"] == "succeeded" and orders(sandbox) == before + 1


def test_runs_in_flight_are_bounded(serve: Callable[..., ApiServer], sandbox: BackgroundServer) -> None:
    api = serve(max_in_flight=1)
    with slow(sandbox, r"/pay$", delay_ms=1500):
        first = httpx.post(f"{api.url}/v1/ask", json={"text": "给商品123456生成一笔已支付的订单", "wait": 0})
        second = httpx.post(f"{api.url}/v1/ask", json={"text": "给商品123456生成一笔已支付的订单", "wait": 0})
        assert first.status_code == 202
        assert second.status_code == 503 and second.json()["error"]["code"] == "DS-411"
        assert int(second.headers["Retry-After"]) >= 1
        poll(api.url, first.headers["Location"])
    third = httpx.post(f"{api.url}/v1/ask", json={"text": "给商品123456生成一笔已支付的订单"}, timeout=60)
    assert third.status_code == 200 and third.json()["run"]["status"] == "succeeded"


def test_plan_outcomes_and_bad_bodies(open_api: ApiServer) -> None:
    planned = httpx.post(f"{open_api.url}/v1/plan", json={"text": CHAIN})
    assert planned.status_code == 200 and planned.json()["status"] == "planned" and "run" not in planned.json()
    missing = httpx.post(f"{open_api.url}/v1/plan", json={"text": "帮我造一笔退货退款的订单"}).json()
    assert missing["status"] == "needs_input" and missing["missing"] == ["item_id"]
    bad = httpx.post(f"{open_api.url}/v1/plan", json={"text": CHAIN, "surprise": 1})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "DS-114"
    unknown = httpx.get(f"{open_api.url}/v1/runs/nope")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "DS-104"


def test_a_needs_input_ask_after_a_202_stays_pollable(open_api: ApiServer) -> None:
    response = httpx.post(f"{open_api.url}/v1/ask", json={"text": "帮我造一笔退货退款的订单", "wait": 0})
    final = poll(open_api.url, f"/v1/runs/{response.json()['run_id']}") if response.status_code == 202 else response
    assert final.status_code == 200 and final.json()["status"] == "needs_input" and final.json()["run"] is None


def test_openapi_documents_every_answer(open_api: ApiServer) -> None:
    spec = httpx.get(f"{open_api.url}/openapi.json").json()
    ask = spec["paths"]["/v1/ask"]["post"]["responses"]
    assert {"200", "202", "401", "403", "409", "422", "429", "503"} <= set(ask)
    assert "run" in ask["200"]["content"]["application/json"]["schema"]["properties"]
    assert {"200", "202", "404"} <= set(spec["paths"]["/v1/runs/{run_id}"]["get"]["responses"])
    assert httpx.get(f"{open_api.url}/docs").status_code == 200


def test_metrics_count_requests_and_outcomes(open_api: ApiServer) -> None:
    httpx.post(f"{open_api.url}/v1/plan", json={"text": CHAIN})
    text = httpx.get(f"{open_api.url}/metrics").text
    assert 'datasmith_api_requests_total{code="200",method="POST",route="/v1/plan"} 1.0' in text
    assert 'datasmith_api_outcomes_total{endpoint="plan",outcome="planned"} 1.0' in text
    assert "datasmith_api_runs_in_flight 0.0" in text and "datasmith_api_request_seconds_bucket" in text


def test_serving_beyond_loopback_without_tokens_is_refused(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "api", "--host", "0.0.0.0", "--home", str(tmp_path)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 1 and "refusing to serve the API on 0.0.0.0" in out.stderr
