"""Slack's documented mrkdwn forms, decoded into what the person meant (the planner's input)."""

from __future__ import annotations

import pytest

from bot.mrkdwn import decode, user_ids

BOT = "UDSBOT"
NAMES = {"U0BOB": "bob"}

CASES = [
    # the Bar's five, as Slack sends them
    ("see <#C0123|>", "see #C0123"),
    ("<!here> order please", "@here order please"),
    ("assign to <@U0BOB>", "assign to @U0BOB"),
    ("mail <mailto:a@b.com>", "mail a@b.com"),
    ("open <https://x.io/a?b=1&amp;c=2|x.io>", "open https://x.io/a?b=1&c=2"),
    # the rest of the documented forms
    ("<@UDSBOT> 给商品123456下一单", "给商品123456下一单"),
    ("<@UDSBOT>给商品123456下一单", "给商品123456下一单"),
    ("ping <@W0ENT|ann>", "ping @ann (W0ENT)"),
    ("in <#C0123|general>", "in #general (C0123)"),
    ("in <#C0123>", "in #C0123"),
    ("<!channel> and <!everyone>", "@channel and @everyone"),
    ("<!here|here> now", "@here now"),
    ("team <!subteam^S0TEAM|@qa>", "team @qa (S0TEAM)"),
    ("team <!subteam^S0TEAM>", "team @S0TEAM"),
    ("due <!date^1392734382^{date_pretty}|Feb 18, 2014>", "due Feb 18, 2014"),
    ("<mailto:a@b.com> is mine", "a@b.com is mine"),
    ("<mailto:a@b.com|a@b.com>", "a@b.com"),
    ("<mailto:a@b.com|Alice>", "Alice (a@b.com)"),
    ("call <tel:+15551234|+15551234>", "call +15551234"),
    ("<https://x.io>", "https://x.io"),
    ("<https://x.io/a/very/long/path|x.io/a/very/long…>", "https://x.io/a/very/long/path"),
    ("<https://x.io/spec|the spec>", "the spec (https://x.io/spec)"),
    ("a &lt; b &amp;&amp; c &gt; d", "a < b && c > d"),
    ("literal &amp;lt;", "literal &lt;"),
    ("price &amp; <https://x.io/?q=a&amp;b|x.io>", "price & https://x.io/?q=a&b"),
    ("  spaced\n\nlines  ", "spaced lines"),
    ("", ""),
]


@pytest.mark.parametrize(("text", "meant"), CASES)
def test_markup_reaches_the_planner_as_what_it_means(text: str, meant: str) -> None:
    assert decode(text, bot_user=BOT) == meant


def test_a_known_display_name_is_added_and_the_id_kept() -> None:
    assert decode("<@UDSBOT> assign to <@U0BOB>", bot_user=BOT, names=NAMES) == "assign to @bob (U0BOB)"


def test_user_ids_lists_the_mentioned_people_once() -> None:
    assert user_ids("<@U0BOB> <@UDSBOT> <@U0BOB|bob> <#C1> <!here>") == ["U0BOB", "UDSBOT"]
