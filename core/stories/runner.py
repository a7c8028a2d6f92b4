"""Run stories: live (the real assistant; saves a fixture) or replay (the fixture's plans straight
through the tool registry and executor: no planner, no LLM). Both check the same expectations."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from core import render
from core.contracts import check_plan
from core.errors import DatasmithError
from core.execution import Executor, RetryPolicy
from core.knowledge import Knowledge
from core.models import Plan, Request, RunRecord
from core.runstore import RunStore
from core.services import LocalServices
from core.settings import Settings
from core.stories.loader import order
from core.stories.models import DbAssert, Fixture, RecordedCall, RecordedStep, Story, StoryStep
from core.stories.testdb import TestDatabase
from core.tools import ToolRegistry
from core.tools.tls import tls_context

if TYPE_CHECKING:
    from core.assistant import Assistant

INVOKED = ("succeeded", "failed", "paused")


@dataclass
class StoryResult:
    story_id: str
    mode: str
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    fixture_path: Path | None = None

    @property
    def ok(self) -> bool:
        return not self.failures


@dataclass
class Outcome:
    status: str
    plan: Plan
    calls: list[RecordedCall]
    response: str


# ---------------------------------------------------------------------- shared pieces

def response_text(plan: Plan, run: RunRecord | None) -> str:
    """What the assistant answered, without per-run ids (so live and replay compare)."""
    lines = [render.plan_text(plan)]
    for s in run.steps if run else []:
        fields = ", ".join(f"{k}={v}" for k, v in render.key_fields(s.output, 8))
        err = f" {s.error.code}: {s.error.message}" if s.error else ""
        lines.append(f"{s.step_id}. {s.tool_name}: {s.status} {fields}{err}".rstrip())
    if run is not None:
        lines.append(f"run: {run.status}")
    return "\n".join(lines)


def calls_of(run: RunRecord | None) -> list[RecordedCall]:
    return [RecordedCall(step_id=s.step_id, tool=s.tool_name, arguments=s.arguments, status=s.status,
                         output=s.output, error=f"{s.error.code}: {s.error.message}" if s.error else None)
            for s in (run.steps if run else []) if s.status in INVOKED]


def _same(expected: Any, actual: Any) -> bool:
    return expected == actual or str(expected) == str(actual)


def check_calls(expected: list[Any], calls: list[RecordedCall]) -> str | None:
    """Subsequence match: the expected tools in this relative order (others may interleave)."""
    i = 0
    for call in calls:
        if i < len(expected) and call.tool == expected[i].tool and all(
                _same(v, (call.arguments or {}).get(k)) for k, v in expected[i].args.items()):
            i += 1
    if i == len(expected):
        return None
    want = " → ".join(e.tool + (f"{e.args}" if e.args else "") for e in expected)
    got = " → ".join(f"{c.tool}({c.status})" for c in calls) or "no tool calls"
    return f"tool calls: expected (in order) {want}; got {got}; first unmatched: {expected[i].tool}"


async def check_db(db: TestDatabase | None, asserts: list[DbAssert]) -> list[str]:
    failures = []
    for a in asserts:
        if db is None:
            return ["db_state asserted but the pack has no test_hooks"]
        rows = await db.rows(a.table, a.where)
        if a.count is not None and len(rows) != a.count:
            failures.append(f"db {a.table} where {a.where}: expected {a.count} row(s), found {len(rows)}")
        for want in a.rows:
            if not any(all(_same(v, r.get(k)) for k, v in want.items()) for r in rows):
                sample = rows[:3]
                failures.append(f"db {a.table} where {a.where}: no row with {want}; rows: {sample}")
    return failures


async def check_step(n: int, expect: StoryStep, got: Outcome, db: TestDatabase | None) -> list[str]:
    failures = []
    if expect.status and expect.status != got.status:
        failures.append(f"status: expected {expect.status}, got {got.status}")
    if expect.tool_calls and (problem := check_calls(expect.tool_calls, got.calls)):
        failures.append(problem)
    if expect.response_contains and not any(s in got.response for s in expect.response_contains):
        failures.append(f"response contains none of {expect.response_contains}:\n{got.response}")
    failures += await check_db(db, expect.db_state)
    return [f"step {n} ({expect.user_message!r}): {f}" for f in failures]


# ---------------------------------------------------------------------- the runner

_STAMP = re.compile(r'"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?"')


def _content(fixture_json: str) -> str:
    """A fixture with its timestamps blanked: what a re-recording must change to be written again."""
    return _STAMP.sub('"<time>"', fixture_json)


class StoryRunner:
    def __init__(self, knowledge: Knowledge, settings: Settings, stories: dict[str, Story], fixtures_dir: Path,
                 *, assistant: Assistant | None = None) -> None:
        self.kn = knowledge
        self.settings = settings
        self.stories = stories
        self.fixtures_dir = fixtures_dir
        self.assistant = assistant  # live mode only
        self.services = LocalServices(knowledge, settings.pack_environ, settings.home, settings.service_idle_s)
        self.store = RunStore(Path(":memory:"))  # replays leave nothing behind
        self.policy = RetryPolicy(settings.max_attempts, settings.backoff_base_s, settings.backoff_max_s,
                                  settings.default_timeout_s)

    def close(self) -> None:
        self.services.close()
        self.store.close()

    def environment(self, story: Story) -> str | None:
        return story.environment or self.kn.default_environment(story.pack)

    def fixture_path(self, story: Story) -> Path:
        return self.fixtures_dir / story.pack / story.id / f"{self.environment(story) or 'default'}.json"

    async def _prepare(self, story: Story, client: httpx.AsyncClient) -> TestDatabase | None:
        self.services.ensure(story.pack)
        env = self.environment(story)
        spec = self.kn.packs[story.pack]
        if spec.test_hooks is None or env is None:
            return None
        db = TestDatabase(self.kn, self.settings.pack_environ, story.pack, env, client)
        await db.reset()
        return db

    # ------------------------------------------------------------------ live

    async def record(self, story: Story, *, save: bool = True) -> StoryResult:
        assert self.assistant is not None, "live mode needs the assistant"
        start = time.perf_counter()
        result = StoryResult(story.id, "record")
        async with httpx.AsyncClient(timeout=30, verify=tls_context()) as client:
            try:
                db = await self._prepare(story, client)
                for dep in order(story, self.stories):
                    if failures := (await self._live_steps(dep, db))[1]:
                        result.failures.append(f"dependency {dep.id} failed: {failures[0]}")
                        return self._done(result, start)
                steps, result.failures = await self._live_steps(story, db)
            except DatasmithError as exc:
                result.failures.append(f"{exc.code}: {exc.message}")
                return self._done(result, start)
        if save and result.ok:
            fixture = Fixture(story_id=story.id, scenario=self.environment(story) or "default",
                              recorded_at=datetime.now(UTC), story_digest=story.digest(),
                              knowledge_version=self.kn.version, planner=self.settings.planner,
                              environment=self.environment(story), steps=steps)
            path = self.fixture_path(story)
            text = fixture.model_dump_json(indent=2)
            if not path.exists() or _content(path.read_text(encoding="utf-8")) != _content(text):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")  # only a real change rewrites it
                result.fixture_path = path
        return self._done(result, start)

    async def _live_steps(self, story: Story, db: TestDatabase | None) -> tuple[list[RecordedStep], list[str]]:
        assert self.assistant is not None
        if story.db_seed and db is not None:
            await db.seed(story.db_seed)
        previous: Plan | None = None
        recorded, failures = [], []
        for n, step in enumerate(story.steps, 1):
            request = Request(text=step.user_message, environment=story.environment, previous=previous,
                              surface="stories", user="stories", bypass_cache=True)
            report = await self.assistant.handle(request, confirmed=True)
            if report.plan is None:
                err = report.error
                failures.append(f"step {n}: {err.code}: {err.message}" if err else f"step {n}: no plan")
                break
            got = Outcome(report.run.status if report.run else report.plan.status, report.plan,
                          calls_of(report.run), response_text(report.plan, report.run))
            failures += await check_step(n, step, got, db)
            recorded.append(RecordedStep(user_message=step.user_message, status=got.status,
                                         plan=report.plan.model_dump(mode="json"), tool_calls=got.calls,
                                         response=got.response))
            previous = report.plan if report.plan.status == "needs_input" else None
        return recorded, failures

    # ------------------------------------------------------------------ replay

    def stale(self, story: Story, fixture: Fixture | None) -> str | None:
        """Why a fixture cannot stand for its story any more (None: it still can)."""
        if fixture is None:
            return f"no fixture at {self.fixture_path(story)}: record it with `datasmith stories record --story {story.id}`"
        if fixture.story_digest != story.digest():
            return (f"stale fixture: story {story.id} changed since it was recorded on {fixture.recorded_at:%Y-%m-%d}; "
                    f"re-record with `datasmith stories record --story {story.id}`")
        if len(fixture.steps) != len(story.steps):
            return f"stale fixture: {len(fixture.steps)} recorded steps for {len(story.steps)} story steps"
        for n, rec in enumerate(fixture.steps, 1):
            plan = Plan.model_validate(rec.plan)
            missing = [s.tool_name for s in plan.steps if s.tool_name not in self.kn.tools]
            if missing:
                return f"stale fixture: step {n} calls tools that no longer exist: {missing}"
            try:
                if plan.status == "planned":  # a question's plan lacks values by design
                    check_plan(self.kn.tools, plan)
            except DatasmithError as exc:
                return f"stale fixture: step {n}'s recorded plan breaks today's contracts: {exc.message}"
        return None

    def load_fixture(self, story: Story) -> Fixture | None:
        path = self.fixture_path(story)
        return Fixture.model_validate_json(path.read_text(encoding="utf-8")) if path.exists() else None

    async def replay(self, story: Story) -> StoryResult:
        start = time.perf_counter()
        result = StoryResult(story.id, "replay")
        chain = [*order(story, self.stories), story]
        fixtures = {s.id: self.load_fixture(s) for s in chain}
        for s in chain:
            if problem := self.stale(s, fixtures[s.id]):
                result.failures.append(problem if s is story else f"dependency {s.id}: {problem}")
                return self._done(result, start)
        async with httpx.AsyncClient(timeout=30, verify=tls_context()) as client, \
                ToolRegistry(self.kn, self.settings.pack_environ, client) as tools:
            try:
                db = await self._prepare(story, client)
                for s in chain:
                    failures = await self._replay_steps(s, fixtures[s.id], db, tools)  # type: ignore[arg-type]
                    if failures and s is not story:
                        result.failures.append(f"dependency {s.id} failed: {failures[0]}")
                        break
                    result.failures += failures if s is story else []
            except DatasmithError as exc:
                result.failures.append(f"{exc.code}: {exc.message}")
        return self._done(result, start)

    async def _replay_steps(self, story: Story, fixture: Fixture, db: TestDatabase | None,
                            tools: ToolRegistry) -> list[str]:
        if story.db_seed and db is not None:
            await db.seed(story.db_seed)
        failures: list[str] = []
        executor = Executor(self.kn, tools, self.store, self.policy)
        for n, (step, rec) in enumerate(zip(story.steps, fixture.steps, strict=True), 1):
            plan = Plan.model_validate(rec.plan)
            run = None
            if plan.status == "planned" and rec.tool_calls:
                request = Request(text=step.user_message, environment=fixture.environment, surface="stories",
                                  user="stories")
                run = await executor.run(request, plan)
            got = Outcome(run.status if run else rec.status, plan, calls_of(run), response_text(plan, run))
            then = [(c.tool, c.status) for c in rec.tool_calls]
            now = [(c.tool, c.status) for c in got.calls]
            if then != now:
                failures.append(f"step {n}: the replay diverged from the recording: recorded {then}, replayed {now}")
            failures += await check_step(n, step, got, db)
        return failures

    @staticmethod
    def _done(result: StoryResult, start: float) -> StoryResult:
        result.seconds = time.perf_counter() - start
        return result

