"""A pack's ${NAME} never reads a secret the deployment did not name; the sandbox's test hooks
answer loopback only; a base_url that cannot be called is a binding error, not a retry loop."""

from __future__ import annotations

import asyncio
import socket
import tempfile
from pathlib import Path

import httpx
import pytest

from core.assistant import Assistant
from core.knowledge import load_knowledge
from core.models import Plan, PlanStep, Request
from core.settings import Settings, env_var_allowed
from sandbox.server import BackgroundServer, free_port
from tests.conftest import write_pack


@pytest.mark.parametrize(("name", "allowed", "expected"), [
    ("SHOP_SANDBOX_PORT", ["*"], True),
    ("SLACK_BOT_TOKEN", ["*"], False),
    ("DATASMITH_LLM_API_KEY", ["*"], False),
    ("AWS_SECRET_ACCESS_KEY", ["*"], False),
    ("PAYMENTS_API_KEY", ["*"], False),
    ("PAYMENTS_API_KEY", ["PAYMENTS_API_KEY"], True),  # named exactly: the deployment means it
    ("PAYMENTS_URL", ["SHOP_*"], False),
])
def test_which_variables_a_pack_may_read(name: str, allowed: list[str], expected: bool) -> None:
    assert env_var_allowed(name, allowed) is expected


def test_a_secret_is_never_expanded_into_a_url_that_is_stored(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "lab", {
        "pack.yaml": "name: lab\nenvironments: {default: dev, dev: {base_url: 'http://127.0.0.1:9/${SLACK_BOT_TOKEN}'}}\n",
        "tools/t.yaml": """
            tool_name: peek
            description: peek
            examples: [{user_query: peek}]
            side_effects: false
            call: {http: {method: GET, path: /x}}
        """,
    })
    settings = Settings(home=tmp_path / "home", environ={"SLACK_BOT_TOKEN": "xoxb-very-secret"}, max_attempts=1)
    a = Assistant(settings, load_knowledge([pack]))
    try:
        plan = Plan(status="planned", pack="lab", environment="dev", tool="peek",
                    steps=[PlanStep(step_id=1, tool_name="peek")])
        run = asyncio.run(a.execute(Request(text="peek"), plan)).run
        assert run is not None and run.status == "paused"
        stored = b"".join(p.read_bytes() for p in (tmp_path / "home").glob("*.sqlite3*"))
        assert b"xoxb-very-secret" not in stored and "xoxb" not in (run.error.message if run.error else "")
    finally:
        a.close()


def test_a_file_url_is_a_binding_error_at_once(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "lab", {
        "pack.yaml": "name: lab\nenvironments: {default: dev, dev: {base_url: 'file:///etc'}}\n",
        "tools/t.yaml": """
            tool_name: peek
            description: peek
            examples: [{user_query: peek}]
            side_effects: false
            call: {http: {method: GET, path: /passwd}}
        """,
    })
    a = Assistant(Settings(home=tmp_path / "home", backoff_base_s=0.001), load_knowledge([pack]))
    try:
        plan = Plan(status="planned", pack="lab", environment="dev", tool="peek",
                    steps=[PlanStep(step_id=1, tool_name="peek")])
        run = asyncio.run(a.execute(Request(text="peek"), plan)).run
        assert run is not None and run.status == "failed" and run.error.code == "DS-304"
        assert run.step(1).attempts == 1  # not retried as if the network were down
    finally:
        a.close()


def _outside_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))  # no packet is sent: only picks the outward interface
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_the_sandbox_test_hooks_answer_loopback_only() -> None:
    outside = _outside_address()
    if outside is None:
        pytest.skip("this machine has no non-loopback interface to call from")
    server = BackgroundServer(Path(tempfile.mkdtemp()), port=free_port(), host="0.0.0.0").start()  # noqa: S104
    try:
        remote = f"http://{outside}:{server.port}"
        assert httpx.post(f"{remote}/pre/_sql", json={"query": "SELECT 1"}).status_code == 403
        assert httpx.post(f"{remote}/pre/reset").status_code == 403
        assert httpx.post(f"{remote}/_faults", json={"path": "x"}).status_code == 403
        assert httpx.get(f"{remote}/pre/items/123456").status_code == 200  # the shop itself answers
        assert httpx.post(f"{server.url}/pre/_sql", json={"query": "SELECT 1 AS one"}).json() == {"rows": [{"one": 1}]}
    finally:
        server.stop()
