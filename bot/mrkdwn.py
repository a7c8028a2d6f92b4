"""Slack's `mrkdwn` message text back into what the person meant (one decoder, pure).

Slack sends a message's `text` with its markup encoded (docs: "Formatting text for app surfaces"):

    <@U0BOB>  <@U0BOB|bob>                  a user           → @U0BOB, or @bob (U0BOB) when the name is known
    <#C0123>  <#C0123|general>  <#C0123|>   a channel        → #C0123, or #general (C0123)
    <!here>  <!channel>  <!everyone>        special mentions → @here, @channel, @everyone
    <!subteam^S0TEAM|@team>                 a user group     → @team (S0TEAM)
    <!date^1392734382^{date}|Feb 18>        a date           → its fallback text
    <https://x.io/a?b=1&amp;c=2|x.io>       a link           → the URL (and the label when it says more)
    <mailto:a@b.com>  <mailto:a@b.com|Al>   an email link    → a@b.com, or Al (a@b.com)
    &amp; &lt; &gt;                         the only entities Slack escapes → & < >

Ids are kept because packs take them as values; names are added because people read them.
The bot's own mention is dropped: it only addresses the request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

TOKEN = re.compile(r"<([^<>]*)>")
USER = re.compile(r"^@([UW][A-Z0-9]+)$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
ADDRESS_SCHEMES = ("mailto:", "tel:", "sms:")


def unescape(text: str) -> str:
    """Slack escapes exactly these three; `&amp;` last so `&amp;lt;` stays the literal `&lt;`."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def user_ids(text: str) -> list[str]:
    """The users mentioned in a message, in order, each once (whose names are worth looking up)."""
    seen: dict[str, None] = {}
    for m in TOKEN.finditer(text or ""):
        user = USER.match(m.group(1).split("|", 1)[0])
        if user:
            seen.setdefault(user.group(1))
    return list(seen)


def decode(text: str, *, bot_user: str | None = None, names: Mapping[str, str] | None = None) -> str:
    """Message text as the person meant it, whitespace collapsed (see the module table)."""
    pieces = TOKEN.split(text or "")
    # re.split with one group: even indexes are plain text, odd ones the inside of a <…> token
    out = [unescape(p) if i % 2 == 0 else _token(p, bot_user, names or {}) for i, p in enumerate(pieces)]
    return " ".join("".join(out).split())


def _token(inner: str, bot_user: str | None, names: Mapping[str, str]) -> str:
    target, _, label = inner.partition("|")
    label = unescape(label).strip()
    if target.startswith("@"):
        return _user(target[1:], label, bot_user, names)
    if target.startswith("#"):
        return _named("#", target[1:], label.lstrip("#"))
    if target.startswith("!"):
        return _special(target[1:], label)
    return _link(unescape(target), label)


def _user(uid: str, label: str, bot_user: str | None, names: Mapping[str, str]) -> str:
    if uid == bot_user:
        return " "
    return _named("@", uid, names.get(uid) or label.lstrip("@"))


def _named(sigil: str, ident: str, name: str) -> str:
    return f" {sigil}{name} ({ident}) " if name and name != ident else f" {sigil}{ident} "


def _special(command: str, label: str) -> str:
    head, _, rest = command.partition("^")
    if head in ("here", "channel", "everyone"):
        return f" @{head} "
    if head == "subteam":
        return _named("@", rest, label.lstrip("@"))
    if label:  # dates and anything newer: Slack's fallback text is what a reader sees
        return label
    return f" @{head} "


def _link(url: str, label: str) -> str:
    for scheme in ADDRESS_SCHEMES:
        if url.startswith(scheme):
            address = url[len(scheme):]
            return address if not label or label == address else f"{label} ({address})"
    bare = SCHEME.sub("", url).lstrip("/")
    shown = SCHEME.sub("", label).lstrip("/").rstrip("…").rstrip(".")
    if not label or bare.startswith(shown):  # Slack's own label: the URL, shortened
        return url
    return f"{label} ({url})"
