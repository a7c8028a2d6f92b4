"""Input that used to bring a process down or stall it: deep YAML, catastrophic regexes."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.errors import PackError
from core.knowledge import load_knowledge
from core.knowledge_edit import apply_edit
from core.models import Request
from core.planning import RulePlanner
from tests.conftest import write_pack

ROOT = Path(__file__).parents[2]
PACK = "name: lab\nenvironments: {default: dev, dev: {}}\n"


def test_fifty_thousand_nested_brackets_are_a_pack_error_not_a_crash(tmp_path: Path) -> None:
    pack = write_pack(tmp_path / "lab", {"pack.yaml": PACK, "tools/t.yaml": "x: " + "[" * 50_000 + "\n"})
    # in a child process: a segfault there is exit 139, here it would kill the test run
    out = subprocess.run([sys.executable, "-m", "core.cli", "index", "--knowledge", str(pack), "--home",
                          str(tmp_path / "home")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "DS-201" in out.stderr and "t.yaml" in out.stderr, (out.returncode, out.stderr)
    with pytest.raises(PackError, match="nested too deeply"):
        load_knowledge([pack])


def test_an_alias_bomb_is_refused(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x]"] + [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, 80)]
    pack = write_pack(tmp_path / "lab", {"pack.yaml": PACK, "tools/t.yaml": "\n".join(lines) + "\n"})
    with pytest.raises(PackError, match="aliases"):
        load_knowledge([pack])


def test_the_console_validate_of_a_deep_edit_is_an_error_not_a_crash(tmp_path: Path) -> None:
    import shutil

    from core.settings import BUNDLED_KNOWLEDGE
    shutil.copytree(BUNDLED_KNOWLEDGE / "hr", tmp_path / "hr")
    kn = load_knowledge([tmp_path / "hr"])
    result = apply_edit([tmp_path / "hr"], kn, "tool", "apply_leave", "tool_name: " + "[" * 50_000, write=False)
    assert not result.ok and "nested too deeply" in result.errors[0]


CATASTROPHIC = r"^(a|aa)+$"


def test_a_catastrophic_pattern_is_refused_when_the_pack_loads(tmp_path: Path) -> None:
    tool = f"""
        tool_name: t
        description: t
        parameters: [{{name: code, type: string, patterns: ['{CATASTROPHIC}']}}]
        examples: [{{user_query: code aaa}}]
        call: {{http: {{method: GET, path: /t}}}}
    """
    pack = write_pack(tmp_path / "lab", {"pack.yaml": PACK, "tools/t.yaml": tool})
    started = time.monotonic()
    with pytest.raises(PackError, match=r"tool t: .*exponential time"):
        load_knowledge([pack])
    assert time.monotonic() - started < 5


def test_a_slow_pattern_never_stalls_planning(tmp_path: Path) -> None:
    # passes the load probe (a plain run of one character) but blows up on an alternating input
    slow = r"^(?:ab|a|b)+(?:ab|a|b)+(?:ab|a|b)+c$"
    tool = f"""
        tool_name: t
        description: look up a code
        parameters: [{{name: code, type: string, patterns: ['{slow}']}}]
        examples: [{{user_query: look up a code}}]
        side_effects: false
        call: {{http: {{method: GET, path: /t}}}}
    """
    kn = load_knowledge([write_pack(tmp_path / "lab", {"pack.yaml": PACK, "tools/t.yaml": tool})])
    started = time.monotonic()
    RulePlanner(kn).plan(Request(text="ab" * 40 + "!"))
    assert time.monotonic() - started < 5  # not minutes: every pack pattern runs under a time budget
