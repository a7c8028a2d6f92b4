"""`/datasmith help | tools | rules | runs [mine] | run <id>`: answered in the ack, visible to the caller only.

Runs are the requesters' data: a person sees their own runs; a maintainer also sees the runs of
the channel the command is typed in. A run that is not yours answers as "not found".
"""

from __future__ import annotations

from bot import blocks
from bot.blocks import Message, chunk_lines, section
from core.errors import RUN_NOT_FOUND, DatasmithError
from core.knowledge import Knowledge
from core.runstore import RunStore

USAGE = ("`/datasmith help` · `/datasmith tools` · `/datasmith rules` · `/datasmith runs [mine]` · "
         "`/datasmith run <run id>`")
LIST_BLOCKS = 45


def _listing(title: str, lines: list[str], more_hint: str) -> Message:
    chunks = chunk_lines(lines)
    shown = chunks[:LIST_BLOCKS]
    body = [section(f"*{title}*"), *[section(c) for c in shown]]
    if len(chunks) > len(shown):
        body.append(blocks.context(more_hint))
    return Message(title, body)


def help_message(knowledge: Knowledge, examples: list[str]) -> Message:
    packs = [f"• *{p.name}*: {p.description or '-'} ({sum(1 for t in knowledge.tools.values() if t.pack == p.name)}"
             f" tools, {sum(1 for r in knowledge.rules.values() if r.pack == p.name)} rules)"
             for p in knowledge.packs.values()]
    text = ("*datasmith* turns one sentence into real test data and answers: mention me in a channel, "
            "or write to me directly.\n" + "\n".join(packs))
    tries = "*Try:*\n" + "\n".join(f"• {e}" for e in examples)
    return Message("datasmith help", [section(text), section(tries), blocks.context(USAGE)])


def tools_message(knowledge: Knowledge) -> Message:
    lines = [f"• `{t.tool_name}` ({t.pack}){' ✎' if t.side_effects else ''}: {t.description.splitlines()[0][:140]}"
             for t in sorted(knowledge.tools.values(), key=lambda t: (t.pack, t.tool_name))]
    return _listing(f"{len(lines)} tools (✎ = writes)", lines, "more in the console's Knowledge page")


def rules_message(knowledge: Knowledge) -> Message:
    lines = []
    for r in sorted(knowledge.rules.values(), key=lambda r: (r.pack, r.rule_name)):
        eg = f" · e.g. “{r.examples[0].user_query}”" if r.examples else ""
        lines.append(f"• `{r.rule_name}` ({r.pack}, {len(r.dag_definition)} steps): "
                     f"{r.description.splitlines()[0][:140]}{eg}")
    return _listing(f"{len(lines)} rules", lines, "more in the console's Knowledge page")


def runs_message(store: RunStore, user: str, mine: bool, *, channel: str | None = None,
                 maintainer: bool = False) -> Message:
    mine = mine or not maintainer
    rows = store.list(limit=20, user=user) if mine else store.list(limit=20, channel=channel)
    if not rows:
        hint = "no runs of yours yet" if mine else "no runs in this channel yet"
        return Message(hint, [section(f"{hint}: mention me with a request to make one.")])
    lines = [f"{blocks.ICONS.get(r.status, '·')} `{r.run_id}` {r.created_at:%m-%d %H:%M} · "
             f"`{r.rule or r.tool or '-'}` · {r.environment or '-'}{f' · <@{r.user}>' if r.user else ''} · "
             f"{blocks.esc(r.request_text[:80])}" for r in rows]
    return _listing(f"latest {len(rows)} runs{' of yours' if mine else ' in this channel'}", lines, "")


def run_message(store: RunStore, run_id: str, user: str, *, maintainer: bool = False) -> Message:
    try:
        run = store.get(run_id)
        if not maintainer and run.request.user != user:
            raise DatasmithError(f"run {run_id!r} not found", code=RUN_NOT_FOUND)  # not yours: not said to exist
    except DatasmithError as exc:
        return Message(str(exc), [section(f"*{exc.code}* {blocks.esc(exc.message)}")])
    return blocks.result(run, blocks.lang_of(run.request.text))


def respond(text: str, user: str, knowledge: Knowledge, store: RunStore, examples: list[str], *,
            channel: str | None = None, maintainer: bool = False) -> Message:
    words = text.split()
    sub = words[0].lower() if words else "help"
    if sub == "tools":
        return tools_message(knowledge)
    if sub == "rules":
        return rules_message(knowledge)
    if sub == "runs":
        return runs_message(store, user, mine=len(words) > 1 and words[1].lower() == "mine", channel=channel,
                            maintainer=maintainer)
    if sub == "run":
        if len(words) < 2:
            return Message("usage", [section("Which run? `/datasmith run <run id>` (ids are in `/datasmith runs`)")])
        return run_message(store, words[1], user, maintainer=maintainer)
    msg = help_message(knowledge, examples)
    if sub != "help":
        msg.blocks.insert(0, section(f"I don't know `{blocks.esc(sub)}`. Here is what I can do:"))
    return msg
