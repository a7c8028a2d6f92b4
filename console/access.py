"""Who is at the console and what they may do: app.py calls `gate()` before any page runs.

- Bound to loopback with nothing configured: the person at this machine, a maintainer (the
  zero set-up default; `datasmith console` and the repo's .streamlit/config.toml bind 127.0.0.1).
- Anything else needs authentication: Streamlit's own `st.login` (OIDC) when `[auth]` is set in
  .streamlit/secrets.toml, else the shared-secret accounts of settings `console_users`.
- Bound beyond loopback with neither: the page says how to configure one, and nothing else runs.

Editing knowledge and running anything (Execute, Re-run, Replay, Resume) is for
`console_maintainers` only; every such action is written to the RunStore's audit log.
"""

from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass
from typing import Any, Literal

import streamlit as st

from core.passwords import verify_secret
from core.settings import Settings

Mode = Literal["local", "oidc", "secret", "refuse"]
FAILED_LOGIN_DELAY_S = 1.0  # slows guessing; a person does not notice


@dataclass(frozen=True)
class Viewer:
    name: str
    maintainer: bool
    how: Literal["local", "oidc", "secret"]

    @property
    def actor(self) -> str:
        """The user recorded on runs and audit entries."""
        return f"console:{self.name}"


def is_loopback(host: str | None) -> bool:
    if not host:
        return False  # Streamlit's default (no server.address) listens on every interface
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def decide(bind: str | None, client_ip: str | None, *, oidc: bool, accounts: bool) -> Mode:
    """Pure: how this session must authenticate. Authentication configured always applies."""
    if oidc:
        return "oidc"
    if accounts:
        return "secret"
    if is_loopback(bind) and (client_ip is None or is_loopback(client_ip)):
        return "local"
    return "refuse"


def _oidc_provider() -> tuple[bool, str | None]:
    """Whether `[auth]` is configured in secrets.toml, and the provider name when several are named."""
    try:
        auth: Any = st.secrets.get("auth")
    except Exception:  # noqa: BLE001 - no secrets file at all: Streamlit raises its own not-found error
        return False, None
    if not auth:
        return False, None
    if "client_id" in auth:
        return True, None
    named = [k for k, v in auth.items() if hasattr(v, "get") and "client_id" in v]
    return bool(named), (named[0] if named else None)


def _client_ip() -> str | None:
    ip = st.context.ip_address
    return ip if isinstance(ip, str) else None  # None from localhost (and under AppTest)


def gate(settings: Settings) -> Viewer:
    """The signed-in viewer; otherwise shows a login or a refusal and stops the script."""
    oidc, provider = _oidc_provider()
    mode = decide(st.get_option("server.address"), _client_ip(), oidc=oidc, accounts=bool(settings.console_users))
    maintainers = set(settings.console_maintainers)
    if mode == "local":
        return Viewer("local", True, "local")
    if mode == "oidc":
        if not st.user.is_logged_in:
            st.title("datasmith console")
            st.button("Log in", key="auth_login", on_click=st.login, args=(provider,) if provider else ())
            st.stop()
        email = str(st.user.get("email") or st.user.get("sub") or "unknown")
        return Viewer(email, email in maintainers, "oidc")
    if mode == "secret":
        return _secret_login(settings, maintainers)
    st.title("datasmith console")
    st.error("This console is reachable beyond this machine and no authentication is configured, so it shows "
             "nothing. Either bind it to loopback (`datasmith console`, or `--server.address 127.0.0.1`), or "
             "configure Streamlit's OIDC login (`[auth]` in .streamlit/secrets.toml) or console accounts "
             "(`console_users` in settings, see README › The console).")
    st.stop()
    raise AssertionError("unreachable")  # st.stop() raises


def _secret_login(settings: Settings, maintainers: set[str]) -> Viewer:
    name = st.session_state.get("console_viewer")
    if name in settings.console_users:
        return Viewer(name, name in maintainers, "secret")
    st.title("datasmith console")
    with st.form("console_login"):
        who = st.text_input("Account", key="login_name")
        secret = st.text_input("Secret", type="password", key="login_secret")
        submitted = st.form_submit_button("Sign in")
    if submitted:
        stored = settings.console_users.get(who.strip())
        if stored and verify_secret(secret, stored):
            st.session_state["console_viewer"] = who.strip()
            st.rerun()
        time.sleep(FAILED_LOGIN_DELAY_S)
        st.error("Unknown account or wrong secret.")
    st.stop()
    raise AssertionError("unreachable")


def viewer() -> Viewer:
    """The viewer app.py signed in for this script run."""
    return st.session_state["_viewer"]


def may_change(action: str) -> bool:
    """Whether the viewer may edit or run; if not, says so on the page (read-only for everyone else)."""
    v = viewer()
    if not v.maintainer:
        st.info(f"{action} is for console maintainers; you ({v.name}) have read-only access. "
                "A maintainer adds you to `console_maintainers` in the settings.")
    return v.maintainer


def sign_out() -> None:
    v = viewer()
    if v.how == "oidc":
        st.logout()
    else:
        st.session_state.pop("console_viewer", None)
