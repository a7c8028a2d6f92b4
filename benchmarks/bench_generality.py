"""Generality: the rule planner on packs it was not written next to. Prints a table; not a test.

    python benchmarks/bench_generality.py [PACK_DIR ...] [--failures | --unsafe] [--today DATE] [--json OUT]

`--unsafe` prints only the unsafe cases: all a sealed pack (scored, never read) may show.

Default packs: every blind pack in benchmarks/generality/ (written from docs/knowledge-format.md
alone by sessions that never saw the planner; their scores before any change made with them in view
are in first-scores.json), plus the bundled shop (its dev and held-out sets) and hr. Extra PACK_DIRs (e.g. held-out packs kept outside the repository) are scored the same way:
every `eval/*.yaml` of a pack is its cases.

Per pack: plan exact, status, rule and argument accuracy, and `unsafe`: plans with a side-effect
tool made for cases that expected `no_match` or `needs_input` (the bar is zero), plus `wrong writes`:
side-effect plans for planned cases whose plan was not exact.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LANCE_LOG", "error")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.assistant import Assistant  # noqa: E402
from core.evaluation import Case, evaluate, load_cases  # noqa: E402
from core.models import Plan, Request  # noqa: E402
from core.settings import BUNDLED_KNOWLEDGE, Settings  # noqa: E402

BLIND = ROOT / "benchmarks" / "generality"
DEFAULT_PACKS = [*sorted(p for p in BLIND.iterdir() if p.is_dir()), BUNDLED_KNOWLEDGE / "shop", BUNDLED_KNOWLEDGE / "hr"]


def failure_kind(diffs: list[str], case: Case, plan: Plan) -> str:
    """One word for what went wrong, so a sealed pack's failures can be counted without being read."""
    first = diffs[0].split(":")[0] if diffs else "?"
    if first == "status":
        kind = f"{case.expect.status}→{plan.status}"
        if plan.status == "needs_input":  # asked which one, or asked for a value of the right or a wrong target
            aimed = plan.rule == case.expect.rule if plan.rule else plan.tool in (case.expect.tools or [])
            kind += ":which" if plan.choices else ":value" + ("" if case.expect.status != "planned" else
                                                                "(right)" if aimed else "(other)")
        return kind
    return {"rule": "choice", "tools": "steps", "edges missing": "steps"}.get(first, first.split(" ")[0])


def score_pack(pack: Path, work: Path, show_failures: bool, show_unsafe: bool = False,
               today: date | None = None) -> list[dict[str, Any]]:
    settings = Settings(home=work / pack.name, knowledge=[pack], planner="rules")
    assistant = Assistant.from_settings(settings)
    if today is not None:  # cases that say "明天" were written on some day: score them as of that day
        assistant.rules.today = lambda: today
    kn = assistant.knowledge
    rows = []
    try:
        for text in ("预热一下", "warm up"):
            assistant.plan(Request(text=text, bypass_cache=True))
        for cases_file in sorted((pack / "eval").glob("*.y*ml")):
            cases = load_cases(cases_file)
            plans: dict[int, Plan] = {}

            def plan_one(case: Case, plans: dict[int, Plan] = plans) -> Plan:
                plan = assistant.plan(Request(text=case.query, environment=case.env, bypass_cache=True))
                plans[id(case)] = plan
                return plan

            report = evaluate(cases, plan_one)
            unsafe = wrong_writes = arg_tp = arg_all = 0
            failed = {f.query for f in report.failures}
            by_query = {c.query: c for c in cases}
            kinds = Counter(failure_kind(f.diffs, by_query[f.query], plans[id(by_query[f.query])])
                            for f in report.failures)
            for case in cases:
                plan = plans[id(case)]
                writes = plan.status == "planned" and any(kn.tools[s.tool_name].side_effects for s in plan.running())
                if case.expect.status in ("no_match", "needs_input") and writes:
                    unsafe += 1
                    if show_unsafe:  # only these, for a sealed pack whose other failures stay unread
                        print(f"  ! [{pack.name}] {case.query}\n      expected {case.expect.status}, planned "
                              f"{plan.rule or 'tool'}: {[s.tool_name for s in plan.running()]}", file=sys.stderr)
                elif case.expect.status == "planned" and writes and case.query in failed:
                    wrong_writes += 1
                for tool, args in (case.expect.arguments or {}).items():
                    step = next((s for s in plan.steps if s.tool_name == tool), None)
                    for name, value in args.items():
                        arg_all += 1
                        got = step.arguments.get(name) if step else None
                        arg_tp += int(getattr(got, "model_dump", lambda g=got: g)() == value)
            rows.append({"pack": pack.name, "cases_file": cases_file.name, "cases": report.cases,
                         "plan_exact": report.plan_exact, "status_accuracy": report.status_accuracy,
                         "rule_accuracy": report.rule_accuracy, "argument_accuracy": arg_tp / (arg_all or 1),
                         "unsafe": unsafe, "wrong_writes": wrong_writes, "p50_ms": report.p50_ms,
                         "p95_ms": report.p95_ms, "failure_kinds": dict(kinds)})
            if show_failures:
                for f in report.failures:
                    print(f"  ✗ [{pack.name}] {f.query}\n      " + "\n      ".join(f.diffs), file=sys.stderr)
    finally:
        assistant.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("packs", nargs="*", type=Path, help="pack folders (default: the blind packs, shop, hr)")
    parser.add_argument("--failures", action="store_true", help="print each failing case (stderr)")
    parser.add_argument("--unsafe", action="store_true",
                        help="print only the unsafe cases (stderr): what a sealed pack may show")
    parser.add_argument("--kinds", action="store_true",
                        help="also count the failures by kind (no case text: fine for a sealed pack)")
    parser.add_argument("--today", type=date.fromisoformat,
                        help="plan as if today were this day (YYYY-MM-DD): the day relative-date cases were written")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-generality-") as tmp:
        for pack in args.packs or DEFAULT_PACKS:
            rows.extend(score_pack(pack.resolve(), Path(tmp), args.failures, args.unsafe, args.today))
    print(f"{'pack / cases':32} {'n':>4} {'exact':>7} {'status':>7} {'rule':>7} {'args':>7} {'unsafe':>6} "
          f"{'wrongW':>6} {'p50ms':>6} {'p95ms':>6}")
    for r in rows:
        print(f"{r['pack'] + ' / ' + r['cases_file']:32} {r['cases']:>4} {r['plan_exact']:>7.1%} "
              f"{r['status_accuracy']:>7.1%} {r['rule_accuracy']:>7.1%} {r['argument_accuracy']:>7.1%} "
              f"{r['unsafe']:>6} {r['wrong_writes']:>6} {r['p50_ms']:>6.1f} {r['p95_ms']:>6.1f}")
    if args.kinds:
        print("\nwhat failed (status expected→got; choice = planned the wrong rule or tool; steps = right rule, "
              "wrong steps; argument / environment / missing = right plan, wrong detail)")
        for r in rows:
            kinds = ", ".join(f"{k} {n}" for k, n in sorted(r["failure_kinds"].items(), key=lambda kv: -kv[1]))
            print(f"{r['pack'] + ' / ' + r['cases_file']:32} {kinds or '-'}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
