"""Bearer tokens `NAME.SECRET`, checked against the hashed secret in the tokens file.

PBKDF2 costs ~0.3 s a check on purpose, so a token is looked up by its name (one check, never one
per configured token) and a check that passed is remembered by a SHA-256 of the presented token
for the life of the process; the secret itself is never kept.
"""

from __future__ import annotations

import asyncio
import hashlib

from api.config import ApiConfig, TokenSpec
from core.passwords import verify_secret

MAX_REMEMBERED = 10_000


class Authenticator:
    def __init__(self, config: ApiConfig) -> None:
        self.config = config
        self._known: dict[str, str] = {}  # sha256(presented) -> token name, bounded

    @property
    def open(self) -> bool:
        """No token configured: the loopback-only, unauthenticated mode."""
        return not self.config.tokens

    async def token(self, authorization: str | None) -> TokenSpec | None:
        """The token an `Authorization` header carries, or None when it carries no valid one."""
        scheme, _, presented = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or "." not in presented:
            return None
        digest = hashlib.sha256(presented.encode()).hexdigest()
        if (name := self._known.get(digest)) is not None:
            return self.config.token(name)
        name, _, secret = presented.partition(".")
        spec = self.config.token(name)
        if spec is None or not await asyncio.to_thread(verify_secret, secret, spec.hash):
            return None
        if len(self._known) < MAX_REMEMBERED:
            self._known[digest] = name
        return spec
