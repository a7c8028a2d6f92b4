"""Scoring one plan against its case: what `datasmith eval` counts as exact."""

from __future__ import annotations

import pytest

from core.evaluation import Case, Expect, score_case
from core.models import Plan, PlanStep


def _plan() -> Plan:
    """A recipe whose last step's condition is already false: the plan lists it, marked skipped."""
    return Plan(status="planned", rule="change_plan", steps=[
        PlanStep(step_id=1, tool_name="find_subscription"),
        PlanStep(step_id=2, tool_name="change_plan", dependencies=[1]),
        PlanStep(step_id=3, tool_name="create_invoice", dependencies=[2], skipped="condition is false")])


@pytest.mark.parametrize(("tools", "ok"), [
    (["find_subscription", "change_plan", "create_invoice"], True),   # the plan's steps
    (["find_subscription", "change_plan"], True),                     # the steps that will run
    (["find_subscription", "create_invoice"], False),
    (["change_plan"], False),
])
def test_a_step_already_known_skipped_may_be_listed_or_left_out(tools: list[str], ok: bool) -> None:
    result, counts = score_case(Case(query="q", expect=Expect(status="planned", tools=tools)), _plan(), 1.0)
    assert result.ok is ok, result.diffs
    if ok:
        assert counts["node"][1:] == (0, 0)  # no false or missed nodes either way


def test_edges_of_a_step_left_out_as_skipped_are_not_counted() -> None:
    case = Case(query="q", expect=Expect(status="planned", tools=["find_subscription", "change_plan"],
                                         edges=[("find_subscription", "change_plan")]))
    result, counts = score_case(case, _plan(), 1.0)
    assert result.ok and counts["edge"] == (1, 0, 0)
