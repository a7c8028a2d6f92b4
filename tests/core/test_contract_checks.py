"""Consumer, provider and compatibility checks of tool contracts."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.contract_checks import compatibility, consumer_check, provider_verify
from core.errors import InputError
from core.knowledge import load_knowledge
from core.settings import BUNDLED_KNOWLEDGE
from sandbox.server import BackgroundServer
from tests.conftest import write_pack

SHOP = BUNDLED_KNOWLEDGE / "shop"
ROOT = Path(__file__).parents[2]


def test_the_bundled_packs_keep_their_contracts_for_every_example_and_case() -> None:
    n, findings = consumer_check(load_knowledge([BUNDLED_KNOWLEDGE]))
    assert n > 100 and findings == []


def test_pii_to_an_external_tool_and_a_tool_outside_the_allowlist_are_caught(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "crm", {
        "pack.yaml": "name: crm\nenvironments: {default: dev, dev: {allowed_tools: [lookup]}}\n",
        "m.py": "def f(**kwargs):\n    return {}\n",
        "tools/t.yaml": """
            - tool_name: notify
              description: 给外部短信平台发通知 notify by sms
              parameters: [{name: phone, type: string, required: true, patterns: ['(1[3-9]\\d{9})']}]
              examples: [{user_query: 给13800138000发通知, extracted_params: {phone: "13800138000"}}]
              call: {python: "m:f"}
              external: true
              pii: [phone]
            - tool_name: lookup
              description: 查询客户 lookup a customer
              parameters: [{name: name, type: string, required: true}]
              examples: [{user_query: 查询客户张三, extracted_params: {name: 张三}}]
              call: {python: "m:g"}
              side_effects: false
        """,
    })
    _, findings = consumer_check(load_knowledge([pack]))
    text = "\n".join(map(str, findings))
    assert "PII field phone goes to external tool notify" in text
    assert "mobile number in argument phone" in text
    assert "notify is not allowed in dev" in text
    assert "lookup" not in text.replace("notify", "")  # the allowed read-only tool passes


def test_provider_verification_checks_outputs_and_refuses_writes_outside_isolated_envs(
        sandbox: BackgroundServer, tmp_path: Path) -> None:
    environ = {**os.environ, "SHOP_SANDBOX_PORT": str(sandbox.port)}
    kn = load_knowledge([SHOP])
    results = asyncio.run(provider_verify(kn, environ, "shop", "pre", writes=False))
    assert all(r.ok for r in results) and sum(r.outcome == "verified" for r in results) >= 6
    assert not any(kn.tools[r.tool].side_effects for r in results)
    with pytest.raises(InputError, match="isolated"):
        asyncio.run(provider_verify(kn, environ, "shop", "pre", writes=True))
    broken = tmp_path / "shop"
    shutil.copytree(SHOP, broken)
    catalog = broken / "tools" / "catalog.yaml"
    text = catalog.read_text(encoding="utf-8")
    assert "tool_name: get_item" in text
    start = text.index("tool_name: get_item")
    at = text.index("returns:", start)
    end = text.index("\n", at)
    catalog.write_text(text[:at] + "returns: {type: object, required: [item_id, warranty_years]}" + text[end:],
                       encoding="utf-8")
    results = asyncio.run(provider_verify(load_knowledge([broken]), environ, "shop", "pre", writes=False))
    bad = {r.tool: r for r in results if not r.ok}
    assert list(bad) == ["get_item"] and "DS-303" in bad["get_item"].detail and "warranty_years" in bad["get_item"].detail


def test_a_removed_output_field_breaks_compatibility_unless_the_version_is_bumped(tmp_path: Path) -> None:
    new = tmp_path / "shop"
    shutil.copytree(SHOP, new)
    orders = new / "tools" / "orders.yaml"
    text = orders.read_text(encoding="utf-8")
    old_line = "returns: {type: object, required: [order_id, status], properties: {order_id: {type: string}, status: {type: string}}}"
    assert old_line in text
    orders.write_text(text.replace(old_line, "returns: {type: object, required: [order_id], properties: "
                                             "{order_id: {type: integer}}}", 1), encoding="utf-8")
    findings = compatibility(load_knowledge([SHOP]), load_knowledge([new]))
    text_f = "\n".join(map(str, findings))
    assert "output field status removed" in text_f and "retyped string → integer" in text_f
    out = subprocess.run([sys.executable, "-m", "core.cli", "contracts", "compat", str(SHOP), str(new)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "without a version bump" in out.stdout
    changed = orders.read_text(encoding="utf-8")
    tool = findings[0].where.split()[1]  # "tool <name> (version unset unchanged)"
    i = changed.index(f"tool_name: {tool}")
    orders.write_text(changed[:i] + f"tool_name: {tool}\n  version: '2.0'" + changed[i + len(f"tool_name: {tool}"):],
                      encoding="utf-8")
    assert compatibility(load_knowledge([SHOP]), load_knowledge([new])) == []
