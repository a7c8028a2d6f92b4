"""`python -m api [--host H] [--port P]`: serve the HTTP API; `python -m api new-token NAME`: a
fresh token (the secret once, for the caller) and its block for the tokens file (hashed)."""

from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path

from api.config import load_config
from core.console_launch import LOOPBACK_HOSTS
from core.errors import DatasmithError, InputError
from core.passwords import hash_secret
from core.settings import Settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m api", description="datasmith's HTTP API for automation")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (beyond loopback needs API tokens)")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--knowledge", action="append", type=Path, metavar="DIR", help="packs (default: bundled)")
    parser.add_argument("--home", type=Path, help="data dir (DATASMITH_HOME)")
    parser.add_argument("--tokens", type=Path, help="API tokens file (DATASMITH_API_TOKENS_FILE)")
    sub = parser.add_subparsers(dest="command")
    new = sub.add_parser("new-token", help="print a new token and the block to add to the tokens file")
    new.add_argument("name")
    new.add_argument("--write", action="store_true", help="the token may run writes")
    return parser


def new_token(name: str, may_write: bool) -> int:
    secret = secrets.token_urlsafe(24)
    print(f"token (give it to the caller; it is not stored): {name}.{secret}", file=sys.stderr)
    print(f'[[tokens]]\nname = "{name}"\nhash = "{hash_secret(secret)}"\nmay_write = {str(may_write).lower()}')
    return 0


def check_binding(host: str, has_tokens: bool) -> str:
    """The line said at start; refuses to serve beyond loopback with nobody to authenticate."""
    if has_tokens:
        return "API tokens required (Authorization: Bearer NAME.SECRET)"
    if host not in LOOPBACK_HOSTS:
        raise InputError(f"refusing to serve the API on {host} with no API tokens configured: anyone who reaches "
                         "it could run tools. Add tokens (`python -m api new-token NAME`) or keep 127.0.0.1")
    return "no API tokens configured: serving on loopback only, UNAUTHENTICATED"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "new-token":
        return new_token(args.name, args.write)
    import uvicorn

    from api.app import create_app

    try:
        settings = Settings().with_overrides(knowledge=args.knowledge, home=args.home, api_tokens_file=args.tokens)
        config = load_config(settings.api_tokens_path)
        mode = check_binding(args.host, bool(config.tokens))
        print(f"datasmith API on http://{args.host}:{args.port} (docs: /docs): {mode}", file=sys.stderr, flush=True)
        app = create_app(settings, config=config)
    except DatasmithError as exc:
        print(f"datasmith api: {exc}", file=sys.stderr)
        return 1
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
