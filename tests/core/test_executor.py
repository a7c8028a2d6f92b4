"""Executor behaviour on python-bound tools: concurrency, retries, breakpoints, skips, contracts."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.execution import Executor, RetryPolicy
from core.knowledge import Knowledge, load_knowledge
from core.models import Plan, PlanStep, Request, RunRecord, StepRef
from core.runstore import RunStore
from core.tools import ToolRegistry
from tests.conftest import write_pack

LAB_TOOLS = '''
import asyncio, time
CALLS = {}

async def slow(name: str, ms: int = 100) -> dict:
    started = time.monotonic()
    await asyncio.sleep(ms / 1000)
    return {"name": name, "started": started, "ended": time.monotonic()}

def flaky(key: str, fail_times: int) -> dict:
    CALLS[key] = CALLS.get(key, 0) + 1
    if CALLS[key] <= fail_times:
        raise ConnectionError(f"flaky call {CALLS[key]}")
    return {"key": key, "calls": CALLS[key]}

def refuse(why: str = "no") -> dict:
    raise ValueError(f"business rule says {why}")

def bad_output() -> dict:
    return {"unexpected": 1}

def echo(value: str) -> dict:
    return {"value": value}

def nothing() -> None:
    return None

def mangled() -> dict:
    return {"id": "X\\udcff1", "tags": ["ok", "\\ud800"]}  # what json.loads makes of a cut-off emoji

def hang() -> dict:
    time.sleep(2)
    return {}
'''


def tool(name: str, func: str, params: str, returns: str = "{type: object}", extra: str = "") -> str:
    return f"""
- tool_name: {name}
  description: {name}
  parameters: {params}
  examples: [{{user_query: {name}}}]
  returns: {returns}
  call: {{python: "lab_tools:{func}"}}
  {extra}
"""


LAB = {
    "pack.yaml": "name: lab\nenvironments: {default: dev, dev: {}}\n",
    "lab_tools.py": LAB_TOOLS,
    "tools/t.yaml": "".join([
        tool("slow", "slow", "[{name: name, type: string, required: true}, {name: ms, type: integer}]",
             "{type: object, required: [name, ended]}"),
        tool("flaky", "flaky", "[{name: key, type: string, required: true}, {name: fail_times, type: integer, required: true}]"),
        tool("refuse", "refuse", "[{name: why, type: string}]"),
        tool("bad_output", "bad_output", "[]", "{type: object, required: [value]}"),
        tool("echo", "echo", "[{name: value, type: string, required: true, maxLength: 20}]",
             "{type: object, required: [value]}", "pii: [value]"),
        tool("hang", "hang", "[]", extra="timeout_s: 0.2\n  side_effects: false"),
        tool("hang_write", "hang", "[]", extra="timeout_s: 0.2"),
        tool("nothing", "nothing", "[]", "null"),
        tool("mangled", "mangled", "[]"),
    ]),
}


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Knowledge:
    return load_knowledge([write_pack(tmp_path_factory.mktemp("lab") / "lab", LAB)])


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    s = RunStore(tmp_path / "runs.sqlite3")
    yield s
    s.close()


def make_plan(*steps: PlanStep, known: dict | None = None) -> Plan:
    return Plan(status="planned", pack="lab", environment="dev", rule="test", steps=list(steps), known=known or {})


async def execute(lab: Knowledge, store: RunStore, plan: Plan, attempts: int = 5) -> tuple[Executor, RunRecord]:
    async with ToolRegistry(lab, {}) as tools:
        ex = Executor(lab, tools, store, RetryPolicy(max_attempts=attempts, backoff_base_s=0.001))
        return ex, await ex.run(Request(text="test"), plan)


def run(lab: Knowledge, store: RunStore, plan: Plan, attempts: int = 5) -> RunRecord:
    return asyncio.run(execute(lab, store, plan, attempts))[1]


def test_independent_branches_really_run_in_parallel(lab: Knowledge, store: RunStore) -> None:
    plan = make_plan(
        PlanStep(step_id=1, tool_name="slow", arguments={"name": "a", "ms": 300}),
        PlanStep(step_id=2, tool_name="slow", arguments={"name": "b", "ms": 300}),
        PlanStep(step_id=3, tool_name="slow", dependencies=[1, 2],
                 arguments={"name": StepRef(from_step=1, path="name"), "ms": 1}),
    )
    result = run(lab, store, plan)
    a, b, c = (result.step(i).output for i in (1, 2, 3))
    assert result.status == "succeeded"
    assert b["started"] < a["ended"] and a["started"] < b["ended"], "the two roots overlapped in time"
    assert c["started"] >= max(a["ended"], b["ended"]), "the join waited for both"
    assert c["name"] == "a", "argument resolved from step 1's output by JMESPath"


def test_transient_failure_twice_then_success_takes_three_attempts(lab: Knowledge, store: RunStore) -> None:
    result = run(lab, store, make_plan(PlanStep(step_id=1, tool_name="flaky",
                                                arguments={"key": "twice", "fail_times": 2})))
    assert result.status == "succeeded" and result.step(1).attempts == 3
    assert [e["kind"] for e in store.events(result.run_id)].count("attempt_failed") == 2


def test_failing_forever_pauses_at_a_breakpoint_then_resumes(lab: Knowledge, store: RunStore) -> None:
    plan = make_plan(PlanStep(step_id=1, tool_name="flaky", arguments={"key": "seven", "fail_times": 7}),
                     PlanStep(step_id=2, tool_name="slow", dependencies=[1], arguments={"name": "after", "ms": 1}))
    paused = run(lab, store, plan)
    assert paused.status == "paused" and paused.step(1).status == "paused" and paused.step(1).attempts == 5
    assert paused.step(2).status == "pending"
    assert paused.error and paused.error.code == "DS-301" and paused.error.retryable
    assert store.get(paused.run_id).status == "paused"  # survives in the store

    async def resume() -> RunRecord:
        async with ToolRegistry(lab, {}) as tools:
            ex = Executor(lab, tools, store, RetryPolicy(backoff_base_s=0.001))
            return await ex.resume(paused.run_id, "retry", by="U1")

    resumed = asyncio.run(resume())
    assert resumed.status == "succeeded" and resumed.step(1).attempts == 8 and resumed.step(2).status == "succeeded"
    assert store.load_vars(paused.run_id) == {}, "raw outputs are dropped once the run ends"


def test_breakpoint_skip_and_abort(lab: Knowledge, store: RunStore) -> None:
    def paused_plan(key: str) -> Plan:
        return make_plan(PlanStep(step_id=1, tool_name="flaky", arguments={"key": key, "fail_times": 99}),
                         PlanStep(step_id=2, tool_name="slow", dependencies=[1], arguments={"name": "x", "ms": 1}),
                         PlanStep(step_id=3, tool_name="echo", dependencies=[1],
                                  arguments={"value": StepRef(from_step=1, path="key")}))

    async def go(key: str, action: str) -> RunRecord:
        async with ToolRegistry(lab, {}) as tools:
            ex = Executor(lab, tools, store, RetryPolicy(max_attempts=2, backoff_base_s=0.001))
            first = await ex.run(Request(text="t"), paused_plan(key))
            assert first.status == "paused"
            return await ex.resume(first.run_id, action)  # type: ignore[arg-type]

    skipped = asyncio.run(go("skip-me", "skip"))
    # every step ended, but step 1 was skipped by hand: the run cannot say it reached its goal
    assert skipped.status == "partial" and skipped.error and skipped.error.code == "DS-308"
    assert "step 1 (flaky) was skipped by hand" in skipped.error.message
    assert store.get(skipped.run_id).status == "partial"
    assert [skipped.step(i).status for i in (1, 2, 3)] == ["skipped", "succeeded", "skipped"]
    assert "skipped step 1" in (skipped.step(3).skip_reason or "")
    aborted = asyncio.run(go("abort-me", "abort"))
    assert aborted.status == "aborted" and aborted.step(2).status == "pending"


def test_terminal_failure_is_not_retried_and_stops_new_steps(lab: Knowledge, store: RunStore) -> None:
    plan = make_plan(PlanStep(step_id=1, tool_name="refuse", arguments={"why": "stock"}),
                     PlanStep(step_id=2, tool_name="slow", dependencies=[1], arguments={"name": "x"}))
    result = run(lab, store, plan)
    assert result.status == "failed" and result.step(1).attempts == 1
    assert result.error and result.error.code == "DS-302" and "business rule says stock" in result.error.message
    assert result.step(2).status == "pending" and result.step(2).attempts == 0


def test_contract_gate_on_arguments_and_outputs(lab: Knowledge, store: RunStore) -> None:
    bad_args = run(lab, store, make_plan(PlanStep(step_id=1, tool_name="echo", arguments={"value": "x", "extra": 1})))
    assert bad_args.error and bad_args.error.code == "DS-303" and "extra" in bad_args.error.message
    assert bad_args.step(1).attempts == 0, "never called with arguments that break the contract"
    bad_out = run(lab, store, make_plan(PlanStep(step_id=1, tool_name="bad_output")))
    assert bad_out.error and bad_out.error.code == "DS-303" and "returns" in bad_out.error.message


def test_a_tool_that_returns_nothing_succeeds_and_its_readers_get_null(lab: Knowledge, store: RunStore) -> None:
    # e.g. an HTTP 204: no body is a result, not a crash of the run or of its store
    result = run(lab, store, make_plan(
        PlanStep(step_id=1, tool_name="nothing"),
        PlanStep(step_id=2, tool_name="echo", dependencies=[1], arguments={"value": "after"})))
    assert result.status == "succeeded", result.error
    assert result.step(1).status == "succeeded" and result.step(1).output is None
    assert store.get(result.run_id).step(2).status == "succeeded"


def test_condition_false_skips_and_skip_propagates_to_readers(lab: Knowledge, store: RunStore) -> None:
    plan = make_plan(
        PlanStep(step_id=1, tool_name="echo", arguments={"value": "v"}, condition="query.want != null"),
        PlanStep(step_id=2, tool_name="echo", dependencies=[1], arguments={"value": StepRef(from_step=1, path="value")}),
        PlanStep(step_id=3, tool_name="slow", dependencies=[1], arguments={"name": "orders-only", "ms": 1}),
    )
    result = run(lab, store, plan)
    assert [result.step(i).status for i in (1, 2, 3)] == ["skipped", "skipped", "succeeded"]
    taken = run(lab, store, plan.model_copy(update={"known": {"want": "yes"}}))
    assert [taken.step(i).status for i in (1, 2, 3)] == ["succeeded", "succeeded", "succeeded"]


def test_timeout_counts_as_transient(lab: Knowledge, store: RunStore) -> None:
    result = run(lab, store, make_plan(PlanStep(step_id=1, tool_name="hang")), attempts=2)
    assert result.status == "paused" and result.step(1).attempts == 2
    assert "no answer within 0.2s" in (result.error.message if result.error else "")


def test_a_write_that_timed_out_is_not_repeated_blindly(lab: Knowledge, store: RunStore) -> None:
    result = run(lab, store, make_plan(PlanStep(step_id=1, tool_name="hang_write")), attempts=3)
    assert result.status == "paused" and result.step(1).attempts == 1  # it may have happened: a human decides
    assert result.error is not None and result.error.code == "DS-307"


def test_pii_is_redacted_in_the_store(lab: Knowledge, store: RunStore, tmp_path: Path) -> None:
    result = run(lab, store, make_plan(PlanStep(step_id=1, tool_name="echo", arguments={"value": "110101199001"})))
    assert result.status == "succeeded"
    stored = store.get(result.run_id).step(1)
    assert stored.arguments == {"value": "***"} and stored.output == {"value": "***"}
    store.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("runs.sqlite3*"))
    assert b"110101199001" not in raw


def test_a_tool_output_with_lone_surrogates_is_recorded_readable_not_lost(lab: Knowledge, store: RunStore) -> None:
    """The write happened: its output must be stored (with U+FFFD), never a DS-500 that loses it."""
    result = run(lab, store, make_plan(PlanStep(step_id=1, tool_name="mangled")))
    assert result.status == "succeeded"
    assert store.get(result.run_id).step(1).output == {"id": "X\ufffd1", "tags": ["ok", "\ufffd"]}


def test_a_progress_display_that_breaks_never_fails_the_run(lab: Knowledge, store: RunStore) -> None:
    """`ask … 2>&1 | head -2`: the reader is gone, the writes go on and the run is recorded whole."""
    def closed(run: RunRecord, step: object) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    async def go() -> RunRecord:
        async with ToolRegistry(lab, {}) as tools:
            ex = Executor(lab, tools, store, RetryPolicy(backoff_base_s=0.001), closed)
            return await ex.run(Request(text="t"), make_plan(
                PlanStep(step_id=1, tool_name="echo", arguments={"value": "a"}),
                PlanStep(step_id=2, tool_name="echo", dependencies=[1], arguments={"value": "b"})))

    result = asyncio.run(go())
    assert result.status == "succeeded" and store.get(result.run_id).status == "succeeded"
    assert [s.status for s in store.get(result.run_id).steps] == ["succeeded", "succeeded"]
