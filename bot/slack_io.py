"""The bot's outbound Slack calls, awaitable from the worker loop.

slack_sdk's WebClient is synchronous; each call runs in a thread so one slow Slack answer never
stalls the runs sharing the loop. Rate limits (429) are retried by the SDK's own handler.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from bot.blocks import Message

log = logging.getLogger("datasmith.bot")


def make_client(token: str | None, base_url: str | None) -> WebClient:
    kwargs: dict[str, Any] = {"token": token}
    if base_url:
        kwargs["base_url"] = base_url
    client = WebClient(**kwargs)
    client.retry_handlers = [ConnectionErrorRetryHandler(max_retry_count=2),
                             RateLimitErrorRetryHandler(max_retry_count=3)]
    return client


class SlackIO:
    def __init__(self, client: WebClient) -> None:
        self.client = client

    async def _call(self, method: str, **kwargs: Any) -> dict[str, Any]:
        fn = getattr(self.client, method)
        response = await asyncio.to_thread(fn, **{k: v for k, v in kwargs.items() if v is not None})
        return response.data if isinstance(response.data, dict) else {}

    async def post(self, channel: str, thread: str | None, msg: Message) -> str:
        data = await self._call("chat_postMessage", channel=channel, thread_ts=thread, text=msg.text,
                                blocks=msg.blocks, unfurl_links=False)
        if msg.attachment:
            await self.attach(channel, thread or data.get("ts"), msg.attachment)
        return str(data.get("ts"))

    async def update(self, channel: str, ts: str, msg: Message, *, thread: str | None = None) -> None:
        await self._call("chat_update", channel=channel, ts=ts, text=msg.text, blocks=msg.blocks)
        if msg.attachment:
            await self.attach(channel, thread or ts, msg.attachment)

    async def attach(self, channel: str, thread: str | None, attachment: tuple[str, str]) -> None:
        filename, content = attachment
        await self._call("files_upload_v2", channel=channel, thread_ts=thread, filename=filename,
                         title=filename, content=content)

    async def ephemeral(self, channel: str, user: str, text: str, thread: str | None = None) -> None:
        await self._call("chat_postEphemeral", channel=channel, user=user, text=text, thread_ts=thread)

    async def status(self, channel: str, thread: str, text: str) -> None:
        """Assistant thread status ("is working…"). Plain DMs have none: failures are only logged."""
        try:
            await self._call("assistant_threads_setStatus", channel_id=channel, thread_ts=thread, status=text)
        except SlackApiError as exc:
            log.debug("assistant status not set in %s: %s", channel, exc.response.get("error"))
