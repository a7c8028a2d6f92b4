"""The bot's outbound Slack calls, awaitable from the worker loop, and what to do when Slack fails.

slack_sdk's WebClient is synchronous; each call runs in a thread so one slow Slack answer never
stalls the runs sharing the loop. Retrying lives in one place, the client's retry handlers
(`make_client`): 429 after Retry-After, 5xx and connection errors with backoff. What is left
after them is a policy here: an answer that cannot be edited in is posted as a new message,
placeholders and status lines are best effort, and a dead token is said once in the log.
"""

from __future__ import annotations

import asyncio
import logging
from http.client import HTTPException
from typing import Any
from urllib.error import URLError
from urllib.parse import urlparse

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.http_retry.handler import RetryHandler
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState

from bot.blocks import Message

log = logging.getLogger("datasmith.bot")

# What a Web API call raises once the retry handlers have given up: an `ok: false` answer or an
# HTTP error (SlackApiError), a refused request (SlackRequestError), the network (URLError, timeouts,
# a dropped connection).
SLACK_FAILURES = (SlackClientError, URLError, TimeoutError, ConnectionError, HTTPException)
# The token no longer works: no retry, no fallback message, nothing more to say in the thread.
AUTH_ERRORS = frozenset({"invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive",
                         "org_login_required", "ekm_access_denied"})
# Methods that may be sent again when a request timed out after it was sent (repeating them
# changes nothing); posting or uploading twice would show twice, so those are not repeated.
SAFE_TO_REPEAT = frozenset({"chat.update", "assistant.threads.setStatus", "assistant.threads.setSuggestedPrompts",
                            "assistant.threads.setTitle", "auth.test", "users.info", "views.publish"})
USER_CACHE_MAX = 2000
FILE_FAILED = "⚠️ The file with the full output could not be attached. / 完整输出的附件上传失败。"


class ServerErrors(ServerErrorRetryHandler):
    """Every 5xx but 501 (slack_sdk's own handler covers only 500 and 503; Slack's edge sends 502/504)."""

    def _can_retry(self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        return response is not None and 500 <= response.status_code < 600 and response.status_code != 501


class Disconnects(ConnectionErrorRetryHandler):
    """Connection errors (the request never arrived), and timeouts after sending for idempotent methods."""

    def _can_retry(self, *, state: RetryState, request: HttpRequest, response: HttpResponse | None = None,
                   error: Exception | None = None) -> bool:
        if isinstance(error, TimeoutError):  # urllib raises it bare once the request went out
            return api_method(request.url) in SAFE_TO_REPEAT
        return super()._can_retry(state=state, request=request, response=response, error=error)


def retry_handlers() -> list[RetryHandler]:
    return [Disconnects(max_retry_count=2), RateLimitErrorRetryHandler(max_retry_count=3),
            ServerErrors(max_retry_count=2)]


def make_client(token: str | None, base_url: str | None, timeout_s: float = 30) -> WebClient:
    kwargs: dict[str, Any] = {"token": token, "timeout": timeout_s, "retry_handlers": retry_handlers()}
    if base_url:
        kwargs["base_url"] = base_url
    return WebClient(**kwargs)


def api_method(url: str) -> str:
    return urlparse(url).path.rsplit("/", 1)[-1]


def slack_error(exc: BaseException) -> str:
    """Slack's error code (`ratelimited`, `invalid_auth`, …) or the transport failure's name."""
    if isinstance(exc, SlackApiError):
        return str(exc.response.get("error") or f"HTTP {exc.response.status_code}")
    return f"{type(exc).__name__}: {exc}"


def is_auth_failure(exc: BaseException) -> bool:
    return isinstance(exc, SlackApiError) and exc.response.get("error") in AUTH_ERRORS


class SlackIO:
    def __init__(self, client: WebClient) -> None:
        self.client = client
        self._names: dict[str, str | None] = {}  # user id → display name (None: not available)

    async def _call(self, method: str, **kwargs: Any) -> dict[str, Any]:
        fn = getattr(self.client, method)
        response = await asyncio.to_thread(fn, **{k: v for k, v in kwargs.items() if v is not None})
        return response.data if isinstance(response.data, dict) else {}

    async def post(self, channel: str, thread: str | None, msg: Message) -> str:
        """Post a message (its attachment follows in the thread); raises what Slack raised."""
        data = await self._call("chat_postMessage", channel=channel, thread_ts=thread, text=msg.text,
                                blocks=msg.blocks, unfurl_links=False)
        ts = str(data.get("ts"))
        if msg.attachment:
            await self.attach(channel, thread or ts, msg.attachment)
        return ts

    async def update(self, channel: str, ts: str, msg: Message) -> None:
        """Edit a message in place (attachments are `deliver`'s business); raises what Slack raised."""
        await self._call("chat_update", channel=channel, ts=ts, text=msg.text, blocks=msg.blocks)

    async def try_update(self, channel: str, ts: str, msg: Message) -> bool:
        """An interim edit (progress, "starting…"), best effort: the final answer is `deliver`'s."""
        try:
            await self.update(channel, ts, msg)
            return True
        except SLACK_FAILURES as exc:
            log.warning("interim update of %s in %s failed: %s", ts, channel, slack_error(exc))
            return False

    async def placeholder(self, channel: str, thread: str | None, msg: Message) -> str | None:
        """A message to edit later ("working…"); None when Slack refused it: the work goes on anyway."""
        try:
            return await self.post(channel, thread, msg)
        except SLACK_FAILURES as exc:
            log.warning("placeholder not posted in %s (%s); the answer will be posted when ready",
                        channel, slack_error(exc))
            return None

    async def deliver(self, channel: str, ts: str | None, thread: str | None, msg: Message) -> str | None:
        """The answer that ends a request: edited into `ts` when there is one, else (or when the edit is
        refused) posted as a new message in the thread. Returns where it landed, None when nowhere."""
        if ts is not None:
            try:
                await self.update(channel, ts, msg)
            except SLACK_FAILURES as exc:
                if is_auth_failure(exc):
                    return self._undelivered(channel, msg, exc)
                log.warning("could not update %s in %s (%s): posting the answer as a new message",
                            ts, channel, slack_error(exc))
            else:
                if msg.attachment:
                    await self.attach(channel, thread or ts, msg.attachment)
                return ts
        try:
            return await self.post(channel, thread, msg)
        except SLACK_FAILURES as exc:
            return self._undelivered(channel, msg, exc)

    def _undelivered(self, channel: str, msg: Message, exc: BaseException) -> None:
        hint = " (the bot token is no longer valid: reinstall the app or set a new SLACK_BOT_TOKEN)" \
            if is_auth_failure(exc) else ""
        log.error("answer not delivered to %s: %s%s; it was: %s", channel, slack_error(exc), hint, msg.text[:200])
        return None

    async def attach(self, channel: str, thread: str | None, attachment: tuple[str, str]) -> bool:
        """Upload a file into the thread, best effort: the message already says what happened.
        Tried twice, since the upload itself (not a Web API call) has no retry handler."""
        filename, content = attachment
        for attempt in (1, 2):
            try:
                await self._call("files_upload_v2", channel=channel, thread_ts=thread, filename=filename,
                                 title=filename, content=content)
                return True
            except SLACK_FAILURES as exc:
                log.warning("file %s not attached in %s (attempt %d): %s", filename, channel, attempt,
                            slack_error(exc))
                if is_auth_failure(exc):
                    return False
        try:
            await self._call("chat_postMessage", channel=channel, thread_ts=thread, text=FILE_FAILED)
        except SLACK_FAILURES as exc:
            log.warning("note about the missing file not posted in %s: %s", channel, slack_error(exc))
        return False

    async def ephemeral(self, channel: str, user: str, text: str, thread: str | None = None) -> None:
        """A note only `user` sees, best effort (it answers a click; the click changed nothing)."""
        try:
            await self._call("chat_postEphemeral", channel=channel, user=user, text=text, thread_ts=thread)
        except SLACK_FAILURES as exc:
            log.warning("ephemeral note to %s in %s not posted: %s", user, channel, slack_error(exc))

    async def status(self, channel: str, thread: str, text: str) -> None:
        """Assistant thread status ("is working…"). Plain DMs have none: failures are only logged."""
        try:
            await self._call("assistant_threads_setStatus", channel_id=channel, thread_ts=thread, status=text)
        except SLACK_FAILURES as exc:
            log.debug("assistant status not set in %s: %s", channel, slack_error(exc))

    async def user_names(self, user_ids: list[str]) -> dict[str, str]:
        """Display names of users, where Slack tells (`users:read`); unknown ones are left out."""
        out: dict[str, str] = {}
        for uid in user_ids[:10]:
            if uid not in self._names:
                if len(self._names) >= USER_CACHE_MAX:
                    self._names.clear()
                self._names[uid] = await self._name_of(uid)
            name = self._names[uid]
            if name:
                out[uid] = name
        return out

    async def _name_of(self, uid: str) -> str | None:
        try:
            user = (await self._call("users_info", user=uid)).get("user") or {}
        except SLACK_FAILURES as exc:
            log.debug("no name for %s: %s", uid, slack_error(exc))
            return None
        profile = user.get("profile") or {}
        return profile.get("display_name") or profile.get("real_name") or user.get("name") or None
