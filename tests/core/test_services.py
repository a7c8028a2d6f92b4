"""A pack's local service started on demand: two callers at the same instant both get it."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from core.errors import BindingError
from core.knowledge import load_knowledge
from core.services import LocalServices, healthy
from tests.conftest import write_pack

# Binds its port at once (a second copy dies on it, as the sandbox would), answers health a
# second later (as a service still importing its framework).
SERVICE = '''
import http.server, socket, sys, time
port = int(sys.argv[1])
sock = socket.socket()
try:
    sock.bind(("127.0.0.1", port))
except OSError:
    sys.exit("port taken")
sock.listen(16)
time.sleep(1.0)

class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
    def log_message(self, *args):
        pass

server = http.server.HTTPServer(("127.0.0.1", port), Health, bind_and_activate=False)
server.socket = sock
server.serve_forever()
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def service_pack(root: Path, command: str) -> Path:
    return write_pack(root, {
        "fail.py": "raise SystemExit(2)\n",
        "pack.yaml": f"""
            name: svc
            environments: {{default: dev, dev: {{}}}}
            local_service:
              command: {command}
              health_url: http://127.0.0.1:${{SVC_PORT}}/health
              startup_timeout_s: 20
        """,
        "svc.py": SERVICE,
        "tools/t.yaml": """
            tool_name: ping
            description: ping
            examples: [{user_query: ping}]
            call: {http: {method: GET, path: /health}}
        """,
    })


def test_two_callers_starting_the_service_at_once_both_get_it(tmp_path: Path) -> None:
    port = free_port()
    kn = load_knowledge([service_pack(tmp_path / "svc", "[python, svc.py, '${SVC_PORT}']")])
    environ = {**os.environ, "SVC_PORT": str(port)}
    callers = [LocalServices(kn, environ, tmp_path / f"home{i}") for i in range(2)]
    results: list[object] = [None, None]
    go = threading.Barrier(2)

    def start(i: int) -> None:
        go.wait()
        try:
            results[i] = callers[i].ensure("svc")
        except BindingError as exc:
            results[i] = exc

    threads = [threading.Thread(target=start, args=(i,)) for i in range(2)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        # one started it, the other found it answering; neither reports a failure
        assert sorted(results, key=str) == [False, True], results
        assert healthy(f"http://127.0.0.1:{port}/health")
    finally:
        for c in callers:
            c.close()
    assert not healthy(f"http://127.0.0.1:{port}/health"), "whoever started it stops it"


def test_a_service_that_cannot_start_is_a_clear_error_naming_its_log(tmp_path: Path) -> None:
    kn = load_knowledge([service_pack(tmp_path / "svc", "[python, fail.py]")])
    services = LocalServices(kn, {**os.environ, "SVC_PORT": str(free_port())}, tmp_path / "home")
    with pytest.raises(BindingError, match=r"did not start .*svc-service\.log"):
        services.ensure("svc")
