"""Block Kit renderings of core results (pure functions: data in, a `Message` out).

Slack limits respected here, not hoped for: 3,000 characters a section, 50 blocks a message.
What does not fit goes into a file attached in the thread, never a cut-off message.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from core.batch import Tally
from core.errors import describe
from core.models import ErrorInfo, Plan, RunRecord, RunReport, StepRun, run_json
from core.render import key_fields

SECTION_MAX = 3000
SECTION_BUDGET = 2900  # headroom for the joiner
MAX_BLOCKS = 50
STEP_BLOCK_BUDGET = 40  # blocks left for step lines after header, context and buttons
VALUE_MAX = 120  # a longer field value means the full output goes into the file

ICONS = {"succeeded": "✅", "failed": "❌", "paused": "⏸️", "skipped": "↷", "pending": "▫️", "running": "⏳",
         "interrupted": "⚠️", "aborted": "🛑", "partial": "◐"}
CJK = re.compile(r"[\u3400-\u9fff]")

TEXT: dict[str, dict[str, str]] = {
    "working": {"zh": "⏳ 收到,正在处理…", "en": "⏳ On it…"},
    "status": {"zh": "正在处理…", "en": "is working…"},
    "running": {"zh": "⏳ 执行中", "en": "⏳ Running"},
    "succeeded": {"zh": "✅ 完成", "en": "✅ Done"},
    "failed": {"zh": "❌ 失败", "en": "❌ Failed"},
    "paused": {"zh": "⏸️ 在断点暂停", "en": "⏸️ Paused at a breakpoint"},
    "interrupted": {"zh": "⚠️ 运行被中断(进程重启)", "en": "⚠️ Interrupted (the process restarted)"},
    "aborted": {"zh": "🛑 已中止", "en": "🛑 Aborted"},
    "partial": {"zh": "◐ 部分完成(有步骤被跳过)", "en": "◐ Partly done (a step was skipped)"},
    "needs_input": {"zh": "❓ 还需要一些信息", "en": "❓ I need a bit more"},
    "no_match": {"zh": "🤔 知识库里没有合适的工具或规则", "en": "🤔 Nothing in the knowledge fits"},
    "planned": {"zh": "📋 计划", "en": "📋 Plan"},
    "confirm": {"zh": "⚠️ 该环境的写操作需要确认", "en": "⚠️ Writes in this environment need a confirmation"},
    "error": {"zh": "❌ 出错了", "en": "❌ Something went wrong"},
    "reply_hint": {"zh": "直接在这个线程里回复即可,不用再 @ 我。", "en": "Just reply in this thread, no need to mention me."},
    "choose_hint": {"zh": "点一个按钮,或在这个线程里回复编号、名称或换个说法。",
                    "en": "Press a button, or reply in this thread with its number, its name or other words."},
    # a plain DM has no thread: the next message is the answer
    "reply_hint_dm": {"zh": "直接回复即可。", "en": "Just reply here."},
    "choose_hint_dm": {"zh": "点一个按钮,或直接回复编号、名称或换个说法。",
                       "en": "Press a button, or reply with its number, its name or other words."},
    "chosen": {"zh": "👉 已选择", "en": "👉 Chosen"},
    "breakpoint_hint": {"zh": "选择:重试这一步 / 跳过这一步 / 中止运行。",
                        "en": "Choose: retry the step, skip it, or abort the run."},
    "file_note": {"zh": "完整输出见附件。", "en": "Full output in the attached file."},
    "cancelled": {"zh": "🚫 已取消", "en": "🚫 Cancelled"},
    "by": {"zh": "操作人", "en": "by"},
    "env": {"zh": "环境", "en": "env"},
    "steps": {"zh": "步", "en": "steps"},
    "run": {"zh": "运行", "en": "Run"},
    "cancel": {"zh": "取消", "en": "Cancel"},
    "retry": {"zh": "重试", "en": "Retry"},
    "skip": {"zh": "跳过此步", "en": "Skip step"},
    "abort": {"zh": "中止", "en": "Abort"},
    "resuming": {"zh": "⏳ 正在恢复", "en": "⏳ Resuming"},
    "unsure": {"zh": "⚠️ 这一步可能已经执行过", "en": "⚠️ This step may already have happened"},
    "force": {"zh": "已核实,仍然重试", "en": "Checked: retry anyway"},
    "not_yours": {"zh": "这不是你的请求:只有发起人或维护者可以操作。",
                  "en": "Not yours: only the requester or a maintainer can press this."},
    "gone": {"zh": "这个确认已经处理过或已过期。", "en": "This was already handled or has expired."},
    "no_write": {"zh": "DS-204:你没有在该环境执行写操作的权限(allowed_users),请联系维护者。",
                 "en": "DS-204: you may not run writes in this environment (allowed_users); ask a maintainer."},
    "empty": {"zh": "说说需要什么数据,例如:", "en": "Tell me what data you need, for example:"},
    "confirm_copies": {"zh": "⚠️ 将运行 {n} 份(每份一次独立的运行),确认执行吗?",
                       "en": "⚠️ This makes {n} copies ({n} runs of their own). Run them?"},
    "copies_done": {"zh": "{icon} {ok}/{n} 份成功", "en": "{icon} {ok} of {n} copies succeeded"},
    "copies_running": {"zh": "⏳ 执行中 {what} · {ended}/{n} 份已结束", "en": "⏳ Running {what} · {ended}/{n} copies ended"},
    "copies_not_ok": {"zh": ",{bad} 份未成功", "en": ", {bad} did not"},
    "copies_resume": {"zh": "未成功的运行可在控制台或用 `datasmith runs resume <run>` 继续。",
                      "en": "Runs that did not succeed can be resumed in the console or with `datasmith runs resume <run>`."},
}


def lang_of(text: str) -> str:
    return "zh" if CJK.search(text or "") else "en"


def t(key: str, lang: str) -> str:
    return TEXT[key][lang]


@dataclass
class Message:
    text: str  # the notification / fallback text
    blocks: list[dict[str, Any]] = field(default_factory=list)
    attachment: tuple[str, str] | None = None  # (filename, content) uploaded into the thread


# ---------------------------------------------------------------------- block helpers

def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text[:SECTION_MAX]}}


def context(*parts: str) -> dict[str, Any]:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": p[:SECTION_MAX]} for p in parts[:10]]}


def button(text: str, action_id: str, value: str, style: str | None = None) -> dict[str, Any]:
    b: dict[str, Any] = {"type": "button", "text": {"type": "plain_text", "text": text[:75]},
                         "action_id": action_id, "value": value}
    if style:
        b["style"] = style
    return b


def chunk_lines(lines: list[str], budget: int = SECTION_BUDGET) -> list[str]:
    """Lines packed into section texts of at most `budget` characters (a long line is its own chunk)."""
    chunks: list[str] = []
    cur = ""
    for line in lines:
        if cur and len(cur) + 1 + len(line) > budget:
            chunks.append(cur)
            cur = ""
        cur = f"{cur}\n{line}" if cur else line
    if cur:
        chunks.append(cur)
    return chunks


def esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


# ---------------------------------------------------------------------- pieces

def what(plan: Plan | None) -> str:
    if plan is None:
        return ""
    name = plan.rule or plan.tool or ""
    env = f" · env `{plan.environment}`" if plan.environment else ""
    return f"`{name}`{env}" if name else env.lstrip(" ·")


def plan_summary(plan: Plan, lang: str) -> str:
    """One line: what runs, where, with which request values."""
    chain = " → ".join(s.tool_name for s in plan.steps[:12]) + (" → …" if len(plan.steps) > 12 else "")
    known = ", ".join(f"{k}={_value(v)}" for k, v in list(plan.known.items())[:6])
    with_ = f" · {known}" if known else ""
    return esc(f"{len(plan.steps)} {t('steps', lang)}: {chain}{with_}")


def _step_line(step: StepRun, fields: bool) -> tuple[str, bool]:
    """A step's line; the flag says a value had to be shortened (so the file carries it whole)."""
    line = f"{ICONS.get(step.status, '·')} {step.step_id}. `{step.tool_name}`"
    long = False
    if fields:
        parts = []
        for k, v in key_fields(step.output, 6):
            text = _value(v)
            if len(text) > VALUE_MAX:
                text, long = text[:VALUE_MAX] + "…", True
            parts.append(f"{k}=`{esc(text)}`")
        if parts:
            line += "  " + ", ".join(parts)
    if step.error:
        line += f"  — {step.error.code}: {esc(step.error.message[:300])}"
        long = long or len(step.error.message) > 300
    if step.skip_reason:
        line += f"  _({esc(step.skip_reason[:200])})_"
    return line, long


def step_blocks(run: RunRecord, *, fields: bool = True) -> tuple[list[dict[str, Any]], bool]:
    """Step lines as sections; the flag says something did not fit and belongs in a file."""
    rendered = [_step_line(s, fields) for s in run.steps]
    lines = [line for line, _ in rendered]
    overflow = any(long for _, long in rendered)
    chunks = chunk_lines(lines)
    if len(chunks) > STEP_BLOCK_BUDGET:
        chunks, overflow = chunks[:STEP_BLOCK_BUDGET - 1] + [f"… {len(run.steps)} steps in all"], True
    return [section(c) for c in chunks], overflow


def error_text(error: ErrorInfo, lang: str, trace_id: str | None) -> str:
    """Code, title and what to do from the catalogue; the specific message; the trace id."""
    title, hint = describe(error.code, lang)
    message = (error.message_zh if lang == "zh" and error.message_zh else error.message)
    trace = trace_id or error.trace_id
    return (f"*{error.code} {esc(title)}*: {esc(message)}\n_{esc(hint)}_"
            + (f"\n`trace {trace}`" if trace else ""))


# ---------------------------------------------------------------------- messages

def working(lang: str) -> Message:
    return Message(t("working", lang), [section(t("working", lang))])


def step_position(run: RunRecord) -> tuple[str, str | None]:
    """"k/n" (k = the step under way) and the tool running now, if any."""
    done = sum(1 for s in run.steps if s.status in ("succeeded", "skipped", "failed"))
    running = next((s.tool_name for s in run.steps if s.status == "running"), None)
    return f"{min(done + 1, len(run.steps))}/{len(run.steps)}", running


def progress(run: RunRecord, lang: str) -> Message:
    k_of_n, tool = step_position(run)
    current = f" · `{tool}`" if tool else ""
    head = f"{t('running', lang)} {what(run.plan)} · {k_of_n}{current}"
    steps, _ = step_blocks(run, fields=False)
    return Message(head, [section(head), *steps[:STEP_BLOCK_BUDGET]])


def queued(position: int, wait_s: float, lang: str) -> str:
    if lang == "zh":
        return f"⏳ 排队等待 LLM:第 {position} 位,约 {wait_s:.0f} 秒"
    return f"⏳ Queued for the LLM: position {position}, about {wait_s:.0f} s"


def copies_status(tally: Tally, lang: str) -> str:
    """The assistant panel's one-line status for a batch of copies."""
    return f"{t('status', lang)} {tally.ended}/{tally.total}"


def progress_status(run: RunRecord, lang: str) -> str:
    """The assistant panel's one-line status."""
    k_of_n, tool = step_position(run)
    return f"{t('status', lang)} {k_of_n}" + (f" · {tool}" if tool else "")


def question(plan: Plan, lang: str, conversation: str | None = None, *, threaded: bool = True) -> Message:
    head = t("needs_input", lang) if plan.status == "needs_input" else t("no_match", lang)
    body = esc(plan.question or "")
    blocks = [section(f"*{head}*" + (f" · {what(plan)}" if plan.rule or plan.tool else "")), section(body)]
    if plan.status == "needs_input" and plan.choices and conversation is not None:
        blocks.append(choice_actions(plan, conversation))
    if plan.status == "needs_input":
        hint = "choose_hint" if plan.choices else "reply_hint"
        blocks.append(context(t(hint if threaded else f"{hint}_dm", lang)))
    return Message(f"{head}: {plan.question or ''}"[:3000], blocks)


def choice_actions(plan: Plan, conversation: str) -> dict[str, Any]:
    """One button per offered candidate; the value says which conversation and which choice."""
    return {"type": "actions", "block_id": "ds_choices", "elements": [
        button(f"{i}. {c.rule or c.tool}", f"ds_choose_{i}", json.dumps({"c": conversation, "i": i}))
        for i, c in enumerate(plan.choices[:5], 1)]}


def chosen(plan: Plan, index: int, user: str, lang: str) -> Message:
    choice = plan.choices[index - 1]
    text = f"{t('chosen', lang)} `{choice.rule or choice.tool}` · {t('by', lang)} <@{user}>"
    return Message(text, [section(text)])


def confirm(plan: Plan, cid: str, lang: str) -> Message:
    """A plan waiting on Run / Cancel: writes in a `confirm: true` environment, or many copies."""
    head = f"*{t('confirm', lang)}* · {what(plan)}"
    if plan.copies > 1:
        head += f"\n*{t('confirm_copies', lang).format(n=plan.copies)}*"
    lines = [f"{s.step_id}. `{s.tool_name}`" + (" ↷" if s.skipped else "") for s in plan.steps]
    blocks = [section(head), *[section(c) for c in chunk_lines(lines)][:STEP_BLOCK_BUDGET],
              context(plan_summary(plan, lang)),
              {"type": "actions", "block_id": "ds_confirm", "elements": [
                  button(t("run", lang), "ds_confirm_run", cid, "primary"),
                  button(t("cancel", lang), "ds_confirm_cancel", cid, "danger")]}]
    title = t("confirm_copies", lang).format(n=plan.copies) if plan.copies > 1 else t("confirm", lang)
    return Message(f"{title}: {plan.rule or plan.tool}", blocks)


def cancelled(plan: Plan, user: str, lang: str) -> Message:
    text = f"{t('cancelled', lang)} · {what(plan)} · {t('by', lang)} <@{user}>"
    return Message(text, [section(text), context(plan_summary(plan, lang))])


def starting(plan: Plan, user: str, lang: str) -> Message:
    text = f"{t('running', lang)} {what(plan)} · {t('by', lang)} <@{user}>"
    return Message(text, [section(text), context(plan_summary(plan, lang))])


def resuming(run_id: str, action: str, user: str, lang: str) -> Message:
    text = f"{t('resuming', lang)} `{run_id}` ({action}) · {t('by', lang)} <@{user}>"
    return Message(text, [section(text)])


def failure(error: ErrorInfo, lang: str, trace_id: str | None, plan: Plan | None = None) -> Message:
    head = f"*{t('error', lang)}*" + (f" · {what(plan)}" if plan and (plan.rule or plan.tool) else "")
    body = error_text(error, lang, trace_id)
    return Message(f"{t('error', lang)}: {error.code}", [section(head), section(body)])


def breakpoint_actions(run_id: str, lang: str) -> dict[str, Any]:
    return {"type": "actions", "block_id": "ds_breakpoint", "elements": [
        button(t("retry", lang), "ds_resume_retry", run_id, "primary"),
        button(t("skip", lang), "ds_resume_skip", run_id),
        button(t("abort", lang), "ds_resume_abort", run_id, "danger")]}


def unsure(run: RunRecord, error: ErrorInfo, lang: str) -> Message:
    """A retry refused because a cut-off write may already have happened: say so, offer the choices."""
    text = f"*{t('unsure', lang)}* · {what(run.plan)}\n{esc(error.message_zh if lang == 'zh' and error.message_zh else error.message)}"
    return Message(f"{t('unsure', lang)}: run {run.run_id}", [
        section(text), context(f"run `{run.run_id}` · trace `{run.trace_id}` · {error.code}"),
        {"type": "actions", "block_id": "ds_unsure", "elements": [
            button(t("force", lang), "ds_resume_force", run.run_id, "danger"),
            button(t("skip", lang), "ds_resume_skip", run.run_id),
            button(t("abort", lang), "ds_resume_abort", run.run_id)]}])


def result(run: RunRecord, lang: str, *, latency_ms: float | None = None, by: str | None = None) -> Message:
    """The final answer of a run: status, what was made, where, ids to find it again."""
    status_text = t(run.status, lang) if run.status in TEXT else run.status
    head = f"*{status_text}* · {what(run.plan)}" + (f" · {t('by', lang)} <@{by}>" if by else "")
    steps, overflow = step_blocks(run)
    blocks = [section(head), *steps]
    if run.error and run.status != "succeeded":
        blocks.append(section(error_text(run.error, lang, run.trace_id)))
    timing = f" · {latency_ms / 1000:.1f} s" if latency_ms is not None else ""
    ctx = [f"run `{run.run_id}` · trace `{run.trace_id}`{timing}", plan_summary(run.plan, lang)]
    if overflow:
        ctx.append(t("file_note", lang))
    blocks.append(context(*ctx))
    if run.status in ("paused", "interrupted"):
        blocks.append(context(t("breakpoint_hint", lang)))
        blocks.append(breakpoint_actions(run.run_id, lang))
    text = f"{status_text}: {run.plan.rule or run.plan.tool} (run {run.run_id})"
    attachment = None
    if overflow:
        body = json.dumps(run_json(run), ensure_ascii=False, indent=2, default=str)
        attachment = (f"run-{run.run_id}.json", body)
    return Message(text, blocks[:MAX_BLOCKS], attachment)


def copies_progress(tally: Tally, lang: str) -> Message:
    """A batch of copies under way: how many ended, how many did not succeed."""
    text = t("copies_running", lang).format(what=what(tally.plan), ended=tally.ended, n=tally.total)
    if tally.failed:
        text += t("copies_not_ok", lang).format(bad=tally.failed)
    return Message(text, [section(text)])


def _copy_line(i: int, run: RunRecord) -> str:
    made = dict.fromkeys(f"{k}=`{esc(_value(v))[:VALUE_MAX]}`" for s in run.steps
                         for k, v in key_fields(s.output, 6) if k.endswith("_id"))
    line = f"{i}. {ICONS.get(run.status, '·')} `{run.run_id}`  " + ", ".join(list(made)[:3])
    if run.error and run.status != "succeeded":
        line += f"  — {run.error.code}: {esc(run.error.message[:200])}"
    return line


def copies_result(rep: RunReport, lang: str) -> Message:
    """The answer to a request with copies: one compact line per run (its id, the ids it made, or
    its error), the count of those that did not succeed; every run in full in a file when long."""
    runs, plan = rep.runs, rep.plan
    ok = sum(r.status == "succeeded" for r in runs)
    icon = "✅" if ok == len(runs) else "◐" if ok else "❌"
    head = f"*{t('copies_done', lang).format(icon=icon, ok=ok, n=len(runs))}*"
    if ok < len(runs):
        head += t("copies_not_ok", lang).format(bad=len(runs) - ok)
    head += f" · {what(plan)}"
    chunks = chunk_lines([_copy_line(i, r) for i, r in enumerate(runs, 1)])
    overflow = len(chunks) > STEP_BLOCK_BUDGET
    ctx = [f"trace `{rep.trace_id}` · {rep.latency_ms / 1000:.1f} s"]
    if plan is not None:
        ctx.append(plan_summary(plan, lang))
    if ok < len(runs):
        ctx.append(t("copies_resume", lang))
    if overflow:
        chunks = chunks[:STEP_BLOCK_BUDGET - 1] + [f"… {len(runs)} runs in all"]
        ctx.append(t("file_note", lang))
    blocks = [section(head), *[section(c) for c in chunks], context(*ctx)]
    attachment = None
    if overflow:
        body = json.dumps([run_json(r) for r in runs], ensure_ascii=False, indent=2, default=str)
        attachment = (f"runs-{rep.trace_id[:12]}.json", body)
    text = f"{t('copies_done', lang).format(icon=icon, ok=ok, n=len(runs))}: {what(plan)}"
    return Message(text[:3000], blocks[:MAX_BLOCKS], attachment)


def report(rep: RunReport, lang: str, conversation: str | None = None, *, threaded: bool = True) -> Message:
    """Any report that ends a request: an error, a question (with choice buttons when it offers
    choices in a `conversation`; `threaded` False in a plain DM, which has no thread), a run, or
    the runs of its copies."""
    if rep.runs:
        return copies_result(rep, lang)
    if rep.run is not None:
        return result(rep.run, lang, latency_ms=rep.latency_ms)
    if rep.error is not None:
        return failure(rep.error, lang, rep.trace_id, rep.plan)
    assert rep.plan is not None, "a report has a run, an error or a plan"
    if rep.plan.status in ("needs_input", "no_match"):
        return question(rep.plan, lang, conversation, threaded=threaded)
    # planned, not run (plan only): show the plan
    head = f"*{t('planned', lang)}* · {what(rep.plan)}"
    return Message(head, [section(head), context(plan_summary(rep.plan, lang))])
