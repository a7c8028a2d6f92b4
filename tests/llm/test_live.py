"""Live mode: the same LLM path against a real provider, when a key is configured.

    DATASMITH_LIVE_LLM_MODEL=openai/gpt-4o-mini DATASMITH_LIVE_LLM_API_KEY=sk-… python -m pytest tests/llm/test_live.py
    (DATASMITH_LIVE_LLM_API_BASE for OpenAI-compatible servers: DashScope, DeepSeek, vLLM, Ollama…)
Skipped otherwise: no LLM is reachable on CI machines.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from core.assistant import Assistant
from core.models import Request

MODEL = os.environ.get("DATASMITH_LIVE_LLM_MODEL")
pytestmark = pytest.mark.skipif(not MODEL, reason="live mode: set DATASMITH_LIVE_LLM_MODEL (and its key) to run")


def test_a_real_model_plans_a_paraphrase_the_rule_planner_cannot_read(settings_for, shop_knowledge) -> None:
    settings = settings_for(planner="llm", llm_model=MODEL, llm_api_key=os.environ.get("DATASMITH_LIVE_LLM_API_KEY"),
                            llm_api_base=os.environ.get("DATASMITH_LIVE_LLM_API_BASE"), llm_timeout_s=60.0)
    a = Assistant(settings, shop_knowledge)
    try:
        report = asyncio.run(a.handle(Request(text="我想要个退了钱也退了货的单子,商品是123456")))
    finally:
        a.close()
    assert report.plan.planner == "llm", report.plan.fallback
    assert report.plan.rule == "return_refund" and report.run.status == "succeeded"
    assert report.usage.calls >= 1 and report.usage.prompt_tokens > 0
