"""One LLM call through litellm (any provider), behind the leaky bucket, with usage and cost.

This module imports litellm (seconds): `core.assistant` imports it only when an LLM is
configured, at start-up, so neither the offline path nor a running event loop pays for it.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import litellm
from pydantic import SecretStr

from core.errors import LLM_RATE_LIMITED, LLM_UNAVAILABLE, LLMError
from core.llm.limiter import LeakyBucket, OnWait
from core.llm.output import OutputMode, answer_text, choose, options
from core.models import LLMUsage as Usage
from core.settings import Settings

log = logging.getLogger("datasmith.llm")


@dataclass
class Reply:
    content: str  # the answer proper (a forced call's arguments, or the message content)
    usage: Usage
    mode: OutputMode = "json_object"
    reasoning_chars: int = 0  # reasoning the provider returned apart from the answer (not parsed)


class LLMClient:
    def __init__(self, settings: Settings, bucket: LeakyBucket, *, extra: dict[str, Any] | None = None) -> None:
        if not settings.llm_model:
            raise LLMError("no LLM configured: set DATASMITH_LLM_MODEL (a litellm model name)", code=LLM_UNAVAILABLE)
        self.model = settings.llm_model
        self.api_base = settings.llm_api_base
        key = settings.llm_api_key
        self.api_key = key.get_secret_value() if isinstance(key, SecretStr) else key
        self.timeout_s = settings.llm_timeout_s
        self.max_attempts = max(1, settings.llm_max_attempts)
        self.bucket = bucket
        self.mode: OutputMode = choose(self.model, settings.llm_output)
        self.max_prompt_tokens = settings.llm_max_prompt_tokens or context_tokens(self.model)
        self.extra = extra or {}  # e.g. mock_response in unit tests
        # litellm prints a "Give Feedback / Get Help" banner on stdout when a call fails: our
        # failures are mapped and logged (DS-503); stdout belongs to the surface (`--json` lines)
        litellm.suppress_debug_info = True

    def fits(self, messages: list[dict[str, str]]) -> bool:
        """Whether a prompt fits the model's input context (unknown context: it does)."""
        return self.max_prompt_tokens is None or count_tokens(messages) <= self.max_prompt_tokens

    async def complete(self, messages: list[dict[str, str]], *, schema: dict[str, Any] | None = None,
                       on_wait: OnWait | None = None) -> Reply:
        last: LLMError | None = None
        for attempt in range(1, self.max_attempts + 1):
            ticket = await self.bucket.acquire(on_wait)
            try:
                return await self._once(messages, schema, ticket.waited_s)
            except LLMError as exc:
                last = exc
                if not exc.retryable or attempt == self.max_attempts:
                    break
                log.info("LLM attempt %d failed (%s); retrying", attempt, exc)
                await asyncio.sleep(min(2.0, 0.25 * 2 ** (attempt - 1)))
        assert last is not None
        raise last

    async def _once(self, messages: list[dict[str, str]], schema: dict[str, Any] | None, waited_s: float) -> Reply:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "timeout": self.timeout_s,
                                  "temperature": 0, "num_retries": 0, **options(self.mode, schema), **self.extra}
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self.api_key:
            kwargs["api_key"] = self.api_key
        try:
            response = await litellm.acompletion(**kwargs)
        except litellm.RateLimitError as exc:
            raise LLMError(f"the LLM provider is rate limiting ({_brief(exc)})", code=LLM_RATE_LIMITED,
                           message_zh="LLM 服务限流", retryable=True) from exc
        except (litellm.Timeout, litellm.APIConnectionError, litellm.InternalServerError,
                litellm.ServiceUnavailableError) as exc:
            raise LLMError(f"the LLM provider failed ({_brief(exc)})", code=LLM_UNAVAILABLE,
                           message_zh="LLM 服务不可用", retryable=True) from exc
        except Exception as exc:  # noqa: BLE001 - auth, bad request, unknown model: not worth a retry
            raise LLMError(f"the LLM call was refused ({_brief(exc)})", code=LLM_UNAVAILABLE,
                           message_zh="LLM 调用被拒绝") from exc
        message = response.choices[0].message
        reasoning = getattr(message, "reasoning_content", None) or ""
        usage = getattr(response, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:  # noqa: BLE001 - models without a price (local servers) have no cost
            cost = None
        return Reply(answer_text(message), Usage(calls=1, prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                                                 completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                                                 cost_usd=cost, waited_s=waited_s, output_mode=self.mode),
                     self.mode, len(reasoning))


def context_tokens(model: str) -> int | None:
    """The model's input context from litellm's model info (None for models it does not know)."""
    try:
        info = litellm.get_model_info(model)
    except Exception:  # noqa: BLE001 - a local server's model: litellm does not know it
        return None
    return info.get("max_input_tokens") or info.get("max_tokens")


def count_tokens(messages: list[dict[str, str]]) -> int:
    """Prompt tokens, estimated with tiktoken's default encoding plus 10% (tokenizers differ by
    model; no model name is passed, so litellm never fetches a Hugging Face tokenizer)."""
    return int(litellm.token_counter(model="", messages=messages) * 1.1)


def _brief(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}" if str(exc) else type(exc).__name__
