"""Shared fixtures: the real sandbox over HTTP, isolated homes, and small packs built per test."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LANCE_LOG", "error")

from core.assistant import Assistant  # noqa: E402
from core.knowledge import Knowledge, load_knowledge  # noqa: E402
from core.models import Plan, Request  # noqa: E402
from core.planning import RulePlanner  # noqa: E402
from core.settings import BUNDLED_KNOWLEDGE, Settings  # noqa: E402
from sandbox.server import BackgroundServer  # noqa: E402
from tests.fixtures import postgres  # noqa: E402

SHOP = BUNDLED_KNOWLEDGE / "shop"
GENERALITY = Path(__file__).parents[1] / "benchmarks" / "generality"  # blind packs kept in the repository


def pack_assistant(pack: Path) -> Iterator[Assistant]:
    """A rule-planner assistant on one pack, with its own home (for a module-scoped fixture)."""
    import tempfile

    with tempfile.TemporaryDirectory() as home:
        assistant = Assistant.from_settings(Settings(home=Path(home), knowledge=[pack], planner="rules"))
        try:
            yield assistant
        finally:
            assistant.close()


def _blind_pack(name: str) -> Callable[[], Iterator[Assistant]]:
    @pytest.fixture(scope="module", name=name)
    def assistant() -> Iterator[Assistant]:
        yield from pack_assistant(GENERALITY / name)

    return assistant


# A module-scoped rule-planner assistant per blind pack kept in the repository, named for the pack
# (`def test_x(shelfy: Assistant)`): every test module gets its own.
for _pack in sorted(p.name for p in GENERALITY.iterdir() if p.is_dir()):
    globals()[f"_blind_{_pack}"] = _blind_pack(_pack)


def writes_of(assistant: Assistant, plan: Plan) -> bool:
    """Whether the plan would run a tool with side effects."""
    return plan.status == "planned" and any(assistant.knowledge.tools[s.tool_name].side_effects for s in plan.running())


def plan_of(assistant: Assistant, text: str) -> Plan:
    return assistant.plan(Request(text=text, bypass_cache=True))


def args_of(plan: Plan, tool: str) -> dict[str, object]:
    """The arguments of the plan's step that calls `tool`."""
    return next(s.arguments for s in plan.steps if s.tool_name == tool)


@pytest.fixture(scope="session")
def shop_knowledge() -> Knowledge:
    return load_knowledge([SHOP])


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """The sandbox shop on a free loopback port, with its own databases."""
    server = BackgroundServer(tmp_path_factory.mktemp("sandbox")).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A real PostgreSQL server for the session (started here unless DATASMITH_TEST_DATABASE_URL)."""
    reason = postgres.skip_reason()
    if reason and os.environ.get("DATASMITH_REQUIRE_POSTGRES"):  # CI: a missing server is a failure
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)
    gen = postgres.server_url()
    url = next(gen)
    assert url
    yield url
    gen.close()


@pytest.fixture
def pg_url(pg_server: str) -> str:
    """A fresh, empty database on that server: one per test."""
    return postgres.fresh_database(pg_server)


@pytest.fixture
def settings_for(tmp_path: Path, sandbox: BackgroundServer) -> Callable[..., Settings]:
    """Settings with an isolated home, pointing the shop pack at the test sandbox."""

    def make(**overrides: object) -> Settings:
        environ = {**os.environ, "SHOP_SANDBOX_PORT": str(sandbox.port)}
        base = Settings(home=tmp_path / "home", environ=environ, backoff_base_s=0.001, backoff_max_s=0.01)
        return base.model_copy(update=overrides)

    return make


@pytest.fixture
def shop_assistant(settings_for: Callable[..., Settings], shop_knowledge: Knowledge) -> Iterator[Assistant]:
    """The shop pack over the real sandbox (rule planner without an index: planning needs none)."""
    assistant = Assistant(settings_for(), shop_knowledge)
    yield assistant
    assistant.close()


def write_pack(root: Path, files: dict[str, str]) -> Path:
    """Write a pack from {relative path: YAML/Python text}; return its folder."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def rule_planner(root: Path, files: dict[str, str]) -> RulePlanner:
    """A rule planner over a small pack written for a test, on a fixed day (2026-11-26)."""
    return RulePlanner(load_knowledge([write_pack(root, files)]), today=lambda: date(2026, 11, 26))
