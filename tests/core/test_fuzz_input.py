"""Every input gets an answer in the contract: random unicode, lone surrogates, bytes that are not
UTF-8, control characters and huge lines, through the CLI's batch mode and the Assistant's handle.

Property-based (hypothesis): each example is a whole batch, so a failure shrinks to the one line
that broke the contract.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.assistant import Assistant
from core.models import Request
from core.output_contract import problems
from core.settings import Settings
from sandbox.server import BackgroundServer
from tests.conftest import SHOP

ROOT = Path(__file__).parents[2]

# Text as users, terminals and other programs send it: words the pack knows, anything in unicode
# (lone surrogates included), control characters, and now and then a line past the length limit.
WORDS = ["给商品123456下一单", "退货退款", "create an order for item 123456", "数量为0", "李娜", "O100000001",
         "a@b.com", "🚀", "\x00", "\x1b[31m", "\u200b", "\ufeff", "\ufffd", "'; DROP TABLE orders; --"]
texts = st.one_of(
    st.text(max_size=200),
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=5),
    st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=8)), max_size=12).map("".join),
    st.integers(4001, 20_000).map(lambda n: "给商品123456下一单"[: n % 7 + 1] * (n // 7 + 1)),
)
lines = st.one_of(
    texts.map(lambda t: t.encode("utf-8", "surrogatepass")),  # surrogates become bytes that are not UTF-8
    st.binary(max_size=120),
).map(lambda b: b.replace(b"\n", b" ").replace(b"\r", b" "))


def _answer_problems(data: dict, raw: bytes | None = None) -> list[str]:
    found = problems(data)
    if data.get("error", {}).get("code") == "DS-500":
        found.append(f"internal error for {raw!r:.80}: {data['error']['message']}")
    return found


@pytest.fixture(scope="module")
def cli_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("fuzz-home")
    # build the index once, so each batch below only pays for its own lines
    subprocess.run([sys.executable, "-m", "core.cli", "index", "--knowledge", str(SHOP)], cwd=ROOT, check=True,
                   env={**os.environ, "DATASMITH_HOME": str(home)}, capture_output=True, timeout=300)
    return home


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow, HealthCheck.data_too_large])
@given(batch=st.lists(lines, min_size=1, max_size=30))
def test_batch_mode_answers_every_line_with_one_contract_object(cli_home: Path, batch: list[bytes]) -> None:
    """`plan --json -` in one process: exactly one JSON object per input line, in order, each valid
    against the spec's schema, none a DS-500; exit code 0 (input errors are outcomes, not usage errors)."""
    out = subprocess.run([sys.executable, "-m", "core.cli", "plan", "--knowledge", str(SHOP), "--json", "-"],
                         input=b"\n".join(batch) + b"\n", capture_output=True, cwd=ROOT, timeout=600,
                         env={**os.environ, "DATASMITH_HOME": str(cli_home)})
    assert out.returncode == 0, out.stderr.decode("utf-8", "replace")[-2000:]
    answers = out.stdout.decode("utf-8").splitlines()  # strict: the output itself is always UTF-8
    assert len(answers) == len(batch)
    for raw, line in zip(batch, answers, strict=True):
        data = json.loads(line)
        assert isinstance(data, dict) and _answer_problems(data, raw) == []
        if "\ufffd" in raw.decode("utf-8", "replace"):
            assert data["error"]["code"] == "DS-106"  # bytes that are not UTF-8: said so, never guessed around


def test_a_line_that_is_not_utf8_is_a_ds106_answer_in_its_place(tmp_path: Path) -> None:
    stdin = "给商品123456下一单\n".encode() + b"\xff\xfe order \xc3\x28 item 123456\n" + b"create an order\n"
    out = subprocess.run([sys.executable, "-m", "core.cli", "plan", "--knowledge", str(SHOP), "--json", "-"],
                         input=stdin, capture_output=True, cwd=ROOT, timeout=300,
                         env={**os.environ, "DATASMITH_HOME": str(tmp_path)})
    assert out.returncode == 0 and out.stderr == b"", out.stderr
    first, bad, third = (json.loads(x) for x in out.stdout.decode().splitlines())
    assert first["status"] == "planned" and third["status"] in ("planned", "needs_input")
    assert bad["status"] == "no_match" and bad["error"]["code"] == "DS-106"
    assert "character 1" in bad["question"] and "UTF-8" in bad["question"]  # English request: English words


@pytest.fixture(scope="module")
def fuzz_assistant(tmp_path_factory: pytest.TempPathFactory, sandbox: BackgroundServer) -> Iterator[Assistant]:
    environ = {**os.environ, "SHOP_SANDBOX_PORT": str(sandbox.port)}
    home = tmp_path_factory.mktemp("fuzz-assistant")
    assistant = Assistant.from_settings(Settings(home=home, knowledge=[SHOP], environ=environ,
                                                 backoff_base_s=0.001, backoff_max_s=0.01))
    yield assistant
    assistant.close()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=texts)
def test_handle_answers_any_text_in_the_contract_and_records_it(fuzz_assistant: Assistant, text: str) -> None:
    """Whatever the text: one answer that keeps the contract and serialises as UTF-8, and the request
    is in the store's request log (nothing lost to an encoding error)."""
    before = len(fuzz_assistant.store.requests(limit=100_000))
    report = asyncio.run(fuzz_assistant.handle(Request(text=text, surface="api"), execute=True))
    data = report.spec_json(with_run=True)
    assert _answer_problems(data) == []
    json.dumps(data, ensure_ascii=False).encode("utf-8")  # no lone surrogate anywhere in the answer
    assert len(fuzz_assistant.store.requests(limit=100_000)) == before + 1
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert data["error"]["code"] == "DS-106"


def test_a_line_separator_in_a_request_never_splits_its_answer(cli_home: Path) -> None:
    """U+2028, U+2029 and NEL are line breaks to splitlines and to some JSON-lines readers: the
    answer escapes them, so each request is still answered on one line (hypothesis found this)."""
    batch = ["退货退款\u2028Ü", "给商品123456下一单\u2029", "refund\x85only"]
    out = subprocess.run([sys.executable, "-m", "core.cli", "plan", "--knowledge", str(SHOP), "--json", "-"],
                         input="\n".join(batch).encode() + b"\n", capture_output=True, cwd=ROOT, timeout=600,
                         env={**os.environ, "DATASMITH_HOME": str(cli_home)})
    answers = out.stdout.decode("utf-8").splitlines()
    assert out.returncode == 0 and len(answers) == len(batch), answers
    assert all(isinstance(json.loads(a), dict) for a in answers)
