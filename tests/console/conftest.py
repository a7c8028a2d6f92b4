"""The console under streamlit.testing.v1.AppTest, on an isolated home and a copy of the shop pack."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from core.settings import BUNDLED_KNOWLEDGE

APP = str(Path(__file__).parents[2] / "console" / "app.py")


@pytest.fixture(scope="session")
def console_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One home (its index built once) for the console tests."""
    return tmp_path_factory.mktemp("console-home")


@pytest.fixture
def pack_copy(tmp_path: Path) -> Path:
    root = tmp_path / "knowledge"
    shutil.copytree(BUNDLED_KNOWLEDGE / "shop", root / "shop", ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
def console(monkeypatch: pytest.MonkeyPatch, console_home: Path, sandbox) -> Iterator[Callable[..., AppTest]]:
    """AppTest on a page, with DATASMITH_* pointing at the test home and knowledge, served (as far as
    the access gate can tell) on loopback unless `bind` says otherwise."""
    before = st_config.get_option("server.address")

    def open_page(page: str, *, knowledge: Path | None = None, home: Path | None = None,
                  bind: str | None = "127.0.0.1", expect_pages: bool = True) -> AppTest:
        st_config.set_option("server.address", bind)
        monkeypatch.setenv("DATASMITH_HOME", str(home or console_home))
        monkeypatch.setenv("DATASMITH_KNOWLEDGE", str(knowledge or BUNDLED_KNOWLEDGE / "shop"))
        monkeypatch.setenv("SHOP_SANDBOX_PORT", str(sandbox.port))
        at = AppTest.from_file(APP, default_timeout=120)
        at.run()
        if not expect_pages:
            return at
        if page != "knowledge":
            at.switch_page(f"screens/{page}.py")
            at.run()
        assert not at.exception, [e.message for e in at.exception]
        return at

    yield open_page
    st_config.set_option("server.address", before)
