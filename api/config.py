"""The API's tokens file (TOML): who may call, what each token may touch, how fast.

    max_in_flight = 16          # optional; else DATASMITH_API_MAX_IN_FLIGHT
    [defaults]                  # optional: every token's bucket unless it says otherwise
    capacity = 20               # calls that may go at once
    rate_per_s = 5              # then this many a second
    [secret_checks]             # optional: checks of secrets not seen before, per token name (PBKDF2
    capacity = 5                # costs ~0.3 s of CPU each); over it 429 before any hashing
    rate_per_s = 0.5
    [[tokens]]
    name = "ci"                 # the caller sends `Authorization: Bearer ci.<secret>`
    hash = "pbkdf2_sha256$..."  # `python -m api new-token ci` prints a secret and this block
    packs = ["shop"]            # omitted: every pack
    environments = ["pre"]      # omitted: every environment
    may_write = true            # false: plans with side effects are refused (403)
    act_as = ["alice"]          # users it may name in `user` besides itself (allowed_users checks)
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from core.errors import InputError


class Bucket(BaseModel):
    model_config = ConfigDict(extra="forbid")

    capacity: float = Field(20.0, gt=0)
    rate_per_s: float = Field(5.0, gt=0)


class TokenSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9_\-]{1,64}$")
    hash: str
    packs: list[str] | None = None
    environments: list[str] | None = None
    may_write: bool = False
    act_as: list[str] = Field(default_factory=list)
    capacity: float | None = Field(None, gt=0)
    rate_per_s: float | None = Field(None, gt=0)

    @field_validator("hash")
    @classmethod
    def _hashed(cls, v: str) -> str:
        if not v.startswith("pbkdf2_sha256$"):
            raise ValueError("store the hash (`python -m api new-token NAME`), never the secret itself")
        return v

    def bucket(self, defaults: Bucket) -> Bucket:
        return Bucket(capacity=self.capacity or defaults.capacity, rate_per_s=self.rate_per_s or defaults.rate_per_s)


class ApiConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_in_flight: int | None = Field(None, ge=1)
    defaults: Bucket = Field(default_factory=Bucket)
    # The open (no tokens, loopback) mode's one bucket: generous, it guards against a runaway loop
    open_bucket: Bucket = Field(default_factory=lambda: Bucket(capacity=100, rate_per_s=50))
    # Checks of secrets not seen before, per token name (each costs a PBKDF2 hash): over it, 429
    secret_checks: Bucket = Field(default_factory=lambda: Bucket(capacity=5, rate_per_s=0.5))
    tokens: list[TokenSpec] = Field(default_factory=list)

    @field_validator("tokens")
    @classmethod
    def _unique(cls, v: list[TokenSpec]) -> list[TokenSpec]:
        names = [t.name for t in v]
        if len(set(names)) != len(names):
            raise ValueError("two tokens share a name")
        return v

    def token(self, name: str) -> TokenSpec | None:
        return next((t for t in self.tokens if t.name == name), None)


def load_config(path: Path) -> ApiConfig:
    """The tokens file, or an empty config (the open loopback mode) when there is none."""
    if not path.exists():
        return ApiConfig()
    try:
        return ApiConfig.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    except (tomllib.TOMLDecodeError, ValidationError) as exc:
        raise InputError(f"{path}: the API tokens file is invalid: {exc}") from exc
