"""Fit the rule planner's choice weights (core/planning/choice.py) on dev packs. Prints them; not a test.

    python benchmarks/fit_choice.py [--write] [PACK_DIR ...]

A conditional-logit model: for each case, the candidates' scores w·features + b compete with a
"nothing fits" option of score 0, so a positive score means "more likely this one than nothing"
— the same threshold the planner uses for abstention. Cases expecting `planned` (with a rule, or a
single tool) teach which candidate is right; `no_match` cases teach the "nothing" option. Default
packs: the blind packs in benchmarks/generality/, the shop's dev set and hr. Held-out packs must
never be passed here.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LANCE_LOG", "error")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.assistant import Assistant  # noqa: E402
from core.evaluation import load_cases  # noqa: E402
from core.planning.choice import WEIGHTS  # noqa: E402
from core.planning.text import normalize  # noqa: E402
from core.settings import BUNDLED_KNOWLEDGE, Settings  # noqa: E402

FEATURES = list(WEIGHTS)
DEV = [*(p for p in sorted((ROOT / "benchmarks" / "generality").iterdir()) if (p / "pack.yaml").exists()),
       BUNDLED_KNOWLEDGE / "shop", BUNDLED_KNOWLEDGE / "hr"]


def groups(pack: Path, work: Path) -> list[tuple[np.ndarray, int]]:
    """(candidate feature matrix, index of the right one or -1 for "nothing fits") per case."""
    a = Assistant.from_settings(Settings(home=work / pack.name, knowledge=[pack], planner="rules"))
    p = a.rules
    out = []
    for cases_file in sorted((pack / "eval").glob("*.y*ml")):
        if cases_file.name == "holdout.yaml":
            continue
        for case in load_cases(cases_file):
            e = case.expect
            if e.status == "planned":
                want = f"rule:{e.rule}" if e.rule else f"tool:{e.tools[0]}" if e.tools and len(e.tools) == 1 else None
            elif e.status == "no_match":
                want = ""
            else:
                continue
            if want is None:
                continue
            text = p._without_environment(normalize(case.query))  # noqa: SLF001
            cands = p.candidates(text, p.voc.spans(text, p.today()), a.retrieve(case.query))
            keys = [c.key for c in cands]
            if want and want not in keys:
                continue
            x = np.array([[getattr(c, f) for f in FEATURES] for c in cands])
            out.append((x, keys.index(want) if want else -1))
    a.close()
    return out


def fit(data: list[tuple[np.ndarray, int]], l2: float = 0.05, steps: int = 4000, lr: float = 0.05) -> np.ndarray:
    w = np.zeros(len(FEATURES) + 1)  # last: bias
    for _ in range(steps):
        grad = l2 * np.append(w[:-1], 0.0)
        for x, y in data:
            s = x @ w[:-1] + w[-1]
            e = np.exp(s - max(s.max(), 0.0))
            z = e.sum() + np.exp(-max(s.max(), 0.0))
            p = e / z
            g = p.copy()
            if y >= 0:
                g[y] -= 1
            grad[:-1] += g @ x
            grad[-1] += g.sum()
        w -= lr * grad / len(data)
    return w


def write(w: np.ndarray) -> None:
    """Put the fitted weights (rounded) into core/planning/choice.py."""
    path = ROOT / "core" / "planning" / "choice.py"
    pairs = ", ".join(f'"{f}": {v:.2f}' for f, v in zip(FEATURES, w[:-1], strict=True))
    body = "WEIGHTS: dict[str, float] = {" + pairs + "}"
    lines, line = [], ""
    for part in body.split(", "):  # wrap at the project's line length
        if len(line) + len(part) + 2 > 108:
            lines.append(line + ",")
            line = " " * 29 + part
        else:
            line = f"{line}, {part}" if line else part
    lines.append(line)
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"WEIGHTS: dict\[str, float\] = \{.*?\}\nBIAS = -?[\d.]+", "\n".join(lines) + f"\nBIAS = {w[-1]:.2f}",
                  text, flags=re.S)
    path.write_text(text, encoding="utf-8")


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--write"]
    packs = [Path(p) for p in args] or DEV
    with tempfile.TemporaryDirectory() as tmp:
        data = [g for pack in packs for g in groups(pack.resolve(), Path(tmp))]
    w = fit(data)
    right = sum(((x @ w[:-1] + w[-1]).argmax() == y) if y >= 0 else ((x @ w[:-1] + w[-1]).max() < 0)
                for x, y in data)
    print(f"{len(data)} cases; {right / len(data):.1%} chosen right by the fitted scores")
    print("WEIGHTS = {" + ", ".join(f'"{f}": {v:.2f}' for f, v in zip(FEATURES, w[:-1], strict=True)) + "}")
    print(f"BIAS = {w[-1]:.2f}")
    if "--write" in sys.argv:
        write(w)


if __name__ == "__main__":
    main()
