"""The LLM planner through litellm's real code path, against a scripted OpenAI-compatible stub."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from core.assistant import Assistant
from core.knowledge import Knowledge
from core.models import Plan, Request, StepRef
from core.planning import RulePlanner
from core.settings import Settings
from tests.fixtures.llm_stub import LLMStub


@pytest.fixture
def stub() -> Iterator[LLMStub]:
    s = LLMStub().start()
    yield s
    s.stop()


@pytest.fixture
def llm_assistant(settings_for: Callable[..., Settings], shop_knowledge: Knowledge,
                  stub: LLMStub) -> Iterator[Callable[..., Assistant]]:
    made: list[Assistant] = []

    def make(**overrides: Any) -> Assistant:
        settings = settings_for(**{"planner": "llm", "llm_model": "openai/stub", "llm_api_base": stub.api_base,
                                   "llm_api_key": "sk-test", "llm_timeout_s": 3.0, **overrides})
        a = Assistant(settings, shop_knowledge)
        made.append(a)
        return a

    yield make
    for a in made:
        a.close()


def answer_for(knowledge: Knowledge, text: str, **changes: Any) -> str:
    """The plan a correct LLM would answer for `text`: the rule planner's plan for the same
    request in the knowledge's own words, as the model's JSON."""
    plan = RulePlanner(knowledge).plan(Request(text=text))
    return json.dumps(llm_json(plan, **changes), ensure_ascii=False)


def llm_json(plan: Plan, **changes: Any) -> dict[str, Any]:
    def arg(v: Any) -> Any:
        return {"from_step": v.from_step, "path": v.path} if isinstance(v, StepRef) else v

    data = {"status": plan.status, "rule": plan.rule, "tool": plan.tool, "environment": plan.environment,
            "steps": [{"step_id": s.step_id, "tool_name": s.tool_name, "dependencies": s.dependencies,
                       "arguments": {k: arg(v) for k, v in s.arguments.items()}} for s in plan.steps if not s.skipped],
            "missing": plan.missing, "question": plan.question}
    data.update(changes)
    return data
