"""One TLS context for every HTTP client datasmith makes.

Building a default context loads the CA bundle (~35 ms on these machines); each httpx client
would do it again. Contexts are safe to share between clients and threads.
"""

from __future__ import annotations

import ssl
from functools import cache


@cache
def tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()
