"""A consumer's own test using the `datasmith` fixture of the pytest plugin, both ways: in-process
(no DATASMITH_API_URL) and against the API over HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from pydantic import SecretStr

from core.client import AsyncDatasmith, Datasmith, DatasmithCallError
from core.settings import Settings
from sandbox.server import BackgroundServer
from tests.api.conftest import ApiServer, bearer, order_status, orders, token


@pytest.fixture(params=["in-process", "http"])
def datasmith_settings(request: pytest.FixtureRequest, api_settings: Settings,
                       serve: Callable[..., ApiServer]) -> Iterator[Settings]:
    """What a consumer's conftest may do: point the plugin's fixture at a service (or not)."""
    if request.param == "in-process":
        yield api_settings
        return
    api = serve(token("consumer", may_write=True))
    yield api_settings.model_copy(update={"api_url": api.url, "api_token": SecretStr("consumer.s3cret-for-tests")})


@pytest.fixture
def datasmith(datasmith_settings: Settings) -> Iterator[object]:
    # the plugin's fixture is session-scoped; here it follows the parametrised settings per test
    from core.client import connect

    client = connect(datasmith_settings)
    yield client
    client.close()


def test_a_consumer_gets_a_shipped_order_in_one_line(datasmith: Datasmith, sandbox: BackgroundServer) -> None:
    order_id = datasmith.ask("一笔已发货的订单", item_id=123456).outputs["order_id"]
    assert order_status(sandbox, order_id) == "shipped"


def test_an_ask_that_cannot_run_raises_with_the_question(datasmith: Datasmith) -> None:
    with pytest.raises(DatasmithCallError, match="item_id|商品"):
        datasmith.ask("帮我造一笔退货退款的订单")


def test_the_plugin_registers_the_fixture(pytestconfig: pytest.Config) -> None:
    plugin = pytestconfig.pluginmanager.get_plugin("datasmith_stories")
    assert plugin is not None and hasattr(plugin, "datasmith") and hasattr(plugin, "datasmith_settings")


def test_the_client_retries_with_one_key_and_makes_one_order(serve: Callable[..., ApiServer],
                                                             sandbox: BackgroundServer) -> None:
    """The first answer is lost on the way back (a proxy's 502): the retry carries the same key."""
    api = serve(token("ci", may_write=True))
    seen: list[str] = []
    real = httpx.HTTPTransport()

    class LosesFirstAnswer(httpx.BaseTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            response = real.handle_request(request)
            if request.method == "POST":
                seen.append(request.headers["Idempotency-Key"])
                if len(seen) == 1:
                    response.read()
                    return httpx.Response(502)
            return response

    before = orders(sandbox)
    with Datasmith(api.url, "ci.s3cret-for-tests", transport=LosesFirstAnswer(), backoff_s=0.01) as ds:
        answer = ds.ask("给商品123456生成一笔已支付的订单")
    assert answer.ok and len(seen) == 2 and seen[0] == seen[1] and orders(sandbox) == before + 1


def test_the_async_client_polls_a_202_to_the_end(serve: Callable[..., ApiServer]) -> None:
    import asyncio

    api = serve(token("ci", may_write=True))

    async def go() -> tuple[str, str]:
        async with AsyncDatasmith(api.url, "ci.s3cret-for-tests", backoff_s=0.05) as ds:
            answer = await ds.ask("给商品123456生成一笔已支付的订单", wait=0)
            return answer.run.status if answer.run else "", answer.step("pay_order").status

    assert asyncio.run(go()) == ("succeeded", "succeeded")
    assert httpx.get(f"{api.url}/v1/runs", headers=bearer("ci")).json()["runs"][0]["status"] == "succeeded"
