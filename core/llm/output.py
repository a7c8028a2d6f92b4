"""How a model is asked for structured output, chosen per model from litellm's capability tables.

Best first: a JSON schema the provider enforces (`response_format` json_schema), a forced function
call whose arguments are the plan (`tools` + `tool_choice`), plain JSON mode (`json_object`), or
the prompt alone. A model litellm does not know (a local server's name) gets JSON mode when its
provider accepts `response_format`. `llm_output` in the settings overrides the choice for models
whose table entry is wrong.
"""

from __future__ import annotations

from typing import Any, Literal

import litellm

OutputMode = Literal["json_schema", "tool_call", "json_object", "prompt"]
FUNCTION = "submit_plan"


def _asks(check: Any, model: str) -> bool:
    try:
        return bool(check(model=model))
    except Exception:  # noqa: BLE001 - litellm raises for names it does not know: it cannot tell
        return False


def choose(model: str, preferred: str = "auto") -> OutputMode:
    """The structured-output mode for `model` (`preferred` unless it is "auto")."""
    if preferred != "auto":
        return preferred  # type: ignore[return-value]
    if _asks(litellm.supports_response_schema, model):
        return "json_schema"
    if _asks(litellm.supports_function_calling, model):
        return "tool_call"
    try:
        provider = litellm.get_llm_provider(model)[1]
        params = litellm.get_supported_openai_params(model=model, custom_llm_provider=provider) or []
    except Exception:  # noqa: BLE001 - an unknown provider: the prompt alone asks for JSON
        return "prompt"
    return "json_object" if "response_format" in params else "prompt"


def options(mode: OutputMode, schema: dict[str, Any] | None) -> dict[str, Any]:
    """The litellm keyword arguments that ask for `mode`."""
    if schema is None or mode == "prompt":
        return {"response_format": {"type": "json_object"}} if mode == "json_object" else {}
    if mode == "json_schema":
        return {"response_format": {"type": "json_schema",
                                    "json_schema": {"name": "plan", "schema": schema, "strict": False}}}
    if mode == "tool_call":
        return {"tools": [{"type": "function", "function": {
                    "name": FUNCTION, "description": "Submit the plan for the request.", "parameters": schema}}],
                "tool_choice": {"type": "function", "function": {"name": FUNCTION}}}
    return {"response_format": {"type": "json_object"}}


def answer_text(message: Any) -> str:
    """The answer proper: the forced call's arguments when the model made one, else the content.
    Reasoning a provider returns apart (`reasoning_content`) is never the answer."""
    for call in getattr(message, "tool_calls", None) or []:
        function = getattr(call, "function", None)
        if function is not None and getattr(function, "arguments", None):
            return str(function.arguments)
    return getattr(message, "content", None) or ""
