"""Slack conversations over the core: a message in, a thread of answers out.

Every entry point here runs on the worker loop after Slack has been acked. `core` does the work
(`Assistant.handle / execute / resume`); this module only decides what to say where, and what
the thread must remember (an open question, a plan awaiting Run / Cancel).
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Literal

from bot import blocks, mrkdwn
from bot.config import BotConfig
from bot.memory import BotMemory
from bot.slack_io import SLACK_FAILURES, SlackIO, slack_error
from core.assistant import Assistant
from core.batch import Tally
from core.errors import OUTCOME_UNKNOWN, RUN_NOT_FOUND, DatasmithError
from core.execution import ResumeAction
from core.models import ErrorInfo, Request, RunRecord, RunReport, StepRun

log = logging.getLogger("datasmith.bot")

@dataclass(frozen=True)
class Incoming:
    """A user message addressed to the bot."""

    text: str
    user: str
    channel: str
    ts: str
    thread_ts: str | None = None
    is_dm: bool = False
    assistant_thread: bool = False  # the assistant panel: has a status line
    bot_user: str | None = None  # our own user id: its mention only addresses the request

    @property
    def conversation(self) -> str:
        """The key of this message's conversation: its thread; a plain DM is one conversation."""
        return self.thread_ts or ("" if self.is_dm else self.ts)

    @property
    def reply_thread(self) -> str | None:
        """Where replies go: the thread (channels always thread; plain DMs answer in line)."""
        return self.thread_ts or (None if self.is_dm else self.ts)


class Progress:
    """Shows a run's progress (or a batch of copies': how many ended) at most once per interval
    (chat.update and assistant status are rate-limited); the final answer always wins: no edit
    can land after `close()`."""

    def __init__(self, show: Callable[[RunRecord], Awaitable[None]], interval_s: float,
                 show_copies: Callable[[Tally], Awaitable[None]] | None = None) -> None:
        self.show, self.interval_s, self.show_copies = show, interval_s, show_copies
        self._latest: RunRecord | Tally | None = None
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._closed = False
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def in_message(cls, io: SlackIO, channel: str, ts: str | None, lang: str, interval_s: float) -> Progress:
        async def show(run: RunRecord) -> None:
            if ts is not None:  # no placeholder (Slack refused it): nothing to edit
                await io.try_update(channel, ts, blocks.progress(run, lang))

        async def show_copies(tally: Tally) -> None:
            if ts is not None:
                await io.try_update(channel, ts, blocks.copies_progress(tally, lang))
        return cls(show, interval_s, show_copies)

    @classmethod
    def in_status(cls, io: SlackIO, channel: str, thread: str, lang: str, interval_s: float) -> Progress:
        return cls(lambda run: io.status(channel, thread, blocks.progress_status(run, lang)), interval_s,
                   lambda tally: io.status(channel, thread, blocks.copies_status(tally, lang)))

    def __call__(self, run: RunRecord, step: StepRun) -> None:
        if isinstance(self._latest, Tally):
            return  # a batch shows how many copies ended, not one copy's steps
        self._latest = run
        self._wake.set()
        self._start()

    def copies(self, tally: Tally) -> None:
        """A batch of copies started, or one of its copies ended."""
        if self.show_copies is None:
            return
        self._latest = tally
        self._wake.set()
        self._start()

    def _start(self) -> None:
        if self._task is None and not self._closed:
            self._task = asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        while not self._closed:
            await self._wake.wait()
            self._wake.clear()
            async with self._lock:
                if self._closed or self._latest is None:
                    return
                try:
                    if isinstance(self._latest, Tally):
                        assert self.show_copies is not None
                        await self.show_copies(self._latest)
                    else:
                        await self.show(self._latest)
                except SLACK_FAILURES as exc:  # progress is best effort; the final answer is not
                    log.warning("progress update failed: %s", slack_error(exc))
            await asyncio.sleep(self.interval_s)

    async def close(self) -> None:
        self._closed = True
        async with self._lock:  # an edit in flight finishes before the final answer is sent
            pass
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass


class Conversation:
    def __init__(self, assistant: Assistant, io: SlackIO, memory: BotMemory, config: BotConfig) -> None:
        self.assistant = assistant
        self.io = io
        self.memory = memory
        self.config = config

    # ------------------------------------------------------------------ messages

    def wants(self, msg: Incoming, *, mentioned: bool) -> bool:
        """Is this message for us? Mentions and DMs always; a thread reply only when that thread
        waits on an answer from this user."""
        if mentioned or msg.is_dm:
            return True
        if not msg.thread_ts:
            return False
        pending = self.memory.pending(msg.channel, msg.thread_ts)
        return pending is not None and self.config.may_act_for(msg.user, pending[0])

    async def on_message(self, msg: Incoming) -> None:
        lang = blocks.lang_of(msg.text)
        text = await self.decoded(msg)
        if not text:
            await self.io.deliver(msg.channel, None, msg.reply_thread, self._examples(lang))
            return
        ts: str | None = None
        if msg.assistant_thread:  # the panel's own "is working…" line; any reply clears it
            await self.io.status(msg.channel, msg.conversation, blocks.t("status", lang))
            progress = Progress.in_status(self.io, msg.channel, msg.conversation, lang, self.config.progress_interval_s)
        else:  # a placeholder to edit; when Slack refuses it the answer is posted instead
            ts = await self.io.placeholder(msg.channel, msg.reply_thread, blocks.working(lang))
            progress = Progress.in_message(self.io, msg.channel, ts, lang, self.config.progress_interval_s)
        pending = self.memory.pending(msg.channel, msg.conversation)
        access = self.config.access(msg.channel, is_dm=msg.is_dm)
        request = Request(text=text, user=msg.user, channel=msg.channel, thread=msg.reply_thread, surface="slack",
                          previous=pending[1] if pending else None, scope=access.scope())
        notes: set[asyncio.Task[None]] = set()

        def on_wait(position: int, wait_s: float) -> None:  # queued behind others for the LLM
            text = blocks.queued(position, wait_s, lang)
            show = (self.io.try_update(msg.channel, ts, blocks.Message(text, [blocks.section(text)])) if ts else
                    self.io.status(msg.channel, msg.conversation, text))
            task = asyncio.get_running_loop().create_task(show)
            notes.add(task)
            task.add_done_callback(notes.discard)

        try:
            report = await self.assistant.handle(request, progress=progress, on_wait=on_wait, on_copy=progress.copies,
                                                 confirm_copies_above=self.assistant.settings.confirm_copies_above)
        except Exception as exc:  # noqa: BLE001 - a bug must still end the "working" message
            await progress.close()
            await self._show(msg.channel, ts, msg.reply_thread, internal_failure(exc, lang))
            return
        await progress.close()
        if notes:
            await asyncio.gather(*notes, return_exceptions=True)
        await self._answer(msg, ts, lang, request, report)

    async def decoded(self, msg: Incoming) -> str:
        """What the person meant: markup decoded, other people's mentions named where Slack tells."""
        others = [u for u in mrkdwn.user_ids(msg.text) if u != msg.bot_user]
        names = await self.io.user_names(others) if others else {}
        return mrkdwn.decode(msg.text, bot_user=msg.bot_user, names=names)

    async def _show(self, channel: str, ts: str | None, thread: str | None, message: blocks.Message) -> None:
        """Edit our message when there is one, else (or when Slack refuses the edit) post the answer."""
        await self.io.deliver(channel, ts, thread, message)

    async def _answer(self, msg: Incoming, ts: str | None, lang: str, request: Request, report: RunReport) -> None:
        plan = report.plan
        if plan is not None and plan.status == "needs_input" and report.error is None:
            self.memory.set_pending(msg.channel, msg.conversation, msg.user, plan)
        elif report.error is not None and report.error.code.startswith("DS-1") and request.previous is not None:
            pass  # the reply was unusable (DS-106, DS-107...): the question stays open for another try
        else:
            self.memory.clear_pending(msg.channel, msg.conversation)
        if plan is not None and plan.status == "planned" and report.run is None and report.error is None:
            cid = self.memory.add_confirmation(msg.channel, msg.reply_thread, request, plan)
            await self._show(msg.channel, ts, msg.reply_thread, blocks.confirm(plan, cid, lang))
            return
        await self._show(msg.channel, ts, msg.reply_thread,
                         blocks.report(report, lang, msg.conversation, threaded=msg.reply_thread is not None))

    def _examples(self, lang: str) -> blocks.Message:
        lines = [f"• {e}" for e in self.examples(6)]
        text = blocks.t("empty", lang) + "\n" + "\n".join(lines)
        return blocks.Message(text, [blocks.section(text)])

    def prompts(self, n: int = 4) -> list[dict[str, str]]:
        """Suggested prompts for the assistant panel and the agent view."""
        return [{"title": e[:40], "message": e} for e in self.examples(n)]

    def examples(self, n: int) -> list[str]:
        """One example request per rule, for help and suggested prompts."""
        out = []
        for rule in self.assistant.knowledge.rules.values():
            if rule.examples:
                out.append(rule.examples[0].user_query)
            if len(out) >= n:
                break
        return out

    # ------------------------------------------------------------------ buttons

    async def on_confirm(self, cid: str, decision: str, user: str, channel: str, message_ts: str,
                         thread: str | None = None) -> None:
        conf = self.memory.confirmation(cid)
        lang = blocks.lang_of(conf.request.text) if conf else "en"
        if conf is None or conf.status != "pending":  # already decided (and maybe forgotten): say so in its thread
            await self.io.ephemeral(channel, user, blocks.t("gone", lang), conf.thread if conf else thread)
            return
        if not self.config.may_act_for(user, conf.user):
            await self.io.ephemeral(channel, user, blocks.t("not_yours", lang), conf.thread)
            return
        if decision == "run" and not self.assistant.may_write(conf.plan, user):
            await self.io.ephemeral(channel, user, blocks.t("no_write", lang), conf.thread)
            return
        if not self.memory.decide(cid, decision):  # a second press of the same button
            await self.io.ephemeral(channel, user, blocks.t("gone", lang), conf.thread)
            return
        try:
            if decision == "cancel":
                await self.io.deliver(channel, message_ts, conf.thread, blocks.cancelled(conf.plan, user, lang))
                return
            await self.io.try_update(channel, message_ts, blocks.starting(conf.plan, user, lang))
            progress = Progress.in_message(self.io, channel, message_ts, lang, self.config.progress_interval_s)
            try:
                report = await self.assistant.execute(conf.request, conf.plan, confirmed=True, progress=progress,
                                                      on_copy=progress.copies)
            finally:
                await progress.close()
            await self.io.deliver(channel, message_ts, conf.thread, blocks.report(report, lang))
        finally:
            self.memory.forget_confirmation(cid)

    async def on_resume(self, run_id: str, action: ResumeAction | Literal["force"], user: str, channel: str,
                        message_ts: str, thread: str | None) -> None:
        try:
            run = self.assistant.store.get(run_id)
        except DatasmithError:
            await self.io.ephemeral(channel, user, f"{RUN_NOT_FOUND}: run {run_id} not found", thread)
            return
        lang = blocks.lang_of(run.request.text)
        if not self.config.may_act_for(user, run.request.user):
            await self.io.ephemeral(channel, user, blocks.t("not_yours", lang), thread)
            return
        if action != "abort" and not self.assistant.may_write(run.plan, user):
            await self.io.ephemeral(channel, user, blocks.t("no_write", lang), thread)
            return
        # One press per paused state and action: a double click (or two people at once) resumes once.
        if run.status not in ("paused", "interrupted") or not self.memory.claim(
                f"resume:{run_id}:{run.updated_at.isoformat()}:{action}"):
            await self.io.ephemeral(channel, user, blocks.t("gone", lang), thread)
            return
        await self.io.try_update(channel, message_ts, blocks.resuming(run_id, action, user, lang))
        progress = Progress.in_message(self.io, channel, message_ts, lang, self.config.progress_interval_s)
        try:
            report = await self.assistant.resume(run_id, "retry" if action == "force" else action, by=user,
                                                 progress=progress, force=action == "force")
        finally:
            await progress.close()
        if report.error is not None and report.error.code == OUTCOME_UNKNOWN:  # may already have happened
            await self.io.deliver(channel, message_ts, thread, blocks.unsure(run, report.error, lang))
            return
        msg = blocks.result(report.run, lang, latency_ms=report.latency_ms, by=user) if report.run else \
            blocks.report(report, lang)
        await self.io.deliver(channel, message_ts, thread, msg)

    async def on_choice(self, value: str, user: str, channel: str, message_ts: str, thread: str | None,
                        is_dm: bool) -> None:
        """A choice button: the requester (or a maintainer) picks one of the offered candidates; it is
        answered as if they had replied with its number."""
        try:
            data = json.loads(value)
            conversation, index = str(data["c"]), int(data["i"])
        except (ValueError, KeyError, TypeError):
            await self.io.ephemeral(channel, user, blocks.t("gone", "en"), thread)
            return
        pending = self.memory.pending(channel, conversation)
        lang = (pending[1].language if pending else None) or "en"
        if pending is None or not pending[1].choices or not 1 <= index <= len(pending[1].choices):
            await self.io.ephemeral(channel, user, blocks.t("gone", lang), thread)
            return
        if not self.config.may_act_for(user, pending[0]):
            await self.io.ephemeral(channel, user, blocks.t("not_yours", lang), thread)
            return
        if not self.memory.claim(f"choice:{channel}:{conversation}:{message_ts}"):  # a double click
            await self.io.ephemeral(channel, user, blocks.t("gone", lang), thread)
            return
        await self.io.try_update(channel, message_ts, blocks.chosen(pending[1], index, user, lang))
        await self.on_message(Incoming(text=str(index), user=pending[0] or user, channel=channel, ts=message_ts,
                                       thread_ts=conversation or None, is_dm=is_dm))

    # ------------------------------------------------------------------ after a restart

    async def announce_interrupted(self, run_ids: list[str]) -> None:
        """Runs a dead bot left in flight: say so in their threads, with Retry / Skip / Abort."""
        for run_id in run_ids:
            run = self.assistant.store.get(run_id)
            if run.request.surface != "slack" or not run.request.channel:
                continue
            lang = blocks.lang_of(run.request.text)
            await self.io.deliver(run.request.channel, None, run.request.thread, blocks.result(run, lang))

    # ------------------------------------------------------------------ the safety net

    async def guarded(self, job: Coroutine[Any, Any, None], channel: str, thread: str | None,
                      lang: str = "en") -> None:
        """Run a job; an unexpected failure reaches the user as a code and trace_id, never a trace."""
        try:
            await job
        except SLACK_FAILURES as exc:  # Slack failing is not a bug of ours: saying so would fail too
            log.error("a job stopped because Slack failed: %s", slack_error(exc), exc_info=exc)
        except Exception as exc:  # noqa: BLE001 - the last line of defence for a chat surface
            await self.io.deliver(channel, None, thread, internal_failure(exc, lang))


def internal_failure(exc: BaseException, lang: str) -> blocks.Message:
    """A bug, as users see it: DS-500 and a trace id to give a maintainer (the log has the stack)."""
    trace_id = uuid.uuid4().hex
    log.error("trace %s: bot job failed", trace_id, exc_info=exc)
    info = ErrorInfo(code="DS-500", message=f"internal error ({type(exc).__name__}); a maintainer can find it "
                     "by the trace id", message_zh="内部错误,维护者可凭 trace id 排查", trace_id=trace_id)
    return blocks.failure(info, lang, trace_id)
