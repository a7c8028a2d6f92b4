"""`python -m bot`: Socket Mode by default; `--http --port PORT` serves the Events API instead.

    SLACK_BOT_TOKEN=xoxb-… SLACK_APP_TOKEN=xapp-… python -m bot
    SLACK_BOT_TOKEN=xoxb-… SLACK_SIGNING_SECRET=… python -m bot --http --port 3000
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from slack_bolt.error import BoltError

from bot.app import Bot
from bot.config import SlackSettings, load_bot_config
from bot.server import HttpServer
from bot.slack_io import SLACK_FAILURES, slack_error
from bot.startup import SETUP, StartupError, check_slack
from core.assistant import Assistant
from core.errors import DatasmithError
from core.settings import Settings

log = logging.getLogger("datasmith.bot")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bot", description="datasmith's Slack bot")
    p.add_argument("--http", action="store_true", help="serve the Events API over HTTP instead of Socket Mode")
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "3000")), help="HTTP port (default $PORT or 3000)")
    p.add_argument("--host", default="0.0.0.0", help="HTTP bind address (default 0.0.0.0)")  # noqa: S104 - a server
    p.add_argument("--knowledge", action="append", type=Path, metavar="DIR", help="a pack or folder of packs (repeatable)")
    p.add_argument("--home", type=Path, help="data dir: index, RunStore, bot memory (DATASMITH_HOME)")
    p.add_argument("--config", type=Path, default=os.environ.get("DATASMITH_BOT_CONFIG") or None,
                   help="bot.yaml: maintainers and per-channel packs/environments (DATASMITH_BOT_CONFIG)")
    p.add_argument("-v", "--verbose", action="store_true")
    return p


def _missing(slack: SlackSettings, http: bool) -> list[str]:
    need = {"SLACK_BOT_TOKEN": slack.bot_token}
    need.update({"SLACK_SIGNING_SECRET": slack.signing_secret} if http else {"SLACK_APP_TOKEN": slack.app_token})
    return [k for k, v in need.items() if not v]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    slack = SlackSettings()
    missing = _missing(slack, args.http)
    if missing:
        print(f"datasmith bot: {', '.join(missing)} not set; {SETUP}", file=sys.stderr)
        return 2
    try:
        for warning in check_slack(slack.bot_token or "", slack.base_url, slack.api_timeout):
            log.warning("%s", warning)
        config = load_bot_config(args.config)
        settings = Settings().with_overrides(knowledge=args.knowledge, home=args.home)
        log.info("loading knowledge from %s", ", ".join(str(k) for k in settings.knowledge))
        core = Assistant.from_settings(settings)
        bot = Bot(core, slack, config)
    except (DatasmithError, StartupError) as exc:
        print(f"datasmith bot: {exc}", file=sys.stderr)
        return 2
    except (BoltError, *SLACK_FAILURES) as exc:  # Slack failed between the check and bolt's own auth.test
        print(f"datasmith bot: Slack failed at start ({slack_error(exc)}); try again, or {SETUP}", file=sys.stderr)
        return 2

    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: finishing requests in flight, then stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    bot.announce_recovered()
    try:
        if args.http:
            server = HttpServer(bot.app, args.host, args.port, health=lambda: {"busy": bot.worker.busy}).start()
            log.info("datasmith bot: Events API on http://%s:%d/slack/events", args.host, server.port)
            stop.wait()
            server.stop()
        else:
            from slack_bolt.adapter.socket_mode import SocketModeHandler
            handler = SocketModeHandler(bot.app, slack.app_token)
            try:
                handler.connect()
            except SLACK_FAILURES as exc:
                print(f"datasmith bot: Socket Mode could not connect ({slack_error(exc)}): check SLACK_APP_TOKEN "
                      "(xapp-…, 'Basic Information' → App-Level Tokens, scope connections:write)", file=sys.stderr)
                return 2
            log.info("datasmith bot: connected over Socket Mode")
            stop.wait()
            handler.close()
    finally:
        bot.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
