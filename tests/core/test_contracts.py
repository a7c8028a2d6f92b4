"""The executor's compiled argument check says exactly what jsonschema says of the whole
parameter schema: same verdict, same messages (they reach users in contract errors)."""

from __future__ import annotations

import random

from jsonschema import Draft202012Validator

from core.contracts import ArgumentsCheck, _problems, check_arguments, parameters_schema
from core.errors import ContractError
from core.knowledge import load_knowledge
from core.settings import BUNDLED_KNOWLEDGE

VALUES = [1, 0, -3, 2.5, 10**12, True, None, "", "x", "pre", "CN", "2026-01-01", "x" * 300, [], [1, 2], {}, {"a": 1}]


def test_compiled_argument_check_matches_jsonschema_on_every_shop_tool() -> None:
    kn = load_knowledge([BUNDLED_KNOWLEDGE / "shop"])
    rng = random.Random(11)
    compared = 0
    for tool in kn.tools.values():
        whole, compiled = Draft202012Validator(parameters_schema(tool)), ArgumentsCheck(tool)
        names = [p.name for p in tool.parameters] + ["zzz", "aaa"]  # two keys no tool declares
        for _ in range(200):
            args = {k: rng.choice(VALUES) for k in rng.sample(names, rng.randint(0, min(6, len(names))))}
            assert compiled.problems(args) == _problems(whole, args), (tool.tool_name, args)
            compared += 1
        for not_an_object in (5, "s", None, [1]):
            assert compiled.problems(not_an_object) == _problems(whole, not_an_object)
    assert compared >= 30 * 200


def test_contract_error_names_every_problem() -> None:
    kn = load_knowledge([BUNDLED_KNOWLEDGE / "shop"])
    tool = next(t for t in kn.tools.values() if any(p.required for p in t.parameters))
    required = next(p.name for p in tool.parameters if p.required)
    try:
        check_arguments(tool, {"bogus": 1}, step_id=3)
    except ContractError as exc:
        assert f"'{required}' is a required property" in exc.message
        assert "Additional properties are not allowed ('bogus' was unexpected)" in exc.message
        assert exc.step_id == 3
    else:
        raise AssertionError("arguments with a missing and an unknown key passed the contract")
