"""HTTP mode: the Events API endpoint `/slack/events` (and `/health`) on a threaded WSGI server.

bolt's own `app.start()` is single-threaded; here each request gets a thread, so a slow
listener can never hold up another delivery's ack.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler

log = logging.getLogger("datasmith.bot")


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # a burst of deliveries must queue, not be refused


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        log.debug("%s %s", self.address_string(), format % args)


def wsgi_app(app: App, health: Callable[[], dict[str, Any]] | None = None) -> Callable[..., Iterable[bytes]]:
    slack = SlackRequestHandler(app)

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/health":
            body = json.dumps({"ok": True, **(health() if health else {})}).encode()
            start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        if path == "/slack/events":
            return slack(environ, start_response)
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"datasmith: Slack sends events to /slack/events\n"]

    return application


class HttpServer:
    def __init__(self, app: App, host: str, port: int, health: Callable[[], dict[str, Any]] | None = None) -> None:
        self.server = make_server(host, port, wsgi_app(app, health), server_class=_ThreadingWSGIServer,
                                  handler_class=_QuietHandler)
        self.port = self.server.server_port
        self._thread: threading.Thread | None = None

    def start(self) -> HttpServer:
        self._thread = threading.Thread(target=self.server.serve_forever, name="datasmith-http", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.server.serve_forever()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
