"""Under `--json`, standard output carries only our JSON lines, whatever a library prints.

litellm prints banners with `print()`, a pack's local service inherits our file descriptors, a C
extension may write to fd 1 directly: all of it is sent to stderr, and the JSON goes out through
a private duplicate of the original stdout.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from typing import TextIO


@contextlib.contextmanager
def json_only_stdout() -> Iterator[TextIO]:
    """Yield the stream the JSON lines go to; everything else written to stdout lands on stderr."""
    sys.stdout.flush()
    saved = sys.stdout
    try:
        fd = saved.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        fd = None
    if fd is None:  # not backed by a descriptor (an in-process capture): swapping the object is all we can do
        sys.stdout = sys.stderr
        try:
            yield saved
        finally:
            sys.stdout = saved
        return
    keep = os.dup(fd)
    out = os.fdopen(keep, "w", encoding="utf-8", buffering=1, closefd=False)
    os.dup2(sys.stderr.fileno(), fd)
    sys.stdout = sys.stderr
    try:
        yield out
    finally:
        sys.stdout = saved
        with contextlib.suppress(BrokenPipeError, OSError):
            out.flush()
        os.dup2(keep, fd)
        os.close(keep)
