"""The console in a real browser: `streamlit run` on loopback, each page loaded in headless Chromium
(Debian's, driven by Playwright through its executable path: no browser download).

Asserts each page rendered its own content and no Streamlit exception; keeps a screenshot of every
page in test-artifacts/console/ (the README's screenshot comes from here).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from core.assistant import Assistant
from core.knowledge import load_knowledge
from core.models import Request
from core.settings import BUNDLED_KNOWLEDGE, Settings
from sandbox.server import BackgroundServer, free_port
from tests.fixtures.processes import wait_until_up

ROOT = Path(__file__).parents[2]
ARTIFACTS = Path(os.environ.get("DATASMITH_ARTIFACTS", ROOT / "test-artifacts")) / "console"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
PAGES = {"": "Knowledge", "playground": "Playground", "runs": "Runs", "monitoring": "Monitoring"}

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian chromium (.ci/run installs it)")


def test_every_page_renders_in_chromium_without_an_exception(tmp_path: Path, sandbox: BackgroundServer) -> None:
    home = tmp_path / "home"
    a = Assistant(Settings(home=home, environ={"SHOP_SANDBOX_PORT": str(sandbox.port)}),
                  load_knowledge([BUNDLED_KNOWLEDGE / "shop"]))
    for text in ("给商品id为123456的商品生成一笔退货退款的订单", "今天天气怎么样", "帮我造一笔退货退款的订单"):
        asyncio.run(a.handle(Request(text=text, user="U1", surface="slack")))
    a.close()
    port = free_port()
    env = {**os.environ, "DATASMITH_HOME": str(home), "DATASMITH_KNOWLEDGE": str(BUNDLED_KNOWLEDGE / "shop"),
           "SHOP_SANDBOX_PORT": str(sandbox.port)}
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "console" / "app.py"),
                               "--server.headless", "true", "--server.address", "127.0.0.1", "--server.port", str(port),
                               "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        wait_until_up(f"http://127.0.0.1:{port}/_stcore/health", server, timeout=60, ready=lambda r: r.text == "ok")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1700})
            for path, title in PAGES.items():
                url = f"http://127.0.0.1:{port}/{path}"
                page.goto(url)
                # rendered = the page's own title is on screen and Streamlit has finished running the script
                page.get_by_role("heading", name=title).first.wait_for(timeout=90_000)
                page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=90_000)
                page.wait_for_function("document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0",
                                       timeout=60_000)  # lazily loaded elements (tables, graphs) are drawn
                page.wait_for_timeout(1500)  # canvas tables and charts paint after they mount
                assert page.locator('[data-testid="stException"]').count() == 0, f"{url} shows an exception"
                assert "Traceback" not in page.content()
                shot = ARTIFACTS / f"{path or 'knowledge'}.png"
                page.screenshot(path=str(shot), full_page=True)
                assert shot.stat().st_size > 20_000, f"{shot} looks empty"
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
