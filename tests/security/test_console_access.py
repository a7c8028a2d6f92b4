"""The console: loopback-only unless someone must sign in; edits and runs for maintainers only;
a console edit can never add a code binding; who did what is in the audit log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.access import decide, is_loopback
from core.cli import main
from core.knowledge import load_knowledge
from core.knowledge_edit import apply_edit
from core.passwords import hash_secret, verify_secret
from core.runstore import RunStore
from core.settings import BUNDLED_KNOWLEDGE
from tests.console.test_pages import text_of


@pytest.mark.parametrize(("bind", "client", "oidc", "accounts", "mode"), [
    ("127.0.0.1", None, False, False, "local"),
    ("localhost", None, False, False, "local"),
    ("::1", None, False, False, "local"),
    (None, None, False, False, "refuse"),          # Streamlit's default listens on every interface
    ("0.0.0.0", None, False, False, "refuse"),
    ("10.0.0.5", None, False, False, "refuse"),
    ("127.0.0.1", "10.1.2.3", False, False, "refuse"),  # a remote client reached a loopback bind (a proxy)
    ("0.0.0.0", "10.1.2.3", False, True, "secret"),
    ("127.0.0.1", None, False, True, "secret"),    # configured authentication applies everywhere
    ("0.0.0.0", "10.1.2.3", True, True, "oidc"),
])
def test_who_must_sign_in(bind: str | None, client: str | None, oidc: bool, accounts: bool, mode: str) -> None:
    assert decide(bind, client, oidc=oidc, accounts=accounts) == mode


def test_loopback_addresses() -> None:
    assert is_loopback("127.0.0.5") and is_loopback("[::1]") and not is_loopback("") and not is_loopback("example.com")


def test_secrets_are_stored_hashed_and_compared_exactly() -> None:
    stored = hash_secret("correct horse battery", iterations=1000)
    assert "correct" not in stored and verify_secret("correct horse battery", stored)
    assert not verify_secret("correct horse batterY", stored) and not verify_secret("x", "garbage")


def test_served_beyond_loopback_without_authentication_it_shows_nothing(console) -> None:  # noqa: ANN001
    at = console("knowledge", bind="0.0.0.0", expect_pages=False)
    assert any("no authentication is configured" in e.value for e in at.error)
    assert not at.text_area and not at.button and "Knowledge" not in text_of(at).replace("datasmith console", "")


def test_accounts_sign_in_and_only_maintainers_may_edit(console, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
                                                        pack_copy: Path, tmp_path: Path) -> None:
    users = {"alice": hash_secret("alice-secret-123", iterations=1000),
             "bob": hash_secret("bob-secret-4567", iterations=1000)}
    monkeypatch.setenv("DATASMITH_CONSOLE_USERS", json.dumps(users))
    monkeypatch.setenv("DATASMITH_CONSOLE_MAINTAINERS", "alice")
    at = console("knowledge", knowledge=pack_copy, home=tmp_path / "home", bind="0.0.0.0", expect_pages=False)
    assert not at.text_area  # nothing of the knowledge before signing in
    at.text_input(key="login_name").set_value("bob")
    at.text_input(key="login_secret").set_value("wrong-secret-000")
    at.button[0].click().run()
    assert any("wrong secret" in e.value for e in at.error) and not at.text_area
    at.text_input(key="login_secret").set_value("bob-secret-4567")
    at.button[0].click().run()
    assert "Signed in as **bob** (read-only)" in text_of(at)
    at.selectbox(key="kn_edit_name").set_value("pay_order").run()
    assert not [b for b in at.button if b.key in ("kn_save", "kn_validate")]  # bob reads, never writes
    assert any("read-only access" in i.value for i in at.info)


def test_a_console_edit_cannot_bind_code(console, pack_copy: Path, tmp_path: Path) -> None:  # noqa: ANN001
    home = tmp_path / "home"
    at = console("knowledge", knowledge=pack_copy, home=home)
    orders = pack_copy / "shop" / "tools" / "orders.yaml"
    before = orders.read_text(encoding="utf-8")
    at.selectbox(key="kn_edit_name").set_value("pay_order").run()
    area = at.text_area(key="kn_yaml_tool_pay_order")
    head, _, _ = area.value.partition("call:")
    area.set_value(head + 'call: {python: "os:system"}\n').run()
    at.button(key="kn_save").click().run()
    assert any("cannot be added or changed from the console" in e.value for e in at.error)
    assert orders.read_text(encoding="utf-8") == before
    store = RunStore(home / "runs.sqlite3")
    entry = store.audit_log()[0]
    store.close()
    assert (entry["actor"], entry["action"], entry["target"]) == ("console:local", "knowledge.save_refused",
                                                                  "tool:pay_order")


def test_changing_an_existing_python_binding_is_refused_too(tmp_path: Path) -> None:
    import shutil
    shutil.copytree(BUNDLED_KNOWLEDGE / "hr", tmp_path / "hr")
    kn = load_knowledge([tmp_path / "hr"])
    tool = kn.tools["apply_leave"]
    text = Path(tool.source_file).read_text(encoding="utf-8")
    assert "hr_backend:apply_leave" in text
    from core.knowledge_edit import item_yaml
    edited = item_yaml(kn, "tool", "apply_leave").replace("hr_backend:apply_leave", "hr_backend:get_leave_balance")
    result = apply_edit([tmp_path / "hr"], kn, "tool", "apply_leave", edited)
    assert not result.ok and "call.python cannot be added or changed" in result.errors[0]
    assert Path(tool.source_file).read_text(encoding="utf-8") == text


def test_the_console_command_refuses_a_public_bind_without_authentication(capsys: pytest.CaptureFixture[str],
                                                                          tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no .streamlit/secrets.toml here
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["console", "--host", "0.0.0.0", "--home", str(tmp_path / "h")]) == 1
    assert "refusing to serve the console on 0.0.0.0" in capsys.readouterr().err
