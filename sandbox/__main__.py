"""`python -m sandbox [--port 8765] [--data DIR]`: serve the sandbox shop on loopback."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import uvicorn

from sandbox.app import create_app


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    home = Path(os.environ.get("DATASMITH_HOME", Path.home() / ".datasmith"))
    parser.add_argument("--data", type=Path, default=home / "sandbox", help="folder of per-environment databases")
    args = parser.parse_args()
    uvicorn.run(create_app(args.data), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
