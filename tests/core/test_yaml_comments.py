"""An unquoted ` #123` cuts a YAML value short without any error: the pack author hears about it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.knowledge import load_knowledge
from core.yaml_comments import comment_cuts
from tests.conftest import write_pack
from tests.core.test_cli import datasmith

PACK = "name: desk\nenvironments:\n  default: dev\n  dev: {base_url: 'http://127.0.0.1:1/dev'}\n"
TOOL = """
tool_name: escalate_ticket
description: Escalate a support ticket to a team.
parameters:
  - {name: ticket_id, type: string, required: true, patterns: ['#?(\\d{7})']}
  - {name: team, type: string, required: false}
examples:
  - user_query: escalate #1048213 to billing
    extracted_params: {ticket_id: "1048213", team: billing}
  - user_query: "push #1050977 up to the devs"
    extracted_params: {ticket_id: "1050977", team: devs}
call: {http: {method: POST, path: /escalate}}
side_effects: true
"""


def test_a_glued_hash_in_a_plain_value_is_named_with_what_was_lost() -> None:
    cuts = comment_cuts("- user_query: escalate #1048213 to billing\n  extracted_params: {ticket_id: '1048213'}\n")
    assert len(cuts) == 1
    assert cuts[0].startswith("line 1: 'user_query' is read as 'escalate'")
    assert "#1048213 to billing" in cuts[0] and "quotes" in cuts[0]
    assert comment_cuts("- remove jane@acme.io from the #billing channel\n")[0].startswith("line 1: a list item")


@pytest.mark.parametrize("text", [
    "- user_query: 'escalate #1048213 to billing'\n",       # quoted: the hash is text
    '- query: "any update on #1050977?"\n',
    "default: 1  # one item, a real comment\n",             # a comment with a space after the hash
    "# a whole-line comment about #channels\n",
    "description: |\n  people write it as #1048213\n  - or #1048214\nnext: ok\n",  # a block scalar keeps it
    "trigger_phrases: [escalate, 'bump #ticket']\n",        # flow sequences are not plain values
])
def test_quoted_block_and_real_comments_are_not_flagged(text: str) -> None:
    assert comment_cuts(text) == []


def test_a_key_after_a_block_scalar_is_checked_again() -> None:
    cuts = comment_cuts("- d: >-\n    text #kept\n  e: fine #cut\n")
    assert [c.split(":")[0] for c in cuts] == ["line 3"]


def test_the_pack_loads_and_says_which_example_lost_its_id(tmp_path: Path) -> None:
    root = write_pack(tmp_path / "desk", {"pack.yaml": PACK, "tools/escalate_ticket.yaml": TOOL})
    kn = load_knowledge([root])
    example = kn.tools["escalate_ticket"].examples[0]
    assert example.user_query == "escalate"  # what YAML really read
    assert len(kn.warnings) == 1
    assert "escalate_ticket.yaml: line 7: 'user_query' is read as 'escalate'" in kn.warnings[0]


def test_the_cli_warns_on_stderr_and_keeps_its_json_and_exit_code(tmp_path: Path) -> None:
    root = write_pack(tmp_path / "desk", {"pack.yaml": PACK, "tools/escalate_ticket.yaml": TOOL})
    cases = tmp_path / "cases.yaml"
    cases.write_text("- query: escalate #1061187 to billing\n  expect: {status: planned}\n", encoding="utf-8")
    out = datasmith("eval", "--knowledge", str(root), str(cases), "--json", home=tmp_path / "home")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["cases"] == 1
    assert "line 7: 'user_query' is read as 'escalate'" in out.stderr  # the pack's example
    assert "cases.yaml: line 1: 'query' is read as 'escalate'" in out.stderr  # the case's query
