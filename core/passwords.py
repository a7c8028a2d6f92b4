"""Secrets stored hashed (console accounts; API tokens later): PBKDF2-SHA256, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets

ALGORITHM = "pbkdf2_sha256"
ITERATIONS = 390_000


def hash_secret(secret: str, *, salt: str | None = None, iterations: int = ITERATIONS) -> str:
    """`pbkdf2_sha256$<iterations>$<salt>$<hex digest>`: what settings store instead of the secret."""
    salt = salt or secrets.token_hex(16)
    digest = hashlib.pbkdf2_hmac("sha256", secret.encode(), salt.encode(), iterations).hex()
    return f"{ALGORITHM}${iterations}${salt}${digest}"


def verify_secret(secret: str, stored: str) -> bool:
    """Whether `secret` matches a `hash_secret` string; a malformed stored value never matches."""
    try:
        algorithm, iterations, salt, digest = stored.split("$")
        rounds = int(iterations)
    except ValueError:
        return False
    if algorithm != ALGORITHM or not 1 <= rounds <= 10_000_000:
        return False
    candidate = hashlib.pbkdf2_hmac("sha256", secret.encode(), salt.encode(), rounds).hex()
    return hmac.compare_digest(candidate, digest)
