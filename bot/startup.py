"""Start-up check of the Slack side: reachable, token accepted, scopes granted — or one line saying
what to do (instead of urllib's traceback or bolt's auth error)."""

from __future__ import annotations

import logging

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.slack_io import AUTH_ERRORS, SLACK_FAILURES, retry_handlers, slack_error

SETUP = "see README.md, 'Slack setup' (create the app from bot/manifest.json)"
# Without these the bot cannot hear or answer anyone; the optional ones only lose a feature.
REQUIRED_SCOPES = ("chat:write", "app_mentions:read", "channels:history", "im:history")
OPTIONAL_SCOPES = {"files:write": "long outputs will not be attached as files",
                   "assistant:write": "the assistant panel will show no status",
                   "users:read": "mentions of people reach the planner as ids without names"}


class StartupError(Exception):
    """A start that cannot go on; the message is the one line to print."""


def check_slack(token: str, base_url: str | None, timeout_s: float = 30) -> list[str]:
    """Call auth.test as the bot; returns warnings for missing optional scopes, raises StartupError."""
    quiet = logging.getLogger("datasmith.bot.startup.sdk")  # the SDK logs each failed try; we say it once
    quiet.propagate = False
    if not quiet.handlers:  # without a handler, logging's last resort would print them anyway
        quiet.addHandler(logging.NullHandler())
    kwargs = {"base_url": base_url} if base_url else {}
    client = WebClient(token=token, timeout=timeout_s, retry_handlers=retry_handlers(), logger=quiet, **kwargs)
    where = base_url or client.base_url
    try:
        response = client.auth_test()
    except SlackApiError as exc:
        error = exc.response.get("error")
        if error in AUTH_ERRORS:
            raise StartupError(f"Slack refused SLACK_BOT_TOKEN ({error}): copy the Bot User OAuth Token (xoxb-…) "
                               "from the app's 'OAuth & Permissions' page, or reinstall the app") from None
        raise StartupError(f"auth.test at {where} failed ({slack_error(exc)}): check SLACK_API_URL; {SETUP}") from None
    except SLACK_FAILURES as exc:
        raise StartupError(f"cannot reach Slack's Web API at {where} ({slack_error(exc)}): check the network, "
                           "the proxy (HTTPS_PROXY) or SLACK_API_URL") from None
    granted = next((v for k, v in (response.headers or {}).items() if k.lower() == "x-oauth-scopes"), None)
    if granted is None:  # not every gateway passes the header on: nothing to check
        return []
    have = {s.strip() for s in str(granted).split(",")}
    missing = [s for s in REQUIRED_SCOPES if s not in have]
    if missing:
        raise StartupError(f"the bot token lacks the scopes {', '.join(missing)}: add them under 'OAuth & "
                           "Permissions' (bot/manifest.json lists them all) and reinstall the app")
    return [f"the bot token lacks {s}: {why}" for s, why in OPTIONAL_SCOPES.items() if s not in have]
