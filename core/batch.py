"""Copies: a plan asked for N times ("造20笔已支付订单") runs as N independent runs, at most
`parallel` at once. Each copy is a full run of its own (its own run id, its own idempotency keys,
so N orders, not one), recorded in the RunStore under the request's trace id.

The batch's answer lists every run; its `run` is the first copy that did not succeed (else the
first), so a reader of one run never misses a failure.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from core.models import Plan, RunRecord

COPY_NOTE = "copy {i} of {n}"


@dataclass
class Tally:
    """Where a batch of copies stands: what progress displays show."""

    total: int
    started: int = 0
    ended: int = 0
    succeeded: int = 0
    copy_of: dict[str, int] = field(default_factory=dict)  # run id -> copy number (1-based), known up front
    last: RunRecord | None = None  # the run that ended last
    plan: Plan | None = None  # what every copy runs

    @property
    def failed(self) -> int:
        """Copies that ended without succeeding (failed, paused, aborted, partial...)."""
        return self.ended - self.succeeded


CopyProgress = Callable[[Tally], Awaitable[None] | None]
RunOne = Callable[[Plan, str], Awaitable[RunRecord]]  # (the copy's plan, its run id) -> the run


def copy_plan(plan: Plan, i: int) -> Plan:
    """The plan one copy runs: the same steps, asked once, saying which copy it is."""
    return plan.model_copy(deep=True, update={"copies": 1, "notes": [*plan.notes, COPY_NOTE.format(i=i, n=plan.copies)]})


async def run_copies(plan: Plan, parallel: int, run_one: RunOne, on_copy: CopyProgress | None = None) -> list[RunRecord]:
    """Run `plan.copies` copies through `run_one(plan_i, run_id)`, at most `parallel` at once; the
    runs in copy order. A copy that fails does not stop the others: each is its own test datum."""
    run_ids = [uuid.uuid4().hex[:12] for _ in range(plan.copies)]
    tally = Tally(plan.copies, copy_of={run_id: i for i, run_id in enumerate(run_ids, 1)}, plan=plan)
    gate = asyncio.Semaphore(max(1, parallel))

    async def tell() -> None:
        if on_copy is not None:
            shown = on_copy(tally)
            if inspect.isawaitable(shown):
                await shown

    async def one(i: int) -> RunRecord:
        async with gate:
            tally.started += 1
            run = await run_one(copy_plan(plan, i), run_ids[i - 1])
            tally.ended += 1
            tally.succeeded += run.status == "succeeded"
            tally.last = run
            await tell()
            return run

    await tell()
    return list(await asyncio.gather(*(one(i) for i in range(1, plan.copies + 1))))


def representative(runs: list[RunRecord]) -> RunRecord | None:
    """The run a one-run reader sees: the first copy that did not succeed, else the first."""
    return next((r for r in runs if r.status != "succeeded"), runs[0] if runs else None)
