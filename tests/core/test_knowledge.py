"""Pack loading: the bundled packs load, and every spec violation is a PackError naming where."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import PackError
from core.knowledge import expand_env, load_knowledge
from tests.conftest import SHOP, write_pack

PACK = "name: lab\nenvironments:\n  default: dev\n  dev: {base_url: 'http://127.0.0.1:1/dev'}\n"
TOOL = """
tool_name: {name}
description: a tool
parameters:
  - {{name: x, type: string, required: true}}
examples:
  - {{user_query: do {name} 1, extracted_params: {{x: "1"}}}}
call: {{http: {{method: POST, path: /x}}}}
"""
RULE = """
rule_name: flow
description: a flow
dag_definition:
  - {{step_id: 1, tool_name: t1, parameter_mapping: {{x: {{source: initial_query, value: x}}}}}}
  - {{step_id: 2, tool_name: {tool2}, dependencies: {deps2}, parameter_mapping: {mapping2}}}
"""


def lab(tmp_path: Path, **extra: str) -> Path:
    files = {"pack.yaml": PACK, "tools/t.yaml": TOOL.format(name="t1"), "tools/t2.yaml": TOOL.format(name="t2")}
    files.update(extra)
    return write_pack(tmp_path / "lab", files)


def rule(tool2: str = "t2", deps2: str = "[1]", mapping2: str = "{x: {source: step_output, step_id: 1, value: x}}"):
    return RULE.format(tool2=tool2, deps2=deps2, mapping2=mapping2)


def test_bundled_packs_load_with_global_names() -> None:
    kn = load_knowledge([SHOP.parent])
    assert {"shop", "hr"} <= set(kn.packs)
    assert len([t for t in kn.tools.values() if t.pack == "shop"]) >= 30
    assert len([r for r in kn.rules.values() if r.pack == "shop"]) >= 10
    assert all(t.examples for t in kn.tools.values()), "every tool has examples"
    assert kn.default_environment("shop") == "pre"
    assert kn.defaults_for("shop", "online")["buyer_id"] == "B3001"
    assert kn.defaults_for("shop", "online")["currency"] == "USD"  # `all` under the environment's own


def test_version_changes_when_a_file_changes(tmp_path: Path) -> None:
    root = lab(tmp_path)
    before = load_knowledge([root]).version
    (root / "tools/t2.yaml").write_text(TOOL.format(name="t2").replace("a tool", "another tool"))
    assert load_knowledge([root]).version != before


def test_env_references_expand_with_fallback() -> None:
    assert expand_env("http://h:${P:-8765}/pre", {}) == "http://h:8765/pre"
    assert expand_env("http://h:${P:-8765}/pre", {"P": "9"}) == "http://h:9/pre"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"rules/r.yaml": "rule_name: flow\n  bad: [\n"}, ["r.yaml", "invalid YAML at line"]),
        ({"rules/r.yaml": rule(tool2="nope")}, ["r.yaml", "rule flow", "step 2", "unknown tool 'nope'"]),
        ({"rules/r.yaml": rule(deps2="[9]")}, ["rule flow", "step 2", "dependency 9"]),
        ({"rules/r.yaml": rule(deps2="[2]")}, ["rule flow", "step 2", "cycle"]),
        ({"rules/r.yaml": rule(deps2="[]")}, ["rule flow", "step 2", "not an ancestor"]),
        ({"rules/r.yaml": rule(mapping2="{zz: {source: constant, value: 1}}")},
         ["rule flow", "step 2", "'zz' does not exist on tool t2"]),
        ({"rules/r.yaml": rule(mapping2="{x: {source: step_output, step_id: 1, value: 'a[[['}}")},
         ["rule flow", "step 2", "not valid JMESPath"]),
        ({"rules/r.yaml": rule(), "rules/r2.yaml": rule()}, ["r2.yaml", "rule flow", "duplicate rule_name"]),
        ({"tools/t3.yaml": TOOL.format(name="t1")}, ["t3.yaml", "tool t1", "duplicate tool_name"]),
        ({"tools/t3.yaml": TOOL.format(name="t3").replace("required: true}", "required: true, patterns: ['(']}")},
         ["tool t3", "invalid regex"]),
        ({"tools/t3.yaml": TOOL.format(name="t3").replace("required: true}", "required: true, minimum: nope}")},
         ["tool t3", "bad JSON Schema keyword"]),
        ({"tools/t3.yaml": TOOL.format(name="t3").replace("call: {http: {method: POST, path: /x}}",
                                                          "call: {http: {path: /x}, python: 'm:f'}")},
         ["tool t3", "exactly one of http, python, mcp"]),
        ({"tools/t3.yaml": TOOL.format(name="t3").replace("call: {http: {method: POST, path: /x}}",
                                                          "call: {mcp: {server: ghost, tool: x}}")},
         ["tool t3", "'ghost' is not in pack.yaml mcp_servers"]),
        ({"tools/t3.yaml": TOOL.format(name="t3").replace('{x: "1"}', '{y: "1"}')},
         ["tool t3", "unknown parameters ['y']"]),
        ({"tools/t3.yaml": TOOL.format(name="bad-name")}, ["tool_name 'bad-name'"]),
        ({"defaults.yaml": "staging: {a: 1}\n"}, ["defaults.yaml", "'staging' is neither `all` nor an environment"]),
        ({"pack.yaml": PACK.replace("default: dev", "default: prod")}, ["environments.default names 'prod'"]),
    ],
    ids=["yaml", "unknown-tool", "bad-dependency", "cycle", "not-ancestor", "unknown-param", "bad-jmespath",
         "duplicate-rule", "duplicate-tool", "bad-regex", "bad-schema-keyword", "two-bindings", "unknown-mcp",
         "example-param", "tool-name", "defaults-section", "default-env"],
)
def test_spec_violations_name_file_rule_and_step(tmp_path: Path, files: dict[str, str], expected: list[str]) -> None:
    root = lab(tmp_path, **files)
    with pytest.raises(PackError) as err:
        load_knowledge([root])
    for fragment in expected:
        assert fragment in str(err.value)


def test_duplicate_names_across_packs_are_an_error(tmp_path: Path) -> None:
    a = lab(tmp_path / "a")
    b = write_pack(tmp_path / "b" / "other", {"pack.yaml": PACK.replace("lab", "other"),
                                              "tools/t.yaml": TOOL.format(name="t1")})
    with pytest.raises(PackError, match="duplicate tool_name"):
        load_knowledge([a, b])


def test_missing_folder_and_folder_without_packs(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="does not exist"):
        load_knowledge([tmp_path / "nope"])
    with pytest.raises(PackError, match="no pack.yaml"):
        load_knowledge([tmp_path])
