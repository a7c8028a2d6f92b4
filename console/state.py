"""The console's shared state: one Assistant per (knowledge, home), like the CLI and the bot."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import streamlit as st

from core.assistant import Assistant
from core.settings import Settings

T = TypeVar("T")


@st.cache_resource(show_spinner="Loading the knowledge and refreshing its index…")
def _assistant(knowledge: tuple[str, ...], home: str) -> Assistant:
    settings = Settings().with_overrides(knowledge=[Path(k) for k in knowledge], home=Path(home))
    return Assistant.from_settings(settings)


def settings() -> Settings:
    return Settings()  # DATASMITH_KNOWLEDGE, DATASMITH_HOME, ... as for the CLI and the bot


def assistant() -> Assistant:
    s = settings()
    return _assistant(tuple(str(k) for k in s.knowledge), str(s.home))


def reload() -> None:
    """After a knowledge edit: the next page load reads the packs again and re-indexes what changed."""
    _assistant.clear()


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Core coroutines from a page script (Streamlit runs pages in a thread with no event loop)."""
    return asyncio.run(coro)
