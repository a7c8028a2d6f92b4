"""A pack's local service started on demand: two callers at the same instant both get it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
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
    callers = [LocalServices(kn, environ, tmp_path / f"home{i}", idle_s=0.5) for i in range(2)]
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
        starter = results.index(True)
        callers[starter].close()  # the one that started it is done; the other still uses it
        time.sleep(1.5)
        assert healthy(f"http://127.0.0.1:{port}/health"), "it stopped under a user"
    finally:
        for c in callers:
            c.close()
    assert gone(f"http://127.0.0.1:{port}/health"), "it outlived its last user"


def gone(url: str, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not healthy(url):
            return True
        time.sleep(0.2)
    return False


def test_a_killed_user_does_not_leave_the_service_running(tmp_path: Path) -> None:
    port = free_port()
    pack = service_pack(tmp_path / "svc", "[python, svc.py, '${SVC_PORT}']")
    child = subprocess.run([sys.executable, "-c", KILLED_USER, str(pack), str(tmp_path / "home"), str(port)],
                           cwd=Path(__file__).parents[2], timeout=60)
    assert child.returncode == -9  # it started the service, then was killed holding its lease
    assert healthy(f"http://127.0.0.1:{port}/health")
    assert gone(f"http://127.0.0.1:{port}/health"), "the service outlived a killed user"


KILLED_USER = """
import os, signal, sys
from pathlib import Path
from core.knowledge import load_knowledge
from core.services import LocalServices
kn = load_knowledge([Path(sys.argv[1])])
LocalServices(kn, {**os.environ, "SVC_PORT": sys.argv[3]}, Path(sys.argv[2]), idle_s=0.5).ensure("svc")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_service_that_cannot_start_is_a_clear_error_naming_its_log(tmp_path: Path) -> None:
    kn = load_knowledge([service_pack(tmp_path / "svc", "[python, fail.py]")])
    services = LocalServices(kn, {**os.environ, "SVC_PORT": str(free_port())}, tmp_path / "home")
    with pytest.raises(BindingError, match=r"did not start .*svc-service\.log"):
        services.ensure("svc")
