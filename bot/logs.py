"""The logger handed to bolt (`App(logger=...)`): its loggers inherit this filter.

Two of bolt's log lines are wrong for this bot: "As you gave client as well, token will be unused"
on every start (bolt reads SLACK_BOT_TOKEN from the environment although the client carries it),
and "Invalid request signature detected (…, body: …)", which writes the user's text to the log
for anyone who sends a forged request.
"""

from __future__ import annotations

import logging
import re

from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped

SIGNATURE = "Invalid request signature detected"
TIMESTAMP = re.compile(r"timestamp: ([^,]*)")


class BoltLogFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message == warning_client_prioritized_and_token_skipped():
            return False
        if message.startswith(SIGNATURE):
            stamp = TIMESTAMP.search(message)
            record.msg = f"{SIGNATURE} (timestamp {stamp.group(1) if stamp else '?'}; the body is not logged)"
            record.args = ()
        return True


def bolt_logger() -> logging.Logger:
    """`datasmith.bolt`, carrying the filter once however many apps are built (tests build many)."""
    logger = logging.getLogger("datasmith.bolt")
    if not any(isinstance(f, BoltLogFilter) for f in logger.filters):
        logger.addFilter(BoltLogFilter())
    return logger
