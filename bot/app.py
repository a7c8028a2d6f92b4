"""The bolt app: Slack events, buttons and the slash command translated into `Conversation` calls.

Listeners run in bolt's threads and return at once: events are acked by bolt before the
listener runs, buttons and commands call `ack()` first. Work goes to the `Worker` loop.
"""

from __future__ import annotations

import logging
import re
from datetime import timedelta
from typing import Any

from slack_bolt import App, Assistant, BoltContext
from slack_sdk import WebClient

from bot import blocks, commands
from bot.config import BotConfig, SlackSettings
from bot.conversation import Conversation, Incoming
from bot.logs import bolt_logger
from bot.memory import BotMemory
from bot.slack_io import SlackIO, make_client
from bot.worker import Worker
from core.assistant import Assistant as Core
from core.models import utcnow
from core.orphans import OrphanWatch

log = logging.getLogger("datasmith.bot")

CONFIRM = re.compile(r"^ds_confirm_(run|cancel)$")
RESUME = re.compile(r"^ds_resume_(retry|skip|abort|force)$")
CHOOSE = re.compile(r"^ds_choose_\d+$")
# Message subtypes that carry text a person wrote: a reply also sent to the channel, a file with a
# comment, a /me line. Edits, joins, bot posts and the rest are not requests.
HUMAN_SUBTYPES = frozenset({None, "file_share", "thread_broadcast", "me_message"})
ANNOUNCE_WITHIN = timedelta(hours=1)  # older interruptions were announced, or are stale news


class Bot:
    """Everything the bot process holds: core, memory, worker loop, Slack client and the bolt app."""

    def __init__(self, core: Core, slack: SlackSettings, config: BotConfig, *,
                 client: WebClient | None = None) -> None:
        self.core = core
        self.slack = slack
        self.config = config
        self.memory = BotMemory(core.settings.store("bot.sqlite3"))
        self.worker = Worker()
        self.client = client or make_client(slack.bot_token, slack.base_url, slack.api_timeout)
        self.conversation = Conversation(core, SlackIO(self.client), self.memory, config)
        self.app = App(client=self.client, signing_secret=slack.signing_secret or "", logger=bolt_logger(),
                       request_verification_enabled=bool(slack.signing_secret),
                       ignoring_self_assistant_message_events_enabled=True)
        self._closed = False
        self._watch: OrphanWatch | None = None
        self._register()

    def close(self, grace_s: float = 30.0) -> None:
        if self._closed:
            return
        self._closed = True
        if self._watch is not None:
            self._watch.stop()
        self.worker.stop(grace_s)
        self.memory.close()
        self.core.close()

    def announce_recovered(self) -> None:
        """Tell the threads of runs a dead process left in flight (they are `interrupted` now), and
        keep watching: a replica that dies later has its runs announced by whichever bot sees it first."""
        self.announce_interrupted()
        if self._watch is None:
            self._watch = OrphanWatch(self.core.store, lambda _ids: self.announce_interrupted()).start()

    def announce_interrupted(self) -> None:
        """Post Retry / Skip / Abort in the thread of each interrupted Slack run not yet announced
        (by this replica or another: the claim decides)."""
        recent = utcnow() - ANNOUNCE_WITHIN
        for run in self.core.store.list(status="interrupted", surface="slack", limit=50):
            if run.updated_at >= recent and self.memory.claim(f"announce:{run.run_id}:{run.updated_at.isoformat()}"):
                self.worker.submit(self.conversation.announce_interrupted([run.run_id]))

    # ------------------------------------------------------------------ intake

    def take(self, msg: Incoming, *, mentioned: bool) -> bool:
        """Claim a message and start its request; False when it is not for us or already taken
        (Slack's retries and the app_mention + message pair of one mention arrive more than once)."""
        if not self.conversation.wants(msg, mentioned=mentioned):
            return False
        if not self.memory.claim(f"msg:{msg.channel}:{msg.ts}"):
            log.info("duplicate delivery of %s:%s ignored", msg.channel, msg.ts)
            return False
        lang = blocks.lang_of(msg.text)
        self.worker.submit(self.conversation.guarded(self.conversation.on_message(msg), msg.channel,
                                                     msg.reply_thread, lang))
        return True

    def _register(self) -> None:
        app, conv = self.app, self.conversation

        @app.event("app_mention")
        def on_mention(event: dict[str, Any], context: BoltContext) -> None:
            self.take(_incoming(event, context, is_dm=event.get("channel_type") == "im"), mentioned=True)

        @app.event("message")
        def on_message(event: dict[str, Any], context: BoltContext) -> None:
            if event.get("subtype") not in HUMAN_SUBTYPES or event.get("bot_id") or not event.get("user"):
                return  # edits, joins, bots (bolt already drops our own)
            is_dm = event.get("channel_type") == "im"
            mentioned = bool(context.bot_user_id) and f"<@{context.bot_user_id}" in (event.get("text") or "")
            if mentioned and not is_dm:
                return  # the app_mention event carries it
            self.take(_incoming(event, context, is_dm=is_dm), mentioned=mentioned)

        panel = Assistant()

        @panel.thread_started
        def on_thread_started(say: Any, set_suggested_prompts: Any) -> None:
            say("Hi! Tell me what data you need in one sentence. 告诉我要造什么数据,一句话就行。")
            set_suggested_prompts(prompts=conv.prompts())

        @panel.user_message
        def on_panel_message(payload: dict[str, Any], context: BoltContext) -> None:
            self.take(_incoming(payload, context, is_dm=True, assistant_thread=True), mentioned=True)

        app.use(panel)

        @app.event("app_home_opened")
        def on_home(event: dict[str, Any], context: BoltContext) -> None:
            # Agent view (the Messages tab): offer the same prompts; older workspaces have no such API.
            prompts = context.get("set_suggested_prompts")
            if event.get("tab") == "messages" and prompts is not None:
                try:
                    prompts(prompts=conv.prompts())
                except Exception as exc:  # noqa: BLE001 - optional nicety
                    log.debug("suggested prompts not set: %s", exc)

        @app.action(CONFIRM)
        def on_confirm(ack: Any, body: dict[str, Any], action: dict[str, Any]) -> None:
            ack()
            decision = CONFIRM.match(action["action_id"]).group(1)  # type: ignore[union-attr]
            channel, thread = body["channel"]["id"], body.get("message", {}).get("thread_ts")
            self.worker.submit(conv.guarded(conv.on_confirm(action["value"], decision, body["user"]["id"], channel,
                                                            body["container"]["message_ts"], thread), channel, thread))

        @app.action(RESUME)
        def on_resume(ack: Any, body: dict[str, Any], action: dict[str, Any]) -> None:
            ack()
            what = RESUME.match(action["action_id"]).group(1)  # type: ignore[union-attr]
            channel, thread = body["channel"]["id"], body.get("message", {}).get("thread_ts")
            self.worker.submit(conv.guarded(conv.on_resume(action["value"], what, body["user"]["id"], channel,  # type: ignore[arg-type]
                                                           body["container"]["message_ts"], thread), channel, thread))

        @app.action(CHOOSE)
        def on_choose(ack: Any, body: dict[str, Any], action: dict[str, Any]) -> None:
            ack()
            channel, thread = body["channel"]["id"], body.get("message", {}).get("thread_ts")
            is_dm = str(channel).startswith("D")
            self.worker.submit(conv.guarded(conv.on_choice(action["value"], body["user"]["id"], channel,
                                                           body["container"]["message_ts"], thread, is_dm),
                                            channel, thread))

        @app.command("/datasmith")
        def on_command(ack: Any, command: dict[str, Any]) -> None:
            msg = commands.respond(command.get("text") or "", command["user_id"], self.core.knowledge,
                                   self.core.store, conv.examples(8), channel=command.get("channel_id"),
                                   maintainer=command["user_id"] in self.config.maintainers)
            ack(text=msg.text, blocks=msg.blocks, response_type="ephemeral")

        @app.error
        def on_error(error: Exception, body: dict[str, Any]) -> None:
            log.error("bolt listener failed for %s", body.get("type"), exc_info=error)


def _incoming(event: dict[str, Any], context: BoltContext, *, is_dm: bool, assistant_thread: bool = False) -> Incoming:
    return Incoming(text=event.get("text") or "", user=event.get("user") or "", channel=event["channel"],
                    ts=event["ts"], thread_ts=event.get("thread_ts"), is_dm=is_dm, assistant_thread=assistant_thread,
                    bot_user=context.bot_user_id)
