"""Asks and resumes run as tasks of the service, not of the HTTP request: a client that stops
waiting (a 202) or disconnects leaves its run going, and its answer pollable."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("datasmith.api")

Answer = tuple[int, dict[str, Any]]  # HTTP status, body
Finished = Callable[["Job", Answer], None]


@dataclass
class Job:
    run_id: str
    owner: str
    task: asyncio.Task[Answer] = field(repr=False)

    @property
    def done(self) -> bool:
        return self.task.done()


class Jobs:
    """The runs this process drives now, by run id."""

    def __init__(self, on_finished: Finished) -> None:
        self._jobs: dict[str, Job] = {}
        self._on_finished = on_finished

    def __len__(self) -> int:
        return len(self._jobs)

    def get(self, run_id: str) -> Job | None:
        return self._jobs.get(run_id)

    def start(self, run_id: str, owner: str, work: Callable[[], Awaitable[Answer]],
              fail: Callable[[BaseException], Answer], release: Callable[[], None]) -> Job:
        async def drive() -> Answer:
            try:
                answer = await work()
            except Exception as exc:  # noqa: BLE001 - the outer boundary of a run nobody may be waiting for
                log.exception("run %s: the job failed", run_id)
                answer = fail(exc)
            finally:
                release()
            try:
                self._on_finished(job, answer)
            finally:
                self._jobs.pop(run_id, None)
            return answer

        job = Job(run_id, owner, asyncio.get_running_loop().create_task(drive(), name=f"run-{run_id}"))
        self._jobs[run_id] = job
        return job

    @staticmethod
    async def wait(job: Job, timeout: float) -> Answer | None:
        """The job's answer if it ends within `timeout`. Never cancels the job, also when the
        caller is cancelled (its client went away)."""
        done, _ = await asyncio.wait({job.task}, timeout=timeout)
        return job.task.result() if done else None

    async def drain(self, timeout: float) -> None:
        """At shutdown: let runs end for a while; what is left is marked interrupted by the next
        start (RunStore.recover) and resumable."""
        tasks = [j.task for j in self._jobs.values()]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
